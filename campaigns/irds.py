"""Topics, qrels and documents from ir_datasets by id, through the same readers and checks as files.

``import_topics --irds ID``, ``import_qrels --irds ID`` and ``import_documents --only-needed
--irds ID`` (``docs/organizer.md#from-ir_datasets``) turn the dataset's entities into the text of a
file the file import already reads — topics and documents as JSONL, qrels as 4-column TREC
lines — and hand it to that import. So every check, message and the all-or-nothing
transaction are the file import's own; the "file" is named ``ir_datasets:ID queries`` (or
``qrels``, ``docs``) in errors, with the line of the entity that failed.

Documents are fetched only for the document numbers the campaign already names (the rows a
run, the pool or a judgment created), through the dataset's docstore (random access), so a
collection of millions of documents is never read whole.

ir_datasets is an optional dependency: without it these raise ValueError saying how to
install it. ir_datasets downloads a dataset's files on first use into ``IR_DATASETS_HOME``
(default ``~/.ir_datasets``); a dataset registered from local files
(``ir_datasets.registry.register(ID, ir_datasets.create_dataset(...))``) downloads nothing.
"""

from __future__ import annotations

import json
import tempfile

from campaigns.imports import ImportReport, import_documents, import_topics
from campaigns.models import Campaign

#: Documents asked of the docstore at once.
DOCSTORE_BATCH = 1000


def load_dataset(dataset_id: str):
    """The ir_datasets dataset with this id; ValueError if ir_datasets is missing or the id unknown."""
    try:
        import ir_datasets
    except ImportError:
        raise ValueError(
            "--irds needs the ir_datasets package, an optional dependency: pip install ir_datasets==0.6.3"
        ) from None
    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        raise ValueError(f"ir_datasets has no dataset {dataset_id!r} (see https://ir-datasets.com)") from None


def _require(dataset, dataset_id: str, entity: str) -> None:
    if not getattr(dataset, f"has_{entity}")():
        raise ValueError(f"ir_datasets dataset {dataset_id!r} has no {entity}")


def topics_jsonl(dataset, dataset_id: str) -> bytes:
    """The dataset's queries as JSONL that ``collection_files.read_topics`` reads: each query's
    text fields under their own names (``query_id``, ``title`` or ``text``, ``description``,
    ``narrative``), other fields left out."""
    _require(dataset, dataset_id, "queries")
    lines = []
    for query in dataset.queries_iter():
        fields = {k: v for k, v in query._asdict().items() if isinstance(v, str)}
        lines.append(json.dumps(fields, ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode()


def qrels_text(dataset, dataset_id: str) -> bytes:
    """The dataset's qrels as 4-column TREC lines (``query_id iteration doc_id relevance``)."""
    _require(dataset, dataset_id, "qrels")
    lines = [f"{q.query_id} {getattr(q, 'iteration', '0') or '0'} {q.doc_id} {q.relevance}" for q in dataset.qrels_iter()]
    return ("\n".join(lines) + "\n").encode()


def import_topics_from(campaign: Campaign, dataset_id: str, *, max_bytes=None) -> ImportReport:
    """``import_topics`` of the dataset's queries."""
    dataset = load_dataset(dataset_id)
    return import_topics(campaign, topics_jsonl(dataset, dataset_id), name=f"ir_datasets:{dataset_id} queries",
                         max_bytes=max_bytes)


def import_needed_documents_from(campaign: Campaign, dataset_id: str, *, max_bytes=None) -> ImportReport:
    """``import_documents --only-needed`` of the documents the campaign names, from the
    dataset's docstore. Document numbers the dataset lacks are left without text, with a warning."""
    dataset = load_dataset(dataset_id)
    _require(dataset, dataset_id, "docs")
    needed = sorted(campaign.documents.values_list("docno", flat=True))
    label = f"ir_datasets:{dataset_id} docs"
    if not needed:
        return ImportReport(warnings=["the campaign names no documents yet (import runs or qrels first)"])
    store = dataset.docs_store()
    found = 0
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as jsonl:  # read back line by line, as a file
        for start in range(0, len(needed), DOCSTORE_BATCH):
            for doc in store.get_many(needed[start : start + DOCSTORE_BATCH]).values():
                jsonl.write(json.dumps(_document_object(doc), ensure_ascii=False).encode() + b"\n")
                found += 1
        if not found:
            raise ValueError(f"{label}: none of the campaign's {len(needed):,} document numbers is in the dataset")
        jsonl.flush()
        report = import_documents(campaign, jsonl.name, name=label, only_needed=True, max_bytes=max_bytes)
    if found < len(needed):
        report.warnings.append(f"{len(needed) - found:,} of the campaign's {len(needed):,} document numbers are not "
                               "in the dataset and stay without text")  # fmt: skip
    return report


def _document_object(doc) -> dict:
    """A docstore document as the JSONL the document import reads: ``docno``, ``title`` if the
    dataset has one, and the body (``text``, else ``body``, else ir_datasets' ``default_text()``)."""
    fields = doc._asdict()
    body = next((fields[k] for k in ("text", "body") if isinstance(fields.get(k), str)), None)
    if body is None:
        body = doc.default_text() if hasattr(doc, "default_text") else ""
    out = {"docno": str(doc.doc_id), "text": body}
    if isinstance(fields.get("title"), str):
        out["title"] = fields["title"]
    return out
