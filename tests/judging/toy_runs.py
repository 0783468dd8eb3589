"""The toy runs the pool tests work their expected numbers out from (tests/judging/test_pool_*.py)."""

from __future__ import annotations

import numpy as np

from judging.pool_designs import stratified_design
from judging.pool_sampling import build_topic_pool

# Three runs, depth 6 (-1 pads run C). Best rank of each document over the three runs:
#   1: A1 -> 1      2: A2, B1 -> 1     3: A3, C2 -> 2     4: A4 -> 4      5: A5 -> 5
#   6: A6 -> 6      7: B2, C4 -> 2     8: B4 -> 4         9: B5 -> 5     10: B6 -> 6
#  11: C1 -> 1     12: C3 -> 3        13: C5 -> 5
RUNS = np.array([
    [1, 2, 3, 4, 5, 6],      # A
    [2, 7, 1, 8, 9, 10],     # B
    [11, 3, 12, 7, 13, -1],  # C
])
BEST = {1: 1, 2: 1, 3: 2, 4: 4, 5: 5, 6: 6, 7: 2, 8: 4, 9: 5, 10: 6, 11: 1, 12: 3, 13: 5}
# Strata (1,2), (3,4), (5,6) by best rank:
S1 = {1, 2, 3, 7, 11}   # best rank 1-2: N = 5
S2 = {4, 8, 12}         # best rank 3-4: N = 3
S3 = {5, 6, 9, 10, 13}  # best rank 5-6: N = 5
STRATA = [(1, 2), (3, 4), (5, 6)]


def members(pool, stratum):
    return set(pool.docs[pool.stratum == stratum].tolist())


def sampled_docs(pool, stratum=None):
    mask = pool.sampled if stratum is None else pool.sampled & (pool.stratum == stratum)
    return set(pool.docs[mask].tolist())


def single_run_pool(sizes, rates, seed=0, topic="t"):
    """One run 0…D−1, so best rank = position and stratum sizes are the range widths."""
    edges = np.cumsum([0, *sizes])
    strata = [(int(lo) + 1, int(hi)) for lo, hi in zip(edges[:-1], edges[1:])]
    design = stratified_design(strata, rates=rates)
    return build_topic_pool(np.arange(edges[-1])[None, :], design, seed=seed, topic=topic)
