"""An archived campaign's pages are read-only: no form that the server would refuse (403) is shown,
only the settings page's reopen, clone and delete; each page says why and links to reopening."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from judging import assigning
from judging.models import Judgment
from tests.judging.toy_queue import load_queue_toy

pytestmark = pytest.mark.django_db

FORM = re.compile(r"<form\b[^>]*>", re.IGNORECASE)


@pytest.fixture
def archived(campaign, named_assessor):
    toy = load_queue_toy(campaign)
    ann, bob = named_assessor("ann"), named_assessor("bob")
    assigning.assign_topic(toy["t1"], ann, [bob], overlap="2")
    for user, grade in ((ann, 0), (bob, 2)):
        Judgment.objects.create(campaign=campaign, topic=toy["t1"], document=toy["docs"]["d05"], assessor=user,
                                grade=grade, note="unsure")
    Campaign.objects.filter(pk=campaign.pk).update(state="archived", reopens_to="judging")
    return toy


def changing_forms(html: str) -> list[str]:
    """The page's forms that post (a GET form, such as a filter, changes nothing), logging out aside."""
    return [tag for tag in FORM.findall(html)
            if ('method="post"' in tag.lower() or "hx-post" in tag.lower()) and "/accounts/logout/" not in tag]


@pytest.mark.parametrize("name, args", [
    ("campaign", []), ("campaign_import", []), ("topics", []), ("topic_edit", ["1"]), ("relevance", []),
    ("pool", []), ("assignments", []), ("adjudication", []), ("notes", []), ("leaderboard", []), ("robustness", []),
])
def test_an_archived_campaigns_pages_show_no_form_that_would_be_refused(client, organizer, archived, name, args):
    client.force_login(organizer)
    response = client.get(reverse(name, args=["cds15", *args]))
    assert response.status_code == 200
    assert changing_forms(response.content.decode()) == []


def test_the_adjudication_document_page_of_an_archived_campaign_offers_no_grade_to_set(client, organizer, archived):
    client.force_login(organizer)
    address = reverse("adjudication_document", args=["cds15", archived["t1"].pk, archived["docs"]["d05"].pk])
    page = client.get(address).content.decode()
    assert changing_forms(page) == [] and "The campaign is archived: nothing in it changes." in page


def test_the_settings_page_of_an_archived_campaign_keeps_reopen_clone_and_delete_only(client, organizer, archived):
    client.force_login(organizer)
    forms = changing_forms(client.get(reverse("campaign_settings", args=["cds15"])).content.decode())
    actions = sorted(re.search(r'action="([^"]+)"', tag).group(1) for tag in forms)
    assert actions == sorted(reverse(name, args=["cds15"]) for name in ("campaign_state", "campaign_clone", "campaign_delete"))
