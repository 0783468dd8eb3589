"""templates/400.html, 403.html, 403_csrf.html, 404.html, 500.html: errors in the app's layout,
saying why and where to go (with DEBUG off, as in production and in these tests)."""

from __future__ import annotations

import html

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse
from django.views.defaults import bad_request, server_error

pytestmark = pytest.mark.django_db

LAYOUT = 'class="topbar"'


def test_a_refused_page_says_why_in_the_layout_with_the_way_back(client, campaign, assessor):
    client.force_login(assessor)
    response = client.get(reverse("campaign", args=[campaign.slug]))
    page = response.content.decode()
    assert response.status_code == 403 and LAYOUT in page
    assert html.escape("Only the campaign's organizers manage it.") in page  # the reason the access check gave
    assert "You are signed in as <strong>arne</strong>" in page
    assert f'href="{reverse("home")}"' in page and f'href="{reverse("assess_home")}"' in page


def test_a_missing_campaign_names_the_address_in_the_layout(client, assessor):
    client.force_login(assessor)
    response = client.get("/c/no-such-campaign/")
    page = response.content.decode()
    assert response.status_code == 404 and LAYOUT in page and "/c/no-such-campaign/" in page
    assert f'href="{reverse("home")}"' in page


def test_a_form_without_its_csrf_token_is_refused_with_an_explanation_and_nothing_done(assessor):
    client = Client(enforce_csrf_checks=True)
    client.force_login(assessor)
    response = client.post(reverse("logout"))
    page = response.content.decode()
    assert response.status_code == 403 and LAYOUT in page and "This form could not be sent" in page
    assert client.get(reverse("home"), follow=True).status_code == 200  # still signed in: the logout was refused


@pytest.mark.parametrize("handler, status, words", [(server_error, 500, "Something went wrong on our side"),
                                                    (bad_request, 400, "This request could not be read")])
def test_server_and_request_errors_render_in_the_layout_without_a_request_context(handler, status, words):
    request = RequestFactory().get("/anything/")
    response = handler(request) if handler is server_error else handler(request, Exception("bad"))
    page = response.content.decode()
    assert response.status_code == status and LAYOUT in page and words in page and 'href="/"' in page
