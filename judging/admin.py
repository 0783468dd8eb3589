from django.contrib import admin

from campaigns.admin import ScoresFollowEdits
from judging.models import (
    Adjudication,
    Assignment,
    Judgment,
    JudgmentChange,
    Pool,
    PoolBuild,
    PoolEntry,
    PoolRun,
    PoolStratum,
)


@admin.register(Assignment)
class AssignmentAdmin(ScoresFollowEdits):
    list_display = ["topic", "assessor", "role", "campaign", "created"]
    list_filter = ["campaign", "role"]
    search_fields = ["topic__identifier", "assessor__username"]
    raw_id_fields = ["topic", "assessor"]


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
