"""Text that must stay on one line: a campaign's name, which mail subjects and page titles carry.

A line break in a mail subject is a header injection; Django refuses to send it (``BadHeaderError``),
so an organizer's name with a newline would break every mail of the campaign. Names are refused
with one (:func:`validate_single_line`, on the model field: the forms and the admin run it), and
what goes into a subject is made one line anyway (:func:`single_line`), for names stored before.
"""

from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError

#: Unicode categories that break or hide a line: control characters (``\n``, ``\r``, ``\t``, NUL,
#: ESC …) and the line and paragraph separators.
BREAKING = {"Cc", "Zl", "Zp"}


def validate_single_line(value: str) -> None:
    """Refuse ``value`` if it holds a control character or a line separator, naming the first."""
    for position, character in enumerate(value, start=1):
        if unicodedata.category(character) in BREAKING:
            raise ValidationError(f"no line breaks or control characters, please: {character!r} at character {position}",
                                  code="single_line")


def single_line(text: str) -> str:
    """``text`` with every run of control characters, separators and spaces made one space: safe for a header."""
    return " ".join("".join(" " if unicodedata.category(c) in BREAKING else c for c in text).split())
