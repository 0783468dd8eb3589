import io

import numpy as np
import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.core.management import call_command

from judging import late_runs
from evaluation.measures import evaluate
from judging.demo import (
    RUN_NOISE, RUN_TYPES, SIMULATED_NOTE, SIMULATED_OVERLAP, SIMULATED_TOPICS, TOPICS, build_collection, build_runs,
)
from campaigns.models import Campaign
from judging.models import JudgmentChange
from campaigns.roles import ASSESSOR, ORGANIZER, PARTICIPANT, has_role

pytestmark = pytest.mark.django_db


def test_the_demo_loads_a_readable_campaign_and_prints_working_credentials():
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    campaign = Campaign.objects.get(slug="demo")
    assert campaign.topics.count() == len(TOPICS) and all(t.narrative for t in campaign.topics.all())
    assert 300 <= campaign.documents.count() <= 400
    assert 10 <= campaign.runs.count() <= 20
    assert campaign.judgments.exists()
    # Judging, half done: the assessors go on judging, the scores are live and not released yet.
    assert campaign.state == Campaign.State.JUDGING and campaign.judging_open() and campaign.uploads_open()
    # A hybrid pool drawn by the pool-building code, the last run left to add as a late run, and
    # judgments for the first half of each topic's judging order (a prefix, so a valid sample).
    assert campaign.pool.method == "hybrid" and campaign.pool.is_built
    assert [run.tag for run in late_runs.late_runs(campaign)] == ["ember2"]
    assert {run.tag: run.run_type for run in campaign.runs.exclude(run_type="automatic")} == RUN_TYPES
    for topic in campaign.topics.all():
        planned = topic.pool_entries.filter(sampled=True).count()
        judged_docs = set(topic.judgments.values_list("document_id", flat=True))
        orders = sorted(e.order for e in topic.pool_entries.all() if e.document_id in judged_docs)
        assert planned > 0 and orders == list(range(planned // 2))
    text = out.getvalue()
    for username, role in (("organizer", ORGANIZER), ("assessor", ASSESSOR), ("participant", PARTICIPANT)):
        password = text.split(f"{username:<12} password ")[1].split()[0]
        user = authenticate(username=username, password=password)
        assert user is not None and has_role(user, role)


def test_loading_the_demo_twice_replaces_it():
    call_command("load_demo", stdout=io.StringIO())
    call_command("load_demo", stdout=io.StringIO())
    assert Campaign.objects.filter(slug="demo").count() == 1


def test_two_simulated_assessors_judged_topics_106_to_108_in_the_app_with_an_overlap_they_partly_disagree_on():
    call_command("load_demo", stdout=io.StringIO())
    campaign = Campaign.objects.get(slug="demo")
    disagreements = 0
    for identifier, (primary, second) in SIMULATED_TOPICS.items():
        topic = campaign.topics.get(identifier=identifier)
        order = list(topic.pool_entries.filter(sampled=True).order_by("order").values_list("document_id", flat=True))
        by = {name: dict(topic.judgments.filter(assessor__username=name).values_list("document_id", "grade"))
              for name in (primary, second)}
        assert sorted(by[primary]) == sorted(order[: len(order) // 2])  # the primary: the first half
        assert sorted(by[second]) == sorted(order[:SIMULATED_OVERLAP])  # the second: the leading overlap
        disagreements += sum(by[primary][d] != grade for d, grade in by[second].items())
        # A slip gives a neighbouring grade, so a disagreement; the topic's first one carries the note.
        noted = topic.judgments.exclude(note="")
        assert noted.count() == (1 if any(by[primary][d] != g for d, g in by[second].items()) else 0)
        assert all(j.note == SIMULATED_NOTE and j.assessor.username == second and j.grade != by[primary][j.document_id]
                   for j in noted)
        # Judged through the assessors' path: one history row with a submission id per judgment.
        changes = JudgmentChange.objects.filter(judgment__topic=topic)
        assert changes.count() == len(by[primary]) + len(by[second])
        assert not changes.filter(submission="").exists()
        assert not topic.judgments.filter(assessor=None).exists()  # no imported qrels for these topics
    assert 0 < disagreements < 3 * SIMULATED_OVERLAP
    for name in ("ann", "bob"):
        user = User.objects.get(username=name)
        assert not user.has_usable_password() and has_role(user, ASSESSOR)


def test_the_demo_runs_range_from_poor_to_good_when_judged_completely():
    """Judged in full with the grades the collection was written with, the runs' MAP spreads from
    below 0.2 to above 0.9, so the leaderboard has runs to tell apart (not 14 perfect runs)."""
    rng = np.random.default_rng(20261122)  # load_demo's seed: the same collection and runs
    documents, grades = build_collection(rng)
    runs = build_runs(rng, documents)
    qrels = {}
    for (topic, docno), grade in grades.items():
        qrels.setdefault(topic, {})[docno] = grade
    result = evaluate(qrels, [text.encode() for _, _, text in runs], ["AP"])
    means = dict(zip(result.runs, result.mean("AP")))
    assert len(means) == 14
    assert min(means.values()) < 0.2 and max(means.values()) > 0.9
    # The teams are not listed in the order of their runs' quality.
    best_of_team = [max(means[f"{team.lower()}{r + 1}"] for r in range(len(noises))) for team, noises in RUN_NOISE.items()]
    assert best_of_team != sorted(best_of_team, reverse=True)
