from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from evaluation.models import Run
from judging.roles import is_organizer


def _run_for_viewer(request: HttpRequest, slug: str, tag: str) -> Run:
    """A run its team's members and the organizers may see; 404 if absent, 403 for others."""
    run = get_object_or_404(Run.objects.select_related("team", "campaign"), campaign__slug=slug, tag=tag)
    if not (is_organizer(request.user) or run.team.members.filter(pk=request.user.pk).exists()):
        raise PermissionDenied("only the run's team and the organizers see this run")
    return run


@login_required
@require_GET
def run_download(request: HttpRequest, slug: str, tag: str) -> HttpResponse:
    run = _run_for_viewer(request, slug, tag)
    response = HttpResponse(content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{run.tag}.run.txt"'
    run.write_trec(response)
    return response
