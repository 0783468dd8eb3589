"""A campaign's settings page: edit, states (archived is read-only everywhere), clone, delete."""

from __future__ import annotations

import io
from datetime import datetime, timezone

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Document, Team, Topic
from judging.models import Assignment, Judgment

pytestmark = pytest.mark.django_db


def settings_url(campaign, action=""):
    return reverse("campaign_settings" if not action else f"campaign_{action}", args=[campaign.slug])


def fields(campaign, **changes):
    values = {"name": campaign.name, "description": campaign.description, "scale": "binary",
              "relevant_from": campaign.relevant_from, "depth": campaign.depth, "guidelines": campaign.guidelines,
              "runs_per_team": campaign.runs_per_team, "runs_due": ""}
    return {**values, **changes}


@pytest.fixture
def topics(campaign):
    return [Topic.objects.create(campaign=campaign, identifier=i, title=f"topic {i}", position=int(i)) for i in "12"]


def test_the_organizer_edits_the_settings_and_a_new_depth_recomputes_every_topic(client, organizer, campaign, topics,
                                                                                  received, django_capture_on_commit_callbacks):
    client.force_login(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(settings_url(campaign), fields(
            campaign, name="Track 2027", guidelines="Relevant: answers the question.", depth=100, runs_per_team=3,
            runs_due="2027-06-01 12:00"))
    assert response.status_code == 302
    saved = Campaign.objects.get(pk=campaign.pk)
    assert (saved.name, saved.guidelines, saved.depth, saved.runs_per_team) == (
        "Track 2027", "Relevant: answers the question.", 100, 3)
    assert saved.runs_due == datetime(2027, 6, 1, 12, 0, tzinfo=timezone.utc)
    assert received == [(campaign.pk, frozenset(t.pk for t in topics))]


def test_the_scale_changes_until_something_is_judged_then_stays(client, organizer, campaign, topics, named_assessor):
    client.force_login(organizer)
    graded = "0:Not relevant,1:Relevant,2:Highly relevant"
    client.post(settings_url(campaign), fields(campaign, scale=graded))
    assert Campaign.objects.get(pk=campaign.pk).grades == [0, 1, 2]
    document = Document.objects.create(campaign=campaign, docno="d1")
    Judgment.objects.create(campaign=campaign, topic=topics[0], document=document, assessor=named_assessor("ann"), grade=2)
    page = client.get(settings_url(campaign)).content.decode()
    assert "Fixed: the campaign has judgments on this scale." in page
    client.post(settings_url(campaign), fields(campaign, scale="binary"))
    assert Campaign.objects.get(pk=campaign.pk).grades == [0, 1, 2]


def test_states_move_as_allowed_and_released_follows_the_scores_release(client, organizer, campaign):
    Campaign.objects.filter(pk=campaign.pk).update(state=Campaign.State.SETUP)
    client.force_login(organizer)
    client.post(settings_url(campaign, "state"), {"state": "judging"})
    assert Campaign.objects.get(pk=campaign.pk).state == "judging"
    refused = client.post(settings_url(campaign, "state"), {"state": "released"}, follow=True)
    assert "cannot become &#x27;released&#x27;" in refused.content.decode()
    client.post(reverse("scores_release", args=[campaign.slug]), {"release": "1"})
    assert Campaign.objects.get(pk=campaign.pk).state == "released"
    client.post(reverse("scores_release", args=[campaign.slug]), {"release": "0"})
    assert Campaign.objects.get(pk=campaign.pk).state == "judging"


def test_an_archived_campaign_changes_for_nobody_until_it_is_reopened(client, organizer, assessor, participant, campaign,
                                                                      topics):
    document = Document.objects.create(campaign=campaign, docno="d1")
    Assignment.objects.create(campaign=campaign, topic=topics[0], assessor=assessor, role="primary")
    Team.objects.create(campaign=campaign, name="t").members.add(participant)
    client.force_login(organizer)
    client.post(settings_url(campaign, "state"), {"state": "archived"})
    assert client.post(settings_url(campaign), fields(campaign, name="changed")).status_code == 403
    topics_file = {"file": io.BytesIO(b"<top><num>3</num><title>x</title></top>"), "unknown_topics": "reject"}
    assert client.post(reverse("campaign_import_kind", args=[campaign.slug, "topics"]), topics_file).status_code == 403
    assert client.get(campaign.get_absolute_url()).status_code == 200  # every page stays readable
    client.force_login(assessor)
    judge = reverse("assess_judge", args=[campaign.slug, "1", document.pk])
    refused = client.post(judge, {"grade": 1, "submission": "s1"}, follow=True)
    assert refused.redirect_chain == [(reverse("assess_home"), 302)]
    assert "Judging is closed: this campaign is archived. Nothing was saved." in refused.content.decode()
    client.force_login(participant)
    upload = client.post(reverse("team_runs", args=[campaign.slug]), {"priority": 1})
    assert upload.status_code == 400 and "The campaign is archived" in upload.content.decode()
    client.force_login(organizer)
    client.post(settings_url(campaign, "state"), {"state": "judging"})
    assert client.post(settings_url(campaign), fields(campaign, name="changed")).status_code == 302
    assert Campaign.objects.get(pk=campaign.pk).name == "changed" and not Judgment.objects.exists()


def test_a_clone_has_the_settings_topics_and_organizers_and_nothing_else(client, organizer, campaign, topics):
    Document.objects.create(campaign=campaign, docno="d1")
    Campaign.objects.filter(pk=campaign.pk).update(guidelines="Read closely.", depth=100, runs_per_team=2)
    client.force_login(organizer)
    response = client.post(settings_url(campaign, "clone"), {"clone-name": "Track B", "clone-slug": "track-b"})
    copy = Campaign.objects.get(slug="track-b")
    assert response.url == copy.get_absolute_url()
    assert (copy.name, copy.guidelines, copy.depth, copy.runs_per_team) == ("Track B", "Read closely.", 100, 2)
    assert [(t.identifier, t.title) for t in copy.topics.order_by("position")] == [("1", "topic 1"), ("2", "topic 2")]
    assert copy.is_organized_by(organizer) and not copy.documents.exists()
    taken = client.post(settings_url(campaign, "clone"), {"clone-name": "Again", "clone-slug": "track-b"})
    assert taken.status_code == 400 and "exists already" in taken.content.decode()


def test_a_co_organizer_who_may_not_create_campaigns_cannot_clone(client, campaign, named_assessor):
    helper = named_assessor("colin")  # an organizer of this campaign only, not in the organizer group
    campaign.organizers.add(helper)
    client.force_login(helper)
    refused = client.post(settings_url(campaign, "clone"), {"clone-name": "X", "clone-slug": "x"})
    assert refused.status_code == 403 and not Campaign.objects.filter(slug="x").exists()


def test_deleting_needs_the_address_typed(client, organizer, campaign, topics):
    client.force_login(organizer)
    client.post(settings_url(campaign, "delete"), {"confirm": "not-it"})
    assert Campaign.objects.filter(pk=campaign.pk).exists()
    response = client.post(settings_url(campaign, "delete"), {"confirm": campaign.slug})
    assert response.url == reverse("home") and not Campaign.objects.filter(pk=campaign.pk).exists()
    assert not Topic.objects.filter(pk=topics[0].pk).exists()


def test_the_organizer_edits_a_topics_text_and_its_identifier_stays(client, organizer, participant, campaign, topics):
    url = reverse("topic_edit", args=[campaign.slug, "1"])
    client.force_login(participant)
    assert client.get(url).status_code == 403
    client.force_login(organizer)
    response = client.post(url, {"title": "Ferry sinkings", "description": "Find reports.", "narrative": "Any year."})
    assert response.status_code == 302
    topic = Topic.objects.get(pk=topics[0].pk)
    assert (topic.identifier, topic.title, topic.description, topic.narrative) == (
        "1", "Ferry sinkings", "Find reports.", "Any year.")
