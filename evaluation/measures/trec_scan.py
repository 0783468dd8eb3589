"""The scanner of the TREC readers: ``trec_scan.c``, built when the project is installed, called by ctypes.

A run or qrels file in the regular form every tool writes (:func:`scan`) is split into
columns by one pass of C over its bytes, its scores parsed there with correct rounding; its
strings are then packed and hashed (:func:`pack`) and checked for repeated (topic, document)
pairs (:func:`has_duplicates`) in C too. A run's documents are then found among the judged
ones with a hash table (:func:`index`) and, when the run is written topic by topic, best
first, put in order without a sort (:func:`block_order`).

The C source is compiled by the install (``pip install --no-deps -e .``, which
``ensure_scanner`` in ``bin/provision.sh`` runs; ``setup.py``) into ``_trec_scan<suffix>.so``
next to this file, and loaded from there if it was built from this version of the source (the
library returns the hash of the file it was built from); nothing is compiled at run time. An install
without a C compiler stops and says so, unless ``ASSESS_NO_C_SCANNER=1`` asks for no
scanner. Without the library (not built, or ``ASSESS_NO_C_SCANNER=1`` at run time) every
function here runs its numpy version (:mod:`.numpy_scan`): the same results, more slowly
(bench/README.md). :func:`problem` says why the library is not used.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import importlib.machinery
import os
import warnings
from pathlib import Path

import numpy as np

from . import numpy_scan

#: Set (to anything but empty) when installing: no scanner is built; at run time: none is used.
WITHOUT = "ASSESS_NO_C_SCANNER"

# What each column becomes in scan() (the enum of trec_scan.c)
SKIP, KEEP, NUMBER, SAME, GROUP = 0, 1, 2, 3, 4

SOURCE = Path(__file__).with_name("trec_scan.c")

_P = ctypes.c_void_p
_SIGNATURES = {
    "trec_source": (ctypes.c_char_p, []),
    "trec_scan": (ctypes.c_long, [ctypes.c_char_p, ctypes.c_long, ctypes.c_int, _P, ctypes.c_long, _P, _P, _P]),
    "trec_pack": (None, [ctypes.c_char_p, ctypes.c_long, _P, _P, ctypes.c_long, ctypes.c_int, _P, _P]),
    "trec_has_duplicates": (ctypes.c_int, [ctypes.c_long, _P, _P, ctypes.c_int, _P, ctypes.c_long, _P]),
    "trec_index": (None, [ctypes.c_long, _P, _P, _P, _P]),
    "trec_block_order": (ctypes.c_int, [ctypes.c_long, _P, _P, _P, ctypes.c_int, ctypes.c_long, _P]),
    "trec_locate": (None, [ctypes.c_long, _P, _P, ctypes.c_int, _P, _P, _P, _P, _P, ctypes.c_int, _P]),
}
_problem: str | None = None


def built() -> Path | None:
    """The library the install built next to this file, if there is one."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = Path(__file__).with_name(f"_trec_scan{suffix}")
        if path.exists():
            return path
    return None


@functools.cache
def library() -> ctypes.CDLL | None:
    """The compiled scanner; None if ``ASSESS_NO_C_SCANNER`` is set, or if the install did not
    build it or built it from another version of ``trec_scan.c`` (then a ``RuntimeWarning``
    says so once)."""
    global _problem
    path = built()
    if os.environ.get(WITHOUT):
        _problem = f"{WITHOUT} is set: TREC files are read by the numpy scanner"
        return None
    if path is None:
        _problem = ("the compiled scanner is not installed: TREC files are read by the numpy scanner, more slowly "
                    f"(`pip install --no-deps -e .` builds it; set {WITHOUT}=1 to go on without it)")
        warnings.warn(_problem, RuntimeWarning, stacklevel=2)
        return None
    lib = ctypes.CDLL(str(path))
    for name, (restype, argtypes) in _SIGNATURES.items():
        function = getattr(lib, name, None)
        if function is None:  # a library older than the check below
            break
        function.restype, function.argtypes = restype, argtypes
    version = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    if function is None or lib.trec_source().decode() != version:
        _problem = (f"the compiled scanner {path.name} was built from another version of {SOURCE.name}: TREC files are "
                    "read by the numpy scanner, more slowly (`pip install --no-deps -e .` builds it again)")
        warnings.warn(_problem, RuntimeWarning, stacklevel=2)
        return None
    return lib


def problem() -> str | None:
    """Why :func:`library` is None (after it was called), else None."""
    return _problem


def scan(data: bytes, kinds: list[int]) -> tuple[int, np.ndarray, np.ndarray, np.ndarray] | None:
    """Split ``data`` (a file in the regular form) into ``len(kinds)`` columns.

    ``kinds[c]``: :data:`SKIP` (only checked to be there), :data:`KEEP` (each row's field
    kept), :data:`NUMBER` (parsed as a finite float, at most one column), :data:`SAME` (must be
    the same on every row; kept from the first row), :data:`GROUP` (kept at the first row of
    each block of rows with the same value, such as a run's topic column).

    Returns ``(rows, offsets, lengths, values)``: for the k-th KEEP, SAME or GROUP column,
    ``offsets[k, :rows]`` and ``lengths[k, :rows]`` locate each row's field in ``data`` (a SAME
    column's at row 0 only; a GROUP column's at the first row of each block, the other rows'
    lengths are -1), and ``values`` holds the NUMBER column (``rows`` values). None if the file
    is not in the regular form (see ``trec_scan.c``).
    """
    lib = library()
    if lib is None:
        return numpy_scan.scan(data, kinds)
    maxrows = (len(data) + 1) // (2 * len(kinds)) + 1  # a row takes 2 bytes a column at least
    kept = sum(kind in (KEEP, SAME, GROUP) for kind in kinds)
    offsets = np.empty((max(kept, 1), maxrows), dtype=np.int64)
    lengths = np.empty((max(kept, 1), maxrows), dtype=np.int32)
    values = np.empty(maxrows, dtype=np.float64)
    codes = np.asarray(kinds, dtype=np.int32)
    rows = lib.trec_scan(data, len(data), len(kinds), codes.ctypes.data, maxrows, offsets.ctypes.data,
                         lengths.ctypes.data, values.ctypes.data)
    if rows <= 0:
        return None
    values.resize(rows, refcheck=False)  # not the spare room (realloc: no copy); no view of it exists
    return rows, offsets, lengths, values


def pack(data: bytes, offsets: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The strings of ``data`` at ``offsets`` (``lengths`` bytes) packed as ``packed_text.pack_text``
    packs them, and their ``packed_text.text_hash``."""
    if library() is None:
        return numpy_scan.pack(data, offsets, lengths)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    lengths = np.ascontiguousarray(lengths, dtype=np.int32)
    n = offsets.size
    width = max(1, -(-int(lengths.max(initial=0)) // 8))
    words = np.empty((n, width), dtype=np.uint64)
    keys = np.empty(n, dtype=np.uint64)
    library().trec_pack(data, len(data), offsets.ctypes.data, lengths.ctypes.data, n, width, words.ctypes.data, keys.ctypes.data)
    return words, keys


def has_duplicates(topic: np.ndarray, words: np.ndarray, keys: np.ndarray, starts: np.ndarray | None = None) -> bool:
    """Does a (topic, packed string) pair occur twice? ``keys`` are the strings' hashes.

    ``starts``: where each block of rows starts, if the rows come in blocks that no pair can
    repeat across (each topic's rows in one block): then each block is checked alone, in a
    table small enough to stay in the cache. By default all rows are one block.
    """
    if library() is None:
        return numpy_scan.has_duplicates(topic, words, keys, starts)
    topic = np.ascontiguousarray(topic, dtype=np.int64)
    words = np.ascontiguousarray(words, dtype=np.uint64)
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    starts = np.zeros(1, dtype=np.int64) if starts is None else np.ascontiguousarray(starts, dtype=np.int64)
    found = library().trec_has_duplicates(topic.size, topic.ctypes.data, words.ctypes.data, words.shape[1],
                                          keys.ctypes.data, starts.size, starts.ctypes.data)
    if found < 0:
        raise MemoryError("no memory for the duplicate check's table")
    return bool(found)


def block_order(topic: np.ndarray, score: np.ndarray, words: np.ndarray, topics: int) -> np.ndarray | None:
    """The evaluation order of a run written topic by topic, best first: a topic's rows in one
    block, scores never rising in it (as systems write runs). Blocks by ``topic`` (0 to
    ``topics`` - 1), rows in file order, except equal scores by packed document number
    descending (trec_eval's tie rule). None if the run is not so written (or has more than 64
    equal scores in a row): then the caller sorts."""
    lib = library()
    if lib is None:
        return numpy_scan.block_order(topic, score, words, topics)
    topic = np.ascontiguousarray(topic, dtype=np.int64)
    score = np.ascontiguousarray(score, dtype=np.float64)
    words = np.ascontiguousarray(words, dtype=np.uint64)
    order = np.empty(topic.size, dtype=np.int64)
    written = lib.trec_block_order(topic.size, topic.ctypes.data, score.ctypes.data, words.ctypes.data, words.shape[1],
                                   topics, order.ctypes.data)
    if written < 0:
        raise MemoryError("no memory for the blocks of a run")
    return order if written else None


def index(bounds: np.ndarray, words: np.ndarray, keys: np.ndarray) -> Index | numpy_scan.Index:
    """Each topic's distinct packed strings, ready to find others among them (``locate``):
    an :class:`Index`, or without :func:`library` its numpy version."""
    return (Index if library() is not None else numpy_scan.Index)(bounds, words, keys)


class Index:
    """Each topic's distinct packed strings, ready to find others among them (:meth:`locate`).

    A hash table per topic in C (open addressing, at least two slots a string), so that the
    lookups of a run's rows of one topic stay in the cache; a match is confirmed on the words,
    so a hash collision never gives a wrong row. Needs :func:`library`.

    ``bounds`` (topics + 1): where each topic's rows start in ``words`` (packed strings) and
    ``keys`` (their ``text_hash``).
    """

    def __init__(self, bounds: np.ndarray, words: np.ndarray, keys: np.ndarray):
        self.bounds = np.ascontiguousarray(bounds, dtype=np.int64)
        self.words = np.ascontiguousarray(words, dtype=np.uint64)
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        rows = np.diff(self.bounds)
        slots = [max(16, 1 << (2 * int(r) - 1).bit_length()) for r in rows]  # a power of two, at least 2 a row
        self.base = np.concatenate(([0], np.cumsum(slots))).astype(np.int64)
        self.table = np.zeros((int(self.base[-1]), 2), dtype=np.int32)  # (high half of the hash, row in the topic)
        self.table[:, 1] = -1
        library().trec_index(rows.size, self.bounds.ctypes.data, keys.ctypes.data, self.base.ctypes.data,
                             self.table.ctypes.data)

    def locate(self, topic: np.ndarray, words: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """Row within its topic of each (topic, packed string), or -1 if not here (or the topic
        is below 0). int32."""
        topic = np.ascontiguousarray(topic, dtype=np.int64)
        words = np.ascontiguousarray(words, dtype=np.uint64)
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        out = np.empty(topic.size, dtype=np.int32)
        library().trec_locate(topic.size, topic.ctypes.data, words.ctypes.data, words.shape[1], keys.ctypes.data,
                              self.table.ctypes.data, self.base.ctypes.data, self.bounds.ctypes.data,
                              self.words.ctypes.data, self.words.shape[1], out.ctypes.data)
        return out
