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

import re
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from . import trec_scan
from .packed_text import pack_text, text_hash, text_rank, unpack_text
from .trec_sources import Source, TrecFormatError, checked_binary, checked_text, read_bytes


# The bytes that bytes.split() treats as whitespace: space, \t, \n, \v, \f, \r.
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D]] = True


#: The longest identifier of each kind, in characters (the app's database columns are as wide).
LIMITS = {"topic": 64, "document number": 200, "run tag": 100, "stratum": 64}
#: Relevance grades are 32-bit integers.
GRADE_RANGE = (-(2**31), 2**31 - 1)
#: The longest score or relevance, in characters (leading zeros and digits past a double's
#: precision included): numbers are held in arrays as wide as the longest.
NUMBER_LIMIT = 64

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
    columns, lines = _columns(data, label, allowed=(6,), what="run")
    for column, kind in ((0, "topic"), (2, "document number"), (4, "score"), (5, "run tag")):
        _check_lengths(label, columns, column, lines, kind)
    if not data.isascii():
        _check_utf8(label, columns, lines, ((0, "topic"), (5, "run tag")))
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
    score = _numbers(columns[4], lines, label, np.float64, "score")
    topic, docno = columns[0], columns[2]
    _reject_duplicates(topic, docno, lines, label, "document {docno!r} appears twice for topic {topic!r}")
    topics, code = np.unique(topic, return_inverse=True)
    del topic
    tag = columns.token(5, 0).decode()
    return PackedRun(label, tag, _text(topics, data), code.ravel().astype(np.int64), pack_text(docno), score, lines)


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
    columns, lines = _columns(data, label, allowed=(4, 5), what="qrels")
    named = ((0, "topic"), (2, "document number"), (len(columns) - 1, "relevance"))
    for column, kind in named + (((3, "stratum"),) if len(columns) == 5 else ()):
        _check_lengths(label, columns, column, lines, kind)
    if not data.isascii():
        _check_utf8(label, columns, lines, ((0, "topic"),) + (((3, "stratum"),) if len(columns) == 5 else ()))
    _check_docno_budget(label, columns.lengths(2), lines, max_docno_bytes)
    rel = _numbers(columns[-1], lines, label, np.int64, "relevance", leading_integer=like_trec_eval)
    topic, docno = columns[0], columns[2]
    _reject_duplicates(topic, docno, lines, label, "topic {topic!r} judges document {docno!r} twice")
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


def _check_utf8(label: str, columns: _Columns, lines: np.ndarray, named: tuple) -> None:
    """Identifiers other than document numbers must be UTF-8 text (a file read with
    ``docno_bytes`` is not checked whole); else the error naming the first bad line."""
    for column, kind in named:
        values, first = np.unique(columns[column], return_index=True)
        for value, row in zip(values.tolist(), first.tolist()):
            try:
                value.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise TrecFormatError(label, int(lines[row]), f"{kind} is not UTF-8 text (byte 0x{value[exc.start]:02x})") from None


class _Columns:
    """The tokens of a checked file, ``width`` to a row, located by their byte offsets in the
    file; a column becomes an array when asked for.

    No token becomes a Python object: a column's values are copied out of the file in blocks of
    rows into one array as wide as its longest value (which the readers check against
    :data:`LIMITS` first). Building arrays only for the columns a reader uses (not the ignored
    ``iter`` and ``rank``) is a third of the reading time saved.
    """

    def __init__(self, data: bytes, starts: np.ndarray, ends: np.ndarray, width: int) -> None:
        self.data, self.starts, self.ends, self.width = data, starts, ends, width

    def __len__(self) -> int:
        return self.width

    def lengths(self, i: int) -> np.ndarray:
        """The byte length of column ``i``'s value on each row."""
        return self.ends[i :: self.width] - self.starts[i :: self.width]

    def token(self, i: int, row: int) -> bytes:
        """Column ``i``'s value on ``row``."""
        k = row * self.width + i % self.width
        return self.data[int(self.starts[k]) : int(self.ends[k])]

    def __getitem__(self, i: int) -> np.ndarray:
        i %= self.width
        starts, lengths = self.starts[i :: self.width], self.lengths(i)
        longest = max(1, int(lengths.max(initial=0)))
        out = np.zeros((starts.size, longest), dtype=np.uint8)
        buf = np.frombuffer(self.data, dtype=np.uint8)
        step = max(1, 2**20 // longest)  # rows a block: its index arrays stay near 8 MB
        offsets = np.arange(longest)
        for a in range(0, starts.size, step):
            inside = offsets < lengths[a : a + step, None]
            out[a : a + step][inside] = buf[(starts[a : a + step, None] + offsets)[inside]]
        return out.view(f"S{longest}").ravel()


def _columns(data: bytes, label: str, *, allowed: tuple[int, ...], what: str) -> tuple[_Columns, np.ndarray]:
    """Split ``data`` into equal-width columns of byte strings, checking every line's width.

    Returns the columns and the 1-based line number of each row.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    starts, ends, newlines = _tokens(data, buf)
    token_line = np.searchsorted(newlines, starts, side="left").astype(starts.dtype)  # 0-based line of each token
    del newlines
    first_on_line = np.concatenate(([True], token_line[1:] != token_line[:-1]))
    comment_lines = token_line[first_on_line & (buf[starts] == 0x23)]  # '#'
    del first_on_line
    if comment_lines.size:
        keep = ~np.isin(token_line, comment_lines)
        token_line, starts, ends = token_line[keep], starts[keep], ends[keep]
    if token_line.size == 0:
        raise TrecFormatError(label, None, f"the file has no {what} lines")
    counts = np.bincount(token_line)
    data_lines = np.flatnonzero(counts)
    width = int(counts[data_lines[0]])
    if width not in allowed:
        raise TrecFormatError(label, int(data_lines[0]) + 1, _width_problem(width, allowed, what))
    wrong = data_lines[counts[data_lines] != width]
    if wrong.size:
        line = int(wrong[0])
        raise TrecFormatError(label, line + 1, _width_problem(int(counts[line]), (width,), what))
    return _Columns(data, starts, ends, width), data_lines.astype(np.int64) + 1


def _tokens(data: bytes, buf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(starts, ends, newlines): the byte offsets where each white-space separated token starts
    and ends, and of each ``\n``. Found :data:`TOKEN_BLOCK` bytes at a time (blocks end at a line
    end, which no token crosses), so the temporary arrays are a block's, not the file's."""
    offset = np.int32 if len(data) < 2**31 - 1 else np.int64
    starts, ends, newlines = [], [], []
    begin = 0
    while begin < len(data):
        stop = data.find(b"\n", min(begin + TOKEN_BLOCK, len(data)) - 1)
        stop = len(data) if stop < 0 else stop + 1
        space = _WHITESPACE[buf[begin:stop]]
        starts.append((np.flatnonzero(~space & np.concatenate(([True], space[:-1]))) + begin).astype(offset))
        ends.append((np.flatnonzero(~space & np.concatenate((space[1:], [True]))) + begin + 1).astype(offset))
        newlines.append(np.flatnonzero(buf[begin:stop] == 0x0A) + begin)
        begin = stop
    return np.concatenate(starts), np.concatenate(ends), np.concatenate(newlines)


#: Bytes of a file the general reader splits into tokens at a time (:func:`_tokens`).
TOKEN_BLOCK = 16 * 2**20


def _width_problem(found: int, allowed: tuple[int, ...], what: str) -> str:
    formats = {
        4: "4 columns (topic iter docno rel)",
        5: "5 columns (topic iter docno stratum rel)",
        6: "6 columns (topic Q0 docno rank score tag)",
    }
    expected = " or ".join(formats[w] for w in allowed)
    return f"expected {expected} in a {what} file, found {found}"


def _text(column: np.ndarray, data: bytes) -> np.ndarray:
    if data.isascii():
        return column.astype(np.str_)
    return np.array([value.decode("utf-8") for value in column.tolist()], dtype=np.str_)


#: The number grammar (module docstring): a finite decimal, and an integer.
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(rb"[+-]?[0-9]+")
#: Bytes that can appear in a number of either grammar.
_NUMERIC = np.zeros(256, dtype=bool)
_NUMERIC[np.frombuffer(b"0123456789+-.eE\x00", dtype=np.uint8)] = True  # NUL: the padding of a column's shorter values


def _numbers(column: np.ndarray, lines: np.ndarray, label: str, dtype, what: str, *,
             leading_integer: bool = False) -> np.ndarray:
    """A column of numbers in the grammar of the module docstring: scores as finite float64,
    relevance as int64 within :data:`GRADE_RANGE`; else the error naming the first bad line.
    ``leading_integer``: an integer token is read up to its first non-digit, as ``strtol``.

    numpy reads number strings as Python does. Of strings made only of ``0-9 + - . e E``,
    Python reads none that the grammar refuses; so only a column with another byte (an
    underscore, ``inf``, another script's digits) or one numpy could not read is matched
    against the grammar, token by token.
    """
    decimal = dtype is np.float64
    values = None
    if _NUMERIC[np.frombuffer(column.tobytes(), dtype=np.uint8)].all():
        try:
            values = column.astype(dtype)
        except (ValueError, OverflowError):
            values = None
    if values is None:
        grammar = _DECIMAL if decimal else _INTEGER
        raws = [_leading_integer(raw) for raw in column.tolist()] if leading_integer else column.tolist()
        for i, raw in enumerate(raws):
            if not grammar.fullmatch(raw):
                raise TrecFormatError(label, int(lines[i]), f"{what} {raw.decode(errors='replace')!r} is not "
                                                            f"{_number_problem(raw, decimal)}")
        parse = float if decimal else int
        parsed = [parse(raw) for raw in raws]  # in the grammar: numpy failed on an integer past 64 bits
        if not decimal:
            big = [i for i, v in enumerate(parsed) if not GRADE_RANGE[0] <= v <= GRADE_RANGE[1]]
            if big:
                raise TrecFormatError(label, int(lines[big[0]]), f"{what} {raws[big[0]].decode()} is out of the range "
                                                                 f"{GRADE_RANGE[0]:,} to {GRADE_RANGE[1]:,}")
        values = np.array(parsed, dtype=dtype)
    if decimal:
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise TrecFormatError(label, int(lines[bad[0]]), f"{what} {column[bad[0]].decode()!r} is not a finite number")
    else:
        bad = np.flatnonzero((values < GRADE_RANGE[0]) | (values > GRADE_RANGE[1]))
        if bad.size:
            raise TrecFormatError(label, int(lines[bad[0]]), f"{what} {column[bad[0]].decode()} is out of the range "
                                                             f"{GRADE_RANGE[0]:,} to {GRADE_RANGE[1]:,}")
    return values


def _leading_integer(raw: bytes) -> bytes:
    """The integer a relevance starts with, as trec_eval's ``strtol`` reads it (``1.5`` → ``1``);
    the whole token when it starts with none (the grammar then refuses it)."""
    match = _INTEGER.match(raw)
    return match.group() if match else raw


def _number_problem(raw: bytes, decimal: bool) -> str:
    """What a number outside the grammar is not: finite, written plainly, or a number at all."""
    text = raw.decode("utf-8", "replace")
    try:
        value = float(text) if decimal else int(text)
    except ValueError:
        return "a number" if decimal else "an integer"
    if decimal and not np.isfinite(value):
        return "a finite number"
    return f"written as a plain {'decimal' if decimal else 'integer'} (ASCII digits, sign{', point and exponent' if decimal else ''}; no '_')"


def _check_lengths(label: str, columns: _Columns, column: int, lines: np.ndarray, kind: str) -> None:
    """Refuse the first value of ``column`` longer than ``LIMITS[kind]`` characters
    (:data:`NUMBER_LIMIT` for a score or relevance), naming its line."""
    limit = LIMITS.get(kind, NUMBER_LIMIT)
    for row in np.flatnonzero(columns.lengths(column) > limit).tolist():  # bytes over: characters decide (UTF-8)
        characters = len(columns.token(column, row).decode("utf-8", "replace"))
        if characters > limit:
            raise TrecFormatError(label, int(lines[row]), f"{kind} is {characters:,} characters long; at most {limit} are allowed")


def _reject_duplicates(topic: np.ndarray, docno: np.ndarray, lines: np.ndarray, label: str, message: str) -> None:
    """Raise on the earliest line whose (topic, docno) pair appeared on an earlier line."""
    _, topic_code = np.unique(topic, return_inverse=True)
    docs, doc_code = np.unique(docno, return_inverse=True)
    key = topic_code.astype(np.int64) * len(docs) + doc_code
    order = np.argsort(key, kind="stable")  # equal pairs stay in file order
    repeated = np.flatnonzero(key[order][1:] == key[order][:-1])
    if repeated.size:
        pick = np.argmin(lines[order[repeated + 1]])
        i, first = order[repeated[pick] + 1], order[repeated[pick]]
        problem = message.format(topic=topic[i].decode(), docno=docno[i].decode())
        raise TrecFormatError(label, int(lines[i]), f"{problem} (first on line {lines[first]})")


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
