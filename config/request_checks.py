"""Requests refused before any view: NUL characters in the address, the query or a form's fields.

PostgreSQL's text cannot hold NUL (``\\x00``); Django then raises ``ValueError`` from deep inside a
query or a save, which would be a 500 on whichever page first used the value. No identifier,
search or form value of the app means anything with a NUL in it, so one check here answers
400 Bad Request for all of them (JSON under ``/api/``, like every API answer). A NUL hidden one
level deeper, in a percent-escaped topic or run tag segment (``%2500``), is refused by the
segment converter (``campaigns.identifiers.SegmentConverter``): 404.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse, QueryDict

NUL = "\x00"
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _holds_nul(values: QueryDict) -> bool:
    return any(NUL in key or any(NUL in value for value in values.getlist(key)) for key in values)


def nul_in(request: HttpRequest) -> str | None:
    """Where ``request`` carries a NUL character (``"address"``, ``"query"``, ``"form"``), or None."""
    if NUL in request.path_info:
        return "address"
    if _holds_nul(request.GET):
        return "query"
    if request.method == "POST" and request.content_type in FORM_TYPES and _holds_nul(request.POST):
        return "form"
    return None


class RefuseNulMiddleware:
    """400 for a request with a NUL character in its address, query or form fields (module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        where = nul_in(request)
        if where is not None:
            raise BadRequest(f"the request's {where} holds a NUL character")
        return self.get_response(request)
