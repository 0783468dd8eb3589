"""NCP (Robertson 2008): expected precision at a stopping point; uniform = AP, first = RR."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.measures import evaluate
from evaluation.measures.ncp import normalised_cumulative_precision as ncp
from evaluation.measures.ncp import stopping_weights
from evaluation.measures.trec_eval import average_precision, reciprocal_rank

# relevant at ranks 1, 3, 6; R = 4 (one never retrieved): precisions 1, 2/3, 3/6, 0
REL = np.array([[1, 0, 1, 0, 0, 1]])


def test_uniform_stopping_is_average_precision():
    assert ncp(REL, 4, "uniform")[0] == pytest.approx((1 + 2 / 3 + 1 / 2) / 4)
    rng = np.random.default_rng(5)
    rel = rng.choice([-1, 0, 1], size=(30, 25))
    np.testing.assert_allclose(ncp(rel, 20), average_precision(rel, 20), atol=1e-15)


def test_first_relevant_stopping_is_reciprocal_rank():
    rel = np.array([[0, 0, 1, 1], [1, 0, 0, 0], [0, 0, 0, 0]])
    np.testing.assert_allclose(ncp(rel, 2, "first"), reciprocal_rank(rel))


def test_geometric_stopping_by_hand():
    # θ = 1/2, R = 4: weights (1/2, 1/4, 1/8, 1/16) / (15/16) = 8/15, 4/15, 2/15, 1/15
    assert stopping_weights(("geometric", 0.5), 4) == pytest.approx([8 / 15, 4 / 15, 2 / 15, 1 / 15])
    # 8/15·1 + 4/15·2/3 + 2/15·1/2 = 35/45
    assert ncp(REL, 4, ("geometric", 0.5))[0] == pytest.approx(7 / 9)


def test_custom_weights_and_callables():
    assert ncp(REL, 4, [0, 1])[0] == pytest.approx(2 / 3)  # always stop at the second relevant document
    assert ncp(REL, 4, lambda R: np.ones(R))[0] == pytest.approx(ncp(REL, 4)[0])


@pytest.mark.parametrize(
    "stopping, message",
    [(("geometric", 1.0), "θ"), ([1, -1], "non-negative"), ([0, 0], "not all zero"), ([1] * 5, "at most R = 4"),
     ("last", "stopping distribution")],
)
def test_bad_stopping_distributions_are_refused(stopping, message):
    with pytest.raises(ValueError, match=message):
        ncp(REL, 4, stopping)


def test_registry_names():
    ev = evaluate({"1": {"a": 1, "b": 0, "c": 1}}, {"r": {"1": {"b": 3, "a": 2, "c": 1}}},
                  ["NCP", "NCP(first)", "NCP(geometric=0.5)", "AP", "RR"])
    v = {name: ev.values[name][0, 0] for name in ev.values}
    assert v["NCP"] == pytest.approx(v["AP"]) and v["NCP(first)"] == pytest.approx(v["RR"])
    # relevant at 2 and 3, R = 2: weights 2/3, 1/3
    assert v["NCP(geometric=0.5)"] == pytest.approx(2 / 3 * 1 / 2 + 1 / 3 * 2 / 3)
