"""HTML tables of the report: a cell is a string, a (text, css class) pair, or a (text, css class,
tooltip) triple; a line break in the text is kept (a headline cell holds figure, case and share),
and a comma may break the line."""

import re
from html import escape


def cell(c, tag="td"):
    if isinstance(c, tuple):
        text, cls = c[0], c[1]
        title = f' title="{escape(c[2])}"' if len(c) > 2 else ""
        return f'<{tag} class="{escape(cls)}"{title}>{_text(text)}</{tag}>'
    return f"<{tag}>{_text(c)}</{tag}>"


def _text(t):
    # a size label ("neurons=500000,fanout=50,bursts=50") may break after its commas: without that
    # it is the widest thing in a narrow window's table (", " breaks at its space already)
    return re.sub(r",(?=\S)", ",<wbr>", escape(str(t)).replace("\n", "<br>"))


def table(headers, rows, box="scroll"):
    """The table inside its own box (CSS class box), which scrolls sideways when the table is wider
    than the page: a column is never cut off."""
    head = "".join(cell(h, "th") for h in headers)
    body = "\n".join("<tr>" + "".join(cell(c) for c in r) + "</tr>" for r in rows)
    return f'<div class="{box}"><table><thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table></div>'
