from django.contrib import admin

from evaluation.models import RobustnessReport, Scoreboard


@admin.register(Scoreboard)
class ScoreboardAdmin(admin.ModelAdmin):
    """Release and published qrels; the recomputation fields are shown, not edited."""

    list_display = ["campaign", "released", "qrels_published", "computed_at", "queued_at", "running_since"]
    fields = ["campaign", "released", "released_at", "qrels_published", "qrels_published_at",
              "computed_at", "queued_at", "running_since", "last_error"]
    readonly_fields = ["campaign", "released_at", "qrels_published_at", "computed_at", "queued_at", "running_since",
                       "last_error"]

    def save_model(self, request, obj, form, change):
        """Only what was edited is written: workers update the recomputation fields meanwhile."""
        if not change:
            return super().save_model(request, obj, form, change)
        published = {name: getattr(obj, name) for name in form.changed_data if name in Scoreboard.PUBLISHED}
        if published:
            obj.publish(**published)
            if "released" in published:  # the campaign's state follows, as on the leaderboard
                obj.campaign.follow_release(published["released"])
        edited = [name for name in form.changed_data if name not in Scoreboard.PUBLISHED]
        if edited:
            obj.save(update_fields=edited)


@admin.register(RobustnessReport)
class RobustnessReportAdmin(admin.ModelAdmin):
    """Inspected, not edited: the organizer's robustness page starts reports."""

    list_display = ["pk", "campaign", "status", "draws", "seed", "created", "finished"]
    list_filter = ["campaign", "status"]
    exclude = ["result"]
    readonly_fields = ["campaign", "measures", "reductions", "draws", "seed", "status", "done", "total", "message",
                       "requested_by", "created", "updated", "finished"]
