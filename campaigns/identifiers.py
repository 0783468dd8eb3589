"""The identifiers the app puts in URLs, file names and pages: run tags and topic identifiers.

Run tags follow TREC's rule: letters, digits, ``_``, ``-`` and ``.``, beginning with a letter or
a digit, at most 100 characters. Downloads are named after them. A database from before the
rule may hold other tags (``evil/tag``): their URLs are escaped like topics', so every page
still works for them.

Topic identifiers are what the collections use, which is more: TREC's are numbers (``301``) or
numbers with a suffix (``31_1``, ``MB01``), CLEF's are DOIs (``10.2452/41-AH``). So a topic may
be any printable text without white space, at most 64 characters, and its URLs escape it
(:class:`SegmentConverter`): ``/`` does not end the path segment, ``.`` and ``..`` do not climb
one. The limits are ``evaluation.measures.trec_files.LIMITS``, the width of the database
columns, so SQLite and PostgreSQL accept the same identifiers. ``docs/formats.md`` states the
rules.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

from evaluation.measures.trec_files import LIMITS

RUN_TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
#: The run-tag rule, in the words error messages use.
RUN_TAG_RULE = "letters, digits, '_', '-' and '.', beginning with a letter or a digit"


def natural_key(identifier: str) -> tuple:
    """Sort key of a topic identifier with its numbers read as numbers: ``2`` before ``10``,
    ``31`` before ``31_1`` before ``31_2`` before ``31_10``, ``MB9`` before ``MB10``.

    The identifier split into text and digit runs, the digits as integers; a shorter key that
    is a prefix of a longer one comes first.
    """
    parts = _DIGITS.split(identifier)
    return tuple(int(part) if i % 2 else part for i, part in enumerate(parts))


_DIGITS = re.compile(r"(\d+)", re.ASCII)


def shortened(name: str, limit: int) -> str:
    """``name`` if it has at most ``limit`` characters, else cut in the middle to ``limit``, the cut
    marked ``…``: its start and its last 40 characters (the extension, a date or a version) stay.

    For the file names the app stores (a judgment's ``qrels:NAME`` source, a run's file): a file
    system allows 255 bytes, more than their columns hold.
    """
    if len(name) <= limit:
        return name
    tail = min(40, (limit - 1) // 2)
    return name[: limit - 1 - tail] + "…" + name[len(name) - tail:]


def identifier_problem(kind: str, value: str) -> str | None:
    """Why ``value`` cannot be a ``kind`` ("run tag" or "topic"), or None if it can."""
    limit = LIMITS[kind]
    if len(value) > limit:
        return f"{kind} {value[:40]!r}… is {len(value):,} characters long; at most {limit} are allowed"
    if kind == "run tag" and not RUN_TAG.fullmatch(value):
        return f"run tag {value!r} may hold only {RUN_TAG_RULE}"
    if kind == "topic" and (not value or not value.isprintable() or any(c.isspace() for c in value)):
        return f"topic {value!r} must be printable text without white space"
    return None


class SegmentConverter:
    """A topic identifier or a run tag as one URL path segment, whatever it holds (module docstring).

    ``to_url`` percent-escapes everything but letters, digits and ``_.-~`` (``10.2452/41-AH`` →
    ``10.2452%2F41-AH``, and the dots of ``.`` and ``..``); Django escapes the ``%`` once more
    when it builds the URL, the server decodes it once, and ``to_python`` decodes the rest.
    """

    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        decoded = unquote(value)
        if "\x00" in decoded:  # no identifier holds one, and PostgreSQL's text cannot: 404 (config/request_checks.py)
            raise ValueError("a NUL character in a path segment")
        return decoded

    def to_url(self, value: str) -> str:
        escaped = quote(value, safe="")
        return escaped.replace(".", "%2E") if escaped in {".", ".."} else escaped
