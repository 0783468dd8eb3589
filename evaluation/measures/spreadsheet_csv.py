"""The one CSV writer of every download and export: cells a spreadsheet would run as a formula are made text.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to
Excel, LibreOffice and Google Sheets ("CSV injection", OWASP), and run tags, topic titles, team
names and notes are typed by participants. Such a cell gets a leading ``'``, OWASP's rule, which
the spreadsheets show as text. One exception, chosen so that numbers stay numbers: a cell that is
a plain decimal number (``-0.5``, ``+3``, ``-1.5e-07``, or an ``int``/``float`` the app wrote) is
left as it is; no spreadsheet evaluates it as anything but that number. ``-2+3`` or
``-1+cmd|' /C calc'!A0`` are not plain numbers and are escaped.

It lives with the engine (stdlib only) so that the engine's own CSV report
(``report.write_csv``) and the apps' downloads share it.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def neutralise(cell: Any) -> Any:
    """``cell``, with a leading ``'`` if it is text a spreadsheet would run as a formula."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


class SpreadsheetWriter:
    """``csv.writer``'s ``writerow``/``writerows``, each cell passed through :func:`neutralise`."""

    def __init__(self, out, **options) -> None:
        self._writer = csv.writer(out, **options)

    def writerow(self, row: Iterable[Any]):
        return self._writer.writerow([neutralise(cell) for cell in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(out, **options) -> SpreadsheetWriter:
    """A CSV writer on ``out`` (``csv.writer``'s options) whose cells are safe to open in a spreadsheet."""
    return SpreadsheetWriter(out, **options)
