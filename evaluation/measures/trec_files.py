"""Readers and writers for the TREC files the field exchanges: runs, qrels, sampled qrels.

One parser for the CLI, the import commands and the upload pages. A file is read whole,
checked whole, and only then returned, so a caller can write it in one transaction or not at
all. Every problem raises :class:`TrecFormatError` naming the file, the line and the problem.

Formats (``docs/evaluation.md#reading-run-and-qrels-files``, ``docs/formats.md``):

* run: ``topic iter docno rank score tag`` — 6 whitespace-separated columns; ``iter`` and
  ``rank`` are ignored (the ranking comes from ``score``); ``tag`` must be the same on every
  line of a file.
* qrels: ``topic iter docno rel`` — 4 columns; ``rel`` an integer, negative meaning "in the
  pool but not judged".
* sampled qrels: ``topic iter docno stratum rel`` — 5 columns, as NIST's sample_eval.pl reads
  them; ``stratum`` is a label, ``rel`` −1 marks a pooled document that was not sampled.

Blank lines and lines whose first field starts with ``#`` are skipped (trec_eval v10 does the
same; v9 and sample_eval.pl reject them). Unlike trec_eval's ``atof``/``atol``, a score that
is not a number or a relevance that is not an integer is an error, not a silent zero. Read
``like_trec_eval`` (the evaluation's readers), a relevance written with more after its integer
(``1.5``, ``0.3``, ``1e+8``, ``0x37``) is read as trec_eval reads it (``atol``/``strtol``):
the integer it starts with (1, 0, 1, 0), so trec_eval's own ``qrels.test.with-floats`` gives
trec_eval's numbers; one that does not start with an integer is still an error.

Numbers follow one grammar (``docs/formats.md``): a score is a finite decimal, ``[+-]digits[.digits]
[e[+-]digits]`` in ASCII (or ``.digits``), as C's ``strtod`` reads it apart from its hexadecimal,
``inf`` and ``nan`` forms; a relevance is ``[+-]digits`` within 32 bits (−2,147,483,648 to
2,147,483,647). Python's own extras (``1_000``, other scripts' digits) are errors.
Identifiers have a length limit (:data:`LIMITS`, in characters): a topic 64, a document number
200, a run tag 100, a stratum label 64. They are checked before any array is sized by the
longest value, so a file's memory grows with its size, not with its longest field.
Duplicates (a document twice in a topic of a run; a (topic, document) pair twice in qrels) are
errors, as in trec_eval.

A run or qrels file in the regular form every tool writes (ASCII, one space or one tab
between columns, ``\n`` or ``\r\n`` line ends, no comments or blank lines) is split into
columns by a scanner (:mod:`.trec_scan`: C compiled when the project is installed, or its
numpy version :mod:`.numpy_scan` where it was not), which also parses scores so they equal
``float()``'s bit for bit, and packs and hashes the strings; relevance values are parsed by
numpy as in the general reader. Any other file, and any file the fast path finds a problem
in, goes through the general reader, which is vectorized: it splits the file into
tokens with one C-level call and checks every line with numpy on byte offsets, and only when a
check fails does a slower scan find the first offending line. So values and error messages do
not depend on which path read the file.

A gzip-compressed file (``.gz``, as runs and qrels are often shipped) is read as its content,
whatever its name: the size limit then holds for the content too.

Document numbers and topics can also be kept *packed* (``packed_text.pack_text``): each string's
UTF-8 bytes, zero padded, as big-endian 64-bit words, one row per string. Rows compare equal
exactly when the strings do, and compare in byte order (``strcmp``) word by word, so matching
and the tie rule need no Python string objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO

import numpy as np

from . import trec_scan
from .packed_text import pack_text, text_hash, text_rank, unpack_text
from .trec_columns import LIMITS, NUMBER_LIMIT, check_lengths, check_utf8, column_text, parse_numbers, reject_duplicates, split_columns
from .trec_sources import Source, TrecFormatError, checked_binary, checked_text, read_bytes


#: The most a campaign's import reads of one run or qrels file: lines, and bytes once
#: decompressed (``max_lines``, ``max_bytes``). A reader holds the whole file and a few words a
#: line, so these bound an import's memory whatever the file holds (bench/bench_hostile_input.py);
#: the lines are counted before any array is made, the bytes while decompressing. ``evaluate``
#: reads files of any size.
TABLE_IMPORT_LINES_MAX = 4 * 2**20
TABLE_IMPORT_BYTES_MAX = 256 * 2**20
#: ... and lines × the longest document number, in bytes (``max_docno_bytes``): document numbers
#: are packed in rows as wide as the longest, so a file of short lines with one long document
#: number would otherwise cost hundreds of times its size. Real files stay far below it: it
#: takes 1.6 million lines of 20-character document numbers.
TABLE_IMPORT_DOCNO_BYTES_MAX = 32 * 2**20


@dataclass(frozen=True)
class RunFile:
    """One run file, rows in file order."""

    path: str
    tag: str
    topic: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    line: np.ndarray

    def __len__(self) -> int:
        return int(self.topic.size)


@dataclass(frozen=True)
class PackedRun:
    """One run file, rows in file order, strings packed (``packed_text.pack_text``).

    ``topics`` are the distinct topic labels in byte order, ``topic`` each row's index into
    them; ``docno`` is the packed document numbers (one row of words per line), ``keys``
    their ``packed_text.text_hash`` where the reader computed it (None otherwise).
    """

    path: str
    tag: str
    topics: np.ndarray
    topic: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    line: np.ndarray
    keys: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.topic.size)

    @classmethod
    def from_run(cls, run: RunFile) -> PackedRun:
        """Pack a :class:`RunFile` (one built from a dictionary)."""
        topics, code = np.unique(np.asarray(run.topic).astype(str), return_inverse=True)
        return cls(run.path, run.tag, topics, code.astype(np.int64), pack_text(run.docno), run.score, run.line)

    def unpacked(self) -> RunFile:
        return RunFile(self.path, self.tag, self.topics[self.topic], unpack_text(self.docno), self.score, self.line)


@dataclass(frozen=True)
class QrelsFile:
    """A 4-column qrels or a 5-column sampled qrels file, rows in file order."""

    path: str
    topic: np.ndarray
    docno: np.ndarray
    rel: np.ndarray
    stratum: np.ndarray | None
    line: np.ndarray

    @property
    def sampled(self) -> bool:
        return self.stratum is not None

    def __len__(self) -> int:
        return int(self.topic.size)


@dataclass(frozen=True)
class PackedQrels:
    """A qrels file, rows in file order, strings packed (``packed_text.pack_text``).

    ``topics`` and ``strata`` are the distinct labels (packed, in byte order), ``topic`` and
    ``stratum`` each row's index into them (``strata``/``stratum`` None for 4-column qrels);
    ``docno`` the packed document numbers, ``keys`` their ``packed_text.text_hash``.
    """

    path: str
    topics: np.ndarray
    topic: np.ndarray
    docno: np.ndarray
    keys: np.ndarray
    rel: np.ndarray
    strata: np.ndarray | None
    stratum: np.ndarray | None
    line: np.ndarray

    @property
    def sampled(self) -> bool:
        return self.strata is not None

    @classmethod
    def from_file(cls, q: QrelsFile) -> PackedQrels:
        """Pack a :class:`QrelsFile` (one built from a dictionary)."""
        topics, topic = np.unique(np.asarray(q.topic).astype(str), return_inverse=True)
        strata = stratum = None
        if q.stratum is not None:
            strata, stratum = np.unique(np.asarray(q.stratum).astype(str), return_inverse=True)
            strata = pack_text(strata)
        docno = pack_text(q.docno)
        rel = np.asarray(q.rel, dtype=np.int64)
        stratum = None if stratum is None else stratum.ravel()
        line = np.asarray(q.line)
        return cls(q.path, pack_text(topics), topic.ravel(), docno, text_hash(docno), rel, strata, stratum, line)

    def unpacked(self) -> QrelsFile:
        stratum = None if self.strata is None else unpack_text(self.strata)[self.stratum]
        return QrelsFile(self.path, unpack_text(self.topics)[self.topic], unpack_text(self.docno), self.rel, stratum,
                         self.line)


def read_run(source: Source, *, name: str | None = None, max_bytes: int | None = None) -> RunFile:
    """Read and check a 6-column TREC run file.

    Parameters
    ----------
    source : path, bytes or binary file object
    name : str, optional
        How the file is called in error messages (defaults to the path or the file's name).
    max_bytes : int, optional
        Refuse a larger file.

    Raises
    ------
    TrecFormatError
        Empty file, NUL bytes, invalid UTF-8, a line without 6 columns, a score that is not a
        finite number, the same document twice for a topic, or a run tag that changes.
    """
    label, data = read_bytes(source, name, max_bytes)
    run = _scan_regular_run(label, data)
    return (run if run is not None else _read_run_general(label, checked_text(label, data))).unpacked()


def read_run_packed(source: Source, *, name: str | None = None, max_bytes: int | None = None,
                    max_lines: int | None = None, max_docno_bytes: int | None = None,
                    like_trec_eval: bool = False) -> PackedRun:
    """:func:`read_run` with the strings left packed: what the evaluation reads, fastest.

    Same checks, same values, same errors as :func:`read_run`. ``max_lines`` refuses a longer
    file before reading its columns; ``max_docno_bytes`` refuses a run whose lines × longest
    document number exceed it, before any array of that size is made (the app's imports: a
    file of short lines and one long document number would otherwise take hundreds of times
    its size). ``like_trec_eval`` reads as trec_eval reads: document numbers that are not UTF-8
    (Latin-1 bytes, as old collections have) are matched and tie-broken as bytes, and a grade
    with more after its integer (``1.5``) is that integer; topics and the run tag must still be
    UTF-8. The evaluation reads files so; imports, which store text and grades, do not.
    """
    label, data = read_bytes(source, name, max_bytes, max_lines)
    run = _scan_regular_run(label, data, max_docno_bytes)
    checked = checked_binary(label, data) if like_trec_eval else checked_text(label, data)
    return run if run is not None else _read_run_general(label, checked, max_docno_bytes)


def _read_run_general(label: str, data: bytes, max_docno_bytes: int | None = None) -> PackedRun:
    """The general run reader: any whitespace, comments, blank lines, UTF-8; exact errors.

    Returns the packed form directly: distinct topics are decoded, rows hold codes, so no array
    a line is as wide as the longest topic or document number in characters.
    """
    columns, lines = split_columns(data, label, allowed=(6,), what="run")
    for column, kind in ((0, "topic"), (2, "document number"), (4, "score"), (5, "run tag")):
        check_lengths(label, columns, column, lines, kind)
    if not data.isascii():
        check_utf8(label, columns, lines, ((0, "topic"), (5, "run tag")))
    _check_docno_budget(label, columns.lengths(2), lines, max_docno_bytes)
    tag = columns[5]
    if (tag != tag[0]).any():
        i = np.flatnonzero(tag != tag[0])[0]
        raise TrecFormatError(
            label,
            int(lines[i]),
            f"run tag {tag[i].decode()!r} differs from {tag[0].decode()!r} on line {lines[0]}; one run per file",
        )
    del tag
    score = parse_numbers(columns[4], lines, label, np.float64, "score")
    topic, docno = columns[0], columns[2]
    reject_duplicates(topic, docno, lines, label, "document {docno!r} appears twice for topic {topic!r}")
    topics, code = np.unique(topic, return_inverse=True)
    del topic
    tag = columns.token(5, 0).decode()
    return PackedRun(label, tag, column_text(topics, data), code.ravel().astype(np.int64), pack_text(docno), score, lines)


def read_qrels(source: Source, *, name: str | None = None, max_bytes: int | None = None) -> QrelsFile:
    """Read and check a 4-column qrels or a 5-column sampled qrels file.

    The number of columns of the first data line decides the format; every other line must
    have the same number.

    Raises
    ------
    TrecFormatError
        Empty file, NUL bytes, invalid UTF-8, a line with the wrong number of columns, a
        relevance that is not an integer, or the same (topic, document) twice.
    """
    label, data = read_bytes(source, name, max_bytes)
    fast = _scan_regular_qrels(label, data)
    return (fast if fast is not None else _read_qrels_general(label, checked_text(label, data))).unpacked()


def read_qrels_packed(source: Source, *, name: str | None = None, max_bytes: int | None = None,
                      max_lines: int | None = None, max_docno_bytes: int | None = None,
                      like_trec_eval: bool = False) -> PackedQrels:
    """:func:`read_qrels` with the strings left packed: what the evaluation reads, fastest.

    Same checks, same values, same errors as :func:`read_qrels`; ``max_lines``,
    ``max_docno_bytes`` and ``like_trec_eval`` as :func:`read_run_packed` takes them.
    """
    label, data = read_bytes(source, name, max_bytes, max_lines)
    fast = _scan_regular_qrels(label, data, max_docno_bytes)
    checked = checked_binary(label, data) if like_trec_eval else checked_text(label, data)
    return fast if fast is not None else _read_qrels_general(label, checked, max_docno_bytes, like_trec_eval)


def _read_qrels_general(label: str, data: bytes, max_docno_bytes: int | None = None,
                        like_trec_eval: bool = False) -> PackedQrels:
    """The general qrels reader (see :func:`_read_run_general`), packed as it returns;
    ``like_trec_eval`` reads grades as trec_eval's ``strtol`` (:func:`read_qrels_packed`)."""
    columns, lines = split_columns(data, label, allowed=(4, 5), what="qrels")
    named = ((0, "topic"), (2, "document number"), (len(columns) - 1, "relevance"))
    for column, kind in named + (((3, "stratum"),) if len(columns) == 5 else ()):
        check_lengths(label, columns, column, lines, kind)
    if not data.isascii():
        check_utf8(label, columns, lines, ((0, "topic"),) + (((3, "stratum"),) if len(columns) == 5 else ()))
    _check_docno_budget(label, columns.lengths(2), lines, max_docno_bytes)
    rel = parse_numbers(columns[-1], lines, label, np.int64, "relevance", leading_integer=like_trec_eval)
    topic, docno = columns[0], columns[2]
    reject_duplicates(topic, docno, lines, label, "topic {topic!r} judges document {docno!r} twice")
    topics, code = np.unique(topic, return_inverse=True)
    del topic
    strata = stratum = None
    if len(columns) == 5:
        strata, stratum = np.unique(columns[3], return_inverse=True)
        strata, stratum = pack_text(strata), stratum.ravel().astype(np.int64)
    docno = pack_text(docno)
    return PackedQrels(label, pack_text(topics), code.ravel().astype(np.int64), docno, text_hash(docno), rel, strata,
                       stratum, lines)


def write_qrels(out: TextIO, topic, docno, rel, stratum=None) -> None:
    """Write qrels rows: 4 columns (``topic 0 docno rel``), or 5 with ``stratum`` given.

    The 4-column form is what trec_eval reads; the 5-column form is what sample_eval.pl reads.
    """
    if stratum is None:
        rows = (f"{t} 0 {d} {int(r)}\n" for t, d, r in zip(topic, docno, rel))
    else:
        rows = (f"{t} 0 {d} {s} {int(r)}\n" for t, d, s, r in zip(topic, docno, stratum, rel))
    out.writelines(rows)


def write_run(out: TextIO, tag: str, topic, docno, score) -> None:
    """Write a 6-column run: rows in the order given, ranks counted from 1 within each topic.

    Scores are written with ``repr`` (the shortest string that reads back to the same double),
    so a run read back evaluates identically.
    """
    rank = 0
    previous = None
    rows = []
    for t, d, s in zip(topic, docno, score):
        rank = rank + 1 if t == previous else 1
        previous = t
        rows.append(f"{t} Q0 {d} {rank} {float(s)!r} {tag}\n")
    out.writelines(rows)


# ---------------------------------------------------------------------------------------------
# the fast path for regular files


def _check_docno_budget(label: str, lengths: np.ndarray, lines: np.ndarray, budget: int | None) -> None:
    """Refuse a file whose lines × longest document number (in bytes) exceed ``budget``, naming the longest's line."""
    if budget is None or lengths.size == 0:
        return
    longest = int(np.argmax(lengths))
    if lengths.size * int(lengths[longest]) > budget:
        raise TrecFormatError(label, int(lines[longest]),
                              f"a document number of {int(lengths[longest])} bytes in a file of {lengths.size:,} lines needs "
                              f"more memory than an import may take ({budget // 2**20} MiB for lines × the longest "
                              "document number); split the file or shorten its document numbers")


def _scan_regular_run(label: str, data: bytes, max_docno_bytes: int | None = None) -> PackedRun | None:
    """Read a run in the regular form with the scanner, or None to use the general reader.

    The form is ``trec_scan.c``'s. A score that is not a finite decimal, a changing tag or a
    duplicate also returns None: the general reader then reads the file and words the error.
    """
    scanned = trec_scan.scan(data, [trec_scan.GROUP, trec_scan.SKIP, trec_scan.KEEP, trec_scan.SKIP, trec_scan.NUMBER,
                                    trec_scan.SAME])
    if scanned is None:
        return None
    n, offsets, lengths, score = scanned
    if _too_long(lengths[:2, :n], ("topic", "document number")) or lengths[2, 0] > LIMITS["run tag"]:
        return None  # the tag (SAME) is kept at row 0 only
    _check_docno_budget(label, lengths[1, :n], np.arange(1, n + 1), max_docno_bytes)
    topics, topic, blocks = _topic_codes(data, offsets[0, :n], lengths[0, :n])
    docno, keys = trec_scan.pack(data, offsets[1, :n], lengths[1, :n])
    if trec_scan.has_duplicates(topic, docno, keys, blocks):
        return None
    tag = data[offsets[2, 0] : offsets[2, 0] + lengths[2, 0]].decode()
    line = np.arange(1, n + 1, dtype=np.int64)
    return PackedRun(label, tag, unpack_text(topics), topic, docno, score, line, keys)


def _scan_regular_qrels(label: str, data: bytes, max_docno_bytes: int | None = None) -> PackedQrels | None:
    """:func:`_scan_regular_run` for qrels: 4 or 5 columns (as many as the first line has)."""
    first = data[: data.find(b"\n")] if b"\n" in data else data
    width = len(first.split())
    if width not in (4, 5):
        return None
    kinds = [trec_scan.GROUP, trec_scan.SKIP, trec_scan.KEEP, trec_scan.KEEP, trec_scan.KEEP]
    scanned = trec_scan.scan(data, kinds[:width])
    if scanned is None:
        return None
    n, offsets, lengths, _ = scanned
    kinds = ("topic", "document number", "stratum", "relevance") if width == 5 else ("topic", "document number", "relevance")
    if _too_long(lengths[:, :n], kinds):
        return None
    _check_docno_budget(label, lengths[1, :n], np.arange(1, n + 1), max_docno_bytes)
    # Relevance is parsed by numpy exactly as the general reader parses it (int() would also
    # take "1_0"), but the usual short decimals arithmetically, faster.
    rel_words, _ = trec_scan.pack(data, offsets[-1, :n], lengths[-1, :n])
    rel = _short_decimals(rel_words)
    if rel is None:  # another form ("+1", "007", 2³¹, "1_0"): the general reader's grammar decides
        return None
    topics, topic, blocks = _topic_codes(data, offsets[0, :n], lengths[0, :n])
    docno, keys = trec_scan.pack(data, offsets[1, :n], lengths[1, :n])
    if trec_scan.has_duplicates(topic, docno, keys, blocks):
        return None
    strata = stratum = None
    if width == 5:
        words, _ = trec_scan.pack(data, offsets[2, :n], lengths[2, :n])
        rank = text_rank(words)  # few labels, many rows: each label's rank is its index
        strata = np.zeros((int(rank.max()) + 1, words.shape[1]), dtype=np.uint64)
        strata[rank] = words
        stratum = rank
    line = np.arange(1, n + 1, dtype=np.int64)
    return PackedQrels(label, topics, topic, docno, keys, rel, strata, stratum, line)


def _too_long(lengths: np.ndarray, kinds: tuple[str, ...]) -> bool:
    """Is a scanned field longer than its kind's limit? (Rows of ``lengths``: the kept columns,
    in ``kinds`` order; the scanner takes ASCII only, so bytes are characters.) The general
    reader then words the error."""
    limits = np.array([LIMITS.get(kind, NUMBER_LIMIT) for kind in kinds])[:, None]
    return bool((lengths > limits).any())


def _short_decimals(words: np.ndarray) -> np.ndarray | None:
    """The integers of packed strings that all read ``d``, ``dd`` or ``-d`` (every relevance
    grade in practice), as ``int()`` reads them; None if any string is another form."""
    if words.shape[1] != 1:
        return None
    w = words[:, 0]
    first, second = (w >> np.uint64(56)).astype(np.int64), ((w >> np.uint64(48)) & np.uint64(0xFF)).astype(np.int64)
    d1, d2 = first - 0x30, second - 0x30
    digit1, digit2, single = (d1 >= 0) & (d1 <= 9), (d2 >= 0) & (d2 <= 9), second == 0
    minus = first == 0x2D
    short = (w & np.uint64((1 << 48) - 1)) == 0
    if not np.all(short & ((digit1 & (single | digit2)) | (minus & digit2))):
        return None
    return np.where(single, d1, np.where(minus, -d2, d1 * 10 + d2))


def _topic_codes(data: bytes, offsets: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """A topic column scanned as :data:`~trec_scan.GROUP`: (distinct topics packed, in byte
    order; each row's index into them; where each block of one topic starts if every topic
    is one block, else None).

    Files list a topic's rows together, so only the first row of each block is packed and ranked.
    """
    starts = np.flatnonzero(lengths >= 0)
    words = trec_scan.pack(data, offsets[starts], lengths[starts])[0]
    rank = text_rank(words)
    values = np.zeros((int(rank.max()) + 1, words.shape[1]), dtype=np.uint64)
    values[rank] = words
    topic = np.repeat(rank, np.diff(np.append(starts, lengths.size)))
    return values, topic, starts if values.shape[0] == starts.size else None
