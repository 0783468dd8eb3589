"""Strings as rows of 64-bit words, so matching, hashing and the tie rule need no Python strings.

Each string's UTF-8 bytes, zero padded, read as big-endian 64-bit words, one row per string
(:func:`pack_text`). Rows compare equal exactly when the strings do, and compare in byte order
(``strcmp``) word by word. The TREC readers (``trec_files``, ``trec_scan``) pack document numbers
and topics this way.
"""

from __future__ import annotations

import numpy as np


def pack_text(strings) -> np.ndarray:
    """Strings as rows of 64-bit words: the UTF-8 bytes, zero padded, read big-endian.

    Parameters
    ----------
    strings : array-like of str or bytes, shape (n,)

    Returns
    -------
    words : uint64 array, shape (n, W)
        ``W = max(1, ceil(longest / 8))`` bytes. Text holds no NUL byte, so two rows are equal
        exactly when the strings are, and rows ordered word by word (as unsigned numbers) are
        in the strings' byte order, ``strcmp`` order, which is also code-point order.
    """
    a = np.ascontiguousarray(np.asarray(strings))
    if a.dtype.kind not in "US":
        a = a.astype(str)
    n = a.size
    if a.dtype.kind == "U":
        codes = a.view(np.uint32).reshape(n, a.dtype.itemsize // 4)
        if codes.size == 0 or codes.max() < 0x80:
            raw = codes.astype(np.uint8)
        else:
            a = np.char.encode(a, "utf-8", "surrogateescape")  # the bytes unpack_text found not UTF-8
    if a.dtype.kind == "S":
        raw = a.view(np.uint8).reshape(n, a.dtype.itemsize)
    width = max(1, -(-raw.shape[1] // 8))
    padded = np.zeros((n, 8 * width), dtype=np.uint8)
    padded[:, : raw.shape[1]] = raw
    return padded.view(">u8").astype(np.uint64)


def unpack_text(words: np.ndarray) -> np.ndarray:
    """The str array that :func:`pack_text` packed (dtype as wide as the longest string); bytes
    that are not UTF-8 (document numbers read with ``docno_bytes``) come back as Python's
    ``surrogateescape`` characters, which :func:`pack_text` packs into the same bytes."""
    n = words.shape[0]
    raw = np.ascontiguousarray(words.astype(">u8")).view(np.uint8).reshape(n, 8 * words.shape[1])
    used = np.flatnonzero(raw.any(axis=0))
    width = int(used[-1]) + 1 if used.size else 1
    text = np.ascontiguousarray(raw[:, :width]).view(f"S{width}").ravel()
    return text.astype(np.str_) if raw.max(initial=0) < 0x80 else np.char.decode(text, "utf-8", "surrogateescape")


def text_hash(words: np.ndarray) -> np.ndarray:
    """64-bit hash of each packed string.

    h = mix(Σ_j w_j · M_j) modulo 2⁶⁴, with odd multipliers M_j = mix(j + 1) | 1 fixed for
    every word position j and mix the splitmix64 finalizer. Zero words add nothing, so the
    hash does not depend on how wide the packing is. Equal hashes do not prove equal strings:
    callers confirm on the words.
    """
    multipliers = _splitmix(np.arange(1, words.shape[1] + 1, dtype=np.uint64)) | np.uint64(1)
    z = words[:, 0] * multipliers[0]
    for j in range(1, words.shape[1]):
        z += words[:, j] * multipliers[j]
    return _splitmix(z)


def _splitmix(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def text_rank(words: np.ndarray) -> np.ndarray:
    """Dense rank of each packed string in byte order: equal strings share a rank, from 0."""
    n = words.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if words.shape[1] == 1:
        return np.unique(words[:, 0], return_inverse=True)[1].ravel().astype(np.int64)
    order = np.lexsort(words.T[::-1])  # the first word is the primary key
    ordered = words[order]
    new = np.concatenate(([True], np.any(ordered[1:] != ordered[:-1], axis=1)))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.cumsum(new) - 1
    return rank


def text_equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row by row, are packed strings ``a`` and ``b`` equal? (same rows, any widths)"""
    same = np.ones(a.shape[0], dtype=bool)
    for j in range(max(a.shape[1], b.shape[1])):  # column by column: W is small, rows many
        if j >= a.shape[1] or j >= b.shape[1]:
            same &= (a if j < a.shape[1] else b)[:, j] == 0
        else:
            same &= a[:, j] == b[:, j]
    return same


def text_greater(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row by row, is packed string ``a`` after ``b`` in byte order? (same shapes)"""
    differ = a != b
    first = differ.argmax(axis=1)
    rows = np.arange(a.shape[0])
    return differ[rows, first] & (a[rows, first] > b[rows, first])
