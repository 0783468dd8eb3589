"""From per-topic values to one number per run: a separate, explicit step.

Which topics enter the mean is a convention, and the tools differ
(``docs/evaluation.md#which-topics-count``):

* ``complete=True`` — every topic of the qrels counts; a topic the run did not retrieve
  scores 0 (trec_eval ``-c``; the official TREC convention, and our default).
* ``complete=False`` — only topics the run retrieved count (trec_eval 9 without ``-c``,
  sample_eval.pl always; trec_eval 10 refuses to run instead).

Topics that appear only in a run are never evaluated (all tools).
"""

from __future__ import annotations

import numpy as np

from .trec_eval import geometric_mean

__all__ = ["summarize", "evaluated_topics", "running_sum"]

SUMMARIES = ("mean", "sum", "gmean", "count", "sum_all", "none")


def evaluated_topics(retrieved, *, complete: bool = True) -> np.ndarray:
    """Boolean mask (runs, topics) of the topics that enter each run's mean.

    ``retrieved[r, t]`` says whether run r listed any document for qrels topic t.
    """
    retrieved = np.asarray(retrieved, dtype=bool)
    if retrieved.ndim != 2:
        raise ValueError(f"retrieved must be a (runs, topics) mask, got shape {retrieved.shape}")
    if not isinstance(complete, bool):
        raise ValueError(f"complete must be True or False, got {complete!r}")
    return np.ones_like(retrieved) if complete else retrieved


def summarize(values, retrieved, *, summary: str = "mean", complete: bool = True) -> np.ndarray:
    """Combine per-topic values (runs, topics) into one value per run.

    Parameters
    ----------
    values : float array (runs, topics)
        Per-topic values; for topics a run did not retrieve, the value of an empty ranking
        (0 for every measure here except ``num_rel``/``inum_rel``, which depend on the qrels).
    retrieved : bool array (runs, topics)
    summary : {"mean", "sum", "gmean", "count", "sum_all"}
        ``mean`` arithmetic mean over the evaluated topics (most measures); ``sum`` total
        (``num_ret``, ``num_rel``, ``num_rel_ret``, ``inum_rel_ret``); ``gmean``
        trec_eval's geometric mean with the 1e-5 floor (``gm_map``); ``count`` the number of
        evaluated topics (``num_q``); ``sum_all`` total over every qrels topic whatever the
        convention (``inum_rel``, as sample_eval.pl prints it); ``none`` no summary, NaN
        (trec_eval's per-topic ``relstring``).
    complete : bool
        The topic convention (module docstring).

    Sums and means add the topics one after the other in topic order, as trec_eval's
    accumulator does, so where an exact mean ends in 5 at the fifth decimal the printed
    ``%.4f`` rounds as trec_eval's does (a pairwise sum can land on the other side).

    Returns
    -------
    float array (runs,); NaN for a run with no evaluated topic under ``complete=False``.
    """
    if summary == "none":
        return np.full(np.shape(retrieved)[0], np.nan)
    values = np.asarray(values, dtype=np.float64)
    mask = evaluated_topics(retrieved, complete=complete)
    if values.shape != mask.shape:
        raise ValueError(f"values shape {values.shape} differs from retrieved shape {mask.shape}")
    if summary not in SUMMARIES:
        raise ValueError(f"summary must be one of {SUMMARIES}, got {summary!r}")
    count = mask.sum(axis=1)
    if summary == "count":
        return count.astype(np.float64)
    if summary == "sum_all":
        return running_sum(values)
    if summary == "sum":
        return running_sum(np.where(mask, values, 0.0))
    out = np.full(values.shape[0], np.nan)
    has = count > 0
    if summary == "mean":
        out[has] = running_sum(np.where(mask, values, 0.0))[has] / count[has]
        return out
    for r in np.flatnonzero(has):  # a loop over runs, for the ragged masks of complete=False
        out[r] = geometric_mean(values[r, mask[r]])
    return out


def running_sum(values) -> np.ndarray:
    """Sum over the last axis adding one value after the other, left to right (trec_eval's
    ``+=`` loop), not numpy's pairwise summation: the same double to the last bit."""
    values = np.asarray(values, dtype=np.float64)
    if values.shape[-1] == 0:
        return np.zeros(values.shape[:-1])
    return np.cumsum(values, axis=-1)[..., -1]
