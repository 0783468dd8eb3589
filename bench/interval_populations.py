"""The populations the interval methods are chosen on, and the held-out ones they are reported on.

Written down before any method was chosen (issue 55): a method, prior or constant is chosen by
looking at the ``CHOOSING`` populations only; the ``HELD_OUT`` populations, which differ in
their seeds **and** in their shape parameters (another distribution of R, another mix of run
skills and teams, other topic counts), are run once, after the choice, and reported as they
come (``bench/README.md``, ``docs/intervals.md``).

A population is a generator of campaigns with a fully judged pool (the truth) and a sampling
design; ``bench/bench_interval_populations.py`` draws samples from it and measures coverage.

What every population has (the issue's list):

* heavy-tailed R: relevant documents per topic drawn from a heavy-tailed law so that about a
  quarter of the topics have ≤ 10 (choosing: log-uniform on [2, 400]; held-out: log-normal,
  median 25, σ 1.4, clipped to [1, 500]);
* graded judgments 0–3; in the ``graded`` populations the pool's grades come out near
  40/28/22/10 % for 0/1/2/3 (dense relevance, grades 1/2/3 among the relevant in 28:22:10);
* runs in teams, each team's runs near-duplicates of one another (a shared score plus a small
  run-level noise), and weak runs (skill near 0);
* the app's sample-size rule n_h = max(1, round(rate·N_h)) in every sampled stratum;
* designs: uniform 10–50 %; depth-k complete + a sampled rest; three strata; and a pool built
  from half the runs (the truth is then the half pool's fully judged value; the runs outside
  the pool are marked so that the pool-bias signal can be measured).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Population:
    """One simulated population of campaigns and its sampling design.

    ``r_law``: ("loguniform", lo, hi) or ("lognormal", median, sigma, lo, hi) — relevant documents
    per topic in the universe. ``graded``: dense relevance with four grades (else grades 1–3 among
    the relevant 60/30/10 % and sparse). ``teams``: run count of each team (near-duplicate runs
    within a team). ``skills``: one skill per team (0 = weak). ``dup_noise``: the run-level noise
    within a team against the team's own noise of 1. ``design``: ("uniform", rate),
    ("top", k, rate), ("three", k1, k2, rate2, rate3). ``half_pool``: the pool is made by every
    other team only.
    """

    name: str
    topics: int
    seed: int
    r_law: tuple
    teams: tuple
    skills: tuple
    design: tuple
    graded: bool = False
    dup_noise: float = 0.3
    half_pool: bool = False
    universe: int = 1000


_R_CHOOSE = ("loguniform", 2, 400)
_TEAMS_CHOOSE = (3, 2, 1, 3, 1, 2)  # 12 runs in 6 teams
_SKILLS_CHOOSE = (2.2, 1.6, 1.2, 0.9, 0.4, 0.0)

_R_HELD = ("lognormal", 25, 1.4, 1, 500)
_TEAMS_HELD = (2, 4, 1, 1, 3, 2, 1)  # 14 runs in 7 teams
_SKILLS_HELD = (2.6, 1.9, 1.4, 0.7, 0.5, 0.1, 0.0)

CHOOSING = (
    Population("c-uniform10-20", 20, 1101, _R_CHOOSE, _TEAMS_CHOOSE, _SKILLS_CHOOSE, ("uniform", 0.10)),
    Population("c-uniform30-50", 50, 1102, _R_CHOOSE, _TEAMS_CHOOSE, _SKILLS_CHOOSE, ("uniform", 0.30)),
    Population("c-top10+20-50", 50, 1103, _R_CHOOSE, _TEAMS_CHOOSE, _SKILLS_CHOOSE, ("top", 10, 0.20)),
    Population("c-top20+5-100", 100, 1104, _R_CHOOSE, _TEAMS_CHOOSE, _SKILLS_CHOOSE, ("top", 20, 0.05)),
    Population("c-three-50", 50, 1105, _R_CHOOSE, _TEAMS_CHOOSE, _SKILLS_CHOOSE, ("three", 5, 30, 0.5, 0.1)),
    Population("c-graded-top10+20-50", 50, 1106, _R_CHOOSE, _TEAMS_CHOOSE, _SKILLS_CHOOSE, ("top", 10, 0.20),
               graded=True, universe=400),  # fmt: skip
    Population("c-halfpool-top10+20-50", 50, 1107, _R_CHOOSE, _TEAMS_CHOOSE, _SKILLS_CHOOSE, ("top", 10, 0.20),
               half_pool=True),  # fmt: skip
    Population("c-uniform20-10", 10, 1108, _R_CHOOSE, _TEAMS_CHOOSE, _SKILLS_CHOOSE, ("uniform", 0.20)),
)

HELD_OUT = (
    Population("h-uniform10-100", 100, 9201, _R_HELD, _TEAMS_HELD, _SKILLS_HELD, ("uniform", 0.10), dup_noise=0.2),
    Population("h-uniform50-20", 20, 9202, _R_HELD, _TEAMS_HELD, _SKILLS_HELD, ("uniform", 0.50), dup_noise=0.2),
    Population("h-top10+20-50", 50, 9203, _R_HELD, _TEAMS_HELD, _SKILLS_HELD, ("top", 10, 0.20), dup_noise=0.2),
    Population("h-top5+10-100", 100, 9204, _R_HELD, _TEAMS_HELD, _SKILLS_HELD, ("top", 5, 0.10), dup_noise=0.2),
    Population("h-three-20", 20, 9205, _R_HELD, _TEAMS_HELD, _SKILLS_HELD, ("three", 10, 40, 0.4, 0.15), dup_noise=0.2),
    Population("h-graded-top20+10-50", 50, 9206, _R_HELD, _TEAMS_HELD, _SKILLS_HELD, ("top", 20, 0.10),
               graded=True, universe=350, dup_noise=0.2),  # fmt: skip
    Population("h-graded-uniform20-100", 100, 9207, _R_HELD, _TEAMS_HELD, _SKILLS_HELD, ("uniform", 0.20),
               graded=True, universe=350, dup_noise=0.2),  # fmt: skip
    Population("h-halfpool-top10+20-50", 50, 9208, _R_HELD, _TEAMS_HELD, _SKILLS_HELD, ("top", 10, 0.20),
               dup_noise=0.2, half_pool=True),  # fmt: skip
    Population("h-uniform30-10", 10, 9209, _R_HELD, _TEAMS_HELD, _SKILLS_HELD, ("uniform", 0.30), dup_noise=0.2),
)

SETS = {"choosing": CHOOSING, "held-out": HELD_OUT}
DRAW_SEEDS = {"choosing": 11, "held-out": 97}  # the seed of the samples drawn from each set's campaigns
