"""Qrels indexed once for matching many runs: judged documents packed and hashed, topic by topic.

:func:`load_qrels` takes a path, bytes, a parsed file, a dictionary, a DataFrame or a
:class:`Qrels`; ``evaluate_runs.evaluate`` and ``ranked_runs`` match runs against the result.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from . import trec_scan
from .batch import TopicJudgments
from .frames import is_frame, qrels_from_frame
from .trec_files import (
    PackedQrels,
    QrelsFile,
    read_qrels_packed,
)
from .packed_text import text_hash, unpack_text


@dataclass(frozen=True, eq=False)
class Qrels:
    """Qrels ready for evaluation: per-topic judgments and an index from (topic, docno) to row.

    Attributes
    ----------
    topics : tuple of str
        Topics in byte order (trec_eval's order: "1", "10", "2").
    judgments : tuple of TopicJudgments
        One per topic; rows in file order within the topic.
    sampled : bool
        Read from a 5-column sampled qrels file (strata known).
    strata : tuple of str
        Stratum labels (sorted) shared by all topics.
    path : str
    words, keys : arrays
        Every row's document number packed (``packed_text.pack_text``) and its
        ``packed_text.text_hash``, topic by topic; ``bounds`` (topics + 1) where each topic's
        rows start. :attr:`docno` gives them as text.
    """

    topics: tuple[str, ...]
    judgments: tuple[TopicJudgments, ...]
    sampled: bool
    strata: tuple[str, ...]
    path: str
    words: np.ndarray = field(repr=False)
    keys: np.ndarray = field(repr=False)
    bounds: np.ndarray = field(repr=False)
    _cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_file(cls, q: QrelsFile) -> Qrels:
        """Index a parsed qrels file (``trec_files.read_qrels``)."""
        return cls.from_packed(PackedQrels.from_file(q))

    @classmethod
    def from_packed(cls, q: PackedQrels) -> Qrels:
        """Index a qrels file read packed (``trec_files.read_qrels_packed``)."""
        T = q.topics.shape[0]
        order = np.argsort(q.topic, kind="stable")  # topic by topic, file order within a topic
        bounds = np.concatenate(([0], np.cumsum(np.bincount(q.topic, minlength=T))))
        strata = tuple(unpack_text(q.strata).tolist()) if q.sampled else ("1",)
        rel = q.rel[order]
        code = None if q.stratum is None else q.stratum[order]
        judgments = tuple(
            TopicJudgments(rel[a:b], None if code is None else code[a:b], strata) for a, b in zip(bounds[:-1], bounds[1:])
        )
        words = np.stack([q.docno[:, j][order] for j in range(q.docno.shape[1])], axis=1)  # 1-d gathers: faster
        return cls(tuple(unpack_text(q.topics).tolist()), judgments, q.sampled, strata, q.path, words, q.keys[order],
                   bounds)

    @cached_property
    def docno(self) -> tuple[np.ndarray, ...]:
        """Document numbers (str arrays) of each topic's rows."""
        text = unpack_text(self.words) if self.words.shape[0] else np.zeros(0, dtype=str)
        return tuple(text[a:b] for a, b in zip(self.bounds[:-1], self.bounds[1:]))

    @classmethod
    def from_dict(cls, qrels: Mapping, *, name: str = "<qrels>") -> Qrels:
        """Index ``{topic: {docno: rel}}`` or, for sampled qrels, ``{topic: {docno: (stratum, rel)}}``."""
        topic, docno, rel, stratum = [], [], [], []
        for t, docs in qrels.items():
            if not isinstance(docs, Mapping):
                raise ValueError(f"qrels[{t!r}] must map docno to a judgment, got {type(docs).__name__}")
            for d, value in docs.items():
                topic.append(str(t))
                docno.append(str(d))
                if isinstance(value, (tuple, list)):
                    if len(value) != 2:
                        raise ValueError(f"qrels[{t!r}][{d!r}] must be rel or (stratum, rel), got {value!r}")
                    stratum.append(str(value[0]))
                    value = value[1]
                if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                    raise ValueError(f"qrels[{t!r}][{d!r}] relevance must be an integer, got {value!r}")
                rel.append(int(value))
        if not topic:
            raise ValueError("qrels are empty")
        if stratum and len(stratum) != len(topic):
            raise ValueError("sampled qrels need (stratum, rel) for every document")
        q = QrelsFile(
            path=name,
            topic=np.array(topic, dtype=str),
            docno=np.array(docno, dtype=str),
            rel=np.array(rel, dtype=np.int64),
            stratum=np.array(stratum, dtype=str) if stratum else None,
            line=np.arange(1, len(topic) + 1, dtype=np.int64),
        )
        return cls.from_file(q)

    def topic_positions(self, labels: np.ndarray) -> np.ndarray:
        """Index of each topic label in :attr:`topics`, −1 if not a qrels topic."""
        labels = np.asarray(labels).astype(str)
        known = np.asarray(self.topics)
        if labels.size == 0 or known.size == 0:
            return np.full(labels.size, -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(known, labels), known.size - 1)
        return np.where(known[pos] == labels, pos, -1).astype(np.int64)

    def locate(self, topic_index: np.ndarray, docno: np.ndarray, keys: np.ndarray | None = None) -> np.ndarray:
        """Row (within its topic) of each (topic index, packed docno), :data:`NONPOOL` if not judged.

        ``docno`` is packed (``packed_text.pack_text``); ``keys``, if given, its
        ``packed_text.text_hash``. The judged (topic, docno) pairs are indexed once
        (``trec_scan.index``: a hash table per topic in C, or sorted hashes in numpy), where
        every match is confirmed on the words, so a hash collision can never give a wrong
        match. Returns int32.
        """
        return self._lookup().locate(topic_index, docno, text_hash(docno) if keys is None else keys)

    def _lookup(self):
        """The judged (topic index, docno) pairs, indexed on first use."""
        if "lookup" not in self._cache:
            self._cache["lookup"] = trec_scan.index(self.bounds, self.words, self.keys)
        return self._cache["lookup"]


def load_qrels(source) -> Qrels:
    """Qrels from a path, bytes, a parsed ``QrelsFile``, a dictionary, a DataFrame
    (:func:`~evaluation.measures.frames.qrels_from_frame`) or a :class:`Qrels`."""
    if isinstance(source, Qrels):
        return source
    if is_frame(source):
        return Qrels.from_file(qrels_from_frame(source))
    if isinstance(source, QrelsFile):
        return Qrels.from_file(source)
    if isinstance(source, Mapping):
        return Qrels.from_dict(source)
    if isinstance(source, (str, os.PathLike, bytes, bytearray)) or hasattr(source, "read"):
        return Qrels.from_packed(read_qrels_packed(source, like_trec_eval=True))  # docno bytes, strtol grades
    raise ValueError(f"qrels must be a path, bytes, a QrelsFile, a dict or a DataFrame, got {type(source).__name__}")
