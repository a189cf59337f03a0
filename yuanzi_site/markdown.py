"""A small, safe Markdown renderer for the site's own documents (``/fairness/``
shows docs/fairness.md): the subset they use, nothing more, and no raw HTML.

Blocks: ATX headings (``#`` … ``######``), paragraphs, ordered (``1.``) and
unordered (``-``, ``*``) lists whose items may hold paragraphs and code,
fenced code (```` ``` ````, an info string such as ``python`` kept as a class)
and indented code (4 spaces). Inline: ```code```, ``**strong**``, ``*em*``
and ``[text](url)`` links (``http(s)://``, ``/`` paths or ``#`` anchors only;
any other link stays text). Every character of the source is HTML-escaped
before any tag is added, so the output holds only the tags above.

>>> str(render("# Title\\n\\nSome **bold** `x<y`."))
'<h1 id="title">Title</h1>\\n<p>Some <strong>bold</strong> <code>x&lt;y</code>.</p>'
"""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s{0,3})(\d{1,9}[.)]|[-*+])\s+(.*)$")
_FENCE = re.compile(r"^\s{0,3}```\s*([\w+-]*)\s*$")
_INLINE = re.compile(
    r"`(?P<code>[^`]+)`"
    r"|\*\*(?P<strong>[^*]+)\*\*"
    r"|\*(?P<em>[^*\s][^*]*)\*"
    r"|\[(?P<text>[^\]]+)\]\((?P<url>[^)\s]+)\)")
_SAFE_URL = re.compile(r"^(https?://|/|#)[^\s\"'<>]*$")


def render(text: str) -> SafeString:
    """``text`` (Markdown, the subset above) as HTML, safe to put in a page."""
    return mark_safe("\n".join(_blocks(text.replace("\r\n", "\n").split("\n"))))


def _inline(text: str) -> str:
    """One line's inline markup; everything else escaped."""
    out: list[str] = []
    last = 0
    for m in _INLINE.finditer(text):
        out.append(escape(text[last:m.start()]))
        if m.group("code") is not None:
            out.append(f"<code>{escape(m.group('code'))}</code>")
        elif m.group("strong") is not None:
            out.append(f"<strong>{escape(m.group('strong'))}</strong>")
        elif m.group("em") is not None:
            out.append(f"<em>{escape(m.group('em'))}</em>")
        elif _SAFE_URL.match(m.group("url")):
            out.append(f'<a href="{escape(m.group("url"))}">{escape(m.group("text"))}</a>')
        else:
            out.append(escape(m.group(0)))
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.lower()).strip("-")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blocks(lines: list[str]) -> list[str]:
    """The HTML blocks of ``lines`` (a document, or a list item's content)."""
    html: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            j = i + 1
            while j < n and not _FENCE.match(lines[j]):
                j += 1
            lang = f' class="language-{escape(fence.group(1))}"' if fence.group(1) else ""
            html.append(f"<pre><code{lang}>{escape(chr(10).join(lines[i + 1:j]))}</code></pre>")
            i = j + 1
            continue
        if _indent(line) >= 4:
            j = i
            while j < n and (not lines[j].strip() or _indent(lines[j]) >= 4):
                j += 1
            while j > i and not lines[j - 1].strip():
                j -= 1
            code = "\n".join(x[4:] for x in lines[i:j])
            html.append(f"<pre><code>{escape(code)}</code></pre>")
            i = j
            continue
        heading = _HEADING.match(line)
        if heading:
            level, title = len(heading.group(1)), heading.group(2)
            html.append(f'<h{level} id="{escape(_slug(title))}">{_inline(title)}</h{level}>')
            i += 1
            continue
        if _ITEM.match(line):
            i = _list(lines, i, html)
            continue
        j = i
        while (j < n and lines[j].strip() and not _HEADING.match(lines[j])
               and not _FENCE.match(lines[j]) and not (j > i and _ITEM.match(lines[j]))):
            j += 1
        html.append("<p>" + "\n".join(_inline(x.strip()) for x in lines[i:j]) + "</p>")
        i = j
    return html


def _list(lines: list[str], i: int, html: list[str]) -> int:
    """Render the list starting at ``lines[i]`` into ``html``; returns the
    index after it."""
    first = _ITEM.match(lines[i])
    assert first is not None
    ordered = first.group(2)[0].isdigit()
    items: list[str] = []
    n = len(lines)
    while i < n:
        m = _ITEM.match(lines[i])
        if m is None or m.group(2)[0].isdigit() != ordered:
            break
        width = len(m.group(1)) + len(m.group(2)) + 1  # where the item's text starts
        body = [m.group(3)]
        j = i + 1
        while j < n:
            nxt = lines[j]
            if nxt.strip() and _indent(nxt) < width and not body[-1].strip():
                break  # a blank line, then something not indented: the item ends
            if nxt.strip() and _indent(nxt) < width and _ITEM.match(nxt):
                break
            if nxt.strip() and _indent(nxt) < width and (_HEADING.match(nxt) or _FENCE.match(nxt)):
                break
            body.append(nxt[width:] if _indent(nxt) >= width else nxt.strip())
            j += 1
        inner = _blocks(body)
        # a tight item (one paragraph) is shown without its <p>
        if len(inner) == 1 and inner[0].startswith("<p>"):
            inner = [inner[0][3:-4]]
        items.append("<li>" + "\n".join(inner) + "</li>")
        i = j
        while i < n and not lines[i].strip():
            if i + 1 < n and _ITEM.match(lines[i + 1]):
                i += 1
            else:
                break
    tag = "ol" if ordered else "ul"
    html.append(f"<{tag}>" + "".join(items) + f"</{tag}>")
    return i
