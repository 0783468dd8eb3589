"""The closed-form Horvitz–Thompson jackknife equals recomputing every deletion from scratch.

``_reference`` below is the former implementation of ``ht_replicates``: for each deleted judged
document it rebuilds every inclusion probability and pair weight ((runs, J, J) per deletion).
The closed form (``evaluation/measures/horvitz_thompson.py``) must give the same estimates and
replicates, in the same order, on any design.
"""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.measures import prepare_topic
from evaluation.measures.horvitz_thompson import ht_replicates
from evaluation.measures.sample_eval import ideal_dcg

MEASURES = ["xinfAP", "iP@5", "iP@30", "infNDCG"]


def _reference(batch, specs, *, depth=100, level=1, grade_order="numeric"):
    """name → (estimate (runs,), values (runs, J'), stratum (J',)), each deletion recomputed in full."""
    j = batch.judgments
    H = j.num_strata
    h = j.stratum_index
    judged = np.flatnonzero(j.rel >= 0)
    N = np.bincount(h, minlength=H).astype(float)
    n = np.bincount(h[judged], minlength=H).astype(float)
    plain = np.bincount(h[judged[(j.rel[judged] <= 0) & (j.rel[judged] < level)]], minlength=H)
    judged = judged[(j.rel[judged] > 0) | (j.rel[judged] >= level)]
    hj, grade = h[judged], j.rel[judged]
    y = grade >= level
    qidx = batch.qidx[:, :depth]
    runs, D = qidx.shape
    pos = np.full((runs, j.rel.size + 1), np.inf)
    r_idx, c_idx = np.nonzero(qidx >= 0)
    pos[r_idx, qidx[r_idx, c_idx]] = c_idx + 1
    k = pos[:, judged]

    def estimates(keep, n):
        p = np.divide(n, N, out=np.zeros(H), where=N > 0)
        same = np.divide(p * (n - 1), N - 1, out=p.copy(), where=N > 1)
        pi_i = p[hj]
        pij = np.where(hj[:, None] == hj[None, :], same[hj][:, None], pi_i[:, None] * pi_i[None, :])
        with np.errstate(divide="ignore"):
            w = np.where(keep & (pi_i > 0), 1 / pi_i, 0.0)
            wij = np.where(keep[:, None] & keep[None, :] & (pij > 0), 1 / pij, 0.0)
        inside = np.isfinite(k)
        kk = np.where(inside, k, 1.0)
        out = {}
        for name, kind, param in specs:
            if kind == "AP":
                rel = y & keep
                R = np.sum(w[rel])
                wrr = np.where(rel[:, None] & rel[None, :], wij, 0.0)
                np.fill_diagonal(wrr, 0.0)
                pairs = np.einsum("rij,ij->ri", k[:, None, :] < k[:, :, None], wrr)
                num = np.sum(np.where(inside, (np.where(rel, w, 0.0)[None, :] + pairs) / kk, 0.0), axis=1)
                out[name] = num / R if R > 0 else np.zeros(runs)
            elif kind == "P":
                out[name] = np.sum(np.where(k <= param, np.where(y & keep, w, 0.0)[None, :], 0.0), axis=1) / param
            else:
                g = np.where(keep, np.maximum(grade, 0), 0).astype(float)
                dcg = np.sum(np.where(inside, (g * w)[None, :] / np.log2(kk + 1), 0.0), axis=1)
                levels = np.unique(grade[grade > 0])
                if levels.size == 0:
                    out[name] = np.zeros(runs)
                    continue
                Rg = np.array([np.sum(w[(grade == v) & keep]) for v in levels])
                ideal = float(ideal_dcg(Rg, levels, depth=max(D, 1), grade_order=grade_order))  # was D: failed with every run empty
                out[name] = dcg / ideal if ideal > 0 else np.zeros(runs)
        return out

    keep = np.ones(judged.size, dtype=bool)
    full = estimates(keep, n)
    cols = {name: [] for name, _, _ in specs}
    strata = []
    for hh in np.flatnonzero((n >= 2) & (n < N)):
        n_new = n.copy()
        n_new[hh] -= 1
        if plain[hh]:
            v = estimates(keep, n_new)
            for name in cols:
                cols[name].append(np.repeat(v[name][:, None], plain[hh], axis=1))
            strata.append(np.full(plain[hh], hh))
        for i in np.flatnonzero(hj == hh):
            drop = keep.copy()
            drop[i] = False
            v = estimates(drop, n_new)
            for name in cols:
                cols[name].append(v[name][:, None])
            strata.append(np.array([hh]))
    stratum = np.concatenate(strata) if strata else np.zeros(0, dtype=np.int64)
    return {name: (full[name], np.concatenate(cols[name], axis=1) if cols[name] else np.zeros((runs, 0)), stratum)
            for name, _, _ in specs}  # fmt: skip


SPECS = [("xinfAP", "AP", None), ("iP@5", "P", 5), ("iP@30", "P", 30), ("infNDCG", "nDCG", None)]


def _design(rng, *, pool=60, strata=4, runs=6, depth=40, rates=None, relevant=0.3):
    """A random stratified sample: strata sizes, judged shares (some strata judged in full, some
    with one judged document), grades 0–3, runs listing pooled and unpooled documents or none."""
    h = rng.integers(0, strata, pool)
    rates = rng.choice([1.0, 0.6, 0.3, 0.1], size=strata) if rates is None else np.asarray(rates)
    judged = rng.random(pool) < rates[h]
    grade = np.where(rng.random(pool) < relevant, rng.integers(1, 4, pool), 0)
    rel = np.where(judged, grade, -1)
    ranked = [rng.permutation(pool + 20)[: rng.integers(0, depth + 15)] for _ in range(runs - 1)] + [np.zeros(0, np.int64)]
    return prepare_topic(ranked, np.arange(pool), rel, h)


def _assert_same(batch, *, depth=30, level=1):
    fast = ht_replicates(batch, MEASURES, depth=depth, level=level)
    slow = _reference(batch, SPECS, depth=depth, level=level)
    for name in MEASURES:
        estimate, values, stratum = slow[name]
        np.testing.assert_allclose(fast[name].estimate, estimate, rtol=1e-12, atol=1e-12)
        assert fast[name].values.shape == values.shape
        assert np.array_equal(fast[name].stratum, stratum)
        np.testing.assert_allclose(fast[name].values, values, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_closed_form_replicates_equal_recomputing_each_deletion(seed):
    rng = np.random.default_rng(seed)
    _assert_same(_design(rng, pool=int(rng.integers(5, 90)), strata=int(rng.integers(1, 6))), depth=int(rng.integers(5, 50)))


@pytest.mark.parametrize("seed", range(5))
def test_closed_form_holds_at_level_two_where_grade_one_has_a_gain_but_is_not_relevant(seed):
    _assert_same(_design(np.random.default_rng(100 + seed)), level=2)


def test_strata_with_one_judged_document_or_judged_in_full_give_no_replicates_but_count_in_the_estimate():
    rng = np.random.default_rng(7)
    b = _design(rng, pool=40, strata=3, rates=[1.0, 0.03, 0.5])
    _assert_same(b)
    assert set(ht_replicates(b, ["xinfAP"])["xinfAP"].stratum.tolist()) <= {2}


def test_no_relevant_document_judged_gives_zeros_everywhere():
    b = _design(np.random.default_rng(3), relevant=0.0)
    _assert_same(b)
    assert not ht_replicates(b, ["xinfAP"])["xinfAP"].values.any()


def test_every_run_empty_and_every_document_relevant():
    rng = np.random.default_rng(4)
    h = rng.integers(0, 3, 30)
    rel = np.where(rng.random(30) < 0.5, 1, -1)
    _assert_same(prepare_topic([np.zeros(0, np.int64)] * 3, np.arange(30), rel, h))
    _assert_same(prepare_topic([rng.permutation(30) for _ in range(3)], np.arange(30), rel, h))


def test_a_single_stratum_of_one_document():
    _assert_same(prepare_topic([np.array([0, 1])], np.arange(1), np.array([1]), np.array([0])))


# ---------------------------------------------------------------------------------------------
# statAP and statP@k as named measures


def test_stat_ap_worked_by_hand_on_a_tiny_sample():
    """Stratum 0: d0 relevant, judged in full (π = 1). Stratum 1: N = 4, n = 2 judged: d1 relevant,
    d2 not (π = 1/2, u = 2; π_11 = ½·1/3, weight 6). The run lists d1, d0, d2.

    ÂP: R̂ = 1 + 2 = 3; N̂ = (1/1)·2 + (1/2)·(1 + 1·2) = 3.5; ÂP = 7/6.
    Deleting d2 (n_1 = 1, u = 4): R̂ = 5, N̂ = 4 + (1/2)(1 + 4) = 6.5 → 1.3.
    Deleting d1: R̂ = 1, N̂ = (1/2)·1 = 0.5 → 0.5. Mean 0.9.
    b̂ = (1 − ½)(2 − 1)(0.9 − 7/6) = −2/15; statAP = 7/6 + 2/15 = 1.3.
    statP@2 = (1/2)(2 + 1) = 1.5."""
    from evaluation.measures import evaluate_topic
    from evaluation.measures.horvitz_thompson import stat_ap, stat_precision

    b = prepare_topic([np.array([1, 0, 2])], np.arange(5), np.array([1, 1, 0, -1, -1]), np.array([0, 1, 1, 1, 1]))
    rep = ht_replicates(b, ["statAP"])["statAP"]
    assert rep.estimate == pytest.approx([7 / 6])
    assert sorted(rep.values[0]) == pytest.approx([0.5, 1.3])
    assert rep.bias() == pytest.approx([-2 / 15])
    assert stat_ap(b) == pytest.approx([1.3])
    assert stat_precision(b, 2) == pytest.approx([1.5])
    values = evaluate_topic(b, ["statAP", "statP@2"])
    assert values["statAP"] == pytest.approx([1.3]) and values["statP@2"] == pytest.approx([1.5])


@pytest.mark.parametrize("seed", range(5))
def test_stat_ap_and_stat_precision_equal_ap_and_precision_on_complete_judgments(seed):
    from evaluation.measures import evaluate_topic

    rng = np.random.default_rng(seed)
    pool = 50
    rel = np.where(rng.random(pool) < 0.3, rng.integers(1, 3, pool), 0)
    ranked = [rng.permutation(pool + 10)[: rng.integers(0, 60)] for _ in range(5)]
    b = prepare_topic(ranked, np.arange(pool), rel, rng.integers(0, 3, pool))
    values = evaluate_topic(b, ["statAP", "AP", "statP@10", "P@10"], sample_depth=100)
    assert values["statAP"] == pytest.approx(values["AP"], abs=1e-12)
    assert values["statP@10"] == pytest.approx(values["P@10"], abs=1e-12)


def test_stat_ap_is_the_centre_of_the_run_mean_interval_of_xinfap_and_prints_by_name():
    import io

    from evaluation.measures import evaluate
    from evaluation.measures.report import write_sample_eval

    rng = np.random.default_rng(11)
    qrels, runs = {}, {f"r{i}": {} for i in range(3)}
    for t in range(4):
        qrels[str(t)] = {f"d{d}": (str(d % 2), int(rng.random() < 0.3) if rng.random() < 0.6 else -1) for d in range(40)}
        for name in runs:
            runs[name][str(t)] = {f"d{d}": 100 - i for i, d in enumerate(rng.permutation(45)[:30])}
    ev = evaluate(qrels, runs, ["xinfAP", "statAP", "iP@10", "statP@10"], intervals=True)
    for r in range(3):
        assert ev.mean("statAP")[r] == pytest.approx(ev.interval("xinfAP", r).estimate, abs=1e-12)
        assert ev.mean("statP@10")[r] == pytest.approx(ev.interval("iP@10", r).estimate, abs=1e-12)
        same = ev.interval("statAP", r)
        assert (same.estimate, same.se, same.method) == pytest.approx((ev.interval("xinfAP", r).estimate, ev.interval("xinfAP", r).se, "horvitz-thompson"))
    out = io.StringIO()
    write_sample_eval(out, ev)
    assert "statAP" in out.getvalue() and "statP@10" in out.getvalue()


def test_stat_estimates_read_from_given_replicates_equal_those_computed_afresh_and_fill_in_missing_names():
    from evaluation.measures.horvitz_thompson import stat_estimates

    b = _design(np.random.default_rng(3), depth=30)
    afresh = stat_estimates(b, ["statAP", "statP@5", "statP@30"], depth=30)
    given = ht_replicates(b, ["xinfAP", "statAP", "statP@5"], depth=30)  # no statP@30: computed
    reused = stat_estimates(b, ["statAP", "statP@5", "statP@30"], depth=30, replicates=given)
    assert list(reused) == ["statAP", "statP@5", "statP@30"]
    for name in afresh:
        assert np.array_equal(reused[name], afresh[name])
    assert np.array_equal(reused["statAP"], given["statAP"].estimate - given["statAP"].bias())


def test_a_topic_with_intervals_computes_its_horvitz_thompson_replicates_once(monkeypatch):
    """The live path (``evaluate_batch(..., intervals=True)``, what ``scoring.compute_topic`` calls)
    reads statAP and statP@10 from the replicates kept for the intervals: one ``ht_replicates``
    call per topic, and the same values as without intervals (where statAP is computed alone)."""
    from evaluation.measures import evaluate_runs, horvitz_thompson
    from evaluation.measures.evaluate_runs import evaluate_batch

    b = _design(np.random.default_rng(5), depth=30)
    live = ["xinfAP", "infNDCG", "iP@10", "statAP", "statP@10", "AP"]
    alone = evaluate_batch(b, live, sample_depth=30)
    calls = []

    def counted(*args, **kwargs):
        calls.append(args[1])
        return ht_replicates(*args, **kwargs)

    monkeypatch.setattr(horvitz_thompson, "ht_replicates", counted)
    monkeypatch.setattr(evaluate_runs, "ht_replicates", counted)
    ev = evaluate_batch(b, live, sample_depth=30, intervals=True, posterior=False)
    assert len(calls) == 1
    for name in live:
        assert np.array_equal(ev.values[name], alone.values[name])
    rep = ev.ht[("statAP", 0)]
    assert np.array_equal(ev.values["statAP"][:, 0], rep.estimate - rep.bias())
