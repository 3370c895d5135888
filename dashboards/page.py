"""A self-contained HTML page: plotly.js embedded once, every figure a div, and all text escaped."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

STYLE = """
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 1em 2em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 2em; }
p.summary { font-size: 1.05em; line-height: 1.5; } .figure { margin: 1em 0; } .note { color: #666; }
p.method { color: #555; font-size: 0.9em; margin: 0 0 2em 0; } nav.contents ol { columns: 2; }
table.plain { border-collapse: collapse; } table.plain td, table.plain th { padding: 0.2em 0.8em; text-align: left; }
"""


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


def page(title: str, sections: Sequence[Section], head: str = "", tail: str = "") -> str:
    """The whole page. `head` and `tail` are trusted markup (styles, scripts) of the page's own making."""
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
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{STYLE}</style>{head}"
        f'<script type="text/javascript">{get_plotlyjs()}</script></head>'
        f"<body>{''.join(body)}{tail}</body></html>\n"
    )
