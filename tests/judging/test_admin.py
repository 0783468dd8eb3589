"""Edits in Django's admin (site administrators only) reach the live scores as the app's own pages do, and keep the history."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.run_imports import RunSource, import_runs
from evaluation.models import Score
from campaigns.models import Topic
from judging.models import Judgment, PoolEntry
from tests.admin_forms import admin_delete, admin_save
from campaigns.signals import announce_judgments_changed
from tests.evaluation.conftest import assert_scores_equal_from_scratch

pytestmark = pytest.mark.django_db


def xinfap_of_topic_2(campaign) -> dict[str, float]:
    return dict(Score.objects.filter(run__campaign=campaign, topic__identifier="2", measure="xinfAP")
                .values_list("run__tag", "value"))


def test_a_grade_changed_in_the_admin_goes_into_the_history_and_the_scores_follow(
    client, admin_user, scored, tmp_path, django_capture_on_commit_callbacks
):
    client.force_login(admin_user)
    judgment = Judgment.objects.filter(topic__identifier="2", grade__gt=0).order_by("id").first()
    before = xinfap_of_topic_2(scored)
    with django_capture_on_commit_callbacks(execute=True):
        admin_save(client, judgment, grade=0)
    judgment.refresh_from_db()
    assert judgment.grade == 0
    assert list(judgment.history.values_list("new_grade", "changed_by"))[-1] == (0, admin_user.pk)
    assert xinfap_of_topic_2(scored) != before
    assert_scores_equal_from_scratch(scored, tmp_path)


def test_who_judged_which_document_cannot_be_changed_in_the_admin(client, admin_user, scored):
    client.force_login(admin_user)
    judgment = Judgment.objects.filter(topic__identifier="2").order_by("id").first()
    identity = (judgment.topic_id, judgment.document_id, judgment.assessor_id, judgment.source)
    other = Topic.objects.get(campaign=scored, identifier="3")
    admin_save(client, judgment, topic=other.pk, document=judgment.document_id + 1, source="forged")
    judgment.refresh_from_db()
    assert (judgment.topic_id, judgment.document_id, judgment.assessor_id, judgment.source) == identity


def test_nobody_deletes_a_judgment_and_its_history_in_the_admin(client, admin_user, scored):
    client.force_login(admin_user)
    judgment = Judgment.objects.filter(topic__identifier="2").order_by("id").first()
    url = reverse("admin:judging_judgment_delete", args=[judgment.pk])
    assert client.post(url, {"post": "yes"}).status_code == 403  # the history's rows are never deleted
    assert Judgment.objects.filter(pk=judgment.pk).exists()


def test_a_pool_entry_deleted_in_the_admin_rescores_its_topic(
    client, admin_user, scored, tmp_path, django_capture_on_commit_callbacks
):
    client.force_login(admin_user)
    judged = Judgment.objects.filter(topic__identifier="2").values("document_id")
    entry = PoolEntry.objects.filter(topic__identifier="2").exclude(document_id__in=judged).order_by("id").first()
    before = xinfap_of_topic_2(scored)
    with django_capture_on_commit_callbacks(execute=True):
        admin_delete(client, entry)  # a pooled document not judged: its stratum's sampled share grows
    assert not PoolEntry.objects.filter(pk=entry.pk).exists()
    assert xinfap_of_topic_2(scored) != before
    assert_scores_equal_from_scratch(scored, tmp_path)


def test_a_new_evaluation_depth_or_relevance_level_set_in_the_admin_rescores_every_topic(
    client, admin_user, scored, tmp_path, django_capture_on_commit_callbacks
):
    client.force_login(admin_user)
    before = sorted(Score.objects.filter(run__campaign=scored, measure="AP").values_list("value", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        admin_save(client, scored, depth=20)
    scored.refresh_from_db()
    assert scored.depth == 20
    assert sorted(Score.objects.filter(run__campaign=scored, measure="AP").values_list("value", flat=True)) != before
    assert_scores_equal_from_scratch(scored, tmp_path)
    with django_capture_on_commit_callbacks(execute=True):
        admin_save(client, scored, relevant_from=2)
    scored.refresh_from_db()
    assert scored.relevant_from == 2
    assert_scores_equal_from_scratch(scored, tmp_path)


def test_a_pool_entry_edited_in_the_admin_rescores_its_topic(
    client, admin_user, scored, tmp_path, django_capture_on_commit_callbacks
):
    client.force_login(admin_user)
    entries = PoolEntry.objects.filter(topic__identifier="2", sampled=True).order_by("id")
    entry = entries.first()
    other_stratum = entries.exclude(stratum=entry.stratum).first().stratum
    before = xinfap_of_topic_2(scored)
    with django_capture_on_commit_callbacks(execute=True):
        admin_save(client, entry, stratum=other_stratum)  # xinfAP reads the strata from the sampled qrels
    assert xinfap_of_topic_2(scored) != before
    assert_scores_equal_from_scratch(scored, tmp_path)


def test_a_primary_assessor_demoted_in_the_admin_rescores_the_topic(
    client, admin_user, campaign, named_assessor, django_capture_on_commit_callbacks
):
    """ann (primary) says 1 to d1 and d2, bob (second) 0 to d1. With no primary, the latest judgment counts."""
    from campaigns.models import Document
    from judging.models import Assignment
    from tests.evaluation.conftest import run_text

    ann, bob = named_assessor("ann"), named_assessor("bob")
    topic = Topic.objects.create(campaign=campaign, identifier="1")
    documents = [Document.objects.create(campaign=campaign, docno=f"d{i}") for i in (1, 2)]
    primary = Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann, role="primary")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=bob, role="second", overlap_count=1)
    with django_capture_on_commit_callbacks(execute=True):
        import_runs(campaign, [RunSource(run_text("R", {"1": ["d1", "d2"]}), name="R")], team_name="T")
        Judgment.objects.create(campaign=campaign, topic=topic, document=documents[0], assessor=ann, grade=1)
        Judgment.objects.create(campaign=campaign, topic=topic, document=documents[0], assessor=bob, grade=0)
        Judgment.objects.create(campaign=campaign, topic=topic, document=documents[1], assessor=ann, grade=1)
        announce_judgments_changed(campaign.pk, [topic.pk])
    ap = lambda: Score.objects.get(topic=topic, measure="AP").value  # noqa: E731
    assert ap() == 1.0  # ann's grades: d1 and d2 relevant, at ranks 1 and 2: (1/1 + 2/2) / 2
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        admin_save(client, primary, role="second", overlap_count=1)
    assert ap() == 0.5  # bob's later 0 counts for d1: d2 alone relevant, at rank 2: (1/2) / 1
