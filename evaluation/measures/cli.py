"""The ``evaluate`` command line: trec_eval and sample_eval.pl in one, without Django.

``python manage.py evaluate QRELS RUN [RUN …]`` runs :func:`main` straight from ``manage.py``
(before Django is set up, which would cost more than half a second and is not needed to read
files and print numbers); the ``evaluate`` management command, for ``call_command`` and
``manage.py help``, takes the same options (:func:`add_arguments`) and the same
:func:`run`. ``python -m evaluation.measures.cli`` works too.
"""

from __future__ import annotations

import argparse
import ctypes
import io
import sys
from dataclasses import replace
from functools import partial

import numpy as np

from .evaluate_runs import evaluate
from .evaluation_results import Evaluation
from .qrels_index import load_qrels
from .forking import Tickets, available_processes, fork_map
from .registry import OFFICIAL, SAMPLE_EVAL, parse_measures
from .report import FORMATS, write_csv, write_json, write_sample_eval, write_trec_eval
from .trec_files import TrecFormatError

DESCRIPTION = (
    "Evaluate runs against qrels like trec_eval (4-column qrels) and NIST's sample_eval.pl "
    "(5-column sampled qrels: xinfAP, infNDCG, iP@k). Ranking: score descending, ties by "
    "document number descending; scores as doubles (trec_eval 10)."
)

# What a bad file or option raises; the command prints the message and exits with 2.
ERRORS = (TrecFormatError, ValueError, OSError, MemoryError)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", help="qrels (topic iter docno rel) or sampled qrels (topic iter docno stratum rel)")
    parser.add_argument("runs", nargs="+", metavar="run", help="run files (topic Q0 docno rank score tag)")
    parser.add_argument("-q", dest="per_topic", action="store_true", help="also print per-topic values")
    parser.add_argument(
        "-c",
        dest="complete",
        action="store_true",
        help="average over all qrels topics, a topic missing from a run counting 0 (the official TREC convention); "
        "without it such topics are skipped",
    )
    parser.add_argument("-M", dest="depth", type=int, metavar="DEPTH", help="read at most DEPTH documents per topic")
    parser.add_argument(
        "--sample-depth",
        type=int,
        metavar="N",
        help="documents the sampling estimators read (sample_eval.pl's maxResultSize); default DEPTH if -M is given, "
        "else 100 as NIST's sample_eval.pl",
    )
    parser.add_argument("-l", dest="level", type=int, default=1, metavar="LEVEL", help="minimum relevant grade (default 1)")
    parser.add_argument(
        "-N",
        dest="num_docs",
        type=int,
        default=0,
        metavar="NUM",
        help="documents in the collection, for utility's non-relevant-not-retrieved term (trec_eval -N; default 0)",
    )
    parser.add_argument("-J", dest="judged_only", action="store_true", help="trec_eval measures on judged documents only")
    parser.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="measure(s), repeatable: canonical (AP, P@10, nDCG@10, xinfAP, iP@10, …), trec_eval syntax "
        "(map, P.5,10, ndcg_cut.10, official, all_trec) or sample_eval names (infNDCG, iP10, sample_eval)",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="output format (default: trec_eval for 4-column qrels, sample_eval for sampled qrels)",
    )


def run(opts: dict, warn=None) -> str:
    """The command's output for parsed options; ``warn`` gets the warnings (topics left out),
    by default standard error as it is when called.

    The runs are read, ranked and evaluated in one forked process per core, where forking is
    safe (:mod:`~evaluation.measures.forking`), each taking the next run as it finishes one;
    elsewhere on threads in this process. The output is the same either way: on an error in
    a forked process the runs are evaluated again here, which raises the first error in the
    order of the runs (which process met an error first depends on timing).

    Raises one of :data:`ERRORS` on a bad file or option.
    """
    warn = warn or sys.stderr.write
    runs = opts["runs"]
    processes = min(available_processes(), len(runs)) if len(runs) <= Tickets.MAX_TICKETS else 1
    result = _evaluate_forked(opts, processes) if processes > 1 else None
    ev, qrels_path, sampled, runid = result or _evaluate(opts, runs)
    fmt = opts["format"] or ("sample_eval" if sampled else "trec_eval")
    for r, tag in enumerate(ev.runs):
        common = int(ev.retrieved[r].sum())
        if common == 0:
            raise ValueError(
                f"{ev.paths[r]}: no topic in common with the qrels {qrels_path} "
                f"(qrels topics start {', '.join(ev.topics[:3])})"
            )
        missing = len(ev.topics) - common
        if missing and not opts["complete"]:
            warn(
                f"{ev.paths[r]}: {missing} of {len(ev.topics)} qrels topics not in the run are left out of the means; "
                "-c counts them as 0 (the official TREC convention)\n"
            )
    out = io.StringIO()
    if fmt == "trec_eval":
        write_trec_eval(out, ev, per_topic=opts["per_topic"], runid=runid)
    elif fmt == "sample_eval":
        write_sample_eval(out, ev, per_topic=opts["per_topic"])
    elif fmt == "csv":
        write_csv(out, ev, per_topic=opts["per_topic"])
    else:
        options = {k: opts[k] for k in ("complete", "depth", "sample_depth", "level", "judged_only")}
        options["sample_depth"] = ev.sample_depth
        write_json(out, ev, per_topic=opts["per_topic"], options=options)
    return out.getvalue()


def _evaluate(opts: dict, runs: list, workers: int | None = None) -> tuple[Evaluation, str, bool, bool]:
    """Evaluate ``runs`` as the options say: (evaluation, qrels path, sampled qrels?, print runid?)."""
    qrels = load_qrels(opts["qrels"])
    names = opts["measures"]
    if names:
        measures = parse_measures(names)
        runid = any(n.strip() in ("runid", "official", "all_trec") for n in names)
    else:
        measures = list(SAMPLE_EVAL if qrels.sampled else OFFICIAL)
        runid = True
    if not measures:
        raise ValueError("no measures selected (runid alone is not a measure)")
    if opts.get("num_docs"):
        if opts["num_docs"] < 0:
            raise ValueError(f"-N: number of documents in the collection must be ≥ 0, got {opts['num_docs']}")
        measures = [replace(m, param=(m.param[0], opts["num_docs"])) if m.kind == "utility" else m for m in measures]
    ev = evaluate(
        qrels,
        runs,
        measures,
        depth=opts["depth"],
        sample_depth=opts["sample_depth"],
        level=opts["level"],
        complete=opts["complete"],
        judged_only=opts["judged_only"],
        workers=workers,
    )
    return ev, qrels.path, qrels.sampled, runid


def _evaluate_forked(opts: dict, processes: int) -> tuple[Evaluation, str, bool, bool] | None:
    """:func:`_evaluate` in ``processes`` forked processes that take the runs one by one; None
    if one of them met a bad file or option (the caller evaluates again in one process)."""
    tickets = Tickets(len(opts["runs"]))
    try:
        parts = fork_map(partial(_evaluate_taken, opts, tickets), range(processes))
    except ERRORS:
        return None
    finally:
        tickets.close()
    parts = [part for part in parts if part is not None]  # a process that came too late for any run
    taken = np.concatenate([part[1] for part in parts])
    ev = Evaluation.concat([part[0][0] for part in parts]).take(np.argsort(taken))
    return (ev, *parts[0][0][1:])


def _evaluate_taken(opts: dict, tickets: Tickets, _process: int):
    """In one forked process: (:func:`_evaluate` of the runs it took, their indices), or None."""
    runs = opts["runs"]
    first = tickets.take()
    if first is None:
        return None
    taken = [first]

    def claimed():
        yield runs[first]
        while (i := tickets.take()) is not None:
            taken.append(i)
            yield runs[i]

    return _evaluate(opts, claimed(), workers=1), np.array(taken)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Parse ``argv``, print the output; on a bad file or option print the message, return 2."""
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION)
    add_arguments(parser)
    opts = vars(parser.parse_args(argv))
    _reuse_freed_memory()
    try:
        text = run(opts)
    except ERRORS as exc:
        sys.stderr.write(f"{parser.prog}: error: {exc}\n")
        return 2
    sys.stdout.write(text)
    return 0


def _reuse_freed_memory() -> None:
    """Have glibc's malloc keep freed blocks of up to 32 MB for reuse instead of unmapping them.

    Reading a run allocates and frees arrays of a few megabytes; by default each comes fresh
    from the system and faults its pages in one by one. Measured on 30 run files: 43,000 page
    faults and a quarter of the reading time, against 3,500 with this. Called by the command
    line only, whose process ends with the command; elsewhere than glibc nothing changes.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_MMAP_THRESHOLD, 32 << 20)
    mallopt(_M_TRIM_THRESHOLD, 256 << 20)


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h


if __name__ == "__main__":
    sys.exit(main())
