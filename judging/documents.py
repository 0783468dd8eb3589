"""Documents as the judging page shows them: bodies made readable and inert
(:mod:`campaigns.document_bodies`), topic terms marked.

Because no tag of a sanitized body keeps an attribute, every tag in it is a bare ``<name>`` or
``</name>``, so the term highlighting here can split text from tags exactly and only ever wraps
text in ``<mark>``.
"""

from __future__ import annotations

import re

from campaigns.document_bodies import readable_html

STOPWORDS = frozenset(
    "a an and are as at be by can do does for from has have how in into is it its of on or that the their "
    "there these this to was were what when where which who why will with about between after before".split()
)
_TAG = re.compile(r"(<[^>]*>)")
_WORD = re.compile(r"[^\W_]+")


SUFFIXES = ("ing", "ed", "es", "s")


def topic_terms(text: str) -> list[str]:
    """Words of a topic statement worth marking: three letters or more, stopwords left out, unique.

    A common English ending is cut when four letters remain ("recycling" → "recycl"), so that
    the prefix match of :func:`highlight` also marks "recycled" and "recycles".
    """
    terms = []
    for word in _WORD.findall(text.lower()):
        if len(word) < 3 or word in STOPWORDS:
            continue
        for suffix in SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 4:
                word = word[: -len(suffix)]
                break
        if word not in terms:
            terms.append(word)
    return terms


def assessor_terms(text: str) -> list[str]:
    """An assessor's own highlight words, as typed (commas or spaces between them): lowercased,
    two letters or more, unique, at most 30. Marked like the topic's words, at the start of a
    word, but not cut to a stem: the assessor chose them."""
    terms = []
    for word in _WORD.findall(text.lower()):
        if len(word) >= 2 and word not in terms:
            terms.append(word)
    return terms[:30]


def highlight(html: str, terms: list[str]) -> str:
    """Wrap words starting with a term in ``<mark>``, in text only (``html`` must be sanitized).

    A term matches at the start of a word and runs to the word's end, so "panel" marks
    "panels"; an entity (``&amp;``) is never matched because a term may not follow ``&`` or ``#``.
    """
    if not terms:
        return html
    pattern = re.compile(
        # \b, then not after & or #: the same as (?<![&#\w]) before a word, and a third faster
        r"\b(?<![&#])(?:" + "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)) + r")\w*",
        re.IGNORECASE,
    )
    parts = _TAG.split(html)
    for i in range(0, len(parts), 2):  # even indices are text between tags
        parts[i] = pattern.sub(lambda m: f"<mark>{m.group(0)}</mark>", parts[i])
    return "".join(parts)


def document_html(body: str, *, is_html: bool, terms: list[str]) -> str:
    """The body to show (TREC SGML, HTML or plain text, made inert), terms marked."""
    return highlight(readable_html(body, is_html=is_html), terms)
