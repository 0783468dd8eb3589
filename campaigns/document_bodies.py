"""Document bodies as a reader sees them: TREC SGML, HTML or plain text, made readable and inert.

Document HTML comes from crawls and is untrusted. nh3 (ammonia, a maintained sanitizer) keeps
only text-structure tags and *no attribute at all*: no scripts, no event handlers, no links
that run code or leave the page, no images or other external loads, no styles or classes that
could cover or hide the judging controls. Because no tag keeps an attribute, every tag in the
sanitized output is a bare ``<name>`` or ``</name>``, so term highlighting can split text from
tags exactly.

TREC SGML collections wrap their text in tags no HTML parser knows (``<TEXT>``, ``<HL>``,
``<LP>``…); the HTML parser drops some of them together with their text (``<TEXT>``, ``<IN>``,
``<G>`` are SVG names to it). So before sanitizing, every tag that is not HTML is renamed: the
headline fields of the TREC collections become ``<h2>``, their text blocks ``<div>`` (plain text
in them split into paragraphs at blank lines), and every other field — known (``<DATE>``,
``<BYLINE>``, ``<SO>``…) or not — a ``<p>``, its text kept. ``<DOCHDR>`` (a web page's HTTP
header in WT10g and GOV2) is dropped; a web page's ``<title>`` becomes its heading.
"""

from __future__ import annotations

import html
import re
from html import escape

import nh3

#: Structure a reader needs; everything else is dropped (its text kept).
ALLOWED_TAGS = frozenset(
    "p br hr h1 h2 h3 h4 h5 h6 ul ol li dl dt dd b strong i em u sub sup small blockquote pre code "
    "table thead tbody tfoot tr th td caption div span section article header footer a".split()
)
#: Dropped together with their content (never shown as text either).
DROPPED_WITH_CONTENT = frozenset({"script", "style", "noscript", "template", "iframe", "object", "svg", "math"})

#: Tags of HTML pages left to the sanitizer (allowed, dropped with their content, or unwrapped).
HTML_TAGS = ALLOWED_TAGS | DROPPED_WITH_CONTENT | frozenset(
    "html body meta link base img a abbr acronym address area audio b basefont bdi bdo big button canvas center "
    "cite col colgroup data datalist del details dfn dialog dir embed fieldset figcaption figure font form frame "
    "frameset input ins kbd label legend main map mark marquee menu meter nav nobr optgroup option output param "
    "picture progress q rp rt ruby s samp select source strike textarea time track tt var video wbr".split()
)
#: Headline fields of TREC collections (AP, WSJ, FT, LA Times, FBIS, FR, Ziff, AQUAINT); a web
#: page's ``<title>`` is shown as its heading too.
TREC_HEADINGS = frozenset({"headline", "hl", "head", "ti", "title", "doctitle", "ht"})
#: Text blocks of TREC collections; plain text inside is split into paragraphs at blank lines.
TREC_TEXT_BLOCKS = frozenset({"text", "lp", "leadpara", "body", "summary", "abs", "supplem", "f"})
#: Dropped with their content: a web page's HTTP header.
TREC_DROPPED = ("dochdr",)

_TAG = re.compile(r"<(/?)([A-Za-z][\w:.-]*)((?:\s[^>]*)?)/?>")
_DROPPED = re.compile(r"<(%s)\b[^>]*>.*?</\1\s*>" % "|".join(TREC_DROPPED), re.IGNORECASE | re.DOTALL)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_EMPTY_BLOCK = re.compile(r"<(h2|p|div)>\s*</\1>")  # a field or web page <head> with no text left


def sanitize(body: str) -> str:
    """Untrusted HTML → inert HTML: allowed tags only, no attributes, no comments."""
    return nh3.clean(
        body,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes={"*": set()},  # {} would mean "the defaults" (title, lang)
        link_rel=None,
        strip_comments=True,
    )


def _html_tag(match: re.Match) -> str:
    closing, name = match.group(1), match.group(2).lower()
    if name in HTML_TAGS:
        return match.group(0)
    if name in TREC_HEADINGS:
        return f"<{closing}h2>"
    if name in TREC_TEXT_BLOCKS:
        return f"<{closing}div>"
    return f"<{closing}p>"


def _paragraphs(block: re.Match) -> str:
    """A TREC text block of plain text (no ``<p>`` in it) split into paragraphs at blank lines."""
    inner = block.group(2)
    if re.search(r"<p[\s>]", inner, re.IGNORECASE) or not _PARAGRAPH_BREAK.search(inner):
        return block.group(0)
    paragraphs = "".join(f"<p>{p.strip()}</p>" for p in _PARAGRAPH_BREAK.split(inner) if p.strip())
    return f"{block.group(1)}{paragraphs}{block.group(3)}"


_TEXT_BLOCK = re.compile(
    r"(<(?:%s)\b[^>]*>)(.*?)(</(?:%s)\s*>)" % ("|".join(TREC_TEXT_BLOCKS), "|".join(TREC_TEXT_BLOCKS)),
    re.IGNORECASE | re.DOTALL,
)


def readable_html(body: str, *, is_html: bool) -> str:
    """The body to show, as inert HTML: TREC SGML and HTML sanitized, plain text as escaped paragraphs."""
    if not is_html:
        return "".join(f"<p>{escape(p.strip(), quote=False)}</p>" for p in _PARAGRAPH_BREAK.split(body) if p.strip())
    body = _DROPPED.sub("", body)
    body = _TEXT_BLOCK.sub(_paragraphs, body)
    return _EMPTY_BLOCK.sub("", sanitize(_TAG.sub(_html_tag, body)))


_BLOCK_TAG = re.compile(r"</?(?:p|div|h[1-6]|br|hr|li|dt|dd|tr|td|th|blockquote|pre|table|caption)>")


def plain_text(body: str, *, is_html: bool) -> str:
    """The body's words without any markup (for tables and for counting unreadable documents);
    a line break where a block ended."""
    if not is_html:
        return body
    lines = _BLOCK_TAG.sub("\n", readable_html(body, is_html=True))
    return html.unescape(nh3.clean(lines, tags=set()))


def is_unreadable(body: str, *, is_html: bool) -> bool:
    """True when a reader would see nothing: no body, or one whose every word is markup or script."""
    return not plain_text(body, is_html=is_html).strip()
