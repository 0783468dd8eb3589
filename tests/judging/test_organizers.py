"""Organizing is a membership of one campaign: the migration that keeps existing organizers, the
create_campaign command, and site administrators naming organizers in the admin. (Who reaches
which page: tests/test_access.py; the people page: test_people_views.py.)"""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from campaigns.models import Campaign
from tests.admin_forms import admin_save
from tests.conftest import _user


@pytest.mark.django_db(transaction=True)
def test_the_migration_makes_every_organizer_of_the_group_an_organizer_of_every_existing_campaign(role_groups):
    executor = MigrationExecutor(connection)
    executor.migrate([("judging", "0017_sampled_count")])
    old = executor.loader.project_state([("judging", "0017_sampled_count")]).apps
    OldCampaign, OldUser, OldGroup = (old.get_model(*name) for name in (("judging", "Campaign"), ("auth", "User"),
                                                                         ("auth", "Group")))
    for slug in ("a", "b"):
        OldCampaign.objects.create(name=slug, slug=slug, scale=[{"grade": 0, "label": "no"}, {"grade": 1, "label": "yes"}])
    organizer_group, assessor_group = OldGroup.objects.get(name="organizer"), OldGroup.objects.get(name="assessor")
    for name, group in (("olga", organizer_group), ("otto", organizer_group), ("arne", assessor_group)):
        OldUser.objects.create(username=name).groups.add(group)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    for campaign in Campaign.objects.all():
        assert sorted(campaign.organizers.values_list("username", flat=True)) == ["olga", "otto"]
    assert list(Campaign.objects.organized_by(User.objects.get(username="olga")).order_by("slug").values_list("slug", flat=True)) == ["a", "b"]
    assert not Campaign.objects.organized_by(User.objects.get(username="arne")).exists()


def test_create_campaign_names_its_organizers(db, role_groups):
    olga, otto = _user("olga", "organizer"), _user("otto", None)
    out = io.StringIO()
    call_command("create_campaign", "robust04", "--organizer", "olga", "--organizer", "otto", stdout=out)
    assert sorted(Campaign.objects.get(slug="robust04").organizers.all(), key=str) == [olga, otto]
    assert "Organizers: olga, otto" in out.getvalue()
    with pytest.raises(CommandError, match="--organizer: no active account 'nobody'"):
        call_command("create_campaign", "x", "--organizer", "nobody", stdout=io.StringIO())
    assert not Campaign.objects.filter(slug="x").exists()
    out = io.StringIO()
    call_command("create_campaign", "y", stdout=out)
    assert not Campaign.objects.get(slug="y").organizers.exists() and "only superusers manage it" in out.getvalue()


def test_site_administrators_name_a_campaigns_organizers_in_the_admin(client, admin_user, campaign, role_groups):
    gus = User.objects.create_user("gus", password="pw-gus")
    client.force_login(admin_user)
    admin_save(client, campaign, organizers=gus.pk)
    assert list(campaign.organizers.all()) == [gus]
    client.force_login(gus)
    assert client.get(reverse("campaign", args=[campaign.slug])).status_code == 200
    assert client.get(reverse("admin:index")).status_code == 302  # organizers stay out of the admin
    assert not Group.objects.get(name="organizer").user_set.filter(pk=gus.pk).exists()
