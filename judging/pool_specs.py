"""What an organizer asks of a pool, as the ``build_pool`` options and the pool page's form say it:
parsed into a :class:`PoolSpec` (a design from ``judging.pool_designs``, a seed, per-team run
limits), stored with a built pool and read back from it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from judging import pool_designs

METHODS = ("depth", "stratified", "hybrid")


_RANK_RANGE = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")
_TEAM_RUNS = re.compile(r"^\s*(.+?)\s*=\s*(\d+)\s*$")


def parse_strata(text: str) -> list[tuple[int, int]]:
    """``"1-10,11-30,31-100"`` → ``[(1, 10), (11, 30), (31, 100)]``.

    Only the notation is checked here; empty, overlapping or gapped ranges are rejected by
    ``pooling``, whose messages name the offending range.
    """
    if not text.strip():
        raise ValueError("strata must not be empty: give rank ranges such as 1-10,11-30,31-100")
    strata = []
    for part in text.split(","):
        match = _RANK_RANGE.match(part)
        if not match:
            raise ValueError(f"stratum {part.strip()!r} is not a rank range LO-HI (such as 11-30)")
        strata.append((int(match[1]), int(match[2])))
    return strata


def parse_numbers(name: str, text: str) -> list[float]:
    """``"1,0.3,0.1"`` → ``[1.0, 0.3, 0.1]``; ranges are ``pooling``'s to check."""
    try:
        return [float(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"{name} {text!r} must be numbers separated by commas (such as 1,0.3,0.1)") from None


def parse_team_runs(text: str) -> dict[str, int]:
    """``"Aurora=3, Baseline=1"`` → ``{"Aurora": 3, "Baseline": 1}`` (runs to pool per named team)."""
    limits: dict[str, int] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        match = _TEAM_RUNS.match(part)
        if not match:
            raise ValueError(f"per-team limit {part.strip()!r} is not TEAM=N (such as Aurora=3)")
        if match[1] in limits:
            raise ValueError(f"team {match[1]!r} has two per-team limits")
        limits[match[1]] = int(match[2])
    return limits


def design_from(
    method: str,
    *,
    depth: int,
    k: int | None = None,
    strata: str | None = None,
    rates: str | None = None,
    budget: int | None = None,
    allocation: str | None = None,
    shares: str | None = None,
    prevalence: str | None = None,
) -> pool_designs.PoolDesign:
    """The design named by the command's options or the page's fields (text as typed).

    ``depth`` is the pool depth D in every method (a depth pool judges ranks 1…D in full). A
    hybrid pool judges ranks 1…k in full and samples the rest; its ``strata`` are the sampled
    ranges below k (default one range k+1…D) and its ``rates`` one per sampled range. A
    stratified pool's ``strata`` cover 1…D (default one range) with one rate each. An option
    that does not belong to the method is an error rather than silently ignored.
    """
    if method not in METHODS:
        raise ValueError(f"method {method!r} is not one of {', '.join(METHODS)}")
    given = {
        name: value
        for name, value in (("strata", strata), ("rates", rates), ("budget", budget), ("allocation", allocation),
                            ("shares", shares), ("prevalence", prevalence))
        if value not in (None, "")
    }
    if method == "depth":
        if k is not None:
            raise ValueError("k applies to hybrid pools only; a depth pool's depth is D")
        if given:
            raise ValueError(f"{', '.join(given)} apply to stratified and hybrid pools only; "
                             "a depth pool judges every pooled document")
        return pool_designs.depth_design(depth)
    if method == "stratified" and k is not None:
        raise ValueError("k applies to hybrid pools only")
    if method == "hybrid" and k is None:
        raise ValueError("a hybrid pool needs k, the depth judged in full")
    options = {
        "strata": parse_strata(strata) if "strata" in given else None,
        "rates": parse_numbers("rates", rates) if "rates" in given else None,
        "budget": budget,
        "allocation": allocation or None,
        "shares": parse_numbers("shares", shares) if "shares" in given else None,
        "prevalence": parse_numbers("prevalence", prevalence) if "prevalence" in given else None,
    }
    if method == "hybrid":
        return pool_designs.hybrid_design(k, depth, **options)
    if options["strata"] is None:
        options["strata"] = [(1, depth)]
    return pool_designs.stratified_design(options.pop("strata"), depth=depth, **options)


@dataclass(frozen=True)
class PoolSpec:
    """Everything a build needs besides the data: the design, the seed, which runs to pool.

    ``runs_per_team`` pools up to N runs per team by the team's stated priority (None: all
    runs); ``team_runs`` overrides it for named teams (e.g. more for the organizers' baselines).
    """

    design: pool_designs.PoolDesign
    seed: int = 0
    runs_per_team: int | None = None
    team_runs: Mapping[str, int] = field(default_factory=dict)
    minutes_per_judgment: float = pool_designs.MINUTES_PER_JUDGMENT

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed < 2**63:
            raise ValueError(f"seed {self.seed!r} must be an integer from 0 to 2^63 - 1")
        if self.runs_per_team is not None and self.runs_per_team < 1:
            raise ValueError(f"runs per team must be at least 1, got {self.runs_per_team}")
        for team, limit in self.team_runs.items():
            if limit < 0:
                raise ValueError(f"the limit of team {team!r} must not be negative, got {limit}")
        minutes = float(self.minutes_per_judgment)
        if not np.isfinite(minutes) or minutes <= 0:
            raise ValueError(f"minutes per judgment {self.minutes_per_judgment!r} must be a positive number")

    def as_parameters(self) -> dict:
        """JSON for ``Pool.parameters`` and ``PoolBuild.parameters``."""
        return {
            "design": self.design.as_dict(),
            "seed": self.seed,
            "runs_per_team": self.runs_per_team,
            "team_runs": dict(self.team_runs),
            "minutes_per_judgment": self.minutes_per_judgment,
        }

    @classmethod
    def from_parameters(cls, parameters: dict) -> PoolSpec:
        return cls(
            design=pool_designs.PoolDesign(**parameters["design"]),
            seed=parameters["seed"],
            runs_per_team=parameters.get("runs_per_team"),
            team_runs=parameters.get("team_runs") or {},
            minutes_per_judgment=parameters.get("minutes_per_judgment", pool_designs.MINUTES_PER_JUDGMENT),
        )

    def limit_of(self, team: str) -> int | None:
        """Runs of this team to pool; None for all."""
        return self.team_runs.get(team, self.runs_per_team)


def spec_from(values) -> PoolSpec:
    """A PoolSpec from values named like the ``build_pool`` options (the command's options or
    the pool page's cleaned form), so both read an organizer's request one way."""
    design = design_from(
        values["method"],
        depth=values["depth"],
        k=values["k"],
        strata=values["strata"],
        rates=values["rates"],
        budget=values["budget"],
        allocation=values["allocation"],
        shares=values["shares"],
        prevalence=values["prevalence"],
    )
    return PoolSpec(
        design=design,
        seed=values["seed"],
        runs_per_team=values["runs_per_team"],
        team_runs=parse_team_runs(values["team_runs"] or ""),
        minutes_per_judgment=values["minutes_per_judgment"],
    )
