"""The answer to an assessor's judging page while the campaign is not judging: their topics, with why.

``campaigns.access.refuse_judging_unless_open`` raises ``JudgingClosed``; this middleware turns
it into a redirect to the assessor's topics carrying the reason as a message (htmx follows it
with ``HX-Redirect``, so a panel never swaps in a whole page). A grade posted then is not saved,
and the message says so.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from campaigns.access import JudgingClosed


class JudgingClosedMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, JudgingClosed):
            return None
        unsaved = " Nothing was saved." if request.method not in ("GET", "HEAD") else ""
        messages.warning(request, f"{exception.campaign.name}: {exception.reason}{unsaved}")
        home = reverse("assess_home")
        if getattr(request, "htmx", False):
            return HttpResponse(status=204, headers={"HX-Redirect": home})
        return redirect(home)
