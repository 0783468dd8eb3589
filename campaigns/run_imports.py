"""Importing participants' runs into a campaign.

Each file is read and checked whole (the shared TREC reader), ranked once by the tie rule,
its document numbers mapped once to the campaign's documents, and stored as one ranked list
of document ids per topic. All files of one call are written in one transaction: if any file
is bad, none is stored. Files are processed one at a time, so memory holds one run, not all of
them, and the document numbers stay packed (no Python string a line).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db import transaction

from evaluation.measures.ranking import ranked_order
from evaluation.measures.trec_files import (
    TABLE_IMPORT_BYTES_MAX,
    TABLE_IMPORT_DOCNO_BYTES_MAX,
    TABLE_IMPORT_LINES_MAX,
    PackedRun,
    read_run_packed,
)
from evaluation.measures.trec_sources import Source, TrecFormatError, read_source_bytes
from evaluation.measures.packed_text import text_rank, unpack_text

from campaigns import ir_metadata
from campaigns.identifiers import identifier_problem, shortened
from campaigns.imports import DocumentIds, ImportReport, Progress, UnknownTopics, topic_ids_for
from campaigns.models import Campaign, RankedList, Run, Team
from campaigns.signals import announce_runs_changed


@dataclass(frozen=True)
class RunSource:
    """A run file to import; ``tag`` replaces the file's own run tag when given; ``metadata`` is an
    ``ir-metadata.yml`` to store with the run (``metadata_name`` names it in messages), instead of
    the run file's own header."""

    source: Source
    name: str | None = None
    tag: str | None = None
    metadata: Source | None = None
    metadata_name: str | None = None


#: Document numbers decoded to text at a time, to look up or create their documents.
DOCNO_CHUNK = 50_000


#: The largest pooling priority (``Run.priority``, a small integer) and the longest team name.
PRIORITY_MAX = 32767
TEAM_NAME_MAX = Team._meta.get_field("name").max_length


def import_runs(
    campaign: Campaign,
    sources: list[RunSource],
    *,
    team_name: str | None = None,
    description: str = "",
    priority: int = 1,
    run_type: str = Run.RunType.AUTOMATIC,
    unknown_topics: str = UnknownTopics.REJECT,
    uploaded_by=None,
    max_bytes: int | None = None,
    max_runs_per_team: int | None = None,
    say_tag_taken: bool = False,
    unknown_topic_advice: str | None = None,
    progress: Progress | None = None,
) -> tuple[list[Run], ImportReport]:
    """Store one run per file. The team is ``team_name``, by default one named after the tag;
    ``run_type`` is one of ``Run.RunType`` for all the files.

    Raises :class:`TrecFormatError` (file, line, problem) for a malformed file, a run tag the
    campaign already has or that two files share, or a topic not in the campaign (unless
    ``unknown_topics`` says to skip or create it; ``unknown_topic_advice`` ends that refusal, for
    participants, who cannot import topics). A tag in use is called "not available"
    unless ``say_tag_taken`` (for organizers): a participant must not learn another team's run
    tags before the scores are released. The run's ir_metadata (:mod:`campaigns.ir_metadata`), from
    its header or ``RunSource.metadata``, is stored with it; metadata that cannot be read is a
    TrecFormatError too. After each file is stored, ``progress(bytes, lines)`` is called with the
    bytes (uncompressed) and run lines of the files stored so far.
    """
    if run_type not in Run.RunType.values:
        raise ValueError(f"run type {run_type!r} is not one of {', '.join(Run.RunType.values)}")
    if not 1 <= priority <= PRIORITY_MAX:
        raise ValueError(f"priority {priority} is not between 1 and {PRIORITY_MAX}")
    if team_name is not None and not 0 < len(team_name) <= TEAM_NAME_MAX:
        raise ValueError(f"team name {team_name[:40]!r} is {len(team_name)} characters long; 1 to {TEAM_NAME_MAX} are allowed")
    report = ImportReport()
    runs = []
    collection = _collection(campaign)
    documents_of = DocumentIds(campaign)
    limit = TABLE_IMPORT_BYTES_MAX if max_bytes is None else min(max_bytes, TABLE_IMPORT_BYTES_MAX)
    read = lines = 0
    with transaction.atomic():
        tags = set(campaign.runs.values_list("tag", flat=True))
        for item in sources:
            label, data = read_source_bytes(item.source, item.name, limit)
            read += len(data)
            run_file = read_run_packed(data, name=label, max_bytes=limit, max_lines=TABLE_IMPORT_LINES_MAX,
                                       max_docno_bytes=TABLE_IMPORT_DOCNO_BYTES_MAX)
            metadata = _metadata(item, label, data)
            del data  # the run is read: its file's bytes need not stay in memory while it is stored
            tag = item.tag or run_file.tag
            problem = identifier_problem("run tag", tag)
            if problem:
                raise TrecFormatError(run_file.path, int(run_file.line[0]), problem)
            if tag in tags:
                problem = (f"run tag {tag!r} is already taken in this campaign; name the run after its file instead"
                           if say_tag_taken else f"run tag {tag!r} is not available in this campaign; choose another")
                raise TrecFormatError(run_file.path, int(run_file.line[0]), problem)
            tags.add(tag)
            team, _ = Team.objects.get_or_create(campaign=campaign, name=team_name or tag)
            if max_runs_per_team is not None and team.runs.count() >= max_runs_per_team:
                raise TrecFormatError(
                    run_file.path, None, f"team {team.name!r} already has {max_runs_per_team} runs, the limit"
                )
            labels = [str(t) for t in run_file.topics]
            first_row = np.unique(run_file.topic, return_index=True)[1]
            topic_ids = topic_ids_for(campaign, np.array(labels), run_file.line[first_row], run_file.path,
                                      unknown_topics, report,
                                      **({"advice": unknown_topic_advice} if unknown_topic_advice else {}))
            documents = _document_ids(documents_of, run_file.docno)
            report.warnings += run_warnings(run_file, documents, list(topic_ids), campaign.depth, collection)
            run = Run.objects.create(
                campaign=campaign,
                team=team,
                tag=tag,
                description=description,
                priority=priority,
                run_type=run_type,
                source_name=shortened(run_file.path, Run._meta.get_field("source_name").max_length),
                uploaded_by=uploaded_by,
                line_count=len(run_file),
                ir_metadata=metadata,
            )
            RankedList.objects.bulk_create(_ranked_lists(run, run_file, documents, labels, topic_ids, report),
                                           batch_size=200)
            runs.append(run)
            report.created += 1
            lines += len(run_file)
            if progress is not None:
                progress(read, lines)
        # New runs need scores on every judged topic: queue them once this import commits.
        announce_runs_changed(campaign.pk)
    return runs, report


def _metadata(item: RunSource, label: str, data: bytes) -> dict | None:
    """The run's ir_metadata: its header, or the separate file; a file and a header both is an error
    (which one would be right?)."""
    header = ir_metadata.header_metadata(label, data)
    if item.metadata is None:
        return header
    if header is not None:
        raise TrecFormatError(label, None, "the run file has an ir_metadata header and an ir-metadata.yml was sent "
                                           "too; send one of them")
    return ir_metadata.file_metadata(item.metadata, item.metadata_name)


def run_warnings(run_file: PackedRun, documents: np.ndarray, topics: list[str], depth: int,
                 collection: np.ndarray | None) -> list[str]:
    """What a run does that evaluation tolerates but its team should hear of, as NIST's run checks say it.

    * topics of the campaign (``topics``) the run lists no document for: they count 0 in the means;
    * topics listing more documents than the evaluation ``depth``: the rest is not evaluated;
    * documents (``documents``, the id of each line's) not in ``collection`` (:func:`_collection`;
      None when no text is imported, which skips this check): a typo in the document numbers
      scores nothing, and such documents, pooled, are judged without a text to read.
    """
    label = run_file.path
    warnings = []
    counts = np.bincount(run_file.topic, minlength=len(run_file.topics))
    listed_topics = {str(t) for t in run_file.topics}
    missing = [t for t in topics if t not in listed_topics]
    if missing:
        listed = ", ".join(missing[:10]) + (", …" if len(missing) > 10 else "")
        warnings.append(f"{label}: no documents for {len(missing)} of the campaign's {len(topics)} topics ({listed}); "
                        "they count 0 in the means")
    deep = np.flatnonzero(counts > depth)
    if deep.size:
        most = deep[np.argmax(counts[deep])]
        warnings.append(f"{label}: {deep.size} topic(s) list more than the evaluation depth of {depth} documents "
                        f"(topic {run_file.topics[most]}: {counts[most]}); documents ranked below {depth} are not evaluated")
    if collection is not None:
        unknown = np.flatnonzero(~np.isin(documents, collection))
        if unknown.size:
            first, more = unknown[0], unknown.size - 1
            docno = unpack_text(run_file.docno[first : first + 1])[0]
            others = f", nor are {more} more of the run's {len(run_file)} lines" if more else ""
            warnings.append(f"{label}, line {run_file.line[first]}: document {str(docno)!r} is not in "
                            f"the collection{others}; check the document numbers (they score nothing unless judged)")
    return warnings


def _collection(campaign: Campaign) -> np.ndarray | None:
    """The ids of the campaign's documents imported with a text (not the empty rows that qrels,
    pools and runs make for documents not imported yet); None if there are none."""
    ids = np.array(campaign.documents.exclude(title="", body="").values_list("id", flat=True), dtype=np.int64)
    return ids if ids.size else None


def _document_ids(documents_of: DocumentIds, docno: np.ndarray) -> np.ndarray:
    """The campaign's document id for each packed document number (empty documents created for
    new ones): each distinct one decoded and looked up once, :data:`DOCNO_CHUNK` at a time."""
    rank = text_rank(docno)
    distinct = int(rank.max(initial=-1)) + 1
    first = np.empty(distinct, dtype=np.int64)
    first[rank[::-1]] = np.arange(rank.size - 1, -1, -1)  # each distinct one's first row
    ids = np.empty(distinct, dtype=np.int64)
    for start in range(0, distinct, DOCNO_CHUNK):
        rows = first[start : start + DOCNO_CHUNK]
        ids[start : start + rows.size] = documents_of.ids(unpack_text(docno[rows]).tolist())
    return ids[rank]


def _ranked_lists(run: Run, run_file: PackedRun, documents: np.ndarray, labels: list[str], topic_ids: dict[str, int],
                  report: ImportReport) -> list[RankedList]:
    keep = np.array([label in topic_ids for label in labels], dtype=bool)[run_file.topic]
    report.skipped += int((~keep).sum())
    topic, documents, score = run_file.topic[keep], documents[keep], run_file.score[keep]
    order = ranked_order(run_file.docno[keep] if not keep.all() else run_file.docno, score, topic=topic)
    topic, documents, score = topic[order], documents[order], score[order]
    starts = np.flatnonzero(np.concatenate(([True], topic[1:] != topic[:-1])))
    ends = np.append(starts[1:], len(topic))
    return [
        RankedList(run=run, topic_id=topic_ids[labels[topic[a]]], **RankedList.pack(documents[a:b], score[a:b]))
        for a, b in zip(starts, ends)
    ]
