"""judging/migrations/0023: existing campaigns keep working under per-campaign membership."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from campaigns import people
from campaigns.access import assesses, takes_part
from campaigns.models import Campaign, Membership

BEFORE = [("judging", "0022_official_change"), ("campaigns", "0007_campaign_name_single_line")]


def migrate(executor, targets):
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_assessors_participants_and_organizers_become_members_of_their_campaigns_only():
    executor = MigrationExecutor(connection)
    old = migrate(executor, BEFORE)
    OldCampaign, OldUser = old.get_model("campaigns", "Campaign"), old.get_model("auth", "User")
    Topic, Document, Team = (old.get_model("campaigns", name) for name in ("Topic", "Document", "Team"))
    Assignment, Judgment = old.get_model("judging", "Assignment"), old.get_model("judging", "Judgment")
    a, b = (OldCampaign.objects.create(name=s, slug=s, scale=[{"grade": 0, "label": "no"}, {"grade": 1, "label": "yes"}])
            for s in ("a", "b"))
    users = {name: OldUser.objects.create(username=name) for name in ("holder", "judge", "player", "boss", "idle")}
    topic = Topic.objects.create(campaign=a, identifier="1")
    Assignment.objects.create(campaign=a, topic=topic, assessor=users["holder"], role="primary")
    Judgment.objects.create(campaign=b, topic=Topic.objects.create(campaign=b, identifier="1"),
                            document=Document.objects.create(campaign=b, docno="d"), assessor=users["judge"], grade=1)
    Judgment.objects.create(campaign=a, topic=topic, document=Document.objects.create(campaign=a, docno="d"), grade=0)
    Team.objects.create(campaign=b, name="Birch").members.add(users["player"])
    a.organizers.add(users["boss"])

    migrate(executor, executor.loader.graph.leaf_nodes())
    rows = set(Membership.objects.values_list("campaign__slug", "user__username", "role", "state"))
    assert rows == {("a", "holder", "assessor", "active"), ("b", "judge", "assessor", "active"),
                    ("b", "player", "participant", "active"), ("a", "boss", "organizer", "active")}
    assert Membership.objects.get(role="participant").team.name == "Birch"
    a, b = Campaign.objects.get(slug="a"), Campaign.objects.get(slug="b")
    holder, judge, player = (User.objects.get(username=n) for n in ("holder", "judge", "player"))
    assert assesses(holder, a) and not assesses(holder, b) and assesses(judge, b) and not assesses(judge, a)
    assert takes_part(player, b) and not takes_part(player, a)
    assert list(people.assessors_of(a)) == [holder] and a.is_organized_by(User.objects.get(username="boss"))

    migrate(executor, BEFORE)  # and back: the table goes, the rest stays
    migrate(executor, executor.loader.graph.leaf_nodes())
    assert Membership.objects.count() == 4
