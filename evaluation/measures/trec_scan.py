"""The compiled scanner of the TREC readers: ``trec_scan.c``, built on first use, called by ctypes.

A run or qrels file in the regular form every tool writes (:func:`scan`) is split into
columns by one pass of C over its bytes, its scores parsed there with correct rounding; its
strings are then packed and hashed (:func:`pack`) and checked for repeated (topic, document)
pairs (:func:`has_duplicates`) in C too. About three times faster than a general CSV tokenizer
followed by numpy packing, and the reading of run files is most of the command line's time.
A run's documents are then found among the judged ones with a hash table (:class:`Index`)
and, when the run is written topic by topic, best first, put in order without a sort
(:func:`block_order`).

The C source is compiled with the system's C compiler (``$CC``, else ``cc``; no Python headers
needed) into ``var/build/`` of the project (``$VAR_DIR/build``, or ``$ASSESS_BUILD_DIR``), once per version
of the source: the file's name holds the source's hash, and a build is written under a
temporary name and renamed, so processes building at once do not see half a library.
``bin/demo`` and ``bin/test`` build it ahead (``ensure_scanner`` in ``bin/provision.sh``).

Without a compiler nothing fails: :func:`library` is None (:func:`problem` says why, and a
``RuntimeWarning`` is issued once) and the readers read every file with their general reader,
and ``evaluate_runs.Qrels`` finds documents with a dictionary: the same values and errors, more slowly.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import warnings
from pathlib import Path

import numpy as np

SOURCE = Path(__file__).with_name("trec_scan.c")
FLAGS = ["-O2", "-std=c99", "-fPIC", "-shared"]

# What each column becomes in scan() (the enum of trec_scan.c)
SKIP, KEEP, NUMBER, SAME, GROUP = 0, 1, 2, 3, 4

_P = ctypes.c_void_p
_SIGNATURES = {
    "trec_scan": (ctypes.c_long, [ctypes.c_char_p, ctypes.c_long, ctypes.c_int, _P, ctypes.c_long, _P, _P, _P]),
    "trec_pack": (None, [ctypes.c_char_p, ctypes.c_long, _P, _P, ctypes.c_long, ctypes.c_int, _P, _P]),
    "trec_has_duplicates": (ctypes.c_int, [ctypes.c_long, _P, _P, ctypes.c_int, _P, ctypes.c_long, _P]),
    "trec_index": (None, [ctypes.c_long, _P, _P, _P, _P]),
    "trec_block_order": (ctypes.c_int, [ctypes.c_long, _P, _P, _P, ctypes.c_int, ctypes.c_long, _P]),
    "trec_locate": (None, [ctypes.c_long, _P, _P, ctypes.c_int, _P, _P, _P, _P, _P, ctypes.c_int, _P]),
}
_problem: str | None = None


def build_dir() -> Path:
    """``$ASSESS_BUILD_DIR``, else ``build/`` in ``$VAR_DIR`` (the app's writable directory), else the checkout's ``var/build``."""
    if os.environ.get("ASSESS_BUILD_DIR"):
        return Path(os.environ["ASSESS_BUILD_DIR"])
    if os.environ.get("VAR_DIR"):
        return Path(os.environ["VAR_DIR"]) / "build"
    return Path(__file__).resolve().parents[2] / "var" / "build"


@functools.cache
def library() -> ctypes.CDLL | None:
    """The compiled scanner, built now if this version of the source has not been; None if it
    cannot be (no compiler, a compile error, a build directory that cannot be written)."""
    global _problem
    source = SOURCE.read_bytes()
    compiler = os.environ.get("CC") or "cc"
    digest = hashlib.sha256(source + " ".join([compiler, *FLAGS]).encode()).hexdigest()[:16]
    target = build_dir() / f"trec_scan-{digest}.so"
    try:
        if not target.exists():
            _build(compiler, target)
        lib = ctypes.CDLL(str(target))
    except (OSError, RuntimeError) as error:
        _problem = str(error)
        warnings.warn(f"TREC files are read by the general reader, more slowly: {_problem}", RuntimeWarning, stacklevel=2)
        return None
    for name, (restype, argtypes) in _SIGNATURES.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = restype, argtypes
    return lib


def problem() -> str | None:
    """Why :func:`library` is None (after it was called), else None."""
    return _problem


def _build(compiler: str, target: Path) -> None:
    import shutil  # here: only the rare call that builds needs them
    import subprocess

    if shutil.which(compiler) is None:
        raise RuntimeError(f"no C compiler to build {SOURCE.name} ({compiler!r} is not on PATH; install gcc)")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    done = subprocess.run([compiler, *FLAGS, "-o", str(partial), str(SOURCE)], capture_output=True, text=True)
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        raise RuntimeError(f"{compiler} could not build {SOURCE.name}: {done.stderr.strip()[:2000]}")
    os.replace(partial, target)


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
    is not in the regular form (see ``trec_scan.c``) or the scanner could not be built.
    """
    lib = library()
    if lib is None:
        return None
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
    """The strings of ``data`` at ``offsets`` (``lengths`` bytes) packed as ``trec_files.pack_text``
    packs them, and their ``trec_files.text_hash``."""
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
    equal scores in a row), or without :func:`library`: then the caller sorts."""
    lib = library()
    if lib is None:
        return None
    topic = np.ascontiguousarray(topic, dtype=np.int64)
    score = np.ascontiguousarray(score, dtype=np.float64)
    words = np.ascontiguousarray(words, dtype=np.uint64)
    order = np.empty(topic.size, dtype=np.int64)
    written = lib.trec_block_order(topic.size, topic.ctypes.data, score.ctypes.data, words.ctypes.data, words.shape[1],
                                   topics, order.ctypes.data)
    if written < 0:
        raise MemoryError("no memory for the blocks of a run")
    return order if written else None


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
