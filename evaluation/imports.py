"""Importing participants' runs into a campaign.

Each file is read and checked whole (the shared TREC reader), ranked once by the tie rule,
and stored as one packed ranked list per topic. All files of one call are written in one
transaction: if any file is bad, none is stored. Files are processed one at a time, so memory
holds one run, not all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db import transaction

from evaluation import recompute
from evaluation.measures.ranking import ranked_order
from evaluation.measures.trec_files import Source, TrecFormatError, pack_text, read_run_packed, text_hash
from evaluation.models import RankedList, Run, Team
from judging.identifiers import identifier_problem
from judging.imports import ImportReport, UnknownTopics, topic_ids_for
from judging.models import Campaign


@dataclass(frozen=True)
class RunSource:
    """A run file to import; ``tag`` replaces the file's own run tag when given."""

    source: Source
    name: str | None = None
    tag: str | None = None


#: At most this many bytes of document numbers, counted as lines × the longest one
#: (``read_run_packed``'s ``max_docno_bytes``): the import holds a run's document numbers in
#: arrays as wide as the longest, several at once, so a file of short lines with one long
#: document number would otherwise cost hundreds of times its size (bench/bench_hostile_input.py).
#: Real runs stay far below it: it takes 1.6 million lines of 20-character document numbers.
DOCNO_BYTES_MAX = 32 * 2**20


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
) -> tuple[list[Run], ImportReport]:
    """Store one run per file. The team is ``team_name``, by default one named after the tag;
    ``run_type`` is one of ``Run.RunType`` for all the files.

    Raises :class:`TrecFormatError` (file, line, problem) for a malformed file, a run tag the
    campaign already has or that two files share, or a topic not in the campaign (unless
    ``unknown_topics`` says to skip or create it). A tag in use is called "not available"
    unless ``say_tag_taken`` (for organizers): a participant must not learn another team's run
    tags before the scores are released.
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
    with transaction.atomic():
        tags = set(campaign.runs.values_list("tag", flat=True))
        for item in sources:
            run_file = read_run_packed(item.source, name=item.name, max_bytes=max_bytes,
                                       max_docno_bytes=DOCNO_BYTES_MAX).unpacked()
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
            topic_ids = topic_ids_for(campaign, run_file.topic, run_file.line, run_file.path, unknown_topics, report)
            report.warnings += run_warnings(run_file, list(topic_ids), campaign.depth, collection)
            run = Run.objects.create(
                campaign=campaign,
                team=team,
                tag=tag,
                description=description,
                priority=priority,
                run_type=run_type,
                source_name=run_file.path,
                uploaded_by=uploaded_by,
                line_count=len(run_file),
            )
            RankedList.objects.bulk_create(_ranked_lists(run, run_file, topic_ids, report), batch_size=200)
            runs.append(run)
            report.created += 1
        # New runs need scores on every judged topic: queue them once this import commits.
        transaction.on_commit(lambda: recompute.runs_changed(campaign.pk), robust=True)
    return runs, report


def run_warnings(run_file, topics: list[str], depth: int, collection: np.ndarray | None) -> list[str]:
    """What a run does that evaluation tolerates but its team should hear of, as NIST's run checks say it.

    * topics of the campaign (``topics``) the run lists no document for: they count 0 in the means;
    * topics listing more documents than the evaluation ``depth``: the rest is not evaluated;
    * document numbers not in ``collection`` (:func:`_collection`; None when no text is
      imported, which skips this check): a typo in the document numbers scores nothing, and
      such documents, pooled, are judged without a text to read.
    """
    label = run_file.path
    warnings = []
    answered, counts = np.unique(run_file.topic, return_counts=True)
    listed_topics = set(answered.tolist())
    missing = [t for t in topics if t not in listed_topics]
    if missing:
        listed = ", ".join(missing[:10]) + (", …" if len(missing) > 10 else "")
        warnings.append(f"{label}: no documents for {len(missing)} of the campaign's {len(topics)} topics ({listed}); "
                        "they count 0 in the means")
    deep = np.flatnonzero(counts > depth)
    if deep.size:
        most = deep[np.argmax(counts[deep])]
        warnings.append(f"{label}: {deep.size} topic(s) list more than the evaluation depth of {depth} documents "
                        f"(topic {answered[most]}: {counts[most]}); documents ranked below {depth} are not evaluated")
    if collection is not None:
        keys = text_hash(pack_text(run_file.docno))
        at = np.minimum(np.searchsorted(collection, keys), collection.size - 1)
        unknown = np.flatnonzero(collection[at] != keys)
        if unknown.size:
            first, more = unknown[0], unknown.size - 1
            others = f", nor are {more} more of the run's {len(run_file)} lines" if more else ""
            warnings.append(f"{label}, line {run_file.line[first]}: document {str(run_file.docno[first])!r} is not in "
                            f"the collection{others}; check the document numbers (they score nothing unless judged)")
    return warnings


def _collection(campaign: Campaign) -> np.ndarray | None:
    """The campaign's documents imported with a text (not the empty rows qrels and pools make for
    documents not imported yet), as the sorted 64-bit hashes of their docnos; None if there are none.

    A run's docnos are looked up by binary search: 50,000 in half a million documents take a few
    milliseconds, where matching the strings took 0.6 s a run. Two docnos sharing a hash (odds
    of about 10⁻⁹ for a run against a million documents) would hide one unknown docno.
    """
    docnos = list(campaign.documents.exclude(title="", body="").values_list("docno", flat=True))
    return np.sort(text_hash(pack_text(docnos))) if docnos else None


def _ranked_lists(run: Run, run_file, topic_ids: dict[str, int], report: ImportReport) -> list[RankedList]:
    keep = np.isin(run_file.topic, list(topic_ids))
    report.skipped += int((~keep).sum())
    topic, docno, score = run_file.topic[keep], run_file.docno[keep], run_file.score[keep]
    order = ranked_order(docno, score, topic=topic)
    topic, docno, score = topic[order], docno[order], score[order]
    starts = np.flatnonzero(np.concatenate(([True], topic[1:] != topic[:-1])))
    ends = np.append(starts[1:], len(topic))
    return [
        RankedList(run=run, topic_id=topic_ids[str(topic[a])], **RankedList.pack(docno[a:b], score[a:b]))
        for a, b in zip(starts, ends)
    ]
