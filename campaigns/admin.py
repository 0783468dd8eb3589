"""The admin of the campaign's data, for site administrators (``config/urls.py``)."""

from django.contrib import admin

from campaigns.models import Campaign, Document, Membership, RankedList, Run, Team, Topic
from campaigns.signals import announce_judgments_changed


class ScoresFollowEdits(admin.ModelAdmin):
    """What is saved or deleted here is what scores and agreement are computed from.

    The app's own pages announce each change (:func:`announce_judgments_changed`, after commit);
    an edit made here does the same for every topic of the campaign, so that the live scores
    are recomputed instead of staying "current" at the old settings or grades.
    """

    #: The lookup from a row to its campaign's id.
    campaign_lookup = "campaign_id"

    def campaigns_of(self, queryset) -> set[int]:
        return set(queryset.values_list(self.campaign_lookup, flat=True).distinct())

    def announce(self, campaign_ids) -> None:
        for campaign_id in campaign_ids:
            announce_judgments_changed(
                campaign_id, Topic.objects.filter(campaign_id=campaign_id).values_list("pk", flat=True)
            )

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        self.announce(self.campaigns_of(type(obj).objects.filter(pk=obj.pk)))

    def delete_model(self, request, obj):
        campaign_ids = self.campaigns_of(type(obj).objects.filter(pk=obj.pk))
        super().delete_model(request, obj)
        self.announce(campaign_ids)

    def delete_queryset(self, request, queryset):
        campaign_ids = self.campaigns_of(queryset)  # one query, however many rows
        super().delete_queryset(request, queryset)
        self.announce(campaign_ids)


@admin.register(Campaign)
class CampaignAdmin(ScoresFollowEdits):
    """Campaigns, their organizers, scale, depth, relevance level and the assessors' guidelines.

    The admin is the site administrators' alone (config/urls.py): here they name each campaign's organizers.
    """

    list_display = ["name", "slug", "state", "depth", "relevant_from", "runs_per_team", "runs_due", "created"]
    list_filter = ["state"]
    search_fields = ["name", "slug"]
    filter_horizontal = ["organizers"]
    prepopulated_fields = {"slug": ["name"]}
    campaign_lookup = "pk"


@admin.register(Topic)
class TopicAdmin(ScoresFollowEdits):
    list_display = ["identifier", "title", "campaign", "position"]
    list_filter = ["campaign"]
    search_fields = ["identifier", "title", "description"]


@admin.register(Document)
class DocumentAdmin(ScoresFollowEdits):
    list_display = ["docno", "title", "campaign", "is_html"]
    list_filter = ["campaign", "is_html"]
    search_fields = ["docno", "title"]
    show_full_result_count = False


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "campaign"]
    list_filter = ["campaign"]
    search_fields = ["name", "members__username"]
    filter_horizontal = ["members"]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["tag", "team", "campaign", "run_type", "priority", "line_count", "uploaded"]
    list_filter = ["campaign", "run_type", "team"]
    search_fields = ["tag", "description"]
    readonly_fields = ["line_count", "source_name", "uploaded", "uploaded_by"]


@admin.register(RankedList)
class RankedListAdmin(admin.ModelAdmin):
    list_display = ["run", "topic", "length"]
    list_filter = ["run__campaign", "run"]
    exclude = ["document_blob", "score_blob"]
    readonly_fields = ["run", "topic", "length"]
    show_full_result_count = False


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    """Who belongs to which campaign in which role, and the open invitations. An active assessor
    membership is the access itself; participants are their team's members (the team's page here)
    and organizers the campaign's (its page here). The link's token hash is never edited."""

    list_display = ["user", "campaign", "role", "state", "team", "invited_by", "invited_at", "accepted_at"]
    list_filter = ["role", "state", "campaign"]
    search_fields = ["user__username", "campaign__slug"]
    raw_id_fields = ["user", "invited_by", "team"]
    exclude = ["token_hash"]
