"""Every link the app shows each role leads somewhere: crawled from the home page on the demo campaign.

For the organizer, the assessor and the participant in turn, every same-site link on every page
reached (GET, query strings included, the admin and logging out left aside) must answer 200
(a page or a download) or redirect to a page that does. A link to a page its viewer may not see,
a view that fails on the demo's data, or a link the URL configuration no longer has fails here.
"""

from __future__ import annotations

import io
import re
from html import unescape
from urllib.parse import urldefrag, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

pytestmark = pytest.mark.django_db

LINK = re.compile(r'<a\b[^>]*\bhref="([^"]+)"')
SKIP = ("/admin/", "/accounts/logout/", "/static/")
MOST = 1000  # pages per role; the demo has fewer (the assessor reaches each of the ~400 documents of their queues)


def crawl(client) -> dict[str, int]:
    """Status of every page reached from the home page (redirects followed), by address."""
    seen: dict[str, int] = {}
    todo = ["/"]
    while todo and len(seen) < MOST:
        address = todo.pop()
        if address in seen:
            continue
        response = client.get(address, follow=True)
        seen[address] = response.status_code
        if response.status_code != 200 or not response["Content-Type"].startswith("text/html"):
            continue
        for href in LINK.findall(response.content.decode()):
            target = urldefrag(unescape(href))[0]
            parts = urlsplit(target)
            if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith(SKIP):
                continue
            todo.append(target)
    return seen


@pytest.mark.parametrize("role", ["organizer", "assessor", "participant"])
def test_every_link_shown_to_a_role_leads_to_a_page_or_a_download(client, role):
    call_command("load_demo", stdout=io.StringIO())
    client.force_login(get_user_model().objects.get(username=role))
    seen = crawl(client)
    broken = {address: status for address, status in seen.items() if status != 200}
    assert broken == {}
    assert len(seen) < MOST
    assert len(seen) > {"organizer": 40, "assessor": 5, "participant": 10}[role], sorted(seen)
