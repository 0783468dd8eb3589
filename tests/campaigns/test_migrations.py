"""campaigns/migrations/0001: the campaign's data moves to the campaigns app with every row, link and permission kept."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from campaigns.models import Campaign, RankedList, Run, Team, Topic
from judging.models import Judgment, PoolRun

BEFORE = [("judging", "0020_natural_topic_order"), ("evaluation", "0012_ranked_list_document_ids")]
MOVED = ["campaign", "topic", "document", "team", "run", "uploadattempt", "rankedlist"]
#: Models the campaigns app got after the move (0004: teams' API tokens; 0005: import jobs; 0008: memberships).
ADDED = ["teamtoken", "importjob", "membership"]


def migrate(executor, targets):
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_rows_links_and_permissions_survive_the_move_and_the_way_back():
    executor = MigrationExecutor(connection)
    old = migrate(executor, BEFORE)
    OldCampaign, Document, OldTopic, Pool, OldPoolRun, OldJudgment = (
        old.get_model("judging", name) for name in ("Campaign", "Document", "Topic", "Pool", "PoolRun", "Judgment"))
    OldTeam, OldRun, OldList = (old.get_model("evaluation", name) for name in ("Team", "Run", "RankedList"))
    campaign = OldCampaign.objects.create(name="Track", slug="track", scale=[{"grade": 0, "label": "no"},
                                                                              {"grade": 1, "label": "yes"}])
    topic = OldTopic.objects.create(campaign=campaign, identifier="301", position=1)
    document = Document.objects.create(campaign=campaign, docno="FT911-3")
    run = OldRun.objects.create(campaign=campaign, team=OldTeam.objects.create(campaign=campaign, name="t"), tag="r1")
    OldList.objects.create(run=run, topic=topic, length=1, document_blob=RankedList.pack([document.pk], [1.0])["document_blob"],
                           score_blob=b"\x00" * 8)
    OldPoolRun.objects.create(pool=Pool.objects.create(campaign=campaign, method="depth"), run=run, pooled=True)
    OldJudgment.objects.create(campaign=campaign, topic=topic, document=document, grade=1, source="qrels:q")
    assert ContentType.objects.filter(app_label="judging", model="topic").exists()

    migrate(executor, executor.loader.graph.leaf_nodes())
    moved = Campaign.objects.get(slug="track")
    assert moved.pk == campaign.pk and Topic.objects.get(campaign=moved).identifier == "301"
    assert Team.objects.get(campaign=moved).runs.get().tag == "r1"
    assert RankedList.objects.get(run__tag="r1").document_ids().tolist() == [document.pk]
    assert PoolRun.objects.get().run == Run.objects.get(tag="r1")
    assert Judgment.objects.get().topic.campaign == moved
    assert set(ContentType.objects.filter(app_label="campaigns").values_list("model", flat=True)) == set(MOVED + ADDED)
    assert not ContentType.objects.filter(app_label__in=["judging", "evaluation"], model__in=MOVED).exists()
    participant = set(Group.objects.get(name="participant").permissions.values_list("content_type__app_label",
                                                                                        "codename"))
    assert {("campaigns", "view_topic"), ("campaigns", "add_run")} <= participant

    back = migrate(executor, BEFORE)
    assert back.get_model("evaluation", "Run").objects.get().tag == "r1"
    assert ContentType.objects.filter(app_label="judging", model="topic").exists()
    migrate(executor, executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_the_run_rules_move_from_the_scoreboard_to_the_campaign_and_back():
    from django.utils import timezone

    before = [("campaigns", "0002_content_types"), ("evaluation", "0014_campaign_data_moved_away")]
    executor = MigrationExecutor(connection)
    old = migrate(executor, before)
    campaign = old.get_model("campaigns", "Campaign").objects.create(name="T", slug="t", scale=[])
    due = timezone.now().replace(microsecond=0)
    old.get_model("evaluation", "Scoreboard").objects.create(campaign_id=campaign.pk, runs_per_team=3, runs_due=due)
    migrate(executor, executor.loader.graph.leaf_nodes())
    moved = Campaign.objects.get(pk=campaign.pk)
    assert (moved.runs_per_team, moved.runs_due) == (3, due)
    back = migrate(executor, before)
    board = back.get_model("evaluation", "Scoreboard").objects.get(campaign_id=campaign.pk)
    assert (board.runs_per_team, board.runs_due) == (3, due)
    migrate(executor, executor.loader.graph.leaf_nodes())
