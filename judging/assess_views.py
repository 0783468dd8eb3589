"""Judging in the browser: the assessor's topics and judging page, the organizer's assignments and progress.

The judging page works as plain forms (each grade is a submit button; the server redirects to
the next document) and htmx swaps ``#assess-panel`` in place when JavaScript runs. Every
endpoint, page or fragment, asks :func:`_queue_for_assessor` (and :func:`_document_in_queue`,
or for a judgment ``record_judgment`` itself) first: nobody reads or judges a document outside
their own assignment.
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import NamedTuple, NoReturn

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import push_url, trigger_client_event

from judging import assessing, assigning, judging_sql, pace, progress
from campaigns.access import campaign_for_organizer, refuse_judging_unless_open
from judging.assessing import Queue
from judging.documents import assessor_terms, document_html, topic_terms
from judging.forms import AssignmentForm, DistributeForm, HighlightForm, JudgeForm, LaterForm, assessors
from campaigns.models import Campaign, Document, Topic
from judging.models import Assignment, Judgment, QueueClaim


def _queue_for_assessor(request: HttpRequest, slug: str, topic: str) -> tuple[Queue, list[Assignment]]:
    queue, assignments = assessing.queue_for(request.user, slug, topic)
    if queue is None:
        if not Topic.objects.filter(campaign__slug=slug, identifier=topic).exists():
            raise Http404("no such topic in this campaign")
        raise PermissionDenied("this topic is not assigned to you")
    refuse_judging_unless_open(request, queue.campaign)
    return queue, assignments


def _document_in_queue(queue: Queue, document_id: int) -> Document:
    document = queue.document(document_id)
    if document is None:
        _refuse(queue, document_id)
    return document


def _refuse(queue: Queue, document_id: int) -> NoReturn:
    """For a document not in the queue: 404 if the campaign has no such document, else 403."""
    if not Document.objects.filter(pk=document_id, campaign=queue.campaign).exists():
        raise Http404("no such document in this campaign")
    raise PermissionDenied("this document is not in your queue")


def _tab(data) -> str:
    """The tab id the page carries (a new one for a new tab)."""
    tab = data.get("tab", "")
    return tab if assessing.ID_PATTERN.fullmatch(tab) else assessing.new_id()


def _document_urls(queue: Queue, document_id: int, tab: str) -> dict[str, str]:
    """The queue's page ("next"), the document's page and its actions: one reverse() for all six.

    judging/urls.py puts the document's page under the queue's and its actions under the
    document's. The panel shows all of them after every submit, and a reverse costs about as
    much as a small query. The links the panel follows (next, back, forward) carry the tab
    already, so the template prints each as one variable instead of adding ``?tab=`` itself, a
    second variable per link rendered after every submit (the posts carry the tab in their
    forms, and "page" is the document's own address, without one).
    """
    queue_url = _queue_url(queue)
    page = _page_url(queue_url, document_id)
    return {"next": f"{queue_url}?tab={tab}", "page": page, "judge": f"{page}judge/", "later": f"{page}later/",
            **{step: f"{page}{step}/?tab={tab}" for step in ("back", "forward")}}


def _page_url(queue_url: str, document_id: int) -> str:
    """The document's page, under its queue's (judging/urls.py)."""
    return f"{queue_url}{document_id}/"


def _document_url(queue: Queue, document_id: int, tab: str) -> str:
    return f"{_page_url(_queue_url(queue), document_id)}?tab={tab}"


def _queue_url(queue: Queue) -> str:
    return reverse("assess_next", args=[queue.campaign.slug, queue.topic.identifier])


def _next_url(queue: Queue, tab: str) -> str:
    return f"{_queue_url(queue)}?tab={tab}"


class Grade(NamedTuple):
    grade: int
    label: str
    key: str


def _scale(campaign: Campaign) -> tuple[Grade, ...]:
    """Grades with their keys: the grade itself when every grade is one digit, else 1, 2, 3…"""
    digits = all(0 <= g <= 9 for g in campaign.grades)
    return tuple(Grade(e["grade"], e["label"], str(e["grade"] if digits else i + 1)) for i, e in enumerate(campaign.scale))


@lru_cache(maxsize=256)
def _grade_buttons(scale: tuple[Grade, ...], current: int | None) -> str:
    """The panel's grade buttons (``current``: the grade the document has, marked), rendered once
    per scale and grade: they are the same after every submit, and rendering their loop each
    time was a measurable share of the judge-save request (``bench/bench_judging_cost.py`` counts it)."""
    return render_to_string("judging/assess.html#grade-buttons", {"scale": scale, "current": current})


def _panel_context(queue: Queue, assignments: list[Assignment], tab: str, document: Document | None, *,
                   form: JudgeForm | None = None, saved: bool = False, unjudged: bool = False) -> dict:
    """Everything the panel shows; ``unjudged``: the document was just handed out (no judgment to read)."""
    rows = progress.progress(assignments)
    topic_row = next(r for r in rows if r.assignment.pk == queue.assignment.pk)
    context = {
        "campaign": queue.campaign,
        "topic": queue.topic,
        "assignment": queue.assignment,
        "tab": tab,
        "document": document,
        "scale": _scale(queue.campaign),
        "progress": topic_row,
        "overall": {"judged": sum(r.judged for r in rows), "assigned": sum(r.assigned for r in rows)},
        "form": form,
        "saved": saved,
    }
    if document is None:
        context["held"] = queue.held_elsewhere(tab)
        context["first"] = queue.entries().values_list("document_id", flat=True).first()
        return context
    judgment = None if unjudged else assessing.current_judgment(queue, document.pk)
    context.update(
        grade_buttons=_grade_buttons(context["scale"], judgment.grade if judgment else None),
        urls=_document_urls(queue, document.pk, tab),
        body=document_html(document.body, is_html=document.is_html, terms=_terms(queue)),
        judgment=judgment,
        history=list(judgment.history.all()) if judgment else [],
        submission=assessing.new_id(),
        shown=f"{time.time():.3f}",
        note=form.data.get("note", "") if form is not None else (judgment.note if judgment else ""),
    )
    return context


def _terms(queue: Queue) -> list[str]:
    """Words to mark in the documents: the topic title's, then the assessor's own."""
    terms = topic_terms(queue.topic.title)
    return terms + [t for t in assessor_terms(queue.assignment.highlight) if t not in terms]


def _render(request: HttpRequest, context: dict, *, status: int = 200) -> HttpResponse:
    """The panel for htmx swaps, the whole page otherwise (also when htmx restores history).

    The panel's forms carry the CSRF token only in the whole page: htmx sends it in a header,
    and masking a fresh token for the fields would cost 32 reads of os.urandom per submit.

    Never cached: the browser's back button fetches the page again, with a fresh submission id
    and the current grade (the panel is not kept in htmx's history cache either: hx-history).
    """
    fragment = bool(request.htmx) and not request.htmx.history_restore_request
    page = {} if fragment else {"renew_seconds": int(QueueClaim.RENEW.total_seconds())}
    response = render(request, "judging/assess.html#assess-panel" if fragment else "judging/assess.html",
                      {**context, **page, "fragment": fragment}, status=status)
    add_never_cache_headers(response)
    return response


def _redirect(queue: Queue, tab: str, document_id: int | None) -> HttpResponse:
    """Plain forms: to the document's page, or to resume (None: nothing to hand out)."""
    return redirect(_document_url(queue, document_id, tab) if document_id else _next_url(queue, tab))


def _show(request: HttpRequest, queue: Queue, assignments, tab: str, document_id: int) -> HttpResponse:
    """After a step along the queue: htmx gets the panel of ``document_id``, plain forms a redirect."""
    if not request.htmx:
        return _redirect(queue, tab, document_id)
    return _panel(request, queue, assignments, tab, judging_sql.document(document_id))


def _show_next(request: HttpRequest, queue: Queue, assignments, tab: str, *, saved: bool = False) -> HttpResponse:
    """After a change: hand out the next document; htmx gets its panel (or 'done'), plain forms a redirect.

    The document is not judged yet (it was free), so the panel reads no judgment.
    """
    if not request.htmx:
        return _redirect(queue, tab, queue.next_document(tab))
    document = queue.next_document(tab, read=True)
    return _panel(request, queue, assignments, tab, document, saved=saved, unjudged=True)


def _panel(request: HttpRequest, queue: Queue, assignments, tab: str, document: Document | None, *,
           saved: bool = False, unjudged: bool = False) -> HttpResponse:
    context = _panel_context(queue, assignments, tab, document, saved=saved, unjudged=unjudged)
    response = _render(request, context)
    push_url(response, f"{context['urls']['page']}?tab={tab}" if document else _next_url(queue, tab))
    return trigger_client_event(response, "judgment-saved") if saved else response


@login_required
@require_GET
def assess_home(request: HttpRequest) -> HttpResponse:
    """The assessor's topics in every campaign, with progress and where to resume."""
    assignments = list(
        Assignment.objects.filter(assessor=request.user)
        .select_related("topic", "campaign", "campaign__pool")
        .order_by("campaign__name", "topic__position", "topic__identifier")
    )
    guidelines = {a.campaign.pk: a.campaign for a in assignments if a.campaign.guidelines}
    rows = progress.progress(assignments)
    context = {"rows": rows, "guided": list(guidelines.values()), "pace": pace.pace_of(request.user, rows)}
    return render(request, "judging/assess_home.html", context)


@login_required
@require_GET
def assess_judged(request: HttpRequest, slug: str, topic: str) -> HttpResponse:
    """The assessor's own judgments of a topic, latest first, each linked back to its document to revise it."""
    queue, _ = _queue_for_assessor(request, slug, topic)
    judgments = (
        Judgment.objects.filter(topic=queue.topic, assessor=request.user)
        .select_related("document").order_by("-updated", "-id")
    )
    queue_url = _queue_url(queue)
    rows = [(j, queue.campaign.label_of(j.grade), _page_url(queue_url, j.document_id)) for j in judgments]
    context = {"campaign": queue.campaign, "topic": queue.topic, "rows": rows, "next": queue_url}
    return render(request, "judging/assess_judged.html", context)


@login_required
@require_GET
def assess_next(request: HttpRequest, slug: str, topic: str) -> HttpResponse:
    """Resume: hand out the next document of the queue to this tab, or say the queue is done."""
    queue, assignments = _queue_for_assessor(request, slug, topic)
    tab = _tab(request.GET)
    document_id = queue.next_document(tab)
    if document_id is not None:
        return redirect(_document_url(queue, document_id, tab))
    return _render(request, _panel_context(queue, assignments, tab, None))


@login_required
@require_GET
def assess_document(request: HttpRequest, slug: str, topic: str, document: int) -> HttpResponse:
    queue, assignments = _queue_for_assessor(request, slug, topic)
    doc = _document_in_queue(queue, document)
    return _render(request, _panel_context(queue, assignments, _tab(request.GET), doc))


@login_required
@require_POST
def assess_judge(request: HttpRequest, slug: str, topic: str, document: int) -> HttpResponse:
    """Save a grade (exactly once per submission id) and move on to the next document."""
    queue, assignments = _queue_for_assessor(request, slug, topic)
    form = JudgeForm(request.POST, grades=queue.campaign.grades)
    if not form.is_valid():
        doc = _document_in_queue(queue, document)
        return _render(request, _panel_context(queue, assignments, _tab(request.POST), doc, form=form), status=400)
    data = form.cleaned_data
    try:
        saved = assessing.record_judgment(
            queue, document, data["grade"], submission=data["submission"],
            seconds=form.active_seconds(time.time()), note=data["note"],
        )
    except assessing.SubmissionReused:
        form.add_error(None, "This form was sent before for another document, so the grade was not saved: judge the document again.")
        doc = _document_in_queue(queue, document)
        return _render(request, _panel_context(queue, assignments, _tab(request.POST), doc, form=form), status=409)
    if saved is None:
        _refuse(queue, document)
    return _show_next(request, queue, assignments, data["tab"], saved=True)


@login_required
@require_POST
def assess_later(request: HttpRequest, slug: str, topic: str, document: int) -> HttpResponse:
    """'Judge later': put the document at the end of the queue and show the next one."""
    queue, assignments = _queue_for_assessor(request, slug, topic)
    _document_in_queue(queue, document)
    form = LaterForm(request.POST)
    tab = form.cleaned_data["tab"] if form.is_valid() else assessing.new_id()
    queue.put_aside(document, tab)
    return _show_next(request, queue, assignments, tab)


@login_required
@require_POST
def assess_highlight(request: HttpRequest, slug: str, topic: str) -> HttpResponse:
    """Save the assessor's own highlight words for the topic, then resume this tab where it was."""
    queue, _ = _queue_for_assessor(request, slug, topic)
    form = HighlightForm(request.POST)
    if form.is_valid():
        queue.assignment.highlight = form.cleaned_data["highlight"]
        queue.assignment.save(update_fields=["highlight"])
    else:
        messages.error(request, " ".join(form.errors.get("highlight", ["highlight words not saved"])))
    tab, shown = _tab(request.POST), request.POST.get("document", "")
    if shown.isdigit() and queue.document(int(shown)) is not None:  # the document on screen, judged or not
        return redirect(_document_url(queue, int(shown), tab))
    return redirect(_next_url(queue, tab))


@login_required
@require_POST
def assess_claims(request: HttpRequest, slug: str, topic: str) -> HttpResponse:
    """An open judging page renews its tab's claims (``QueueClaim.RENEW``); a page going away
    releases them (``release=1``, sent by ``navigator.sendBeacon`` on ``pagehide``). Answers 204,
    also while judging is closed (nothing to tell a page that is going away)."""
    queue, _ = assessing.queue_for(request.user, slug, topic)
    if queue is None:
        raise PermissionDenied("this topic is not assigned to you")
    tab = request.POST.get("tab", "")
    if assessing.ID_PATTERN.fullmatch(tab):
        queue.release_claims(tab) if request.POST.get("release") == "1" else queue.renew_claims(tab)
    return HttpResponse(status=204)


@login_required
@require_GET
def assess_step(request: HttpRequest, slug: str, topic: str, document: int, direction: str) -> HttpResponse:
    """Back and forward along the queue's order (to review or revise); stays put at either end."""
    queue, assignments = _queue_for_assessor(request, slug, topic)
    _document_in_queue(queue, document)
    step = {"back": -1, "forward": 1}.get(direction)
    if step is None:
        raise Http404(f"unknown direction {direction!r}")
    return _show(request, queue, assignments, _tab(request.GET), queue.neighbour(document, step) or document)


# --------------------------------------------------------------------------------------------
# Organizer: assignments and progress


def _assignment_rows(campaign: Campaign, topics) -> list[dict]:
    assignments = list(
        Assignment.objects.filter(topic__in=topics).select_related("assessor", "topic", "campaign", "campaign__pool")
    )
    bars = {p.assignment.pk: p for p in progress.progress(assignments)}
    sampled = assigning.sampled_counts(campaign)
    imported = assigning.imported_counts(campaign)
    rows = []
    for topic in topics:
        mine = [a for a in assignments if a.topic_id == topic.pk]
        primary = next((a for a in mine if a.role == Assignment.Role.PRIMARY), None)
        seconds = [a for a in mine if a.role == Assignment.Role.SECOND]
        rows.append({
            "topic": topic,
            "sampled": sampled.get(topic.pk, 0),
            "imported": imported.get(topic.pk, 0),
            "primary": primary,
            "seconds": seconds,
            "second_ids": {a.assessor_id for a in seconds},
            "overlap": seconds[0].overlap_text if seconds else "",
            "progress": [bars[a.pk] for a in ([primary] if primary else []) + seconds],
        })
    return rows


@login_required
@require_GET
def assignments(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organizer(request, slug)
    topics = list(campaign.topics.all())
    context = {"campaign": campaign, "rows": _assignment_rows(campaign, topics), "assessors": list(assessors(campaign))}
    return render(request, "judging/assignments.html", context)


@login_required
@require_POST
def assignment_topic(request: HttpRequest, slug: str, topic: str) -> HttpResponse:
    """Set one topic's primary and second assessors and their overlap; judgments stay."""
    campaign = campaign_for_organizer(request, slug)
    topic = get_object_or_404(Topic, campaign=campaign, identifier=topic)
    form = AssignmentForm(campaign, request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            assigning.assign_topic(topic, data["primary"], data["seconds"], overlap=data["overlap"], by=request.user)
        except ValueError as exc:
            form.add_error(None, str(exc))
    saved = form.is_valid()
    if request.htmx:
        row = _assignment_rows(campaign, [topic])[0]
        row.update(errors=form.errors, saved=saved)
        context = {"campaign": campaign, "row": row, "assessors": list(assessors(campaign))}
        return render(request, "judging/assignments.html#assignment-row", context, status=200 if saved else 400)
    if saved:
        messages.success(request, f"Topic {topic.identifier}: assessors saved.")
        return redirect("assignments", slug=campaign.slug)
    rows = _assignment_rows(campaign, list(campaign.topics.all()))
    for row in rows:
        if row["topic"].pk == topic.pk:
            row["errors"] = form.errors
    context = {"campaign": campaign, "rows": rows, "assessors": list(assessors(campaign))}
    return render(request, "judging/assignments.html", context, status=400)


@login_required
@require_POST
def assignment_rejudge(request: HttpRequest, slug: str, topic: str) -> HttpResponse:
    """Judge a topic's documents with imported judgments again, blind, or leave them judged.

    ``rejudge`` is ``topic:1`` / ``topic:0`` for all the topic's assessors, ``<assessor id>:1`` /
    ``:0`` for one of them (as the row's buttons send it).
    """
    campaign = campaign_for_organizer(request, slug)
    topic = get_object_or_404(Topic, campaign=campaign, identifier=topic)
    who, _, value = request.POST.get("rejudge", "").partition(":")
    if value not in ("0", "1") or not (who == "topic" or who.isdigit()):
        return HttpResponse("rejudge must be topic:0, topic:1, <assessor id>:0 or <assessor id>:1", status=400)
    assignment = None if who == "topic" else get_object_or_404(Assignment, topic=topic, assessor_id=int(who))
    assigning.set_rejudge_imported(topic, value == "1", assignment=assignment)
    if request.htmx:
        row = _assignment_rows(campaign, [topic])[0]
        context = {"campaign": campaign, "row": row, "assessors": list(assessors(campaign))}
        return render(request, "judging/assignments.html#assignment-row", context)
    whose = "its assessors" if assignment is None else assignment.assessor.get_username()
    messages.success(request, f"Topic {topic.identifier}: documents with imported judgments "
                              f"{'go to ' + whose + ' to judge again, blind' if value == '1' else 'stay judged'}.")
    return redirect("assignments", slug=campaign.slug)


@login_required
@require_POST
def assignments_distribute(request: HttpRequest, slug: str) -> HttpResponse:
    """Assign every topic that has no assessor yet, in turn, with an optional overlap."""
    campaign = campaign_for_organizer(request, slug)
    form = DistributeForm(campaign, request.POST)
    if form.is_valid():
        try:
            count = assigning.distribute(campaign, form.cleaned_data["assessors"], overlap=form.cleaned_data["overlap"],
                                        by=request.user)
        except ValueError as exc:
            form.add_error(None, str(exc))
    if not form.is_valid():
        context = {"campaign": campaign, "rows": _assignment_rows(campaign, list(campaign.topics.all())),
                   "assessors": list(assessors(campaign)), "distribute": form}
        return render(request, "judging/assignments.html", context, status=400)
    messages.success(request, f"Assigned {count} topic{'s' if count != 1 else ''}.")
    return redirect("assignments", slug=campaign.slug)


@login_required
@require_GET
def assessing_progress(request: HttpRequest, slug: str) -> HttpResponse:
    """Progress per topic and assessor, judgments per hour and the median time per judgment."""
    campaign = campaign_for_organizer(request, slug)
    assignments = list(
        Assignment.objects.filter(campaign=campaign)
        .select_related("topic", "assessor", "campaign", "campaign__pool")
        .order_by("topic__position", "topic__identifier", "role", "assessor__username")
    )
    rows = progress.progress(assignments)
    per_assessor, overall = pace.campaign_pace(campaign)
    last = pace.last_judged({a.assessor_id for a in assignments}, {a.topic_id for a in assignments})
    people = {a.assessor_id: a.assessor for a in assignments}
    assessor_rows = []
    for pk in sorted(people, key=lambda pk: people[pk].get_username()):
        judged = sum(p.judged for p in rows if p.assignment.assessor_id == pk)
        assigned = sum(p.assigned for p in rows if p.assignment.assessor_id == pk)
        own = per_assessor.get(pk)
        assessor_rows.append({"assessor": people[pk], "pace": own, "judged": judged, "assigned": assigned,
                              "left": assigned - judged, "hours_left": own.hours_for(assigned - judged) if own else None})
    totals = {"judged": sum(p.judged for p in rows), "assigned": sum(p.assigned for p in rows)}
    context = {
        "campaign": campaign,
        "rows": [{"p": p, "last": last.get((p.assignment.assessor_id, p.assignment.topic_id))} for p in rows],
        "assessor_rows": assessor_rows,
        "overall": overall,
        "totals": totals,
        "hours_left": overall.hours_for(totals["assigned"] - totals["judged"]),
    }
    return render(request, "judging/assignments_progress.html", context)
