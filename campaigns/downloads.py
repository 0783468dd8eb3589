"""Responses the browser saves as a file: every download of the app (qrels, runs, topics, CSV tables)."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.http import content_disposition_header

CSV = "text/csv; charset=utf-8"
TEXT = "text/plain; charset=utf-8"


def attachment(filename: str, content_type: str = CSV, content: str | bytes = b"") -> HttpResponse:
    """A response saved as ``filename``: write the file into it (or pass ``content``).

    The name is quoted as RFC 6266 says for any characters: a run tag may hold quotes or
    non-ASCII letters, which a plain ``filename="…"`` would break or garble.
    """
    return HttpResponse(content, content_type=content_type,
                        headers={"Content-Disposition": content_disposition_header(True, filename)})
