"""trec_eval's relative_P, Rprec_mult and relstring on one worked ranking, by hand."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.measures import prefix_measures as pm

REL = np.array([[1, 0, -1, 2, -3]])  # relevant, non-relevant, not in the pool, relevant; R = 3


def test_relative_precision_divides_by_the_best_possible_count():
    assert pm.relative_precision(REL, 3, 2)[0] == pytest.approx(1 / 2)
    assert pm.relative_precision(REL, 3, 5)[0] == pytest.approx(2 / 3)  # min(k, R) = 3
    assert pm.relative_precision(REL, 0, 5)[0] == 0.0


def test_precision_at_r_multiples_rounds_the_cutoff_as_trec_eval():
    assert pm.precision_at_r_multiple(REL, 3, 0.5)[0] == pytest.approx(1 / 2)  # c = ⌊1.5 + 0.9⌋ = 2
    assert pm.precision_at_r_multiple(REL, 3, 1.0)[0] == pytest.approx(1 / 3)  # c = 3: R-prec
    assert pm.precision_at_r_multiple(REL, 3, 2.0)[0] == pytest.approx(2 / 6)  # c = 6, past the run's end
    assert pm.precision_at_r_multiple(REL, 3, 0.0)[0] == 0.0  # c = 0
    with pytest.raises(ValueError, match="multiple of R"):
        pm.precision_at_r_multiple(REL, 3, -1)


def test_relevance_string_codes_each_rank():
    rel = np.array([[1, 0, -1, 12, -2, -3], [-3, -3, -3, -3, -3, -3]])
    assert pm.relevance_string(rel, 10).tolist() == ["10->.", ""]
    assert pm.relevance_string(rel, 2).tolist() == ["10", ""]
    assert pm.relevance_string(rel, 0).tolist() == ["", ""]
