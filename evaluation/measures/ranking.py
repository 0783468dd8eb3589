"""The order in which trec_eval and sample_eval.pl read a topic's retrieved documents."""

from __future__ import annotations

import numpy as np

from .packed_text import text_rank


def ranked_order(docno: np.ndarray, score: np.ndarray, *, topic: np.ndarray | None = None) -> np.ndarray:
    """Indices that put retrieved documents in evaluation order.

    Documents are sorted by ``score`` descending; equal scores are broken by ``docno``
    descending in byte order (trec_eval ``form_res_rels.c`` compares ``strcmp(p2, p1)``,
    sample_eval.pl ``$b cmp $a``). The rank column of a run file is ignored by both tools and
    so here. Scores are compared as float64, as trec_eval v10 does (v9 read them as float32,
    so scores equal to 7 significant digits were ties there and are not here).

    Parameters
    ----------
    docno : array of str, shape (n,), or packed uint64 array, shape (n, W)
        Document numbers, no duplicates within a topic; packed ones as
        ``packed_text.pack_text`` makes them (compared in the same byte order).
    score : array of float, shape (n,)
        Retrieval scores, same length.
    topic : array, shape (n,), optional
        With several topics in one call, rows are grouped by topic (in increasing order of
        the topic values: byte order for strings, numeric order for integer topic indices)
        and ranked within each topic, in one vectorized sort.

    Returns
    -------
    order : ndarray of int64, shape (n,)
        ``docno[order]`` is the ranked list, best first (topic by topic if ``topic`` is given).

    References
    ----------
    trec_eval v10.0, ``form_res_rels.c`` (``comp_sim_docno``); NIST ``sample_eval.pl``.
    """
    docno = np.asarray(docno)
    score = np.asarray(score, dtype=np.float64)
    packed = docno.ndim == 2 and docno.dtype == np.uint64
    if docno.shape[:1] != score.shape or score.ndim != 1 or not (docno.ndim == 1 or packed):
        raise ValueError(f"docno shape {docno.shape} and score shape {score.shape} must be equal 1-d shapes")
    if topic is not None and np.shape(topic) != score.shape:
        raise ValueError(f"topic shape {np.shape(topic)} differs from docno shape {docno.shape}")
    if score.size == 0:
        return np.zeros(0, dtype=np.int64)
    group = np.zeros(score.size, dtype=np.int64) if topic is None else np.unique(topic, return_inverse=True)[1]
    # np.lexsort: the last key is the primary one. Sort by number first; only rows whose
    # (topic, score) is shared need their document numbers compared, which is the slow part.
    order = np.lexsort((-score, group))
    g, s = group[order], score[order]
    tied = (g[1:] == g[:-1]) & (s[1:] == s[:-1])
    if tied.any():
        involved = np.zeros(order.size, dtype=bool)
        involved[1:] |= tied
        involved[:-1] |= tied
        rows = order[involved]
        # Code points of str order like the bytes of their UTF-8 encoding: this is strcmp order.
        code = text_rank(docno[rows]) if packed else np.unique(docno[rows], return_inverse=True)[1]
        tie_key = np.zeros(order.size, dtype=np.int64)
        tie_key[rows] = code
        order = np.lexsort((-tie_key, -score, group))
    return order.astype(np.int64)
