"""Live scores: between the database and the measures engine.

A recompute pass (``evaluation.recompute``, which decides when and where passes run) calls
:func:`recompute_topic` for each marked topic: it loads the topic's pool and strata, the
official grades (``judging.official.grades``, which follow the adjudication policy) and every
run's stored ranked list, calls the engine's one-topic path (``prepare_topic`` →
``evaluate_batch``, an ``Evaluation`` of one topic with its intervals), and stores one
:class:`Score` row per run and measure (only the changed ones) and the same numbers packed in
one :class:`TopicScores` row, with the per-topic estimates and variances the engine's run-mean
intervals are made of (``Evaluation.sampling_estimates``); then :func:`update_means` stores, from
the packed rows, each run's mean over topics with its intervals (:class:`RunScore`: the
sampling interval's centre, standard error and method, as ``Evaluation.interval`` gives them,
``docs/intervals.md``). Both store only
results newer than what is stored (conditional UPDATEs on the mark versions), so passes
delivered twice or run at once never put an older result over a newer one. This module also
reads the stored scores for the pages and downloads.

Which topics count: a topic is scored once it has at least one official grade; every run
gets a value on every scored topic (an empty ranking scores 0: trec_eval's ``-c``
convention), and means are over the scored topics.

The judgments a topic is evaluated with are exactly what ``export_qrels`` writes for it: with
sampling strata, every pooled document with its stratum and its official grade or −1
(sample_eval.pl's view; π_h = judged/pooled of the stratum, valid at every moment of the
judging order, see ``judging.pool_sampling``); without strata, the pooled documents and the judged
documents outside the pool (trec_eval's view).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Case, Exists, F, Q, Value, When
from django.utils import timezone

from evaluation.measures import prepare_topic
from evaluation.measures.evaluate_runs import evaluate_batch
from evaluation.measures.sample_eval import NIST_DEPTH
from evaluation.measures.intervals import effective_topics, mean_interval, topic_interval
from campaigns.models import RankedList, Run
from evaluation.models import RankingSnapshot, RunScore, Score, Scoreboard, TopicScores, TopicScoreState
from campaigns.models import Campaign, Topic
from judging import official

log = logging.getLogger(__name__)

#: Estimators for sampled judgments, stored with their jackknife variance.
INFERRED = ("xinfAP", "infNDCG", "iP@10")
#: trec_eval's measures; unjudged documents count as not relevant, so they are offered on the
#: leaderboard only when the pool plans to judge every pooled document.
CLASSIC = ("AP", "P@10", "nDCG@10", "bpref")
#: The Horvitz–Thompson estimates the inferred measures' run-mean intervals are centred on
#: (``docs/intervals.md`` §3), stored and exported beside them (not offered on the leaderboard's menu).
UNBIASED = ("statAP", "statP@10")



# --------------------------------------------------------------------------------------------
# What is computed


@dataclass(frozen=True)
class Plan:
    """What every topic of a recomputation shares: the runs (in id order), the measures stored and the sampling depth."""

    runs: list[Run]
    measures: tuple[str, ...]
    depth: int


def plan_for(campaign: Campaign) -> Plan:
    """The campaign's :class:`Plan`, read once per pass over the marked topics."""
    depth = sample_depth(campaign)
    return Plan(list(campaign.runs.order_by("id")), measures_for(campaign, depth), depth)


def sample_depth(campaign: Campaign) -> int:
    """Ranks the sampling estimators read: the built pool's depth, else NIST's 100; ≤ the campaign's depth.

    A built pool's depth is the end of its deepest stratum (its design's rank ranges).
    """
    return min(official.built_pool_depth(campaign) or NIST_DEPTH, campaign.depth)


def measures_for(campaign: Campaign, depth: int | None = None) -> tuple[str, ...]:
    """Every measure stored for the campaign: inferred, their unbiased estimates, classic, and
    judged@k coverage (k = 10 and the sampling depth, ``depth`` if the caller has it)."""
    depth = sample_depth(campaign) if depth is None else depth
    return INFERRED + UNBIASED + CLASSIC + (("Judged@10",) if depth == 10 else ("Judged@10", f"Judged@{depth}"))


def coverage_measure(measure: str, depth: int) -> str:
    """The judged@k shown beside a measure: k = its cut-off (10), else the sampling depth."""
    return "Judged@10" if measure.endswith("@10") else f"Judged@{depth}"


def leaderboard_measures(campaign: Campaign) -> tuple[str, ...]:
    """Every effectiveness measure stored for the campaign, as the leaderboard's menu offers them:
    the inferred ones first, then trec_eval's (see :func:`unjudged_as_not_relevant`)."""
    return INFERRED + CLASSIC


def unjudged_as_not_relevant(campaign: Campaign) -> tuple[str, ...]:
    """The offered measures that misread this campaign's pool: trec_eval's read unjudged documents
    as not relevant, which a sampled pool leaves unjudged by plan, so they run low there (the
    inferred ones estimate them); none when every pooled document is to be judged (a depth pool,
    or imported full qrels)."""
    return CLASSIC if official.has_sampled_pool(campaign) else ()


# --------------------------------------------------------------------------------------------
# One topic


def load_topic(campaign: Campaign, topic: Topic, runs: list[Run]):
    """The topic's batch for the engine (all ``runs``, in order), or None if nothing is judged yet
    or the organizers left the topic out of the evaluation (then its stored scores are deleted, and
    every mean, per-topic table and download goes without it)."""
    if topic.excluded:
        return None
    grades = official.grades(campaign, topics=[topic.pk])
    if not grades:
        return None
    return topic_batch(campaign, topic, runs, grades)[0]


def topic_batch(campaign: Campaign, topic: Topic, runs: list[Run], grades: dict[tuple[int, int], int]):
    """(batch, documents): the topic's batch for the engine with ``grades`` ((topic id, document
    id) → grade, as ``official.grades`` gives them) as its judgments, and the document
    id of each of the batch's judgment rows: the pool's entries (a document without a grade is
    pooled but unjudged), then, unless the pool is a stratified sample, the graded documents
    outside the pool."""
    entries = official.topic_pool(campaign, topic)
    stratified = bool(entries) and all(label for _, label in entries)
    doc_ids = [doc for doc, _ in entries]
    if not stratified:  # trec_eval's view: judged documents outside the pool count too
        pooled = set(doc_ids)
        doc_ids += sorted(doc for (t, doc) in grades if t == topic.pk and doc not in pooled)
    rel = np.array([grades.get((topic.pk, doc), -1) for doc in doc_ids], dtype=np.int64)
    stratum, labels = None, ()
    if stratified:
        labels, stratum = np.unique(np.array([label for _, label in entries]), return_inverse=True)
        labels = tuple(labels.tolist())
    blobs = dict(RankedList.objects.filter(topic=topic, run__in=runs).values_list("run_id", "document_blob"))
    lists = [RankedList.ids(blobs[run.pk]) if blobs.get(run.pk) else np.zeros(0, np.int64) for run in runs]
    ranked = np.split(_batch_ids(np.concatenate(lists), np.array(doc_ids, dtype=np.int64)),
                      np.cumsum([len(docs) for docs in lists])[:-1])
    batch = prepare_topic(
        ranked,
        np.arange(len(doc_ids), dtype=np.int64),
        rel,
        stratum,
        strata=labels,
        depth=campaign.depth,
        topic=topic.identifier,
        validate=False,  # stored ranked lists hold each document once
    )
    return batch, doc_ids


def _batch_ids(ranked: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """The batch's ids for ranked document ids: judged document ``judged[i]`` is i, every other
    document gets one id of its own from ``len(judged)`` on."""
    out = np.empty(ranked.size, dtype=np.int64)
    if judged.size:
        order = np.argsort(judged)
        at = np.minimum(np.searchsorted(judged[order], ranked), judged.size - 1)
        found = judged[order][at] == ranked
    else:
        found = np.zeros(ranked.size, dtype=bool)
        order = at = np.zeros(ranked.size, dtype=np.int64)
    out[found] = order[at[found]]
    others = np.unique(ranked[~found], return_inverse=True)[1]
    out[~found] = judged.size + others.ravel()
    return out


@dataclass(frozen=True)
class TopicResult:
    """One topic's numbers for every run, arrays (runs, measures) in the plan's measure order:
    the values and their jackknife variances (NaN where none), and the per-topic estimates and
    variances the run means' sampling intervals are made of, with each measure's method ("" and
    NaN where none)."""

    values: np.ndarray
    variances: np.ndarray
    centres: np.ndarray
    centre_variances: np.ndarray
    methods: list[str]


def compute_topic(campaign: Campaign, batch, measures, depth: int) -> TopicResult:
    """The topic's :class:`TopicResult` from the engine's one-topic path (``depth``: the sampling
    estimators' depth, :func:`sample_depth`), with the intervals ``evaluate(..., intervals=True)``
    gives (``Evaluation.sampling_estimates``, without the per-topic posterior)."""
    ev = evaluate_batch(batch, measures, level=campaign.relevant_from, sample_depth=depth, intervals=True, posterior=False)
    runs = batch.num_runs
    nan = np.full(runs, np.nan)
    values, variances, centres, centre_variances, methods = [], [], [], [], []
    for m in measures:
        name = ev.measure(m).name
        values.append(ev.values[name][:, 0])
        variances.append(ev.variances(m)[:, 0] if (name, 0) in ev.replicates else nan)
        interval = (name, 0) in ev.replicates or (name, 0) in ev.ht
        est, var, method = ev.sampling_estimates(m) if interval else (nan[:, None], nan[:, None], "")
        centres.append(est[:, 0])
        centre_variances.append(var[:, 0])
        methods.append(method)
    return TopicResult(*(np.stack(c, axis=1).astype(float) for c in (values, variances, centres, centre_variances)), methods)


def recompute_topic(campaign: Campaign, topic: Topic, version: int, plan: Plan | None = None, *,
                    fence: Q | None = None) -> bool:
    """Store the topic's scores for every run, as of mark ``version``; False if a newer result is
    stored, or if ``fence`` (a condition on the campaign's ``Scoreboard``, the pass's lease:
    ``evaluation.leases.Lease.holds``) no longer holds when they would be stored.

    The caller read ``version`` before this reads the judgments, so the rows reflect at least
    every change announced up to it. Only :class:`Score` rows whose numbers changed are
    written (a judgment moves a few runs' values; rewriting all would leave dead rows).
    ``plan``: the campaign's :func:`plan_for`, when the caller recomputes several topics.
    """
    plan = plan or plan_for(campaign)
    runs, measures = plan.runs, plan.measures
    batch = load_topic(campaign, topic, runs) if runs else None
    result = compute_topic(campaign, batch, measures, plan.depth) if batch is not None else None
    now = timezone.now()
    states = TopicScoreState.objects.filter(topic=topic, computed_version__lt=version)
    if fence is not None:
        states = states.filter(Exists(Scoreboard.objects.filter(fence, campaign=campaign)))
    with transaction.atomic():
        stored = states.update(
            computed_version=version,
            computed_at=now,
            dirty_since=Case(When(version=version, then=Value(None)), default=F("dirty_since")),
        )
        if not stored:
            return False
        if result is None:
            Score.objects.filter(topic=topic).delete()
            TopicScores.objects.filter(topic=topic).delete()
        else:
            _store_scores(topic, runs, measures, result)
        Scoreboard.objects.filter(campaign=campaign).update(scores_version=F("scores_version") + 1)
    return True


def _store_scores(topic: Topic, runs: list[Run], measures, result: TopicResult) -> None:
    values, variances = result.values, result.variances
    TopicScores.objects.update_or_create(
        topic=topic,
        defaults={
            "runs": [run.pk for run in runs], "measures": list(measures), "methods": result.methods,
            **{name: np.ascontiguousarray(getattr(result, name), dtype="<f8").tobytes()
               for name in ("values", "variances", "centres", "centre_variances")},
        },
    )
    Score.objects.filter(topic=topic).exclude(measure__in=measures).delete()
    old = {(r, m): (v, var) for r, m, v, var in Score.objects.filter(topic=topic).values_list("run_id", "measure", "value", "variance")}
    rows = []
    for j, name in enumerate(measures):
        for i, run in enumerate(runs):
            value = float(values[i, j])
            variance = None if np.isnan(variances[i, j]) else float(variances[i, j])
            if old.get((run.pk, name)) != (value, variance):
                rows.append(Score(run=run, topic=topic, measure=name, value=value, variance=variance))
    Score.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["run", "topic", "measure"],
        update_fields=["value", "variance"], batch_size=2000,
    )


# --------------------------------------------------------------------------------------------
# Means over topics


def update_means(campaign: Campaign, *, fence: Q | None = None) -> bool:
    """Store every run's means and interval standard errors from the stored topic scores.

    Returns False if newer means were stored meanwhile, or if ``fence`` (as
    :func:`recompute_topic` takes it) no longer holds. A run is averaged over the scored
    topics it has values for (all of them, once a new run's topics are recomputed).
    """
    version = Scoreboard.objects.filter(campaign=campaign).values_list("scores_version", flat=True).get()
    run_ids = list(campaign.runs.order_by("id").values_list("id", flat=True))
    row_of = {run_id: i for i, run_id in enumerate(run_ids)}
    packed = list(TopicScores.objects.filter(topic__campaign=campaign))
    measures = sorted({m for p in packed for m in p.measures})
    T = len(packed)
    shape = (len(run_ids), T)
    values = {m: np.zeros(shape) for m in measures}
    centres = {m: np.full(shape, np.nan) for m in measures}
    variances = {m: np.full(shape, np.nan) for m in measures}
    methods: dict[str, set[str]] = {m: set() for m in measures}
    present = np.zeros(shape, dtype=bool)
    for t, p in enumerate(packed):
        v, _ = p.arrays()
        centre, var = p.centre_arrays()
        rows = np.array([row_of.get(r, -1) for r in p.runs], dtype=np.int64)
        keep = rows >= 0
        present[rows[keep], t] = True
        for j, m in enumerate(p.measures):
            values[m][rows[keep], t] = v[keep, j]
            centres[m][rows[keep], t] = centre[keep, j]
            variances[m][rows[keep], t] = var[keep, j]
            methods[m].add(p.methods[j] if p.methods else "jackknife")
    result = []
    # Runs with the same scored topics are averaged in one call (usually all runs: one group).
    groups: dict[bytes, list[int]] = {}
    for i in range(len(run_ids)):
        if present[i].any():
            groups.setdefault(present[i].tobytes(), []).append(i)
    for members in groups.values():
        rows, mask = np.array(members), present[members[0]]
        n = int(mask.sum())
        x = np.stack([values[m][np.ix_(rows, mask)] for m in measures])  # (measures, runs, topics)
        spread = topic_interval(x).se if n >= 2 else None  # one call: its t quantile is the slow part
        for j, m in enumerate(measures):
            var = variances[m][np.ix_(rows, mask)]
            mean = x[j].mean(axis=1)
            # the engine's run-mean interval (Evaluation.interval): its per-topic centres and variances,
            # and the degrees of freedom of its t quantile (none: the former jackknife's z)
            method = ", ".join(sorted(methods[m] - {""}))
            sampling = None if np.isnan(var).any() else mean_interval(centres[m][np.ix_(rows, mask)], var, method)
            df = effective_topics(var) if sampling is not None and method != "jackknife" and n >= 2 else None
            result += [
                RunScore(run_id=run_ids[r], measure=m, value=float(mean[k]), topics=n,
                         sampling_se=None if sampling is None else float(sampling.se[k]),
                         sampling_centre=None if sampling is None else float(sampling.estimate[k]),
                         sampling_df=None if df is None else float(df[k]),
                         sampling_method=method if sampling is not None else "",
                         topic_se=None if spread is None else float(spread[j, k]))
                for k, r in enumerate(members)
            ]
    now = timezone.now()
    boards = Scoreboard.objects.filter(campaign=campaign, means_version__lt=version)
    with transaction.atomic():
        if not boards.filter(fence or Q()).update(means_version=version, computed_at=now):
            return False
        stored = {
            (run, m): (pk, row) for pk, run, m, *row in RunScore.objects.filter(run__campaign=campaign).values_list(
                "id", "run_id", "measure", *FIELDS
            )
        }
        keep = {(r.run_id, r.measure) for r in result}
        RunScore.objects.filter(pk__in=[pk for key, (pk, _) in stored.items() if key not in keep]).delete()
        changed = [
            r for r in result
            if stored.get((r.run_id, r.measure), (None, None))[1] != [getattr(r, f) for f in FIELDS]
        ]
        RunScore.objects.bulk_create(
            changed, update_conflicts=True, unique_fields=["run", "measure"],
            update_fields=FIELDS, batch_size=2000,
        )
        _maybe_snapshot(campaign, result, now)
    return True


#: What update_means stores of a run's mean, compared with the stored row to write only changes.
FIELDS = ["value", "topics", "sampling_se", "sampling_centre", "sampling_df", "sampling_method", "topic_se"]


def _maybe_snapshot(campaign: Campaign, rows: list[RunScore], now: datetime) -> None:
    every = timedelta(minutes=settings.SCORES_SNAPSHOT_MINUTES)
    latest = campaign.ranking_snapshots.order_by("-taken").values_list("taken", flat=True).first()
    every_run = len({r.run_id for r in rows}) == campaign.runs.count()  # not while new runs wait for scores
    if rows and every_run and (latest is None or now - latest >= every):
        take_snapshot(campaign)


def take_snapshot(campaign: Campaign) -> RankingSnapshot:
    """Keep every run's current means, to compare later rankings with (Kendall's τ)."""
    means: dict[str, dict[str, float]] = {}
    for run_id, measure, value in RunScore.objects.filter(run__campaign=campaign).values_list("run_id", "measure", "value"):
        means.setdefault(measure, {})[str(run_id)] = value
    return RankingSnapshot.objects.create(campaign=campaign, judgments=campaign.judgments.count(), means=means)


# --------------------------------------------------------------------------------------------
# Reading stored scores, for the pages and downloads


@dataclass(frozen=True)
class BoardRow:
    """One run on the leaderboard: its mean, interval and judged@k coverage (None if not scored yet),
    and whether it was pooled (None where the campaign's pool does not record its runs)."""

    run: Run
    score: RunScore | None
    interval: tuple[float, float] | None
    coverage: float | None
    pooled: bool | None = None
    earlier_rank: int | None = None


def pool_state(runs) -> dict[int, bool | None]:
    """Run pk → did a pool built here take its ranked lists? None for every run when no built pool
    records its runs (imported qrels), so that nothing is claimed."""
    runs = list(runs.values_list("pk", "campaign_id"))
    pooled = official.pooled_runs([pk for pk, _ in runs], {campaign for _, campaign in runs})
    return {pk: None if pooled is None else pooled[pk] for pk, _ in runs}


def board_rows(runs, measure: str, kind: str, coverage: str) -> list[BoardRow]:
    """Runs best first by ``measure``; unscored runs last."""
    pooled = pool_state(runs)
    runs = list(runs.select_related("team"))
    scores = {
        (s.run_id, s.measure): s for s in RunScore.objects.filter(run__in=runs, measure__in=[measure, coverage])
    }
    rows = []
    for run in runs:
        score = scores.get((run.pk, measure))
        cov = scores.get((run.pk, coverage))
        rows.append(BoardRow(run, score, score.interval(kind) if score else None, cov.value if cov else None,
                             pooled[run.pk]))
    rows.sort(key=lambda r: (r.score is None, -(r.score.value if r.score else 0), r.run.tag))
    return rows


def board_table(runs) -> list[tuple[int, RunScore]]:
    """Every stored mean of ``runs``, measure by measure (in name order), best first: (rank, mean) pairs,
    the rank counted within the measure (ties by run tag)."""
    means = RunScore.objects.filter(run__in=runs).select_related("run__team").order_by("measure", "-value", "run__tag")
    table, rank, previous = [], 0, None
    for score in means:
        rank = rank + 1 if score.measure == previous else 1
        previous = score.measure
        table.append((rank, score))
    return table


def ranking_tau(rows: list[BoardRow], snapshot: RankingSnapshot, measure: str) -> tuple[float, list[BoardRow]]:
    """Kendall's τ_b between the current means and the snapshot's, over runs scored in both;
    the rows get their rank in the snapshot."""
    from evaluation.measures.comparison import kendall_tau_b

    earlier = snapshot.means.get(measure, {})
    both = [r for r in rows if r.score is not None and str(r.run.pk) in earlier]
    order = sorted(both, key=lambda r: -earlier[str(r.run.pk)])
    rank = {r.run.pk: i + 1 for i, r in enumerate(order)}
    tau = kendall_tau_b([r.score.value for r in both], [earlier[str(r.run.pk)] for r in both]) if len(both) >= 2 else float("nan")
    return tau, [replace(r, earlier_rank=rank.get(r.run.pk)) for r in rows]


def topic_values(campaign: Campaign, measure: str, runs=None) -> tuple[list[Topic], dict[int, np.ndarray]]:
    """Scored topics (campaign order) and each run's per-topic values of ``measure`` (run id → array)."""
    rows = Score.objects.filter(topic__campaign=campaign, measure=measure)
    if runs is not None:
        rows = rows.filter(run__in=runs)
    rows = list(rows.values_list("run_id", "topic_id", "value"))
    topic_ids = {t for _, t, _ in rows}
    topics = [t for t in campaign.topics.order_by("position", "identifier") if t.pk in topic_ids]
    column = {t.pk: i for i, t in enumerate(topics)}
    values: dict[int, np.ndarray] = {}
    for run_id, topic_id, value in rows:
        values.setdefault(run_id, np.zeros(len(topics)))[column[topic_id]] = value
    return topics, values


@dataclass(frozen=True)
class Significance:
    """Every pair of runs tested at once (randomized Tukey HSD) on one measure's stored per-topic values.

    ``runs`` best first by their mean over the ``topics`` scored topics; ``p[i, j]`` the p-value of
    runs i and j (symmetric, 1 on the diagonal).
    """

    runs: list[Run]
    means: np.ndarray
    p: np.ndarray
    topics: int

    def pairs(self):
        """(better run, its mean, other run, its mean, p) for every pair, in table order."""
        for i, j in zip(*np.triu_indices(len(self.runs), 1)):
            yield self.runs[i], float(self.means[i]), self.runs[j], float(self.means[j]), float(self.p[i, j])


def significance(campaign: Campaign, measure: str, runs, *, resamples: int = 10_000) -> Significance | None:
    """The randomized Tukey HSD test of ``runs`` (those scored) on ``measure``; None with fewer
    than 2 scored runs or 2 scored topics. Topics a run did not answer count 0, as in the means."""
    from evaluation.measures.comparison import randomized_tukey_hsd

    topics, values = topic_values(campaign, measure, runs)
    scored = sorted((run for run in runs.select_related("team") if run.pk in values),
                    key=lambda run: (-values[run.pk].mean(), run.tag))
    if len(scored) < 2 or len(topics) < 2:
        return None
    table = np.vstack([values[run.pk] for run in scored])
    return Significance(scored, table.mean(axis=1), randomized_tukey_hsd(table, resamples=resamples), len(topics))
