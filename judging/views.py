from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from evaluation.imports import RunSource, import_runs
from judging.imports import UnknownTopics, export_qrels, import_documents, import_qrels, import_topics
from judging.models import Campaign, Judgment, PoolEntry
from judging.roles import ASSESSOR, ORGANIZER, PARTICIPANT, has_role, is_organizer

IMPORT_KINDS = [
    {"name": "topics", "title": "Topics", "help": "TREC <top> SGML, XML <topic number=…>, TSV (id<TAB>title) or JSONL."},
    {
        "name": "documents",
        "title": "Documents",
        "help": 'TREC <DOC><DOCNO>…</DOCNO>…</DOC> or JSONL {"docno", "title", "text" | "html"}.',
    },
    {
        "name": "runs",
        "title": "Runs",
        "help": "6-column TREC runs (topic Q0 docno rank score tag), one run per file; several files at once.",
        "multiple": True,
        "unknown_topics": True,
    },
    {
        "name": "qrels",
        "title": "Judgments (qrels)",
        "help": "4-column qrels, or 5-column sampled qrels (topic iter docno stratum rel; rel −1 = pooled, not sampled).",
        "unknown_topics": True,
    },
]


def _campaign_for_organizer(request: HttpRequest, slug: str) -> Campaign:
    campaign = get_object_or_404(Campaign, slug=slug)
    if not is_organizer(request.user):
        raise PermissionDenied("only organizers manage a campaign")
    return campaign


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    user = request.user
    roles = [role for role in (ORGANIZER, ASSESSOR, PARTICIPANT) if has_role(user, role)]
    campaigns = Campaign.objects.annotate(topic_count=Count("topics"))
    if ORGANIZER not in roles:
        campaigns = campaigns.filter(pk__in=_campaign_ids_of_member(user))
    return render(
        request,
        "judging/home.html",
        {"campaigns": campaigns, "roles": roles, "is_organizer": ORGANIZER in roles},
    )


def _campaign_ids_of_member(user) -> set[int]:
    """Campaigns a non-organizer takes part in: through a team, or through judgments made."""
    ids = set(user.teams.values_list("campaign_id", flat=True))
    ids.update(Judgment.objects.filter(assessor=user).values_list("campaign_id", flat=True).distinct())
    return ids


@login_required
@require_GET
def campaign(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _campaign_for_organizer(request, slug)
    counts = {
        "topics": campaign.topics.count(),
        "documents": campaign.documents.count(),
        "runs": campaign.runs.count(),
        "teams": campaign.teams.count(),
        "pooled": PoolEntry.objects.filter(pool__campaign=campaign).count(),
        "judgments": campaign.judgments.count(),
    }
    runs = campaign.runs.select_related("team").order_by("tag")
    return render(request, "judging/campaign.html", {"campaign": campaign, "counts": counts, "runs": runs})


@login_required
@require_GET
def campaign_import(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _campaign_for_organizer(request, slug)
    return render(request, "judging/import.html", {"campaign": campaign, "kinds": IMPORT_KINDS})


@login_required
@require_POST
def campaign_import_kind(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    campaign = _campaign_for_organizer(request, slug)
    files = request.FILES.getlist("file")
    context = {"campaign": campaign, "kinds": IMPORT_KINDS}
    unknown = request.POST.get("unknown_topics", UnknownTopics.REJECT)
    if kind not in {k["name"] for k in IMPORT_KINDS}:
        context["error"] = f"unknown kind of import {kind!r}"
    elif not files:
        context["error"] = "choose a file to import"
    elif unknown not in UnknownTopics.CHOICES:
        context["error"] = f"unknown choice {unknown!r} for topics not in the campaign"
    else:
        try:
            context["result"], context["warnings"] = _run_import(request, campaign, kind, files, unknown)
        except ValueError as exc:  # TrecFormatError names the file and the line
            context["error"] = f"{exc}. Nothing was stored."
    if "error" not in context and not request.htmx:
        messages.success(request, context["result"])
        for warning in context["warnings"]:
            messages.warning(request, warning)
        return redirect("campaign_import", slug=campaign.slug)
    template = "judging/import.html#import-forms" if request.htmx else "judging/import.html"
    return render(request, template, context, status=400 if "error" in context else 200)


def _run_import(request, campaign, kind, files, unknown) -> tuple[str, list[str]]:
    limit = settings.IMPORT_MAX_BYTES
    for upload in files:
        if upload.size > limit:
            raise ValueError(f"{upload.name}: the file is larger than the limit of {limit:,} bytes")
    upload = files[0]
    if kind == "topics":
        report = import_topics(campaign, upload, name=upload.name, max_bytes=limit)
        return f"{upload.name}: {report.summary('topics')}", report.warnings
    if kind == "documents":
        only_needed = bool(request.POST.get("only_needed"))
        report = import_documents(campaign, upload, name=upload.name, only_needed=only_needed, max_bytes=limit)
        return f"{upload.name}: {report.summary('documents')}", report.warnings
    if kind == "qrels":
        report = import_qrels(campaign, upload, name=upload.name, unknown_topics=unknown, max_bytes=limit)
        return f"{upload.name}: {report.summary('judgments')}", report.warnings
    by_name = bool(request.POST.get("tag_from_filename"))
    runs, report = import_runs(
        campaign,
        [RunSource(f, name=f.name, tag=f.name if by_name else None) for f in files],
        team_name=request.POST.get("team") or None,
        unknown_topics=unknown,
        uploaded_by=request.user,
        max_bytes=limit,
    )
    return f"Imported {len(runs)} run(s): {', '.join(run.tag for run in runs)}", report.warnings


@login_required
@require_GET
def export_qrels_view(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _campaign_for_organizer(request, slug)
    sampled = request.GET.get("sampled") == "1"
    response = HttpResponse(content_type="text/plain; charset=utf-8")
    name = f"{campaign.slug}.{'sampled-qrels' if sampled else 'qrels'}.txt"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    try:
        export_qrels(campaign, response, sampled=sampled, judged_only=request.GET.get("judged_only") == "1")
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect(campaign)
    return response
