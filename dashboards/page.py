"""An HTML page: plotly.js embedded once (or loaded from the server that serves the page), every figure a div, and
all text escaped. It fits a phone's width: a viewport, and nothing wider than the screen."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from html import escape

import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

STYLE = """
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 1em 2em; color: #222; }
h1 { margin-bottom: 0.2em; overflow-wrap: anywhere; } h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em;
margin-top: 2em; overflow-wrap: anywhere; }
p.summary { font-size: 1.05em; line-height: 1.5; overflow-wrap: anywhere; } .figure { margin: 1em 0; }
.note { color: #666; }
p.method { color: #555; font-size: 0.9em; margin: 0 0 2em 0; } nav.contents ol { columns: 2; }
table.plain { border-collapse: collapse; } table.plain td, table.plain th { padding: 0.2em 0.8em; text-align: left; }
section, .figure { max-width: 100%; min-width: 0; }
@media (max-width: 700px) {
  body { padding: 0.5em; }
  table.plain { display: block; max-width: 100%; overflow-x: auto; }
}
"""
VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'


@dataclass
class Section:
    """A heading, paragraphs of text (escaped here) and figures."""

    title: str
    paragraphs: list[str] = field(default_factory=list)
    figures: list[go.Figure] = field(default_factory=list)
    html: str = ""  # markup after the figures, already escaped (built with `escape`)
    anchor: str = ""  # the section's id, for a table of contents to link to


def figure_div(fig: go.Figure, div_id: str) -> str:
    """The figure as a div with its script; plotly.js is not included."""
    return pio.to_html(
        fig, full_html=False, include_plotlyjs=False, div_id=div_id, config={"responsive": True}, auto_play=False
    )


@cache
def _embedded() -> str:
    return f'<script type="text/javascript">{get_plotlyjs()}</script>'


@cache
def plotly_bytes() -> bytes:
    """plotly.js as a server sends it: the plotly package's own file, the one a page for a file embeds."""
    return get_plotlyjs().encode("utf-8")


@cache
def plotly_hash() -> str:
    """The Subresource Integrity hash of `plotly_bytes`, `sha256-...`: a served page's script element carries it, and
    its Content-Security-Policy allows that script by it."""
    return "sha256-" + base64.b64encode(hashlib.sha256(plotly_bytes()).digest()).decode()


def plotly_script(src: str | None) -> str:
    """The element that brings plotly.js: the whole library inline (a page for a file, which opens offline), or a
    script loaded from `src` (a served page: the browser fetches and caches it once for every page)."""
    if src is None:
        return _embedded()
    return f'<script src="{escape(src)}" integrity="{plotly_hash()}"></script>'


def linked(html: str, src: str) -> str:
    """A page made with plotly.js inline, loading it from `src` instead."""
    return html.replace(_embedded(), plotly_script(src), 1)


def page(title: str, sections: Sequence[Section], head: str = "", tail: str = "", plotly: str | None = None) -> str:
    """The whole page. `head` and `tail` are trusted markup (styles, scripts) of the page's own making; `plotly`, the
    address to load plotly.js from (None: embed it)."""
    body = [f"<h1>{escape(title)}</h1>"]
    number = 0
    for section in sections:
        anchor = f' id="{escape(section.anchor)}"' if section.anchor else ""
        body.append(f"<section{anchor}><h2>{escape(section.title)}</h2>")
        body += [f'<p class="summary">{escape(text)}</p>' for text in section.paragraphs]
        for fig in section.figures:
            number += 1
            body.append(f'<div class="figure">{figure_div(fig, f"figure-{number}")}</div>')
            method = fig.layout.meta.get("method") if isinstance(fig.layout.meta, dict) else None
            if method:  # the figure's method, one line under it
                body.append(f'<p class="method">{escape(method)}</p>')
        body.append(section.html)
        body.append("</section>")
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">{VIEWPORT}'
        f"<title>{escape(title)}</title><style>{STYLE}</style>{head}"
        f"{plotly_script(plotly)}</head>"
        f"<body>{''.join(body)}{tail}</body></html>\n"
    )
