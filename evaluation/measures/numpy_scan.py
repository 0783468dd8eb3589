"""The scanner of the TREC readers in numpy: what :mod:`.trec_scan` runs when its compiled
library is not installed (``ASSESS_NO_C_SCANNER=1``, or a host without a C compiler).

The same functions with the same contract and the same results as the compiled ones (the
tests run both on the same cases, tests/evaluation/test_trec_files_fast_path.py), each a few
whole-array numpy operations over the file's bytes, so a run of 50,000 lines is read in
milliseconds without a line of Python per row:

* :func:`scan` finds every byte that is not printable ASCII (the separators and line ends of
  a file in the regular form, and anything that breaks it) in one pass, and checks the form
  on those positions alone: a separator between fields, a line end after the last, nothing
  else. Scores of at most 15 digits without an exponent are parsed arithmetically, exactly as
  ``float()`` parses them (:func:`_plain_decimals`); others by numpy, as the general reader
  parses them (``trec_files``).
* :func:`pack` reads each string's 64-bit words from a view of the bytes with a word starting
  at every byte.
* :func:`has_duplicates` sorts keys of (topic, string) pairs (the topic in the high bits, the
  string's hash in the others) and confirms equal keys on the strings, so a collision never
  gives a wrong answer.
* :class:`Index` is a hash table per topic, as the compiled one, probed for all of a run's
  rows at once.
* :func:`block_order` puts a run written topic by topic, best first, in evaluation order by
  moving whole blocks, sorting only the rows of tied scores.

Rows are gathered with ``take`` and from 1-D arrays: numpy's fancy indexing of a 2-D array
(or of a window view) copies element by element, many times slower.

Measured in bench/bench_evaluate.py (bench/README.md).
"""

from __future__ import annotations

import numpy as np

from . import packed_text

SKIP, KEEP, NUMBER, SAME, GROUP = 0, 1, 2, 3, 4
#: The longest number field read here (trec_files.NUMBER_LIMIT, as in trec_scan.c).
NUMBER_LIMIT = 64

_NUMERIC = np.zeros(256, dtype=bool)
_NUMERIC[np.frombuffer(b"0123456789+-.eE\x00", dtype=np.uint8)] = True  # NUL: the padding of shorter values
# A string's last word keeps its first k bytes: the mask of the k high bytes, k = 0 to 8.
_HIGH_BYTES = np.array([0] + [(2**64 - 1) ^ (2 ** (64 - 8 * k) - 1) for k in range(1, 9)], dtype=np.uint64)
TAB, LF, CR, SPACE, HASH = 0x09, 0x0A, 0x0D, 0x20, 0x23
_POWERS_OF_TEN = 10.0 ** np.arange(NUMBER_LIMIT + 1)  # exact up to 10^22


def scan(data: bytes, kinds: list[int]) -> tuple[int, np.ndarray, np.ndarray, np.ndarray] | None:
    """``trec_scan.scan`` in numpy: the same form accepted, the same arrays returned (each
    exactly ``rows`` wide)."""
    width = len(kinds)
    if not data.isascii() or b"\x7f" in data:  # then every byte not printable is below '!'
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    cut = np.flatnonzero(buf <= SPACE)  # where each field ends: a separator or a line end
    stop = buf.take(cut)
    end = cut
    if b"\r" in data:  # each CR must be the first byte of a CRLF: the field ends at the CR
        carriage = np.flatnonzero(stop == CR)
        end = cut.copy()
        lf = carriage + 1
        if lf[-1] >= cut.size or not ((stop[lf] == LF) & (cut[lf] == cut[carriage] + 1)).all():
            return None
        end[lf] = cut[carriage]
        keep = np.ones(cut.size, dtype=bool)
        keep[carriage] = False
        cut, end, stop = cut[keep], end[keep], stop[keep]
    if data[-1] != LF:  # the last line ends without a line end
        cut, end, stop = np.append(cut, len(data)), np.append(end, len(data)), np.append(stop, LF).astype(np.uint8)
    if cut.size == 0 or cut.size % width:
        return None
    rows = cut.size // width
    stop = stop.reshape(rows, width)
    separator = stop[0, 0] if width > 1 else SPACE
    if separator not in (SPACE, TAB) or not ((stop[:, :-1] == separator).all() and (stop[:, -1] == LF).all()):
        return None
    if end[0] == 0 or (end[1:] <= cut[:-1] + 1).any():  # an empty field (or line)
        return None

    def column(c: int) -> tuple[np.ndarray, np.ndarray]:  # where column c's fields start, their lengths
        start = cut[c - 1 :: width] + 1 if c else np.concatenate(([0], cut[width - 1 : -1 : width] + 1))
        return start, (end[c::width] - start).astype(np.int32)

    topic_start, _ = column(0)
    if (buf.take(topic_start) == HASH).any():  # a comment
        return None
    kept = [column(c) for c, kind in enumerate(kinds) if kind in (KEEP, SAME, GROUP)]
    offsets = np.array([start for start, _ in kept], dtype=np.int64).reshape(len(kept), rows)
    lengths = np.array([length for _, length in kept], dtype=np.int32).reshape(len(kept), rows)
    kept = [c for c, kind in enumerate(kinds) if kind in (KEEP, SAME, GROUP)]
    values = np.zeros(0, dtype=np.float64)
    for k, c in enumerate(kept):
        if kinds[c] in (SAME, GROUP):
            words = _words(data, offsets[k], lengths[k])
            same = np.concatenate(([False], (lengths[k, 1:] == lengths[k, :-1]) & (words[1:] == words[:-1]).all(axis=1)))
            if kinds[c] == SAME and not same[1:].all():
                return None
            if kinds[c] == GROUP:
                lengths[k, same] = -1
    if NUMBER in kinds:
        c = kinds.index(NUMBER)
        values = _decimals(data, *column(c))
        if values is None:
            return None
    return rows, offsets, lengths, values


def _decimals(data: bytes, start: np.ndarray, length: np.ndarray) -> np.ndarray | None:
    """The finite decimals at ``start`` (``length`` bytes each), parsed as the general reader
    parses a score column (``trec_files``); None if one is longer than :data:`NUMBER_LIMIT`,
    not a finite decimal, or has a byte no decimal has (the general reader then words the error).
    Plain decimals are parsed arithmetically (:func:`_plain_decimals`), the others by numpy."""
    if int(length.max()) > NUMBER_LIMIT:
        return None
    words = _words(data, start, length)  # the bytes after each number: zeros
    text = words.astype(">u8").view(np.uint8).reshape(words.shape[0], 8 * words.shape[1])
    values, plain = _plain_decimals(text)
    if not plain.all():
        rest = np.flatnonzero(~plain)
        other = text.take(rest, axis=0)
        if not _NUMERIC.take(other).all():
            return None
        try:
            values[rest] = other.view(f"S{text.shape[1]}").ravel().astype(np.float64)
        except (ValueError, OverflowError):
            return None
    return values if np.isfinite(values).all() else None


def _plain_decimals(text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row of ``text`` (a number's ASCII bytes, zero padded) read as a plain decimal, and
    whether it is one: ``[+-]digits[.digits]`` (or ``.digits``) of at most 15 digits.

    Such a number is m / 10^f with m, its digits as an integer, below 2^53 and f, the digits
    after the point, at most 15: both exact doubles, so the one division, correctly rounded,
    gives the double nearest the decimal, which is what ``float()`` gives (Clinger's fast
    path, W. D. Clinger, "How to read floating point numbers accurately", PLDI 1990). Rows that
    are not plain hold no meaningful value.
    """
    columns = np.ascontiguousarray(text.T)  # column by column: few columns, many rows
    n = text.shape[0]
    negative = columns[0] == 0x2D
    mantissa = np.zeros(n, dtype=np.int64)  # updated in place: no array of its size is made a column
    digits = np.zeros(n, dtype=np.int8)
    fraction = np.zeros(n, dtype=np.int8)
    point = np.zeros(n, dtype=bool)
    plain = np.ones(n, dtype=bool)
    for j, c in enumerate(columns):
        d = c - np.uint8(0x30)
        digit = d < 10
        mantissa *= np.where(digit, np.uint8(10), np.uint8(1))
        mantissa += d * digit
        digits += digit
        fraction += digit & point
        here = c == 0x2E
        plain &= digit | (here & ~point) | (c == 0) | (j == 0 and (negative | (c == 0x2B)))
        point |= here
    plain &= (digits > 0) & (digits <= 15)
    value = mantissa.astype(np.float64)
    value /= _POWERS_OF_TEN.take(fraction)
    np.negative(value, out=value, where=negative)
    return value, plain


def pack(data: bytes, offsets: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``trec_scan.pack`` in numpy: the strings packed as ``packed_text.pack_text`` packs them, and their hashes."""
    words = _words(data, offsets, lengths)
    return words, packed_text.text_hash(words)


def _words(data: bytes, offsets: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The strings packed, without their hashes."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    width = max(1, -(-int(lengths.max(initial=0)) // 8))
    every = _every_word(data)
    last = every.size - 1
    words = np.empty((offsets.size, width), dtype=np.uint64)
    for j in range(width):
        at = offsets + 8 * j
        word = every[np.minimum(at, last)].astype(np.uint64)
        past = np.flatnonzero(at > last)  # a word past the end of the data: the last 8 bytes, shifted
        word[past] <<= ((at[past] - last) * 8).astype(np.uint64)
        words[:, j] = word & _HIGH_BYTES.take(np.clip(lengths - 8 * j, 0, 8))
    return words


def _every_word(data: bytes) -> np.ndarray:
    """The big-endian 64-bit word starting at every byte of ``data`` (zero padded to 8 bytes):
    a view, each element overlapping the next seven (1-D, so gathering from it is numpy's
    fast path, where a 2-D window view's rows are gathered element by element)."""
    data = data.ljust(8, b"\0")
    return np.ndarray((len(data) - 7,), dtype=">u8", buffer=data, strides=(1,))


def _pair_key(topic: np.ndarray, keys: np.ndarray, topics: int) -> np.ndarray:
    """A key of each (topic, string hash) pair: the topic in the high bits, as many as
    ``topics`` (the number of topics) needs, the hash in the others. Sorted keys are grouped
    by topic, so a binary search for the keys of one topic stays in a small part of them."""
    bits = max(1, int(topics - 1).bit_length())
    return (np.asarray(topic).astype(np.uint64) << np.uint64(64 - bits)) | (np.asarray(keys, dtype=np.uint64) >> np.uint64(bits))


def has_duplicates(topic: np.ndarray, words: np.ndarray, keys: np.ndarray, starts: np.ndarray | None = None) -> bool:
    """``trec_scan.has_duplicates`` in numpy (``starts``, a speed hint for the compiled version, is not needed)."""
    if topic.size < 2:
        return False
    pair = _pair_key(topic, keys, int(topic.max()) + 1)
    ordered = np.sort(pair)
    if not (ordered[1:] == ordered[:-1]).any():
        return False
    order = np.argsort(pair)  # equal keys, rarely: which rows
    equal = pair[order][1:] == pair[order][:-1]
    rows = np.unique(np.concatenate((order[1:][equal], order[:-1][equal])))  # equal hashes: compare the pairs
    seen = {(int(t), w.tobytes()) for t, w in zip(np.asarray(topic)[rows], np.asarray(words)[rows])}
    return len(seen) < rows.size


def block_order(topic: np.ndarray, score: np.ndarray, words: np.ndarray, topics: int) -> np.ndarray | None:
    """``trec_scan.block_order`` in numpy; ties of any length are ordered here (the compiled
    version leaves those over 64 rows to the caller's sort)."""
    topic = np.asarray(topic, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    n = topic.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    inside = topic[1:] == topic[:-1]
    first = np.flatnonzero(np.concatenate(([True], ~inside)))
    if np.bincount(topic[first], minlength=topics).max() > 1 or (inside & (score[1:] - score[:-1] > 0)).any():
        return None  # a topic in two blocks, or a score rising
    row = np.arange(n, dtype=np.int64)
    tied = inside & (score[1:] == score[:-1])  # row i + 1 has row i's topic and score
    if tied.any():
        member = np.concatenate(([False], tied)) | np.concatenate((tied, [False]))
        group = np.cumsum(np.concatenate(([True], ~tied)))  # runs of equal (topic, score), in file order
        rows = np.flatnonzero(member)
        rank = packed_text.text_rank(words[rows])
        row[rows] = rows[np.lexsort((-rank, group[rows]))]  # each run in its own places, by docno descending
    size = np.diff(np.append(first, n))
    by_topic = np.argsort(topic[first], kind="stable")
    begin = np.repeat(first[by_topic], size[by_topic])
    offset = np.arange(n) - np.repeat(np.cumsum(size[by_topic]) - size[by_topic], size[by_topic])
    return row[begin + offset]


class Index:
    """``trec_scan.Index`` in numpy: a hash table per topic (open addressing, linear probing,
    at least two slots a string), the topics' tables end to end, so that a run's lookups of one
    topic stay in that topic's table.

    A probe that runs past its topic's table goes on into the next one (and into spare slots
    after the last), so every slot records how many filled slots follow it up to the next
    empty one: all of a lookup's candidates are then known at once, and a whole run is looked
    up in a few array operations. A match is confirmed on the topic and the words, so a hash
    collision never gives a wrong row.
    """

    def __init__(self, bounds: np.ndarray, words: np.ndarray, keys: np.ndarray):
        self.bounds = np.asarray(bounds, dtype=np.int64)
        self.words = np.ascontiguousarray(words, dtype=np.uint64)
        rows = np.diff(self.bounds)
        self.topic = np.repeat(np.arange(rows.size, dtype=np.int32), rows)
        size = np.array([max(16, 1 << (2 * int(r) - 1).bit_length()) for r in rows], dtype=np.int64)
        self.mask = size - 1
        self.base = np.concatenate(([0], np.cumsum(size)[:-1])).astype(np.int64)
        slots = int(size.sum())
        row = np.full(slots + 16, -1, dtype=np.int32)  # each slot's row in words, -1: empty
        keys = np.asarray(keys, dtype=np.uint64)
        pending = np.arange(self.topic.size, dtype=np.int64)
        slot = self._home(self.topic, keys)
        while pending.size:  # each pass: the strings whose slot is empty try it; one of each slot wins
            if slot.max(initial=0) >= row.size - 1:  # past the spare slots: more of them (the last stays empty)
                row = np.concatenate((row, np.full(row.size, -1, dtype=np.int32)))
            free = row.take(slot) < 0
            row[slot[free]] = pending[free]
            won = free & (row.take(slot) == pending)
            pending, slot = pending[~won], slot[~won] + 1
        self.row = row
        self.hash = np.zeros(row.size, dtype=np.uint64)  # the hash of each slot's string
        filled = np.flatnonzero(row >= 0)
        self.hash[filled] = keys.take(row.take(filled))
        empty = np.flatnonzero(row < 0)
        self.run = (empty[np.searchsorted(empty, np.arange(row.size))] - np.arange(row.size)).astype(np.int32)

    def _home(self, topic: np.ndarray, keys: np.ndarray) -> np.ndarray:
        return self.base.take(topic) + (keys & self.mask.take(topic).astype(np.uint64)).astype(np.int64)

    def locate(self, topic: np.ndarray, words: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """Row within its topic of each (topic, packed string), or -1 if not here (or the topic
        is below 0). int32."""
        topic = np.asarray(topic, dtype=np.int64)
        words = np.ascontiguousarray(words, dtype=np.uint64)
        out = np.full(topic.size, -1, dtype=np.int32)
        asked = np.flatnonzero(topic >= 0) if (topic < 0).any() else np.arange(topic.size)
        keys = np.asarray(keys, dtype=np.uint64).take(asked)
        home = self._home(topic.take(asked), keys)
        count = self.run.take(home)  # the filled slots from each string's home to the next empty one
        # first the home slots, where most strings are found or known to be absent (an empty slot)
        first = np.flatnonzero((count > 0) & (self.hash.take(home) == keys))
        self._confirm(topic, words, asked.take(first), self.row.take(home.take(first)), out)
        rest = np.flatnonzero((count > 1) & (out.take(asked) < 0))
        asked, keys, home, count = asked.take(rest), keys.take(rest), home.take(rest) + 1, count.take(rest) - 1
        ends = np.cumsum(count)
        # then the slots after them; a few strings at a time if they are many (long runs of
        # filled slots in a table of colliding hashes): memory stays a few words a string
        cuts = np.searchsorted(ends, np.arange(0, int(ends[-1]) if ends.size else 0, 4 * asked.size + 4096), "right")
        for begin, end in zip(cuts, np.append(cuts[1:], asked.size)):
            part = slice(begin, end)
            which = np.repeat(np.arange(end - begin), count[part])  # every (string, candidate slot)
            slot = home[part].take(which) + np.arange(which.size) - np.repeat(np.cumsum(count[part]) - count[part], count[part])
            hit = np.flatnonzero(self.hash.take(slot) == keys[part].take(which))
            self._confirm(topic, words, asked[part].take(which.take(hit)), self.row.take(slot.take(hit)), out)
        return out

    def _confirm(self, topic, words, rows, at, out) -> None:
        """Set ``out`` at ``rows`` (of the strings looked up) to the row in its topic of the
        judged string ``at``, where they are the same topic and string."""
        at = at.astype(np.int64)
        same = (self.topic.take(at) == topic.take(rows)) & packed_text.text_equal(self.words.take(at, axis=0),
                                                                                   words.take(rows, axis=0))
        out[rows[same]] = at[same] - self.bounds.take(topic.take(rows[same]))
