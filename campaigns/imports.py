"""Importing a campaign's topics and documents, and mapping the document numbers of any import.

Each import reads and checks its whole file first, then writes in one transaction: on any
error nothing is stored and the error names the file, the line and the problem. The management
commands and the organizer's upload page both call these functions; runs (``run_imports``) and
qrels (``judging.qrels``) build on :class:`DocumentIds`, :func:`topic_ids_for` and
:class:`ImportReport`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice

import numpy as np
from django.db import transaction

from campaigns.collection_files import iter_documents, read_topics
from campaigns.document_bodies import is_unreadable
from campaigns.identifiers import identifier_problem
from campaigns.models import Campaign, Document, Topic
from evaluation.measures.trec_files import Source, TrecFormatError

BATCH = 2000
#: Document numbers looked up by one query (:class:`DocumentIds`), well within SQLite's
#: 32,766 parameters a statement.
LOOKUP_BATCH = 10_000


@dataclass
class ImportReport:
    """What an import did, for the command's output and the upload page's message."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)

    def summary(self, noun: str) -> str:
        text = f"{self.created} {noun} created, {self.updated} updated, {self.unchanged} unchanged"
        if self.skipped:
            text += f", {self.skipped} skipped"
        return text


#: ``progress(bytes read, lines read)``: how an import reports how far it has got (``campaigns.job_progress``).
Progress = Callable[[int, int], None]


class UnknownTopics:
    """What to do with lines naming a topic the campaign does not have."""

    REJECT = "reject"
    SKIP = "skip"
    CREATE = "create"
    CHOICES = (REJECT, SKIP, CREATE)


def import_topics(campaign: Campaign, source: Source, *, name: str | None = None, max_bytes=None,
                  progress: Progress | None = None) -> ImportReport:
    """Add the file's topics to the campaign; topics already there get the file's texts.
    ``progress(bytes read, lines read)`` is called once the file is read."""
    records = read_topics(source, name=name, max_bytes=max_bytes, progress=progress)
    report = ImportReport()
    with transaction.atomic():
        existing = {t.identifier: t for t in campaign.topics.select_for_update()}
        new, changed = [], []
        for record in records:
            values = {"title": record.title, "description": record.description, "narrative": record.narrative}
            topic = existing.get(record.identifier)
            if topic is None:
                new.append(Topic(campaign=campaign, identifier=record.identifier, **values))
            elif any(getattr(topic, k) != v for k, v in values.items()):
                for key, value in values.items():
                    setattr(topic, key, value)
                changed.append(topic)
            else:
                report.unchanged += 1
        Topic.objects.bulk_create(new, batch_size=BATCH)
        Topic.objects.bulk_update(changed, ["title", "description", "narrative"], batch_size=BATCH)
        if new:
            Topic.renumber(campaign.pk)
    report.created, report.updated = len(new), len(changed)
    return report


def import_documents(
    campaign: Campaign, source: Source, *, name: str | None = None, only_needed: bool = False, max_bytes=None,
    progress: Progress | None = None,
) -> ImportReport:
    """Stream a collection into the campaign in one transaction.

    With ``only_needed``, keep only documents the campaign already names: every document that
    a run, the pool or a judgment refers to has a row (empty until its text is imported), so
    those are the ones kept; the rest are counted as skipped. A document already stored is
    updated in place. Lines that are not UTF-8 are read as Windows-1252, with a warning.

    A path is streamed (memory does not grow with the file, only with its number of documents);
    ``progress(bytes read, lines read)`` is called after each line.
    """
    report = ImportReport()
    seen: dict[str, int] = {}
    recoded: list[int] = []
    unreadable: list[int] = []
    documents = iter_documents(source, name=name, max_bytes=max_bytes, recoded=recoded, progress=progress)
    with transaction.atomic():
        known = set(campaign.documents.values_list("docno", flat=True))
        needed = known if only_needed else None
        while batch := list(islice(documents, BATCH)):
            rows = []
            for record in batch:
                if record.docno in seen:
                    raise TrecFormatError(
                        name or str(source),
                        record.line,
                        f"document {record.docno!r} appears twice (first on line {seen[record.docno]})",
                    )
                seen[record.docno] = record.line
                if needed is not None and record.docno not in needed:
                    report.skipped += 1
                    continue
                if is_unreadable(record.body, is_html=record.is_html):
                    unreadable.append(record.line)
                if record.docno in known:
                    report.updated += 1
                else:
                    report.created += 1
                rows.append(
                    Document(
                        campaign=campaign,
                        docno=record.docno,
                        title=record.title,
                        body=record.body,
                        is_html=record.is_html,
                    )
                )
            Document.objects.bulk_create(
                rows,
                update_conflicts=True,
                unique_fields=["campaign", "docno"],
                update_fields=["title", "body", "is_html"],
            )
        _check_readable(unreadable, report.created + report.updated, name or str(source), report)
    if recoded:
        report.warnings.append(
            f"{len(recoded):,} line(s) are not UTF-8 (the first is line {recoded[0]}) and were read as Windows-1252, "
            "the Latin-1 of the older TREC collections"
        )
    return report


def _check_readable(unreadable: list[int], count: int, label: str, report: ImportReport) -> None:
    """Refuse a collection most of whose documents would show no text (in the transaction, so
    nothing is stored); warn, with the count, when some would."""
    if not unreadable:
        return
    problem = (
        f"{len(unreadable):,} of {count:,} document(s) have no readable text (the first on line {unreadable[0]}): "
        "their body is empty or only markup or script"
    )
    if len(unreadable) * 2 > count:
        raise TrecFormatError(label, unreadable[0], problem + "; nothing was imported")
    report.warnings.append(f"{label}: {problem}")


def topic_ids_for(
    campaign: Campaign,
    identifiers: np.ndarray,
    lines: np.ndarray,
    label: str,
    unknown: str,
    report: ImportReport,
    *,
    advice: str = "import the topics first, or skip or create unknown topics",
) -> dict[str, int]:
    """Map the topic identifiers a file names to topic ids, applying the unknown-topic rule;
    ``advice`` ends the refusal of an unknown topic (what the reader can do about it).

    Returns ids for the topics to keep. Unknown topics raise (``reject``, the default), are
    dropped with a warning (``skip``), or are created with no text (``create``).
    """
    if unknown not in UnknownTopics.CHOICES:
        raise ValueError(f"unknown-topic rule {unknown!r} is not one of {UnknownTopics.CHOICES}")
    ids = dict(campaign.topics.values_list("identifier", "id"))
    names, first = np.unique(identifiers, return_index=True)
    missing = [(str(n), int(lines[i])) for n, i in zip(names, first) if str(n) not in ids]
    if missing and unknown == UnknownTopics.REJECT:
        topic, line = min(missing, key=lambda item: item[1])
        raise TrecFormatError(
            label,
            line,
            f"topic {topic!r} is not in campaign {campaign.slug!r}"
            f"{f' (nor are {len(missing) - 1} more)' if len(missing) > 1 else ''}; {advice}",
        )
    if missing and unknown == UnknownTopics.SKIP:
        report.warnings.append(
            f"{label}: skipped lines of {len(missing)} topic(s) not in the campaign: "
            + ", ".join(topic for topic, _ in sorted(missing, key=lambda item: item[1])[:10])
        )
    if missing and unknown == UnknownTopics.CREATE:
        for topic, line in sorted(missing, key=lambda item: item[1]):
            problem = identifier_problem("topic", topic)
            if problem:
                raise TrecFormatError(label, line, problem)
        created = Topic.objects.bulk_create([Topic(campaign=campaign, identifier=t) for t, _ in missing])
        Topic.renumber(campaign.pk)
        ids.update({t.identifier: t.id for t in created})
        report.warnings.append(f"{label}: created {len(created)} topic(s) with no text")
    return ids


class DocumentIds:
    """The campaign's document ids by docno, for an import to map a file's document numbers:
    ``ids(docnos)`` gives the id of each, creating empty documents for new ones.

    Qrels, pools and runs name documents that may not have been imported (yet): they get a row
    with no text, which a later document import fills in. The campaign's documents are read in
    one scan on first use and kept for the rest of the import (a second run of the same import
    finds most of its documents there), as long as they are at most :data:`SCAN_MAX`; past that
    each call looks its document numbers up :data:`LOOKUP_BATCH` at a time, so memory stays
    bounded whatever the campaign holds.
    """

    #: The most documents a campaign may have for an import to read them all at once (about
    #: 150 bytes each in memory).
    SCAN_MAX = 1_000_000

    def __init__(self, campaign: Campaign) -> None:
        self.campaign = campaign
        self.known: dict[str, int] | None = None
        self.scanned = False

    def ids(self, docnos: list[str]) -> list[int]:
        if not self.scanned:
            self.scanned = True
            if self.campaign.documents.count() <= self.SCAN_MAX:
                self.known = dict(self.campaign.documents.order_by().values_list("docno", "id"))
        found = self.known if self.known is not None else self._look_up(docnos)
        missing = [d for d in dict.fromkeys(docnos) if d not in found]
        # Another import may create the same documents meanwhile (two teams' uploads share most of
        # their documents): a conflicting row is left to it, and every new one is read back.
        Document.objects.bulk_create([Document(campaign=self.campaign, docno=d) for d in missing], batch_size=BATCH,
                                     ignore_conflicts=True)
        found.update(self._look_up(missing))
        ids = [found[d] for d in docnos]
        if self.known is not None and len(self.known) > self.SCAN_MAX:  # grown past the bound: look up from now on
            self.known = None
        return ids

    def _look_up(self, docnos: list[str]) -> dict[str, int]:
        found = {}
        for start in range(0, len(docnos), LOOKUP_BATCH):
            chunk = docnos[start : start + LOOKUP_BATCH]
            found.update(self.campaign.documents.filter(docno__in=chunk).order_by().values_list("docno", "id"))
        return found
