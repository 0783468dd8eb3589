"""Importing qrels into a campaign as judgments and pool entries, and exporting official qrels.

The import reads and checks the whole file first, then writes in one transaction: on any error
nothing is stored and the error names the file, the line and the problem. The management
commands and the organizer's upload page both call these functions.
"""

from __future__ import annotations

from pathlib import PurePath

import numpy as np
from django.db import transaction
from django.utils import timezone

from campaigns.identifiers import shortened
from campaigns.imports import BATCH, DocumentIds, ImportReport, Progress, UnknownTopics, topic_ids_for
from campaigns.models import Campaign
from campaigns.signals import announce_judgments_changed
from evaluation.measures.trec_files import (
    TABLE_IMPORT_BYTES_MAX,
    TABLE_IMPORT_DOCNO_BYTES_MAX,
    TABLE_IMPORT_LINES_MAX,
    Source,
    TrecFormatError,
    read_qrels_packed,
    write_qrels,
)
from evaluation.measures.trec_sources import read_bytes
from evaluation.measures.packed_text import unpack_text
from judging.models import Judgment, JudgmentChange, Pool, PoolEntry

#: The widest judgment source label, ``qrels:<file name>`` (``Judgment.source``).
SOURCE_MAX = Judgment._meta.get_field("source").max_length


def import_qrels(
    campaign: Campaign,
    source: Source,
    *,
    name: str | None = None,
    unknown_topics: str = UnknownTopics.REJECT,
    max_bytes=None,
    progress: Progress | None = None,
) -> ImportReport:
    """Import 4-column qrels or 5-column sampled qrels as judgments and pool entries.

    Every row names a pooled document (in TREC a topic's pool is exactly the documents its
    qrels list), so every row becomes a pool entry; rows with rel ≥ 0 also become judgments
    from the source ``qrels:<file name>``. In sampled qrels the stratum column is the sampling
    stratum and each stratum's inclusion probability is (judged rows)/(rows) of the topic, as
    sample_eval.pl infers it; rel −1 marks a pooled document that was not sampled.

    Grades must be on the campaign's scale. Re-importing a file updates changed grades and
    records each change in the judgment history.

    The rows are written :data:`QRELS_BATCH` lines at a time, all in one transaction: each
    batch looks up its own documents, pool entries and judgments, and its model objects are
    dropped before the next, so memory follows the file's arrays, not one Python object per
    line and table row. After each batch ``progress(bytes, lines)`` is called with the end of
    the last line stored (in the file's content: uncompressed, for a gzip file).
    """
    limit = TABLE_IMPORT_BYTES_MAX if max_bytes is None else min(max_bytes, TABLE_IMPORT_BYTES_MAX)
    label, data = read_bytes(source, name, limit, TABLE_IMPORT_LINES_MAX)
    qrels = read_qrels_packed(data, name=label, max_bytes=limit, max_lines=TABLE_IMPORT_LINES_MAX,
                              max_docno_bytes=TABLE_IMPORT_DOCNO_BYTES_MAX)
    line_ends = _line_ends(data)
    del data
    report = ImportReport()
    grades = set(campaign.grades)
    bad = np.flatnonzero((qrels.rel >= 0) & ~np.isin(qrels.rel, list(grades)))
    if bad.size:
        raise TrecFormatError(
            label,
            int(qrels.line[bad[0]]),
            f"grade {int(qrels.rel[bad[0]])} is not on the campaign's scale {sorted(grades)}",
        )
    source_label = shortened(f"qrels:{PurePath(label).name}", SOURCE_MAX)  # the judgments' source column's width
    if source_label != f"qrels:{PurePath(label).name}":
        report.warnings.append(f"{label}: the file's name is longer than the {SOURCE_MAX - 6} characters the judgments "
                               f"record; they name their source {source_label!r}")
    with transaction.atomic():
        labels = unpack_text(qrels.topics).tolist()  # the distinct topics; rows hold their index
        first_row = np.unique(qrels.topic, return_index=True)[1]
        topic_ids = topic_ids_for(campaign, np.array(labels), qrels.line[first_row], label, unknown_topics, report)
        keep = np.array([t in topic_ids for t in labels], dtype=bool)[qrels.topic]
        report.skipped = int((~keep).sum())
        topic = np.array([topic_ids.get(t, 0) for t in labels], dtype=np.int64)[qrels.topic[keep]]
        docno = qrels.docno[keep]
        rel = qrels.rel[keep]
        line = qrels.line[keep]
        stratum = qrels.stratum[keep] if qrels.sampled else None
        strata = unpack_text(qrels.strata) if qrels.sampled else None
        del qrels, keep
        probability = _inclusion_probabilities(topic, rel, stratum) if stratum is not None else None
        pool, _ = Pool.objects.get_or_create(campaign=campaign, defaults={"method": Pool.Method.IMPORTED})
        now = timezone.now()
        documents_of = DocumentIds(campaign)
        for begin in range(0, len(topic), QRELS_BATCH):
            part = slice(begin, begin + QRELS_BATCH)
            batch_topics = topic[part].tolist()
            documents = documents_of.ids(unpack_text(docno[part]).tolist())
            grades_of = rel[part].tolist()
            _store_pool_entries(
                pool, batch_topics, documents, grades_of,
                strata[stratum[part]].tolist() if stratum is not None else None,
                probability[part].tolist() if probability is not None else None,
            )
            judged = [(t, d, g) for t, d, g in zip(batch_topics, documents, grades_of) if g >= 0]
            _store_judgments(campaign, source_label, judged, now, report)
            if progress is not None and len(line[part]):
                last = int(line[part][-1])
                progress(int(line_ends[last - 1]), last)
        if progress is not None:
            progress(int(line_ends[-1]), len(line_ends))
        if report.created or report.updated:
            announce_judgments_changed(campaign.id, set(np.unique(topic[rel >= 0]).tolist()))
    return report


def _line_ends(data: bytes) -> np.ndarray:
    """The offset just past each line of ``data`` (its newline, or the end of a last line without one)."""
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n")) + 1
    return ends if data.endswith(b"\n") else np.append(ends, len(data))


#: Qrels lines written per batch (:func:`import_qrels`): each batch's lookups are IN lists of at
#: most this many values, well under SQLite's limit on a statement's parameters.
QRELS_BATCH = 5000


def _inclusion_probabilities(topic: np.ndarray, rel: np.ndarray, stratum: np.ndarray) -> np.ndarray:
    """Per (topic, stratum): judged rows / rows, as sample_eval.pl infers the sampling rate
    (``topic`` and ``stratum`` are integer codes)."""
    _, group = np.unique(topic * (int(stratum.max(initial=0)) + 1) + stratum, return_inverse=True)
    rows = np.bincount(group)
    judged = np.bincount(group, weights=(rel >= 0))
    return (judged / rows)[group]


def _store_pool_entries(pool, topics: list[int], documents: list[int], grades: list[int], strata, probability) -> None:
    """One batch's pool entries: new ones created, existing ones given the file's stratum (sampled qrels)."""
    existing = {
        (t, d): pk
        for pk, t, d in PoolEntry.objects.filter(
            pool=pool, topic_id__in=set(topics), document_id__in=set(documents)
        ).values_list("id", "topic_id", "document_id")
    }
    new, changed = [], []
    for i, key in enumerate(zip(topics, documents)):
        entry = PoolEntry(
            pool=pool,
            topic_id=key[0],
            document_id=key[1],
            stratum=str(strata[i]) if strata is not None else "",
            inclusion_probability=float(probability[i]) if probability is not None else None,
            sampled=grades[i] >= 0,
        )
        if key not in existing:
            new.append(entry)
        elif strata is not None:
            entry.id = existing[key]
            changed.append(entry)
    _batched_create(PoolEntry, new)
    PoolEntry.objects.bulk_update(changed, ["stratum", "inclusion_probability", "sampled"], batch_size=BATCH)


def _store_judgments(campaign, source_label, judged: list[tuple[int, int, int]], now, report) -> None:
    """One batch's judgments (topic id, document id, grade) from ``source_label``, with their history rows."""
    if not judged:
        return
    current = {
        (t, d): (pk, g)
        for pk, t, d, g in Judgment.objects.filter(
            campaign=campaign, source=source_label, assessor=None,
            topic_id__in={t for t, _, _ in judged}, document_id__in={d for _, d, _ in judged},
        ).values_list("id", "topic_id", "document_id", "grade")
    }
    new, changed, history = [], [], []
    for t, d, g in judged:
        if (t, d) not in current:
            new.append(
                Judgment(
                    campaign=campaign, topic_id=t, document_id=d, source=source_label, grade=g, created=now, updated=now
                )
            )
        elif current[(t, d)][1] != g:
            pk, old = current[(t, d)]
            changed.append(Judgment(id=pk, grade=g, updated=now))
            history.append(JudgmentChange(judgment_id=pk, source=source_label, old_grade=old, new_grade=g, at=now))
        else:
            report.unchanged += 1
    created = _batched_create(Judgment, new)
    history += [
        JudgmentChange(judgment_id=j.id, source=source_label, old_grade=None, new_grade=j.grade, at=now)
        for j in created
    ]
    Judgment.objects.bulk_update(changed, ["grade", "updated"], batch_size=BATCH)
    _batched_create(JudgmentChange, history)
    report.created += len(created)
    report.updated += len(changed)


def _batched_create(model, objects: list) -> list:
    return model.objects.bulk_create(objects, batch_size=BATCH)


def export_qrels(campaign: Campaign, out, *, sampled: bool = False, judged_only: bool = False) -> int:
    """Write the campaign's official qrels; returns the number of rows written.

    4 columns (trec_eval): every pooled document with its official grade, −1 if pooled but
    not yet judged (omitted with ``judged_only``), then judged documents outside the pool.
    5 columns (``sampled``, sample_eval.pl): every pooled document with its stratum label and
    its official grade or −1; the pool must have strata, and judged documents outside the pool
    cannot be written (they have no stratum). Topics left out of the evaluation
    (``Topic.excluded``) are left out here too, as TREC's official qrels leave out dropped topics.
    """
    official = Judgment.objects.official(campaign)
    evaluated = campaign.topics.filter(excluded=False)
    topics = dict(evaluated.values_list("id", "identifier"))
    order = {pk: i for i, pk in enumerate(evaluated.values_list("id", flat=True))}
    entries = list(
        PoolEntry.objects.filter(pool__campaign=campaign, topic__excluded=False)
        .order_by("id")
        .values_list("topic_id", "document_id", "document__docno", "stratum")
    )
    if sampled:
        blank = sum(1 for entry in entries if not entry[3])
        if not entries:
            raise ValueError(f"campaign {campaign.slug!r} has no pool: sampled qrels need pooled documents with strata")
        if blank:
            raise ValueError(
                f"{blank} pooled document(s) of campaign {campaign.slug!r} have no stratum; "
                "export 4-column qrels, or build or import a stratified pool"
            )
    rows = [(t, docno, s, official.get((t, d), -1)) for t, d, docno, s in entries]
    if not sampled:
        pooled = {(t, d) for t, d, _, _ in entries}
        docnos = dict(campaign.documents.filter(judgments__isnull=False).values_list("id", "docno").distinct())
        rows += [(t, docnos[d], "", g) for (t, d), g in official.items() if (t, d) not in pooled and t in topics]
        if judged_only:
            rows = [row for row in rows if row[3] >= 0]
    rows.sort(key=lambda row: order[row[0]])  # stable: pool order within a topic
    write_qrels(
        out,
        [topics[row[0]] for row in rows],
        [row[1] for row in rows],
        [row[3] for row in rows],
        stratum=[row[2] for row in rows] if sampled else None,
    )
    return len(rows)
