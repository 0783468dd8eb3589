from django.contrib import admin

from judging.models import (
    Adjudication,
    Assignment,
    Campaign,
    Document,
    Judgment,
    JudgmentChange,
    Pool,
    PoolBuild,
    PoolEntry,
    PoolRun,
    PoolStratum,
    Topic,
)
from judging.signals import announce_judgments_changed


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

    list_display = ["name", "slug", "state", "depth", "relevant_from", "created"]
    list_filter = ["state"]
    search_fields = ["name", "slug"]
    filter_horizontal = ["organizers"]
    prepopulated_fields = {"slug": ["name"]}
    campaign_lookup = "pk"


@admin.register(Assignment)
class AssignmentAdmin(ScoresFollowEdits):
    list_display = ["topic", "assessor", "role", "campaign", "created"]
    list_filter = ["campaign", "role"]
    search_fields = ["topic__identifier", "assessor__username"]
    raw_id_fields = ["topic", "assessor"]


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


@admin.register(Pool)
class PoolAdmin(admin.ModelAdmin):
    list_display = ["campaign", "method", "seed", "created"]
    list_filter = ["method"]


@admin.register(PoolEntry)
class PoolEntryAdmin(ScoresFollowEdits):
    list_display = ["topic", "document", "stratum", "inclusion_probability", "sampled", "best_rank", "order"]
    list_filter = ["pool__campaign", "stratum", "sampled"]
    search_fields = ["document__docno", "topic__identifier"]
    raw_id_fields = ["topic", "document"]
    show_full_result_count = False
    campaign_lookup = "topic__campaign_id"


@admin.register(PoolStratum)
class PoolStratumAdmin(admin.ModelAdmin):
    list_display = ["topic", "position", "label"]
    list_filter = ["pool__campaign", "label"]
    raw_id_fields = ["topic"]


@admin.register(PoolRun)
class PoolRunAdmin(admin.ModelAdmin):
    list_display = ["run", "pool", "pooled", "generation"]
    list_filter = ["pool__campaign", "pooled", "generation"]


@admin.register(PoolBuild)
class PoolBuildAdmin(admin.ModelAdmin):
    list_display = ["campaign", "action", "status", "done", "total", "requested_by", "created", "finished"]
    list_filter = ["campaign", "status", "action"]
    readonly_fields = ["created", "started", "updated", "finished"]


class JudgmentChangeInline(admin.TabularInline):
    model = JudgmentChange
    extra = 0
    can_delete = False
    readonly_fields = ["changed_by", "source", "old_grade", "new_grade", "at"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Judgment)
class JudgmentAdmin(ScoresFollowEdits):
    list_display = ["topic", "document", "grade", "judge", "seconds", "updated"]
    list_filter = ["campaign", "grade", "assessor", "source"]
    search_fields = ["document__docno", "topic__identifier", "note"]
    raw_id_fields = ["topic", "document", "assessor"]
    inlines = [JudgmentChangeInline]
    show_full_result_count = False

    def get_readonly_fields(self, request, obj=None):
        """Who judged which document is fixed once judged; the grade, note and time may change."""
        fixed = ["campaign", "topic", "document", "assessor", "source"] if obj is not None else []
        return [*fixed, "created", "updated"]

    def save_model(self, request, obj, form, change):
        """Grade changes made here go through the history like any other."""
        if change and "grade" in form.changed_data:
            new_grade = obj.grade
            obj.grade = form.initial["grade"]
            obj.set_grade(new_grade, by=request.user)
            self.announce({obj.campaign_id})
            return
        super().save_model(request, obj, form, change)
        if not change:
            JudgmentChange.objects.create(judgment=obj, changed_by=request.user, source=obj.source, new_grade=obj.grade)


class AppendOnlyAdmin(admin.ModelAdmin):
    """Read-only: rows of an append-only model are added by the app, never changed or deleted here."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(JudgmentChange)
class JudgmentChangeAdmin(AppendOnlyAdmin):
    list_display = ["judgment", "old_grade", "new_grade", "changed_by", "source", "at"]
    list_filter = ["judgment__campaign", "changed_by"]
    readonly_fields = ["judgment", "changed_by", "source", "old_grade", "new_grade", "at"]


@admin.register(Adjudication)
class AdjudicationAdmin(AppendOnlyAdmin):
    """Read-only: decisions are made on the adjudication page and never changed."""

    list_display = ["topic", "document", "grade", "decided_by", "at", "campaign"]
    list_filter = ["campaign"]
    search_fields = ["topic__identifier", "document__docno", "note"]
