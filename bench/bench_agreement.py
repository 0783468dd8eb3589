"""Benchmark: assessor agreement for a campaign of 50 topics × 2,000 doubly judged documents.

Run from the repository root (SQLite under var/bench/agreement/ by default; set
``DATABASE_URL`` for PostgreSQL)::

    .venv/bin/python bench/bench_agreement.py

Generated campaign: 3-grade scale; per topic a primary and a second assessor (pairs rotate
among 6 assessors) judge the same 2,000 documents; the second copies the primary's grade with
probability 0.7 and otherwise draws one at random; ~10 % of the documents also get a third
assessor. 200,000+ judgments. Built once (the database is kept between runs).

Prints the database, then the best and the median of 7 repeats of:

* ``load``: reading the judgments into arrays (``load_judgments``: one aggregate query, one
  comma-separated text per column parsed in C by numpy or pyarrow);
* ``compute``: every dashboard figure (per topic, per pair, overall with 1,000-replicate bootstrap
  intervals, over time) from the loaded arrays — ``judging.agreements.campaign_agreement``
  with ``judgments`` given;
* ``total``: both, as the dashboard does on each poll (``campaign_agreement`` alone; goal: under
  0.5 s);
* ``reference``: the per-topic coefficients alone computed by scikit-learn
  (``cohen_kappa_score`` plain/linear/quadratic), statsmodels (``fleiss_kappa``) and
  ``krippendorff`` (α nominal/ordinal/interval), against ``judging.agreement_coefficients`` on the same
  arrays, with the ratio.

No assertions: it prints its figures. Timings on a shared machine are noisy.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("VAR_DIR", str(ROOT / "var" / "bench" / "agreement"))

import django  # noqa: E402

django.setup()

import datetime as dt  # noqa: E402

import numpy as np  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from judging import agreement_coefficients, agreement_pairs, agreement_tables, agreements, assessor_judgments  # noqa: E402
from campaigns.models import Campaign, Document, Topic  # noqa: E402
from judging.models import Assignment, Judgment

TOPICS, DOCUMENTS, ASSESSORS, REPEATS = 50, 2000, 6, 7
SLUG = "bench-agreement"


def build() -> Campaign:
    campaign = Campaign.objects.filter(slug=SLUG).first()
    if campaign is not None:
        return campaign
    rng = np.random.default_rng(5)
    with transaction.atomic():
        campaign = Campaign.objects.create(
            name="Agreement benchmark",
            slug=SLUG,
            relevant_from=1,
            scale=[
                {"grade": 0, "label": "Not relevant"},
                {"grade": 1, "label": "Partially"},
                {"grade": 2, "label": "Highly"},
            ],
        )
        users = [User.objects.get_or_create(username=f"bench-assessor-{i}")[0] for i in range(ASSESSORS)]
        topics = Topic.objects.bulk_create(
            [Topic(campaign=campaign, identifier=str(401 + t), position=t) for t in range(TOPICS)]
        )
        documents = Document.objects.bulk_create(
            [Document(campaign=campaign, docno=f"D{t:03d}-{d:05d}") for t in range(TOPICS) for d in range(DOCUMENTS)],
            batch_size=5000,
        )
        start = timezone.now() - dt.timedelta(days=10)
        judgments, assignments = [], []
        for t, topic in enumerate(topics):
            primary, second, third = users[t % ASSESSORS], users[(t + 1) % ASSESSORS], users[(t + 3) % ASSESSORS]
            assignments += [
                Assignment(campaign=campaign, topic=topic, assessor=primary, role="primary"),
                Assignment(campaign=campaign, topic=topic, assessor=second, role="second"),
                Assignment(campaign=campaign, topic=topic, assessor=third, role="second"),
            ]
            first = rng.choice(3, size=DOCUMENTS, p=[0.6, 0.25, 0.15])
            copy = np.where(rng.random(DOCUMENTS) < 0.7, first, rng.integers(0, 3, DOCUMENTS))
            extra = rng.random(DOCUMENTS) < 0.1
            when = rng.uniform(0, 10 * 86400, DOCUMENTS)
            for d in range(DOCUMENTS):
                doc = documents[t * DOCUMENTS + d]
                at = start + dt.timedelta(seconds=float(when[d]))
                seconds = float(rng.gamma(2, 15))
                judgments += [
                    Judgment(campaign=campaign, topic=topic, document=doc, assessor=judge, grade=int(grade),
                             seconds=seconds, created=at, updated=at)
                    for judge, grade in ((primary, first[d]), (second, copy[d]))
                ]
                if extra[d]:
                    judgments.append(
                        Judgment(
                            campaign=campaign,
                            topic=topic,
                            document=doc,
                            assessor=third,
                            grade=int(copy[d] if rng.random() < 0.5 else first[d]),
                            updated=at,
                        )
                    )
        Assignment.objects.bulk_create(assignments)
        Judgment.objects.bulk_create(judgments, batch_size=5000)
    return campaign


def timed(function, repeats=REPEATS):
    """(best, median) seconds over ``repeats`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - t0)
    return (min(times), statistics.median(times)), result


def _ms(times) -> str:
    best, median = times
    return f"best {best * 1000:7.1f} ms   median {median * 1000:7.1f} ms"


def _pair(r) -> tuple[np.ndarray, np.ndarray]:
    """The primary (column 0) and the assessor who judged every document with them."""
    full = np.flatnonzero(np.all(r.grades >= 0, axis=0))
    return r.grades[:, full[0]], r.grades[:, full[1]]


def reference(ratings) -> None:
    import warnings

    import krippendorff
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import fleiss_kappa

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in ratings:
            a, b = _pair(r)
            for weights in (None, "linear", "quadratic"):
                cohen_kappa_score(a, b, weights=weights, labels=[0, 1, 2])
            fleiss_kappa(agreement_tables.category_counts(np.c_[a, b], n_categories=3))
            values = np.where(r.grades < 0, np.nan, r.grades).T.astype(float)
            for level in ("nominal", "ordinal", "interval"):
                krippendorff.alpha(reliability_data=values, level_of_measurement=level, value_domain=[0, 1, 2])


def ours(ratings) -> None:
    for r in ratings:
        a, b = _pair(r)
        table = agreement_tables.confusion_matrix(a, b, n_categories=3)
        for weights in (None, "linear", "quadratic"):
            agreement_pairs.cohen_kappa(table, weights=weights)
        agreement_coefficients.fleiss_kappa(agreement_tables.category_counts(np.c_[a, b], n_categories=3))
        counts = agreement_tables.category_counts(r.grades, n_categories=3)
        for level in ("nominal", "ordinal", "interval"):
            agreement_coefficients.krippendorff_alpha(counts, level=level)


def main() -> None:
    call_command("migrate", verbosity=0)
    t0 = time.perf_counter()
    campaign = build()
    built = time.perf_counter() - t0
    judgments = Judgment.objects.filter(campaign=campaign).count()
    print(f"database: {connection.vendor} ({connection.settings_dict['NAME']})")
    print(f"campaign: {TOPICS} topics × {DOCUMENTS} documents, {judgments} judgments (ready in {built:.1f} s)")
    load, judgments_ = timed(lambda: assessor_judgments.load_judgments(campaign))
    ratings = judgments_.topics
    compute, report = timed(lambda: agreements.campaign_agreement(campaign, judgments=judgments_))
    total, _ = timed(lambda: agreements.campaign_agreement(campaign))
    print(f"doubly judged documents: {report.doubly_judged}; pairs: {len(report.pairs)}; days: {len(report.days)}")
    print(f"load (judgments → arrays):     {_ms(load)}")
    print(f"compute (figures from arrays): {_ms(compute)}")
    print(f"total (load + compute):        {_ms(total)}   goal < 500 ms")
    (ref, _), _ = timed(lambda: reference(ratings), repeats=1)
    (_, mine), _ = timed(lambda: ours(ratings))
    print(
        f"per-topic coefficients: judging.agreement_coefficients {mine * 1000:.1f} ms, "
        f"scikit-learn + statsmodels + krippendorff {ref * 1000:.1f} ms (ratio {ref / mine:.1f}×)"
    )
    overall = {f.name: f for f in report.overall_graded}
    print("overall graded: " + ", ".join(f"{name} {f.value:.3f}" for name, f in overall.items() if f.value is not None))


if __name__ == "__main__":
    main()
