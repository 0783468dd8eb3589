"""Print an :class:`~evaluation.measures.evaluation_results.Evaluation` as trec_eval, sample_eval.pl, CSV or JSON.

* ``trec_eval``: what ``trec_eval [-q] [-c]`` prints, run after run: per-topic lines
  (``-q``) topic by topic in qrels order, then the ``all`` lines; ``%-22s\\t%s\\t%6.4f``,
  integers ``%ld``; measures in trec_eval's fixed order with its names (``P_10``,
  ``ndcg_cut_10``); ``runid`` when asked for (default set). Measures trec_eval lacks print
  under their canonical names.
* ``sample_eval``: sample_eval.pl's layout: per topic (``-q``) ``infAP``, ``infNDCG``,
  ``iP<k>``, ``inum_rel_ret``, ``inum_rel``, ``num_ret`` (documents listed); ``all`` lines with
  ``iprec@rec<x>`` added; topics in numeric order. ``infAP`` there is xinfAP.
* ``csv``: ``run,topic,measure,value`` with canonical names and full precision (and, given
  each value's interval, its bounds and method after ``value``).
* ``json``: ``{"runs": [{"run", "path", "topics": {topic: {measure: value}}, "all": {…}}], …}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TextIO

import numpy as np

from . import spreadsheet_csv
from .evaluation_results import Evaluation
from .registry import Measure

__all__ = ["write_trec_eval", "write_sample_eval", "write_csv", "write_json", "FORMATS"]

FORMATS = ("trec_eval", "sample_eval", "csv", "json")


def _te_name(m: Measure) -> str:
    return m.trec_eval or m.sample_eval or m.name


def _te_order(measures) -> list[Measure]:
    return sorted(measures, key=lambda m: m.sort_key)


def write_trec_eval(out: TextIO, ev: Evaluation, *, per_topic: bool = False, runid: bool = True) -> None:
    """trec_eval's text output for every run (see module docstring)."""
    measures = _te_order(ev.measures)
    mask = ev._mask(None)
    means = ev.means()  # once, not per run: each is a pass over every run
    for r, tag in enumerate(ev.runs):
        lines = []
        if per_topic:
            for t in np.flatnonzero(mask[r]):
                for m in measures:
                    if m.summary == "none":  # relstring: trec_eval quotes the string
                        lines.append(f"{_te_name(m):<22}\t{ev.topics[t]}\t'{ev.values[m.name][r, t]}'")
                    elif m.per_topic:
                        lines.append(_te_line(_te_name(m), ev.topics[t], ev.values[m.name][r, t], m.integer))
        if runid:
            lines.append(f"{'runid':<22}\tall\t{tag}")
        for m in measures:
            if m.summary != "none":
                lines.append(_te_line(_te_name(m), "all", means[m.name][r], m.integer))
        out.write("\n".join(lines) + "\n")


def _te_line(name: str, topic: str, value: float, integer: bool) -> str:
    if integer:
        return f"{name:<22}\t{topic}\t{int(round(value))}"
    return f"{name:<22}\t{topic}\t{value:6.4f}"


def _se_order(measures) -> list[Measure]:
    se = [m for m in measures if m.family == "sample_eval"]
    se.sort(key=lambda m: m.sort_key)
    rest = [m for m in _te_order(measures) if m.family != "sample_eval" and m.kind != "num_ret"]
    tail = [m for m in measures if m.kind == "num_ret"]
    return se + rest + tail


def _se_line(m: Measure, topic: str, value: float) -> str:
    name = m.sample_eval or m.trec_eval or m.name
    if m.kind in ("inum_rel", "inum_rel_ret"):
        return f"{name}\t{topic}\t{value:14.4f}"
    if m.kind == "num_ret":
        return f"num_ret\t\t{topic}\t{int(round(value)):9d}"
    if m.kind == "iIPrec":
        return f"{name}\t{topic}\t\t{value:6.4f}"
    if m.integer:
        return f"{name}\t\t{topic}\t\t{int(round(value))}"
    return f"{name}\t\t{topic}\t\t{value:6.4f}"


def write_sample_eval(out: TextIO, ev: Evaluation, *, per_topic: bool = False) -> None:
    """sample_eval.pl's text output for every run (see module docstring).

    ``num_ret`` follows sample_eval.pl: per topic the documents listed, in ``all`` the sum of
    min(listed, depth) over the evaluated topics.
    """
    measures = [m for m in _se_order(ev.measures) if m.summary != "none"]  # no relstring in this layout
    mask = ev._mask(None)
    order = _numeric_order(ev.topics)
    means = ev.means()
    for r in range(len(ev.runs)):
        lines = []
        if per_topic:
            for t in order:
                if not mask[r, t]:
                    continue
                for m in measures:
                    if not m.per_topic:
                        continue
                    value = ev.lines[r, t] if m.kind == "num_ret" else ev.values[m.name][r, t]
                    lines.append(_se_line(m, ev.topics[t], value))
        for m in measures:
            if m.kind == "num_ret":
                value = float(np.minimum(ev.lines[r], ev.sample_depth)[mask[r]].sum())
            else:
                value = means[m.name][r]
            lines.append(_se_line(m, "all", value))
        out.write("\n".join(lines) + "\n")


def _numeric_order(topics) -> list[int]:
    try:
        keys = [float(t) for t in topics]
    except ValueError:
        return list(range(len(topics)))
    return sorted(range(len(topics)), key=lambda i: (keys[i], topics[i]))


def write_csv(
    out: TextIO,
    ev: Evaluation,
    *,
    per_topic: bool = True,
    intervals: Mapping[tuple[str, str, str], tuple[float, float, str]] | None = None,
    interval_columns: Sequence[str] = ("low", "high", "method"),
) -> None:
    """``run,topic,measure,value`` rows (canonical names, full precision), ``topic=all`` for means.

    ``intervals``: (run, topic, measure) → (low, high, method) of the value's interval (topic
    ``"all"`` for a mean); with it three columns named ``interval_columns`` follow ``value``,
    empty where it has none.
    """
    writer = spreadsheet_csv.writer(out, lineterminator="\n")
    extra = list(interval_columns) if intervals is not None else []
    writer.writerow(["run", "topic", "measure", "value", *extra])

    def row(tag: str, topic: str, name: str, text: str) -> list:
        if intervals is None:
            return [tag, topic, name, text]
        low, high, method = intervals.get((tag, topic, name), ("", "", ""))
        return [tag, topic, name, text, *(v if isinstance(v, str) else repr(float(v)) for v in (low, high)), method]

    mask = ev._mask(None)
    means = ev.means()
    for r, tag in enumerate(ev.runs):
        if per_topic:
            for t in np.flatnonzero(mask[r]):
                for m in ev.measures:
                    writer.writerow(row(tag, ev.topics[t], m.name, _text(m, ev.values[m.name][r, t])))
        for m in ev.measures:
            if m.summary != "none":
                writer.writerow(row(tag, "all", m.name, repr(float(means[m.name][r]))))


def write_json(out: TextIO, ev: Evaluation, *, per_topic: bool = True, options: dict | None = None) -> None:
    """One JSON document: options, measures (canonical → trec_eval / sample_eval names), runs."""
    mask = ev._mask(None)
    means = ev.means()
    runs = []
    for r, tag in enumerate(ev.runs):
        entry = {"run": tag, "path": ev.paths[r]}
        if per_topic:
            entry["topics"] = {
                ev.topics[t]: {m.name: _plain(m, ev.values[m.name][r, t]) for m in ev.measures} for t in np.flatnonzero(mask[r])
            }
        entry["all"] = {m.name: _json_number(means[m.name][r]) for m in ev.measures if m.summary != "none"}
        runs.append(entry)
    doc = {
        "options": options or {},
        "measures": [{"name": m.name, "trec_eval": m.trec_eval, "sample_eval": m.sample_eval} for m in ev.measures],
        "runs": runs,
    }
    json.dump(doc, out, indent=1)
    out.write("\n")


def _plain(m: Measure, value):
    """A per-topic value as JSON holds it: the string of ``relstring``, else a float."""
    return value if m.summary == "none" else float(value)


def _text(m: Measure, value) -> str:
    return value if m.summary == "none" else repr(float(value))


def _json_number(v: float):
    v = float(v)
    return v if np.isfinite(v) else None
