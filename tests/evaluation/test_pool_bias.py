"""Leaving each team out of the pool (numpy core): a worked example, an independent check on
CDS 2015 with plain Python sets and the file-based evaluation, and bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evaluation.measures import evaluate
from evaluation.measures.batch import PAD, TopicBatch, TopicJudgments
from evaluation.measures.qrels_index import load_qrels
from evaluation.measures.ranked_runs import RankedRuns
from evaluation.measures.pool_bias import leave_teams_out, rank_among
from evaluation.measures.trec_files import read_qrels, read_run

CDS = Path(__file__).resolve().parents[1] / "data" / "reference" / "trec_cds_2015"


def worked_topic() -> TopicBatch:
    # Judged documents a, b, c, d (rows 0-3) with grades 1, 0, 1, 1: R = 3.
    # x1 (team X) ranks a c b; y1 (team Y) ranks b d a; z1 (team Z, not pooled) ranks d c.
    return TopicBatch(TopicJudgments(np.array([1, 0, 1, 1])), np.array([[0, 2, 1], [1, 3, 0], [3, 2, PAD]]), topic="1")


def test_the_worked_example_leaves_each_team_out_by_hand():
    result = leave_teams_out([worked_topic()], ["AP", "P@2", "bpref"], teams=["X", "Y", "Z"], pooled=[True, True, False],
                             depth=2, runs=["x1", "y1", "z1"])
    # Depth-2 pool: X brought a and c, Y brought b and d; no document was brought by both.
    assert result.unique_relevant == {"X": 2, "Y": 1, "Z": 0}
    assert result.unique_judged == {"X": 2, "Y": 2, "Z": 0}
    # Official AP: x1 (1/1 + 2/2)/3 = 2/3; y1 (1/2 + 2/3)/3 = 7/18; z1 (1/1 + 2/2)/3 = 2/3.
    np.testing.assert_allclose(result.official["AP"], [2 / 3, 7 / 18, 2 / 3])
    # Without a and c, only d is relevant (R = 1) and x1 does not retrieve it: 0.
    # Without b and d, a and c are relevant (R = 2); y1 finds a at rank 3: (1/3)/2 = 1/6.
    # z1 was not pooled: it keeps 2/3.
    np.testing.assert_allclose(result.left_out["AP"], [0, 1 / 6, 2 / 3])
    np.testing.assert_allclose(result.left_out["P@2"], [0, 0, 1])
    # bpref without b and d: no judged non-relevant document is left, so a counts 1: 1/R = 1/2.
    np.testing.assert_allclose(result.left_out["bpref"], [0, 1 / 2, 2 / 3])
    rows = {row["run"]: row for row in result.rows("AP")}
    assert [row["run"] for row in result.rows("AP")] == ["x1", "z1", "y1"]  # official, best first (ties by name)
    assert (rows["x1"]["rank"], rows["x1"]["rank_left_out"]) == (1, 3)  # 0 is below z1's 2/3 and y1's 7/18
    assert (rows["y1"]["rank"], rows["y1"]["rank_left_out"]) == (3, 3)
    assert rows["x1"]["percent"] == pytest.approx(100) and rows["y1"]["drop"] == pytest.approx(7 / 18 - 1 / 6)
    summary = result.summary("AP")
    assert (summary["runs"], summary["max_drop_run"], summary["runs_moving_down"]) == (2, "x1", 1)
    assert summary["mean_drop"] == pytest.approx((2 / 3 + (7 / 18 - 1 / 6)) / 2)


def test_a_document_two_teams_brought_stays_and_a_deeper_rank_does_not_count():
    # a is in both teams' top 2, so neither loses it; c is at rank 3 of x1, below the pool depth.
    batch = TopicBatch(TopicJudgments(np.array([1, 1, 1])), np.array([[0, 1, 2], [0, 2, PAD]]), topic="1")
    result = leave_teams_out([batch], ["AP"], teams=["X", "Y"], pooled=[True, True], depth=2)
    assert result.unique_relevant == {"X": 1, "Y": 1}  # b for X (rank 2), c for Y (rank 2)
    # X left out loses b: R = 2 (a, c); x1 has a at 1 and c at 3: (1/1 + 2/3)/2 = 5/6.
    # Y left out loses c: R = 2 (a, b); y1 has a at 1: (1/1)/2 = 1/2.
    np.testing.assert_allclose(result.left_out["AP"], [5 / 6, 1 / 2])


def test_a_teams_run_that_was_not_pooled_is_left_out_with_its_team():
    # x2 (team X, not pooled) ranks c first; leaving X out removes a and c (x1's top 2).
    batch = TopicBatch(TopicJudgments(np.array([1, 0, 1, 1])), np.array([[0, 2, 1], [1, 3, 0], [2, 3, PAD]]), topic="1")
    result = leave_teams_out([batch], ["AP"], teams=["X", "Y", "X"], pooled=[True, True, False], depth=2,
                             runs=["x1", "y1", "x2"])
    # x2 official: c at 1, d at 2, R = 3: (1 + 1)/3 = 2/3; without a and c: d at 2, R = 1: 1/2.
    np.testing.assert_allclose(result.official["AP"], [2 / 3, 7 / 18, 2 / 3])
    np.testing.assert_allclose(result.left_out["AP"], [0, 1 / 6, 1 / 2])
    row = next(row for row in result.rows("AP") if row["run"] == "x2")
    assert (row["pooled"], row["team_pooled"]) == (False, True)
    assert result.summary("AP")["runs"] == 3


def test_rank_among_counts_only_the_other_runs_above():
    # Run 2's 0.45 is compared with 0.5 and 0.3, not with its own official 0.4.
    assert rank_among(np.array([0.5, 0.45, 0.1]), np.array([0.5, 0.4, 0.3])).tolist() == [1, 2, 3]
    assert rank_among(np.array([0.2, 0.2]), np.array([0.2, 0.2])).tolist() == [1, 1]


def top_documents(run, topic: str, depth: int) -> set[str]:
    """A run's first ``depth`` documents of a topic after trec_eval's ranking (score, then docno, descending)."""
    lines = [(float(s), d) for t, d, s in zip(run.topic, run.docno, run.score) if t == topic]
    return {d for _, d in sorted(lines, reverse=True)[:depth]}


def test_on_cds_2015_each_team_left_out_equals_evaluating_qrels_without_its_unique_documents():
    paths = sorted((CDS / "runs").iterdir())
    teams = ["A", "A", "A", "B", "B", "B"]  # TUW1-3 one team, TUW4-6 another
    measures = ["AP", "P@10", "nDCG@10", "bpref", "R-prec"]
    qrels_path = CDS / "qrels-treceval-2015.txt"
    ranked = RankedRuns.build(load_qrels(qrels_path), paths)
    batches = [ranked.batch(t) for t in range(len(ranked.qrels.topics))]
    result = leave_teams_out(batches, measures, teams=teams, pooled=[True] * 6, depth=20, runs=[p.name for p in paths])

    # The same, independently: sets of document numbers and the file-based evaluation.
    qrels = read_qrels(qrels_path)
    judged: dict[str, dict[str, int]] = {}
    for t, d, r in zip(qrels.topic, qrels.docno, qrels.rel):
        judged.setdefault(str(t), {})[str(d)] = int(r)
    runs = [read_run(p) for p in paths]
    official = evaluate(qrels_path, paths, measures)
    for team in ("A", "B"):
        mine = [run for run, owner in zip(runs, teams) if owner == team]
        others = [run for run, owner in zip(runs, teams) if owner != team]
        reduced, unique_relevant = {}, 0
        for topic, grades in judged.items():
            brought = set().union(*(top_documents(run, topic, 20) for run in mine))
            unique = brought - set().union(*(top_documents(run, topic, 20) for run in others))
            unique_relevant += sum(grades.get(d, 0) >= 1 for d in unique)
            reduced[topic] = {d: g for d, g in grades.items() if d not in unique}
        assert result.unique_relevant[team] == unique_relevant > 0
        expected = evaluate(reduced, [p for p, owner in zip(paths, teams) if owner == team], measures)
        rows = [i for i, owner in enumerate(teams) if owner == team]
        for m in measures:
            np.testing.assert_allclose(result.left_out[m][rows], expected.mean(m), atol=1e-12)
            np.testing.assert_allclose(result.official[m], official.mean(m), atol=1e-12)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(measures=["num_ret"]), "not a per-topic value averaged over topics"),
        (dict(measures=["nope"]), "nope"),
        (dict(teams=["X", "Y"]), "2 teams for 3 runs"),
        (dict(pooled=[True]), "1 pooled flags for 3 runs"),
        (dict(depth=0), "depth must be a positive integer, got 0"),
        (dict(topics=[]), "no topics to evaluate"),
        (dict(topics=[TopicBatch(TopicJudgments(np.array([1, -1])), np.array([[0], [1], [PAD]]), topic="7")]),
         "topic '7': the judgments must hold grades ≥ 0 only"),
    ],
)
def test_bad_input_is_refused_naming_the_value(change, message):
    arguments = dict(topics=[worked_topic()], measures=["AP"], teams=["X", "Y", "Z"], pooled=[True, True, False], depth=2)
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        leave_teams_out(arguments.pop("topics"), arguments.pop("measures"), **arguments)
