"""Benchmark the evaluation engine on a TREC-8-size campaign, against trec_eval's C code.

Campaign (bench/generate_campaign.py, written to var/bench/evaluate/ if missing): 50 topics,
129 runs × 1000 documents, stratified sampled qrels of ~95,000 rows.

Timed:
1. end to end from files with the CLI: ``python manage.py evaluate`` (a fresh process:
   interpreter and imports, without Django's setup, which ``manage.py`` skips for this
   command; reading, ranking, measures, output), all 129 runs in one call, which shares them
   out to one forked process per core. It runs as an installed program runs: with Python's
   bytecode cache (a ``PYTHONDONTWRITEBYTECODE`` in this environment is dropped for it, else
   every call would compile the project's modules again, about 65 ms), after one untimed run;
   once with the compiled scanner the install built (``trec_scan``) and once without it
   (``ASSESS_NO_C_SCANNER=1``: its numpy version, what a host without a C compiler runs);
2. the same in-process, split into reading (``trec_files.read_run_packed``, the CLI's
   reader), matching/ranking (``ranked_runs.rank_run``) and measures, each stage's wall and CPU
   time on one thread; then reading + ranking on threads as the CLI does it
   (``RankedRuns.build``);
3. in memory: all topics (``evaluate_ranked``) and one topic for all runs
   (``evaluate_topic`` on a ``TopicBatch``; also from integer document ids with
   ``prepare_topic``, the web app's path);
4. pytrec_eval (trec_eval 9.0.x C code) on the same files for the trec_eval measures it has:
   map, P_10, ndcg_cut_10, bpref, Rprec, recip_rank, infAP (parsing with pytrec_eval's own
   parse_qrel/parse_run, then RelevanceEvaluator.evaluate per run), and the largest per-topic
   difference from our values;
5. with ``--trec-eval PATH``, the trec_eval binary (v10) over the same runs, one call a run as
   it is used, for those 7 measures with the 4-column qrels and ``-M 1000``, and the ratios of
   its wall and CPU time to the CLI's, with and without the compiled scanner.

Measures: AP, P@10, nDCG@10, bpref, R-prec, RR, infAP, xinfAP, infNDCG; ``-M 1000`` (every
document, also for the sampling estimators). Peak memory from ``resource.getrusage``.

The machine may be shared: every timed step is repeated and the best is reported (the CLI's
times are all printed), with CPU time next to wall time where it helps to see contention.

Usage: python bench/bench_evaluate.py [--data var/bench/evaluate] [--repeat 3] [--skip-pytrec-eval]
       [--trec-eval /work/trec_eval_v10/trec_eval]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from evaluation.measures import evaluate_topic, parse_measures, prepare_topic, trec_scan  # noqa: E402
from evaluation.measures.evaluate_runs import evaluate_ranked  # noqa: E402
from evaluation.measures.qrels_index import Qrels  # noqa: E402
from evaluation.measures.ranked_runs import RankedRuns, rank_run  # noqa: E402
from evaluation.measures.trec_files import read_qrels, read_run_packed  # noqa: E402

MEASURES = ["AP", "P@10", "nDCG@10", "bpref", "R-prec", "RR", "infAP", "xinfAP", "infNDCG"]
TREC_EVAL = ["map", "P.10", "ndcg_cut.10", "bpref", "Rprec", "recip_rank", "infAP"]
PYTREC = {"map": "AP", "P_10": "P@10", "ndcg_cut_10": "nDCG@10", "bpref": "bpref", "Rprec": "R-prec",
          "recip_rank": "RR", "infAP": "infAP"}
DEPTH = 1000


def peak_mb(who=resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux: kilobytes


def time_command(cmd: list[str], env: dict, repeat: int) -> tuple[float, list[float], float, float]:
    """A command's best wall time, every wall time, least CPU time (user + system, with the
    processes it forked and waited for, from wait4: not another child's) and peak RSS in MB."""
    times, cpus, peaks = [], [], []
    for _ in range(repeat):
        t = time.perf_counter()
        process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)
        times.append(time.perf_counter() - t)
        if os.waitstatus_to_exitcode(status):
            raise subprocess.CalledProcessError(os.waitstatus_to_exitcode(status), cmd)
        cpus.append(usage.ru_utime + usage.ru_stime)
        peaks.append(usage.ru_maxrss / 1024)  # Linux: kilobytes
    return min(times), times, min(cpus), max(peaks)


def best_of(calls, repeat: int) -> tuple[float, float]:
    """Least total wall and CPU time of ``calls()`` (a list of :func:`time_command` results) over ``repeat`` tries."""
    totals = [calls() for _ in range(repeat)]
    return min(sum(r[0] for r in t) for t in totals), min(sum(r[2] for r in t) for t in totals)


def timed(fn, repeat: int = 1, *, every: bool = False):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return (min(times), out, times) if every else (min(times), out)


class Stage:
    """Wall and CPU time (this process, all threads) added up over calls."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0

    def __enter__(self):
        self._t, self._c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall += time.perf_counter() - self._t
        self.cpu += time.process_time() - self._c


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "var" / "bench" / "evaluate")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions of the end-to-end runs (best is reported)")
    parser.add_argument("--skip-pytrec-eval", action="store_true")
    parser.add_argument("--trec-eval", type=Path, help="a trec_eval binary to time over the same runs")
    args = parser.parse_args()

    data = args.data
    if not (data / "qrels.sampled.txt").exists():
        print(f"generating the campaign into {data} …", flush=True)
        subprocess.run([sys.executable, str(ROOT / "bench" / "generate_campaign.py"), "--out", str(data)], check=True)
    qrels5 = data / "qrels.sampled.txt"
    qrels4 = data / "qrels.4col.txt"
    runs = sorted((data / "runs").iterdir())
    lines = sum(1 for _ in open(qrels5))
    print(f"campaign: {len(runs)} runs, {lines} sampled qrels rows, measures {', '.join(MEASURES)}, -M {DEPTH}")
    print(f"machine: {os.cpu_count()} cores, numpy {np.__version__}, python {sys.version.split()[0]}, "
          f"load average {os.getloadavg()[0]:.2f}\n")

    # 1. CLI end to end -----------------------------------------------------------------------
    cmd = [sys.executable, str(ROOT / "manage.py"), "evaluate", str(qrels5), *map(str, runs), "-M", str(DEPTH), "--format", "csv"]
    for m in MEASURES:
        cmd += ["-m", m]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", trec_scan.WITHOUT)}
    # untimed: writes the bytecode cache, and both scanners' output is compared
    outputs = {subprocess.run(cmd, check=True, capture_output=True, env={**env, **extra}, cwd=ROOT).stdout
               for extra in ({}, {trec_scan.WITHOUT: "1"})}
    print(f"output of the CLI with the compiled and with the numpy scanner: {'the same' if len(outputs) == 1 else 'DIFFERENT'}")
    cli = {}
    for label, extra in (("compiled scanner", {}), ("numpy scanner", {trec_scan.WITHOUT: "1"})):
        cli[label] = time_command(cmd, {**env, **extra}, args.repeat)
        wall, times, cpu, peak = cli[label]
        print(f"CLI end to end, {label} (129 runs, {os.cpu_count()} processes): {wall:7.2f} s   best of {args.repeat} "
              f"({', '.join(f'{t:.2f}' for t in times)} s); peak RSS of a process {peak:6.0f} MB")
        print(f"  CPU time (user + system, all processes): {cpu:7.2f} s   least of {args.repeat}")
    t_cli, _, cli_cpu, cli_peak = cli["compiled scanner"]
    startup, _ = timed(lambda: subprocess.run([sys.executable, str(ROOT / "manage.py"), "evaluate", "--help"],
                                              check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT), args.repeat)
    print(f"  of which interpreter + imports:          {startup:7.2f} s   (manage.py evaluate --help)")
    scanner = trec_scan.library()
    print(f"  this process reads with: {'the compiled scanner, ' + scanner._name if scanner else trec_scan.problem()}")
    if args.trec_eval:
        binary = [str(args.trec_eval), "-M", str(DEPTH)] + [a for m in TREC_EVAL for a in ("-m", m)] + [str(qrels4)]
        wall, cpu = best_of(lambda: [time_command(binary + [str(run)], env, 1) for run in runs], args.repeat)
        print(f"trec_eval binary, one call a run, 7 measures: {wall:7.2f} s wall, {cpu:.2f} s CPU   best of {args.repeat}")
        for label, (c_wall, _, c_cpu, _) in cli.items():
            print(f"  ratio trec_eval / our CLI with the {label}: {wall / c_wall:6.2f}x wall, {cpu / c_cpu:6.2f}x CPU"
                  "   (goal: >= 10x compiled, >= 5x numpy)")
    print(f"  load average (1 min) after the timed calls: {os.getloadavg()[0]:.2f}")

    # 2. in-process split ---------------------------------------------------------------------
    specs = parse_measures(MEASURES)
    qrels_stage, read, rank = Stage(), Stage(), Stage()
    with qrels_stage:
        q = Qrels.from_file(read_qrels(qrels5))
        q._lookup()
    parts = []
    tags = []
    for path in runs:
        with read:
            run = read_run_packed(path)
        with rank:
            parts.append(rank_run(q, run, depth=DEPTH))
        tags.append(run.tag)
        del run
    ranked = RankedRuns.from_parts(q, tags, tags, parts)
    measures = Stage()
    with measures:
        ev = evaluate_ranked(ranked, specs, depth=DEPTH, sample_depth=DEPTH)
    t_meas, ev = timed(lambda: evaluate_ranked(ranked, specs, depth=DEPTH, sample_depth=DEPTH), 3)
    t_built, built = timed(lambda: RankedRuns.build(q, runs, depth=DEPTH), 3)
    assert np.array_equal(built.flat, ranked.flat)
    total = qrels_stage.wall + read.wall + rank.wall + t_meas
    print(f"in process, same work, one thread:         {total:7.2f} s wall, "
          f"{qrels_stage.cpu + read.cpu + rank.cpu + measures.cpu:.2f} s CPU")
    for label, stage in (("read qrels + index", qrels_stage), ("read 129 run files (read_run_packed)", read),
                         ("match + rank (ranked_runs.rank_run)", rank), ("measures, 50 topics x 129 runs", measures)):
        print(f"  {label:<40} {stage.wall:7.2f} s   ({100 * stage.wall / total:4.1f} %)   CPU {stage.cpu:5.2f} s")
    print(f"  (measures best of 3: {t_meas:.2f} s)")
    print(f"read + rank on {os.cpu_count()} threads (RankedRuns.build): {t_built:7.2f} s   best of 3")

    # 3. in memory ----------------------------------------------------------------------------
    batches = [ranked.batch(t) for t in range(len(q.topics))]
    one = []
    for b in batches:
        dt, _ = timed(lambda b=b: evaluate_topic(b, specs, sample_depth=DEPTH), 5)
        one.append(dt)
    gather, _ = timed(lambda: ranked.batch(0), 20)
    print(f"in memory, all topics (evaluate_ranked):   {t_meas * 1000:7.1f} ms")
    print(f"in memory, one topic, all 129 runs:        {statistics.median(one) * 1000:7.2f} ms median "
          f"(max {max(one) * 1000:.2f} ms over the 50 topics; + {gather * 1000:.2f} ms to gather the batch)")
    # the web app's path: integer document ids in rank order, judgments as arrays
    b0 = batches[0]
    j = b0.judgments
    unpooled = np.arange(b0.qidx.size).reshape(b0.qidx.shape)
    for label, base in (("compact ids", j.rel.size), ("sparse 40-bit ids", 1 << 40)):
        ids = np.where(b0.qidx >= 0, b0.qidx, base + unpooled)
        ids = np.where(b0.qidx == -3, -1, ids)
        judged_ids = np.arange(j.rel.size)
        t_prep, _ = timed(lambda: prepare_topic(ids, judged_ids, j.rel, j.stratum, validate=False), 20)
        t_both, _ = timed(lambda: evaluate_topic(prepare_topic(ids, judged_ids, j.rel, j.stratum, validate=False),
                                                 specs, sample_depth=DEPTH), 20)
        print(f"  from integer ids, {label}: prepare_topic {t_prep * 1000:.2f} ms, + evaluate_topic = {t_both * 1000:.2f} ms")
    t_valid, _ = timed(lambda: prepare_topic(ids, judged_ids, j.rel, j.stratum), 20)
    print(f"  (prepare_topic with validate=True, the duplicate check: {t_valid * 1000:.2f} ms)")
    ours_peak = peak_mb()
    print(f"peak RSS of this process so far:          {ours_peak:7.0f} MB\n")

    # 4. pytrec_eval --------------------------------------------------------------------------
    if args.skip_pytrec_eval:
        return
    import pytrec_eval

    py_cpu = time.process_time()
    t = time.perf_counter()
    with open(qrels4) as f:
        pq = pytrec_eval.parse_qrel(f)
    evaluator = pytrec_eval.RelevanceEvaluator(pq, set(PYTREC))
    t_pq = time.perf_counter() - t
    t_parse = t_eval = 0.0
    worst = {k: 0.0 for k in PYTREC}
    topic_index = {t: i for i, t in enumerate(q.topics)}
    for r, path in enumerate(runs):
        t = time.perf_counter()
        with open(path) as f:
            prun = pytrec_eval.parse_run(f)
        t_parse += time.perf_counter() - t
        t = time.perf_counter()
        res = evaluator.evaluate(prun)
        t_eval += time.perf_counter() - t
        for topic, values in res.items():
            for name, ours in PYTREC.items():
                d = abs(values[name] - ev.values[ours][r, topic_index[topic]])
                worst[name] = max(worst[name], d)
    t_py = t_pq + t_parse + t_eval
    py_cpu = time.process_time() - py_cpu  # includes comparing the values, a small part
    print(f"pytrec_eval {pytrec_eval.__version__ if hasattr(pytrec_eval, '__version__') else ''}(trec_eval C) end to end: {t_py:7.2f} s"
          f"   (parse qrels+setup {t_pq:.2f} s, parse runs {t_parse:.2f} s, evaluate {t_eval:.2f} s)")
    print(f"  for the 7 trec_eval measures only (no xinfAP/infNDCG); peak RSS now {peak_mb():.0f} MB")
    print("  largest per-topic difference from ours: " + ", ".join(f"{k} {v:.1e}" for k, v in worst.items()))
    print()
    print(f"ratio pytrec_eval end to end / our CLI end to end:        {t_py / t_cli:6.2f}x   (goal: >= 10x, CLI < 1 s)")
    print(f"ratio of CPU times, pytrec_eval {py_cpu:.2f} s / our CLI {cli_cpu:.2f} s:  {py_cpu / cli_cpu:6.2f}x"
          "   (steadier than wall time on a shared machine)")
    print(f"ratio pytrec_eval evaluate only / our measures in memory:  {t_eval / t_meas:6.2f}x")
    print(f"goals: one topic in memory < 10 ms: {'met' if statistics.median(one) < 0.010 else 'MISSED'}; "
          f"CLI peak < 1.5 GB (all its processes): {'met' if os.cpu_count() * cli_peak < 1536 else 'MISSED'}; "
          f"CLI < 1 s: {'met' if t_cli < 1 else 'MISSED'}")


if __name__ == "__main__":
    main()
