"""judging/pool_specs.py: what the organizer typed, parsed into a design and a pool specification."""

from __future__ import annotations

import pytest

from judging import pool_designs, pool_specs

RATES = pool_designs.stratified_design([(1, 2), (3, 4), (5, 6)], rates=[1, 0.5, 0])


def spec(design, **options) -> pool_specs.PoolSpec:
    return pool_specs.PoolSpec(design=design, seed=options.pop("seed", 11), **options)


# --------------------------------------------------------------------------------------------
# Parsing what the organizer typed


def test_strata_rates_and_team_limits_parse_from_text():
    assert pool_specs.parse_strata("1-10, 11-30 ,31-100") == [(1, 10), (11, 30), (31, 100)]
    assert pool_specs.parse_numbers("rates", "1, 0.3,0.1") == [1.0, 0.3, 0.1]
    assert pool_specs.parse_team_runs("Aurora=3, Base line = 1,") == {"Aurora": 3, "Base line": 1}


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: pool_specs.parse_strata("1-10;11-30"), "stratum '1-10;11-30' is not a rank range LO-HI"),
        (lambda: pool_specs.parse_strata(" "), "strata must not be empty"),
        (lambda: pool_specs.parse_numbers("rates", "1,x"), "rates '1,x' must be numbers separated by commas"),
        (lambda: pool_specs.parse_team_runs("Aurora:3"), "per-team limit 'Aurora:3' is not TEAM=N"),
        (lambda: pool_specs.parse_team_runs("A=1,A=2"), "team 'A' has two per-team limits"),
        (lambda: pool_specs.design_from("depth", depth=10, k=5), "k applies to hybrid pools only"),
        (lambda: pool_specs.design_from("depth", depth=10, rates="1"), "rates apply to stratified and hybrid pools only"),
        (lambda: pool_specs.design_from("hybrid", depth=10, rates="0.5"), "a hybrid pool needs k"),
        (lambda: pool_specs.design_from("stratified", depth=10, k=2, rates="1"), "k applies to hybrid pools only"),
        (lambda: pool_specs.design_from("pyramid", depth=10), "method 'pyramid' is not one of"),
        (lambda: pool_specs.design_from("depth", depth=0), "depth must be at least 1, got 0"),
        (lambda: pool_specs.design_from("stratified", depth=30, strata="1-10,5-30", rates="1,1"),
         r"strata \(1, 10\) and \(5, 30\) overlap"),
        (lambda: pool_specs.design_from("stratified", depth=30, strata="1-10,30-11", rates="1,1"),
         r"empty stratum \(30, 11\)"),
        (lambda: pool_specs.design_from("stratified", depth=30, strata="1-10,11-30", rates="1,1.5"),
         r"rate 1.5 of entry 2 is outside \[0, 1\]"),
        (lambda: pool_specs.design_from("stratified", depth=30, strata="1-10,11-20", rates="1,1"),
         "strata end at rank 20 but the pool depth is 30"),
        (lambda: spec(pool_designs.depth_design(5), seed=-1), "seed -1 must be an integer"),
        (lambda: spec(pool_designs.depth_design(5), runs_per_team=0), "runs per team must be at least 1"),
    ],
)
def test_bad_designs_are_refused_with_a_message_naming_the_value(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_designs_from_text_match_the_pooling_constructors():
    assert pool_specs.design_from("depth", depth=20) == pool_designs.depth_design(20)
    assert pool_specs.design_from("stratified", depth=6, strata="1-2,3-4,5-6", rates="1,0.5,0") == RATES
    # A stratified design without strata is one range 1..D; a hybrid one samples k+1..D as one range.
    assert pool_specs.design_from("stratified", depth=50, rates="0.1").strata == ((1, 50),)
    hybrid = pool_specs.design_from("hybrid", depth=100, k=20, rates="0.2")
    assert hybrid == pool_designs.hybrid_design(20, 100, rates=[0.2])
    budget = pool_specs.design_from("hybrid", depth=6, k=2, strata="3-4,5-6", budget=7, allocation="shares", shares="1,2")
    assert budget.shares == (1.0, 2.0) and budget.full == 1


def test_a_spec_round_trips_through_its_json_parameters():
    original = spec(pool_designs.hybrid_design(2, 6, strata=[(3, 4), (5, 6)], budget=7, allocation="top-heavy"),
                    seed=2**40, runs_per_team=2, team_runs={"south": 3}, minutes_per_judgment=2.5)
    assert pool_specs.PoolSpec.from_parameters(original.as_parameters()) == original
