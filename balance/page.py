"""A report as a list of blocks, written both as markdown and as one self-contained HTML page.

The same blocks give both files, so the page a designer opens in a browser says what the markdown
says; its figures are embedded (base64 PNG), so the page can be mailed or archived alone.
"""
from __future__ import annotations

import base64
import html
import re
from pathlib import Path

STYLE = ("body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;line-height:1.45}"
         "table{border-collapse:collapse;margin:1em 0;font-size:90%}td,th{border:1px solid #ccc;padding:2px 6px}"
         "th{background:#f0f0f0}img{max-width:100%}")


def table(header: list[str], rows: list[list]) -> str:
    """A markdown table (every report of the lab writes its tables with it)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


class Page:
    def __init__(self, title: str):
        self.title = title
        self.blocks: list[tuple] = []

    def heading(self, text: str, level: int = 2) -> None:
        self.blocks.append(("h", level, text))

    def text(self, text: str) -> None:
        self.blocks.append(("p", text))

    def bullets(self, items: list[str]) -> None:
        self.blocks.append(("ul", items))

    def table(self, header: list[str], rows: list[list]) -> None:
        self.blocks.append(("table", header, [[str(x) for x in row] for row in rows]))

    def figure(self, path: Path, alt: str) -> None:
        """A PNG already saved next to the report (the markdown links it, the page embeds it)."""
        self.blocks.append(("img", Path(path), alt))

    def markdown(self) -> str:
        out = [f"# {self.title}\n"]
        for b in self.blocks:
            if b[0] == "h":
                out.append(f"{'#' * b[1]} {b[2]}\n")
            elif b[0] == "p":
                out.append(b[1] + "\n")
            elif b[0] == "ul":
                out.append("\n".join(f"- {item}" for item in b[1]) + "\n")
            elif b[0] == "table":
                out.append(table(b[1], b[2]))
            else:
                out.append(f"![{b[2]}]({b[1].name})\n")
        return "\n".join(out)

    def html(self) -> str:
        body = []
        for b in self.blocks:
            if b[0] == "h":
                body.append(f"<h{b[1]}>{_inline(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                body.append(f"<p>{_inline(b[1])}</p>")
            elif b[0] == "ul":
                body.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in b[1]) + "</ul>")
            elif b[0] == "table":
                head = "".join(f"<th>{_inline(h)}</th>" for h in b[1])
                rows = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>" for r in b[2])
                body.append(f"<table><tr>{head}</tr>{rows}</table>")
            else:
                data = base64.b64encode(b[1].read_bytes()).decode("ascii")
                body.append(f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(b[2])}">'
                            f"<figcaption>{html.escape(b[2])}</figcaption></figure>")
        return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(self.title)}'
                f"</title><style>{STYLE}</style></head><body><h1>{html.escape(self.title)}</h1>\n"
                + "\n".join(body) + "\n</body></html>\n")


def _inline(text: str) -> str:
    """Markdown's bold, code and links in a line of text, escaped for HTML."""
    text = html.escape(text, quote=False)
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    text = re.sub(r"`(.+?)`", r"<code>\1</code>", text)
    return re.sub(r"\[(.+?)\]\((.+?)\)", r'<a href="\2">\1</a>', text)
