"""The organizer's document page: found by docno, every topic's record, the text sanitized."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse

from campaigns.models import Document
from judging.qrels import import_qrels

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(campaign, io.BytesIO(b"7 0 FT911-3 S1 1\n7 0 FT911-4 S1 0\n"), name="q.txt", unknown_topics="create")
    Document.objects.filter(campaign=campaign, docno="FT911-3").update(
        title="Ferries", body='<p onclick="steal()">Ferry news</p><script>alert(1)</script>', is_html=True)
    return campaign


def page(client, campaign, docno=None):
    url = reverse("document", args=[campaign.slug])
    return client.get(url, {"docno": docno} if docno is not None else {})


def test_the_organizer_finds_a_document_and_sees_its_topics_grades_and_sanitized_text(client, organizer, judged):
    client.force_login(organizer)
    response = page(client, judged, "FT911-3")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Topic 7" in html and "stratum <strong>S1</strong>" in html and "qrels:q.txt" in html
    assert "Ferry news" in html and "alert(1)" not in html and "steal()" not in html


def test_an_unknown_docno_answers_404_with_the_search_form_and_no_docno_shows_the_form(client, organizer, judged):
    client.force_login(organizer)
    missing = page(client, judged, "FT999")
    assert missing.status_code == 404 and "No document FT999 in this campaign" in missing.content.decode()
    empty = page(client, judged)
    assert empty.status_code == 200 and 'name="docno"' in empty.content.decode()


def test_assessors_and_participants_are_refused(client, assessor, participant, judged):
    for user in (assessor, participant):
        client.force_login(user)
        assert page(client, judged, "FT911-3").status_code == 403
