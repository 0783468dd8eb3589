"""``{{ reason|footnote:notes }}``: the number of a footnote (an undefined value's reason) in a page's legend."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def footnote(reason: str, notes: dict[str, int]) -> int | str:
    """The legend's number for ``reason`` (see ``judging.agreement_charts.undefined_reasons``); "" if absent."""
    return notes.get(reason, "")
