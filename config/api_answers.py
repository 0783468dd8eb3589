"""Every answer under ``/api/`` is JSON: ``{"detail": …, "reason": …}`` for the errors the API's own
handlers (evaluation/api.py) never see.

django-ninja answers its endpoints' errors as JSON, but some answers are made outside it: a
wrong method (405), a request refused before any view (a NUL character, 400; a body too large,
400 or 413), a POST that Django's CSRF check stops (403), an exception outside ninja (500). A
script reading the API must not meet an HTML page there, so this middleware, first in
``MIDDLEWARE``, rewrites any non-JSON answer under ``/api/`` as the JSON error of its status,
keeping its headers (``Allow``, ``Retry-After``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from http import HTTPStatus

from django.http import HttpRequest, HttpResponse

from evaluation.api import REASONS

PREFIX = "/api/"


def is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").split(";")[0].strip() == "application/json"


def as_json_error(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """``response``'s status and headers (``Allow``, ``Retry-After``, the security headers) with a JSON error body."""
    body = {"detail": _detail(request, response), "reason": REASONS.get(response.status_code, "error")}
    answer = HttpResponse(json.dumps(body), status=response.status_code, content_type="application/json; charset=utf-8")
    for name, value in response.items():
        if name.lower() not in {"content-type", "content-length", "content-disposition"}:
            answer[name] = value
    return answer


def _detail(request: HttpRequest, response: HttpResponse) -> str:
    if response.status_code == 405:
        return f"{request.method} is not allowed here; allowed: {response.get('Allow', 'none')}"
    if response.status_code == 403:
        return "forbidden: the API takes your team's token ('Authorization: Bearer TOKEN'), not a session's cookie"
    if response.status_code >= 500:
        return "the server failed to answer; the administrators find the cause in its log"
    if response.status_code == 400:
        return ("the request cannot be read (a NUL character in its address, query or fields, or a broken or "
                "too large body). Nothing was stored.")
    return HTTPStatus(response.status_code).phrase


class ApiJsonMiddleware:
    """Rewrites a non-JSON answer under ``/api/`` as a JSON error (module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path_info.startswith(PREFIX) or is_json(response) or response.status_code < 400:
            return response
        return as_json_error(request, response)
