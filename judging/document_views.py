"""The organizer's document page: a document's text and everything the campaign knows of it."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from campaigns.access import campaign_for_organizer
from campaigns.models import Document
from judging.document_history import document_record
from judging.documents import document_html


@login_required
@require_GET
def document(request: HttpRequest, slug: str) -> HttpResponse:
    """Search by docno (``?docno=``): the document's text, its pool entries, every judgment with
    its history, the decisions, the official grade and the runs' ranks, topic by topic."""
    campaign = campaign_for_organizer(request, slug)
    docno = request.GET.get("docno", "").strip()
    context = {"campaign": campaign, "docno": docno}
    if not docno:
        return render(request, "judging/document.html", context)
    found = Document.objects.filter(campaign=campaign, docno=docno).first()
    if found is None:
        return render(request, "judging/document.html", context, status=404)
    context |= {
        "document": found,
        "text": document_html(found.body, is_html=found.is_html, terms=[]),
        "records": document_record(campaign, found),
    }
    return render(request, "judging/document.html", context)
