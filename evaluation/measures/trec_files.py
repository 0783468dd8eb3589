"""Readers and writers for the TREC files the field exchanges: runs, qrels, sampled qrels.

One parser for the CLI, the import commands and the upload pages. A file is read whole,
checked whole, and only then returned, so a caller can write it in one transaction or not at
all. Every problem raises :class:`TrecFormatError` naming the file, the line and the problem.

Formats (``../shared/reference/MEASURES.md`` §1):

* run: ``topic iter docno rank score tag`` — 6 whitespace-separated columns; ``iter`` and
  ``rank`` are ignored (the ranking comes from ``score``); ``tag`` must be the same on every
  line of a file.
* qrels: ``topic iter docno rel`` — 4 columns; ``rel`` an integer, negative meaning "in the
  pool but not judged".
* sampled qrels: ``topic iter docno stratum rel`` — 5 columns, as NIST's sample_eval.pl reads
  them; ``stratum`` is a label, ``rel`` −1 marks a pooled document that was not sampled.

Blank lines and lines whose first field starts with ``#`` are skipped (trec_eval v10 does the
same; v9 and sample_eval.pl reject them). Unlike trec_eval's ``atof``/``atol``, a score that
is not a number or a relevance that is not an integer is an error, not a silent zero.
Duplicates (a document twice in a topic of a run; a (topic, document) pair twice in qrels) are
errors, as in trec_eval.

Parsing is vectorized: the file is split into tokens by one C-level call and every per-line
check is done with numpy on byte offsets, so a run file of 50,000 lines reads in a few tens of
milliseconds. Only when a check fails does a slower scan find the first offending line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TextIO, Union

import numpy as np

Source = Union[str, os.PathLike, bytes, BinaryIO]

# The bytes that bytes.split() treats as whitespace: space, \t, \n, \v, \f, \r.
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D]] = True


class TrecFormatError(ValueError):
    """A TREC file that cannot be read; ``str()`` is ``"<file>, line <n>: <problem>"``."""

    def __init__(self, path: str, line: int | None, problem: str) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        where = f"{path}, line {line}" if line is not None else path
        super().__init__(f"{where}: {problem}")


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
    label, data = read_source(source, name, max_bytes)
    columns, lines = _columns(data, label, allowed=(6,), what="run")
    if len(set(columns.raw(5))) > 1:
        tag = columns[5]
        i = np.flatnonzero(tag != tag[0])[0]
        raise TrecFormatError(
            label,
            int(lines[i]),
            f"run tag {tag[i].decode()!r} differs from {tag[0].decode()!r} on line {lines[0]}; one run per file",
        )
    score = _numbers(columns[4], lines, label, np.float64, "score")
    topic, docno = columns[0], columns[2]
    _reject_duplicates(topic, docno, lines, label, "document {docno!r} appears twice for topic {topic!r}")
    topic, docno = _text(topic, data), _text(docno, data)
    tag = columns.raw(5)[0].decode()
    return RunFile(path=label, tag=tag, topic=topic, docno=docno, score=score, line=lines)


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
    label, data = read_source(source, name, max_bytes)
    columns, lines = _columns(data, label, allowed=(4, 5), what="qrels")
    rel = _numbers(columns[-1], lines, label, np.int64, "relevance")
    topic, docno = columns[0], columns[2]
    _reject_duplicates(topic, docno, lines, label, "topic {topic!r} judges document {docno!r} twice")
    topic, docno = _text(topic, data), _text(docno, data)
    stratum = _text(columns[3], data) if len(columns) == 5 else None
    return QrelsFile(path=label, topic=topic, docno=docno, rel=rel, stratum=stratum, line=lines)


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


def read_source(source: Source, name: str | None, max_bytes: int | None) -> tuple[str, bytes]:
    """Read a whole file (path, bytes or binary file) as checked UTF-8 text: (label, bytes)."""
    if isinstance(source, (str, os.PathLike)):
        label, path = checked_path(source, name, max_bytes)
        data = path.read_bytes()
    elif isinstance(source, (bytes, bytearray, memoryview)):
        label = name or "<data>"
        data = bytes(source)
        check_size(label, len(data), max_bytes)
    else:
        label = name or str(getattr(source, "name", None) or "<upload>")
        data = source.read() if max_bytes is None else source.read(max_bytes + 1)
        if isinstance(data, str):
            data = data.encode()
        check_size(label, len(data), max_bytes)
    if not data.strip():
        raise TrecFormatError(label, None, "the file is empty")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise TrecFormatError(label, data.count(b"\n", 0, nul) + 1, "binary data (a NUL byte); expected a text file")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrecFormatError(
            label, data.count(b"\n", 0, exc.start) + 1, f"invalid UTF-8 (byte 0x{data[exc.start]:02x})"
        ) from None
    return label, data


def checked_path(source: str | os.PathLike, name: str | None, max_bytes: int | None) -> tuple[str, Path]:
    """(label, path) of a readable file within the size limit, else TrecFormatError."""
    path = Path(source)
    label = name or str(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise TrecFormatError(label, None, f"cannot read the file: {exc.strerror}") from None
    check_size(label, size, max_bytes)
    return label, path


def check_size(label: str, size: int, max_bytes: int | None) -> None:
    if max_bytes is not None and size > max_bytes:
        raise TrecFormatError(label, None, f"the file is larger than the limit of {max_bytes:,} bytes")


class _Columns:
    """The tokens of a checked file, ``width`` to a row; a column becomes an array when asked for.

    Building arrays only for the columns a reader uses (not the ignored ``iter`` and ``rank``)
    is a third of the reading time saved.
    """

    def __init__(self, tokens: list[bytes], width: int) -> None:
        self.tokens, self.width = tokens, width

    def __len__(self) -> int:
        return self.width

    def raw(self, i: int) -> list[bytes]:
        return self.tokens[i :: self.width]

    def __getitem__(self, i: int) -> np.ndarray:
        return np.array(self.raw(i % self.width), dtype=bytes)


def _columns(data: bytes, label: str, *, allowed: tuple[int, ...], what: str) -> tuple[_Columns, np.ndarray]:
    """Split ``data`` into equal-width columns of byte strings, checking every line's width.

    Returns the columns and the 1-based line number of each row.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    space = _WHITESPACE[buf]
    starts = np.flatnonzero(~space & np.concatenate(([True], space[:-1])))
    newlines = np.flatnonzero(buf == 0x0A)
    token_line = np.searchsorted(newlines, starts, side="left")  # 0-based line of each token
    first_on_line = np.concatenate(([True], token_line[1:] != token_line[:-1]))
    comment_lines = token_line[first_on_line & (buf[starts] == 0x23)]  # '#'
    keep = ~np.isin(token_line, comment_lines) if comment_lines.size else None
    if keep is not None:
        token_line = token_line[keep]
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
    tokens = data.split()
    if keep is not None:
        tokens = [t for t, k in zip(tokens, keep) if k]
    return _Columns(tokens, width), data_lines.astype(np.int64) + 1


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


def _numbers(column: np.ndarray, lines: np.ndarray, label: str, dtype, what: str) -> np.ndarray:
    try:
        values = column.astype(dtype)
    except (ValueError, OverflowError):
        values = None
    if values is not None and dtype is np.float64:
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise TrecFormatError(label, int(lines[bad[0]]), f"{what} {column[bad[0]].decode()!r} is not a finite number")
        return values
    if values is not None:
        return values
    parse = float if dtype is np.float64 else int
    kind = "a number" if dtype is np.float64 else "an integer"
    for i, raw in enumerate(column.tolist()):
        try:
            parse(raw)
        except ValueError:
            raise TrecFormatError(label, int(lines[i]), f"{what} {raw.decode()!r} is not {kind}") from None
    raise TrecFormatError(label, None, f"a {what} value is out of range")


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
