"""Organizer pages: the agreement dashboard, its CSV exports, and adjudication of disagreements.

Organizers only (DESIGN.md: agreement is theirs alone); every view asks
``campaign_for_organizer``. The dashboard polls its figures fragment; each poll recomputes
from the database (``judging.agreements``), so no worker is needed.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns.document_bodies import plain_text
from campaigns.downloads import attachment
from judging import agreement_charts, agreements, disagreements, official_changes
from judging.agreement_csv import CSV_TABLES, write_csv
from campaigns.access import campaign_for_organizer
from campaigns.models import Campaign, Document, Topic
from judging.models import Adjudication, Judgment, JudgmentChange

#: Seconds between two refreshes of the dashboard's figures.
POLL_SECONDS = 10


@login_required
@require_GET
def agreement(request: HttpRequest, slug: str) -> HttpResponse:
    """The dashboard; with htmx, just the figures (polled every POLL_SECONDS)."""
    campaign = campaign_for_organizer(request, slug)
    report = agreements.campaign_agreement(campaign)
    chosen = report.pair(request.GET.get("pair", "")) if request.GET.get("pair") else None
    table = chosen.table if chosen else report.overall_table
    context = {
        "campaign": campaign,
        "report": report,
        "chosen_pair": chosen,
        "heatmap": agreement_charts.heatmap(table, report.scale.labels),
        "heatmap_total": int(table.sum()),
        "trend": agreement_charts.trend(report.days),
        "notes": agreement_charts.undefined_reasons(report),
        "poll_seconds": POLL_SECONDS,
        "csv_tables": CSV_TABLES,
    }
    template = "judging/agreement.html#agreement-figures" if request.htmx else "judging/agreement.html"
    return render(request, template, context)


@login_required
@require_GET
def agreement_csv(request: HttpRequest, slug: str, table: str) -> HttpResponse:
    campaign = campaign_for_organizer(request, slug)
    if table not in CSV_TABLES:
        raise Http404(f"no agreement table {table!r}")
    response = attachment(f"{campaign.slug}.agreement-{table}.csv")
    write_csv(agreements.campaign_agreement(campaign), table, response)
    return response


# --------------------------------------------------------------------------------------------
# Adjudication


class PolicyForm(forms.Form):
    policy = forms.ChoiceField(choices=Campaign.Policy.choices, widget=forms.RadioSelect, label="Official grades")


class AdjudicationForm(forms.Form):
    grade = forms.TypedChoiceField(coerce=int, label="Official grade")
    note = forms.CharField(required=False, max_length=2000, widget=forms.TextInput, label="Note")

    def __init__(self, *args, campaign: Campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["grade"].choices = [
            (entry["grade"], f"{entry['grade']} {entry['label']}") for entry in campaign.scale
        ]


def _topic_of(campaign: Campaign, identifier: str) -> Topic:
    return get_object_or_404(Topic, campaign=campaign, identifier=identifier)


@login_required
@require_GET
def adjudication(request: HttpRequest, slug: str) -> HttpResponse:
    """Every disagreement (or one topic's, ``?topic=ID``) side by side, with the policy and history."""
    campaign = campaign_for_organizer(request, slug)
    topic = _topic_of(campaign, request.GET["topic"]) if request.GET.get("topic") else None
    context = {
        "campaign": campaign,
        "topic": topic,
        "disagreements": disagreements.disagreements(campaign, topic=topic),
        "policy_form": PolicyForm(initial={"policy": campaign.adjudication_policy}),
        "history": _history(campaign),
        "grades": campaign.scale,
    }
    return render(request, "judging/adjudication.html", context)


@login_required
@require_GET
def notes(request: HttpRequest, slug: str) -> HttpResponse:
    """Every note assessors left with a judgment, newest first, those not yet dealt with above;
    each linked to its document's judgments, where an official grade can be set."""
    campaign = campaign_for_organizer(request, slug)
    context = {"campaign": campaign}
    for name, handled in (("open_notes", False), ("handled_notes", True)):
        context[name] = [(j, campaign.label_of(j.grade)) for j in Judgment.objects.noted(campaign, handled=handled)]
    return render(request, "judging/notes.html", context)


@login_required
@require_POST
def note_handled(request: HttpRequest, slug: str, judgment_id: int) -> HttpResponse:
    """Mark a note as dealt with (``handled=1``) or open again (``handled=0``)."""
    campaign = campaign_for_organizer(request, slug)
    judgment = get_object_or_404(Judgment.objects.exclude(note=""), campaign=campaign, pk=judgment_id)
    judgment.mark_note_handled(request.user, handled=request.POST.get("handled") == "1")
    return redirect("notes", slug=slug)


@login_required
@require_POST
def adjudication_policy(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organizer(request, slug)
    form = PolicyForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"unknown policy {request.POST.get('policy')!r}")
    elif (moved := official_changes.set_policy(campaign, form.cleaned_data["policy"], by=request.user)) is not None:
        messages.success(request, f"Official grades now follow: {campaign.get_adjudication_policy_display()}. "
                                  f"{len(moved)} official grade(s) changed; each document's page records it.")
    return redirect("adjudication", slug=campaign.slug)


@login_required
@require_http_methods(["GET", "POST"])
def adjudication_document(request: HttpRequest, slug: str, topic_id: int, document_id: int) -> HttpResponse:
    """One document: its text, every judgment of it side by side, and the official grade to set.

    A POST records a decision (append-only). With htmx the disagreement's row on the list is
    swapped for its updated version. Topics and documents are named by id: identifiers and
    docnos may hold any character, slashes included.
    """
    campaign = campaign_for_organizer(request, slug)
    topic_obj = get_object_or_404(Topic, campaign=campaign, pk=topic_id)
    document = get_object_or_404(Document, campaign=campaign, pk=document_id)
    form = AdjudicationForm(request.POST or None, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        Adjudication.decide(
            topic_obj, document, form.cleaned_data["grade"], by=request.user, note=form.cleaned_data["note"]
        )
        if request.htmx:
            row = next(
                (d for d in disagreements.disagreements(campaign, topic=topic_obj) if d.document_id == document.pk), None
            )
            context = {"campaign": campaign, "d": row, "saved": True, "history": _history(campaign), "oob": True}
            # The row in place, and the history out of band (hx-swap-oob), wrapped in <template>
            # because the response is parsed in a table's context, where a <section> cannot stand.
            return HttpResponse(
                render_to_string("judging/adjudication.html#disagreement-row", context, request)
                + "<template>"
                + render_to_string("judging/adjudication.html#adjudication-history", context, request)
                + "</template>"
            )
        messages.success(request, f"Official grade of {document.docno} for topic {topic_obj.identifier} recorded.")
        return redirect(
            reverse("adjudication", args=[campaign.slug]) + "?" + urlencode({"topic": topic_obj.identifier})
        )
    judgments = (
        Judgment.objects.filter(topic=topic_obj, document=document)
        .select_related("assessor")
        .order_by("assessor_id", "source")
    )
    context = {
        "campaign": campaign,
        "topic": topic_obj,
        "document": document,
        "text": _plain_text(document),
        "judgments": judgments,
        "official": Judgment.objects.official(campaign, topics=[topic_obj.pk]).get((topic_obj.pk, document.pk)),
        # Every grade any judge (an assessor, an imported file) gave the document, oldest first: with
        # the decisions below, the record of every change of its official grade and its cause.
        "history": JudgmentChange.objects.filter(judgment__topic=topic_obj, judgment__document=document)
        .select_related("changed_by", "judgment__assessor")
        .order_by("at", "id"),
        "decisions": Adjudication.objects.filter(topic=topic_obj, document=document)
        .select_related("decided_by")
        .order_by("-at", "-id"),
        "form": form,
    }
    return render(request, "judging/adjudication_document.html", context, status=400 if form.errors else 200)


def _history(campaign: Campaign):
    """The latest 100 decisions, newest first."""
    rows = Adjudication.objects.filter(campaign=campaign).select_related("topic", "document", "decided_by")
    return rows.order_by("-at", "-id")[:100]


def _plain_text(document: Document) -> str:
    """Documents are untrusted: bodies lose every tag (and script/style content); the template
    escapes the text."""
    return plain_text(document.body, is_html=document.is_html)
