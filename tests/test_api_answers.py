"""Every answer under /api/ is JSON with a ``detail`` and a ``reason``, also those made outside
django-ninja: unknown addresses, wrong methods, requests refused before any view, a CSRF-looking
POST from a logged-in browser, a server error."""

from __future__ import annotations

import json

import pytest
from django.http import HttpResponse, HttpResponseNotAllowed, HttpResponseServerError
from django.test import Client, RequestFactory

from config.api_answers import ApiJsonMiddleware

pytestmark = pytest.mark.django_db


def error(response, status: int, reason: str) -> dict:
    assert response.status_code == status and response["Content-Type"].startswith("application/json"), response.content[:200]
    body = json.loads(response.content)
    assert body["reason"] == reason and body["detail"]
    return body


def test_an_unknown_address_is_a_json_404_for_any_method(client):
    for method in ("get", "post", "put", "delete"):
        body = error(getattr(client, method)("/api/no/such/thing"), 404, "not_found")
        assert "/api/openapi.json" in body["detail"]


def test_a_wrong_method_is_a_json_405_that_names_the_allowed_ones(client):
    for method, path in (("get", "/api/campaigns/cds15/runs"), ("post", "/api/team"), ("delete", "/api/campaigns/x/scores")):
        response = getattr(client, method)(path)
        body = error(response, 405, "method_not_allowed")
        assert response["Allow"] in body["detail"]


def test_a_logged_in_browsers_post_without_a_csrf_token_is_answered_in_json(organizer):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(organizer)
    error(browser.post("/api/campaigns/cds15/runs", {"priority": "1"}), 401, "unauthenticated")  # the token, not the cookie
    error(browser.post("/api/campaigns/cds15/run"), 404, "not_found")  # was Django's HTML CSRF page (403)


def test_a_request_refused_before_any_view_is_a_json_400(client, settings):
    error(client.get("/api/team", {"q": "\x00"}), 400, "invalid")
    error(client.get("/api/campaigns/%00/scores"), 400, "invalid")
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    error(client.post("/api/campaigns/cds15/runs", {f"f{n}": "x" for n in range(10)}), 400, "invalid")


def test_a_server_error_outside_ninja_is_json_and_keeps_its_headers():
    def failing(request):
        response = HttpResponseServerError("<h1>Server Error (500)</h1>")
        response["X-Content-Type-Options"] = "nosniff"
        return response

    response = ApiJsonMiddleware(failing)(RequestFactory().get("/api/team"))
    assert error(response, 500, "server_error")["detail"].startswith("the server failed to answer")
    assert response["X-Content-Type-Options"] == "nosniff"
    allowed = ApiJsonMiddleware(lambda request: HttpResponseNotAllowed(["POST"]))(RequestFactory().get("/api/x"))
    assert allowed["Allow"] == "POST" and error(allowed, 405, "method_not_allowed")


def test_pages_outside_the_api_are_left_alone():
    page = ApiJsonMiddleware(lambda request: HttpResponse("<p>no</p>", status=404))(RequestFactory().get("/c/x/"))
    assert page["Content-Type"].startswith("text/html") and page.content == b"<p>no</p>"
