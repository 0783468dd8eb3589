"""Existing campaigns keep working under per-campaign membership (campaigns.Membership).

Assessors become active members of the campaigns where they hold assignments or made judgments;
members of a campaign's teams become its active participants (with their team); its organizers
stay organizers, with an active membership row recording it. Going back removes the rows.
"""

from django.db import migrations
from django.utils import timezone


def memberships(apps, schema_editor):
    Membership = apps.get_model("campaigns", "Membership")
    Campaign = apps.get_model("campaigns", "Campaign")
    Team = apps.get_model("campaigns", "Team")
    Assignment = apps.get_model("judging", "Assignment")
    Judgment = apps.get_model("judging", "Judgment")
    now = timezone.now()
    rows = {}
    assessors = {*Assignment.objects.values_list("campaign_id", "assessor_id"),
                 *Judgment.objects.exclude(assessor=None).values_list("campaign_id", "assessor_id").distinct()}
    for campaign_id, user_id in assessors:
        rows[campaign_id, user_id, "assessor"] = None
    for team in Team.objects.order_by("name"):
        for user_id in team.members.values_list("pk", flat=True):
            rows.setdefault((team.campaign_id, user_id, "participant"), team.pk)
    for campaign in Campaign.objects.all():
        for user_id in campaign.organizers.values_list("pk", flat=True):
            rows[campaign.pk, user_id, "organizer"] = None
    Membership.objects.bulk_create([
        Membership(campaign_id=campaign_id, user_id=user_id, role=role, team_id=team_id, state="active",
                   invited_at=now, accepted_at=now)
        for (campaign_id, user_id, role), team_id in rows.items()
    ])


def no_memberships(apps, schema_editor):
    apps.get_model("campaigns", "Membership").objects.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ("judging", "0022_official_change"),
        ("campaigns", "0008_memberships"),
    ]

    operations = [migrations.RunPython(memberships, no_memberships)]
