"""The result of :func:`~evaluation.measures.evaluate_runs.evaluate`: every run's value of each
measure on each topic, their means, and the intervals of the sampling estimators (``docs/intervals.md``).

:class:`Evaluation` holds arrays (runs × topics) and, with ``intervals=True``, each topic's
jackknife replicates (of sample_eval's estimates and of the Horvitz–Thompson ones) and posterior;
:meth:`~Evaluation.interval` and :meth:`~Evaluation.paired_interval` combine them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from .averaging import summarize
from .frames import evaluation_frame
from .intervals import Interval, mean_interval, sampling_interval, topic_interval
from .posterior import posterior_interval
from .registry import Measure, parse_measures

__all__ = ["Evaluation"]


@dataclass(eq=False)
class Evaluation:
    """Per-run, per-topic values of a list of measures, and their means.

    Attributes
    ----------
    runs : tuple of str
        Run tags, in input order.
    paths : tuple of str
    topics : tuple of str
        The qrels topics (every topic that can be evaluated), byte order.
    measures : tuple of Measure
    values : dict
        Canonical name → float array (runs, topics). A topic a run did not retrieve holds the
        value of an empty ranking (0, except num_rel/inum_rel).
    retrieved : bool array (runs, topics)
    lines : int array (runs, topics)
        Documents each run listed per topic before any depth cut.
    depth, sample_depth : int or None
        trec_eval's ``-M`` and the sampling estimators' depth used.
    replicates : dict
        With ``intervals=True``: (name, topic index) → jackknife :class:`Replicates` of the
        sample_eval estimate.
    ht : dict
        With ``intervals=True``: (name, topic index) → jackknife :class:`Replicates` of the
        Horvitz–Thompson estimate (xinfAP, iP@k; :mod:`~evaluation.measures.horvitz_thompson`).
    posterior : dict
        With ``intervals=True``: (name, topic index) → :class:`~evaluation.measures.posterior.Posterior`
        of the fully judged value (xinfAP, infNDCG, iP@k); from :func:`evaluate` a mapping that draws a
        topic's the first time it is asked for (``evaluate_runs.TopicPosteriors``).
    """

    runs: tuple[str, ...]
    paths: tuple[str, ...]
    topics: tuple[str, ...]
    measures: tuple[Measure, ...]
    values: dict[str, np.ndarray]
    retrieved: np.ndarray
    lines: np.ndarray
    depth: int | None
    sample_depth: int
    complete: bool = True
    replicates: dict = field(default_factory=dict)
    ht: dict = field(default_factory=dict)
    posterior: dict = field(default_factory=dict)

    @classmethod
    def concat(cls, parts: Sequence[Evaluation]) -> Evaluation:
        """One evaluation of all the runs of ``parts`` (in that order), each part evaluated
        with the same qrels, measures and options, without intervals."""
        first = parts[0]
        same = ("topics", "measures", "depth", "sample_depth", "complete")
        for part in parts[1:]:
            differ = [name for name in same if getattr(part, name) != getattr(first, name)]
            if differ:
                raise ValueError(f"cannot join evaluations that differ in {', '.join(differ)}")
        if any(part.replicates or part.ht or part.posterior for part in parts):
            raise ValueError("cannot join evaluations with intervals (jackknife replicates)")
        return cls(
            runs=sum((part.runs for part in parts), ()),
            paths=sum((part.paths for part in parts), ()),
            topics=first.topics,
            measures=first.measures,
            values={name: np.concatenate([part.values[name] for part in parts]) for name in first.values},
            retrieved=np.concatenate([part.retrieved for part in parts]),
            lines=np.concatenate([part.lines for part in parts]),
            depth=first.depth,
            sample_depth=first.sample_depth,
            complete=first.complete,
        )

    def take(self, runs: Sequence[int]) -> Evaluation:
        """The evaluation of the runs at these indices, in this order (without intervals)."""
        if self.replicates or self.ht or self.posterior:
            raise ValueError("cannot select runs of an evaluation with intervals (jackknife replicates)")
        idx = np.asarray(runs, dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= len(self.runs)):
            raise ValueError(f"run indices must be in 0..{len(self.runs) - 1}, got {idx.tolist()}")
        return replace(
            self,
            runs=tuple(self.runs[i] for i in idx),
            paths=tuple(self.paths[i] for i in idx),
            values={name: v[idx] for name, v in self.values.items()},
            retrieved=self.retrieved[idx],
            lines=self.lines[idx],
        )

    def measure(self, name: str) -> Measure:
        for m in self.measures:
            if m.name == name:
                return m
        parsed = parse_measures([name])
        if len(parsed) == 1:
            for m in self.measures:
                if m.name == parsed[0].name:
                    return m
        raise ValueError(f"measure {name!r} was not evaluated; have {[m.name for m in self.measures]}")

    def run_index(self, run: int | str) -> int:
        if isinstance(run, (int, np.integer)) and not isinstance(run, bool):
            if not 0 <= run < len(self.runs):
                raise ValueError(f"run index {run} out of range 0..{len(self.runs) - 1}")
            return int(run)
        if run in self.runs:
            return self.runs.index(run)
        raise ValueError(f"unknown run {run!r}; have {list(self.runs)}")

    def mean(self, name: str, run: int | str | None = None, *, complete: bool | None = None) -> np.ndarray | float:
        """The ``all`` value (mean, sum or geometric mean as the measure defines) of ``run`` (its
        name or index), or of every run as an array in the order of :attr:`runs`."""
        m = self.measure(name)
        values = summarize(self.values[m.name], self.retrieved, summary=m.summary, complete=self._complete(complete))
        return values if run is None else float(values[self.run_index(run)])

    def means(self, *, complete: bool | None = None) -> dict[str, np.ndarray]:
        return {m.name: self.mean(m.name, complete=complete) for m in self.measures}

    def variances(self, name: str) -> np.ndarray:
        """Per-topic jackknife variances (runs, topics) of a sampling measure (``intervals=True``)."""
        m = self.measure(name)
        if (m.name, 0) not in self.replicates:
            raise ValueError(f"no variances for {m.name!r}: evaluate with intervals=True (sampling measures only)")
        return np.stack([self.replicates[(m.name, t)].variance() for t in range(len(self.topics))], axis=1)

    def interval(
        self,
        name: str,
        run: int | str,
        *,
        topic: str | None = None,
        kind: str = "sampling",
        method: str | None = None,
        complete: bool | None = None,
        confidence: float = 0.95,
    ) -> Interval:
        """Interval for a run's mean over topics or, with ``topic``, for one topic.

        Each :class:`~evaluation.measures.intervals.Interval` carries its estimate, bounds
        and ``method`` (``docs/intervals.md`` explains each and what it did to coverage):

        * ``topic=TOPIC``: the fully judged value on that topic; ``method`` "posterior"
          (default: the posterior's mean and equal-tailed percentiles,
          :mod:`~evaluation.measures.posterior`) or "jackknife" (the sample_eval estimate
          ± z·√v_JK, the former interval).
        * ``kind="sampling"`` (default): judgment-sampling error of the run's mean for this
          topic set; ``method`` "horvitz-thompson" (default for xinfAP and iP@k: the
          bias-corrected Horvitz–Thompson estimate ± t·SE from its jackknife), "jackknife-t"
          (default for infNDCG: the sample_eval estimate less its delta-method ratio bias,
          ``Replicates.ratio_bias``, ± t·√(Σ v_JK)/T), with t Student's
          on the effective number of topics
          (:func:`~evaluation.measures.intervals.satterthwaite_interval`), or "jackknife"
          (the former interval: the sample_eval estimate ± z·√(Σ v_JK)/T).
        * ``kind="topics"``: generalisation over topics, ``method`` "t" (default) or
          "bootstrap" (:func:`~evaluation.measures.intervals.topic_interval`).
        """
        r = self.run_index(run)
        m = self.measure(name)
        if topic is not None:
            return self._topic_interval(m, r, topic, method or "posterior", confidence)
        mask = self._mask(complete)[r]
        values = self.values[m.name][r, mask]
        if kind == "sampling":
            est, var, method = self.sampling_estimates(m.name, method=method)
            return mean_interval(est[r, mask], var[r, mask], method, confidence=confidence)
        if kind == "topics":
            return topic_interval(values, confidence=confidence, method=method or "t")
        raise ValueError(f"kind must be 'sampling' or 'topics', got {kind!r}")

    def paired_interval(
        self,
        name: str,
        run_a: int | str,
        run_b: int | str,
        *,
        kind: str = "sampling",
        method: str | None = None,
        complete: bool | None = None,
        confidence: float = 0.95,
    ) -> Interval:
        """Interval for mean(a) − mean(b) over the topics both are averaged on (paired).

        ``kind`` and ``method`` as in :meth:`interval`; the sampling variance of each topic's
        difference comes from the same deletions for both runs (``Replicates.paired_variance``).
        """
        a, b = self.run_index(run_a), self.run_index(run_b)
        mask = self._mask(complete)
        both = mask[a] & mask[b]
        m = self.measure(name)
        if kind == "sampling":
            method = method or self._default_method(m)
            est, _ = self._sampling(m, method)
            reps = self._replicates(m, method)
            diff = (est[a] - est[b])[both]
            var = np.array([reps[(m.name, t)].paired_variance(a, b) for t in np.flatnonzero(both)])
            return mean_interval(diff, var, method, confidence=confidence)
        if kind == "topics":
            diff = (self.values[m.name][a] - self.values[m.name][b])[both]
            return topic_interval(diff, confidence=confidence, method=method or "t")
        raise ValueError(f"kind must be 'sampling' or 'topics', got {kind!r}")

    def sampling_estimates(self, name: str, *, method: str | None = None) -> tuple[np.ndarray, np.ndarray, str]:
        """(estimates, variances, method): the per-topic estimates and variances (runs, topics) that
        the sampling interval of a run's mean is made of (:meth:`interval` with ``kind="sampling"``:
        their mean ± t_ν·√(Σ_t v_t)/T, ``intervals.mean_interval``), and the method used
        (``method`` or the measure's default). What the live scores store per topic."""
        m = self.measure(name)
        method = method or self._default_method(m)
        est, var = self._sampling(m, method)
        return est, var, method

    def _default_method(self, m: Measure) -> str:
        return "horvitz-thompson" if (m.name, 0) in self.ht else "jackknife-t"

    def _replicates(self, m: Measure, method: str) -> dict:
        if method in ("jackknife", "jackknife-t"):
            reps = self.replicates
        elif method == "horvitz-thompson":
            reps = self.ht
        else:
            raise ValueError(
                f"method for a sampling interval must be 'horvitz-thompson', 'jackknife-t' or 'jackknife', got {method!r}"
            )
        if (m.name, 0) not in reps:
            raise ValueError(f"no {method} replicates (variances) for {m.name!r}: evaluate with intervals=True")
        return reps

    def _sampling(self, m: Measure, method: str) -> tuple[np.ndarray, np.ndarray]:
        """Per-topic estimates and variances (runs, topics) behind a sampling interval."""
        reps = self._replicates(m, method)
        T = len(self.topics)
        if method in ("jackknife", "jackknife-t"):  # jackknife-t: centred on the estimate less its ratio bias (infNDCG)
            return self.values[m.name] - (method == "jackknife-t") * self._ratio_bias(m, reps), self.variances(m.name)
        est = np.stack([reps[(m.name, t)].estimate - self._ht_bias(m, reps[(m.name, t)]) for t in range(T)], axis=1)
        return est, np.stack([reps[(m.name, t)].variance() for t in range(T)], axis=1)

    def _ratio_bias(self, m: Measure, reps: dict) -> np.ndarray:
        # infNDCG's second-order (delta-method) bias, topic_jackknife._ndcg_ratio_bias; 0 for the others
        bias = [reps[(m.name, t)].ratio_bias for t in range(len(self.topics))]
        return np.zeros_like(self.values[m.name]) if any(b is None for b in bias) else np.stack(bias, axis=1)

    @staticmethod
    def _ht_bias(m: Measure, rep) -> np.ndarray:
        # statAP is a ratio: its jackknife bias estimate is removed; P̂@k is unbiased
        return rep.bias() if m.kind in ("xinfAP", "statAP") else 0.0

    def _topic_interval(self, m: Measure, r: int, topic, method: str, confidence: float) -> Interval:
        if str(topic) not in self.topics:
            raise ValueError(f"unknown topic {topic!r}")
        t = self.topics.index(str(topic))
        if method == "posterior":
            if (m.name, t) not in self.posterior:
                raise ValueError(f"no posterior for {m.name!r}: evaluate with intervals=True (xinfAP, infNDCG, iP@k)")
            p = self.posterior[(m.name, t)]
            low, high = posterior_interval(p.draws[r], confidence=confidence)
            return Interval(p.estimate[r], low, high, p.draws[r].std(ddof=1) if p.draws.shape[1] > 1 else 0.0,
                            confidence, "posterior")  # fmt: skip
        if method == "jackknife":
            if (m.name, t) not in self.replicates:
                raise ValueError(f"no variances for {m.name!r}: evaluate with intervals=True (sampling measures only)")
            v = self.replicates[(m.name, t)].variance()[r]
            ci = sampling_interval(self.values[m.name][r, [t]], np.array([v]), confidence=confidence)
            return replace(ci, method="jackknife")
        raise ValueError(f"method for a topic's interval must be 'posterior' or 'jackknife', got {method!r}")

    def to_records(self) -> list[dict]:
        """One dict per (run, topic, measure) plus ``topic="all"`` rows, canonical names; numbers
        only (trec_eval's text ``relstring`` is left to the trec_eval output)."""
        rows = []
        mask = self._mask(None)
        for r, tag in enumerate(self.runs):
            for m in (m for m in self.measures if m.summary != "none"):
                for t in np.flatnonzero(mask[r]):
                    rows.append({"run": tag, "topic": self.topics[t], "measure": m.name, "value": float(self.values[m.name][r, t])})
                rows.append({"run": tag, "topic": "all", "measure": m.name, "value": float(self.mean(m.name)[r])})
        return rows

    def to_dataframe(self):
        """A long pandas DataFrame: ``run, query_id, measure, value`` (and ``low, high`` with
        intervals); :func:`~evaluation.measures.frames.evaluation_frame`."""
        return evaluation_frame(self)

    def _complete(self, complete: bool | None) -> bool:
        return self.complete if complete is None else complete

    def _mask(self, complete: bool | None) -> np.ndarray:
        return np.ones_like(self.retrieved) if self._complete(complete) else self.retrieved
