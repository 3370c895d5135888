"""Headers for the browser: no response is sniffed as another type, and a page runs only its own scripts.

A page's scripts are inline (plotly.js, each figure's, the replay's slider), so the Content-Security-Policy allows
each by its SHA-256 and nothing else: a `javascript:` link or an `on...` attribute that a log's text might become
runs nothing, and no script is loaded from anywhere. The pages are built by `dashboards`, which escapes every text
from a log; the policy is the second lock, not the first.
"""

from __future__ import annotations

import base64
import hashlib
import re

from fastapi.responses import HTMLResponse
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_SCRIPT = re.compile(r"<script(?P<attributes>[^>]*)>(?P<text>.*?)</script\s*>", re.S | re.I)
_DATA_BLOCK = re.compile(r"""\btype\s*=\s*["']?application/json""", re.I)
# Plotly sets styles from script (element styles and a <style> it adds), so inline styles stay allowed; data:
# images are its mode bar's icons and a figure saved as a picture.
POLICY = (
    "default-src 'none'; script-src {scripts}; style-src 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def script_hashes(page: str) -> list[str]:
    """The CSP sources of a page's inline scripts, one 'sha256-...' each (JSON data blocks are not run: none)."""
    sources = []
    for found in _SCRIPT.finditer(page):
        if _DATA_BLOCK.search(found["attributes"]) or "src=" in found["attributes"].lower():
            continue
        digest = base64.b64encode(hashlib.sha256(found["text"].encode()).digest()).decode()
        sources.append(f"'sha256-{digest}'")
    return sorted(set(sources))


def content_security_policy(page: str) -> str:
    """The Content-Security-Policy of a page: its own inline scripts and nothing else."""
    return POLICY.format(scripts=" ".join(script_hashes(page)) or "'none'")


def html_page(page: str) -> HTMLResponse:
    """A page, with its Content-Security-Policy."""
    return HTMLResponse(page, headers={"Content-Security-Policy": content_security_policy(page)})


class NoSniff:
    """Send `X-Content-Type-Options: nosniff` with every response, errors included: a JSON answer that quotes a
    log's text is never read by a browser as a page or a script."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)["X-Content-Type-Options"] = "nosniff"
            await send(message)

        await self.app(scope, receive, sending)
