"""Import benchmark: 129 generated runs x 50 topics x 1000 ranks (TREC-8 size, 6.45 M lines).

Prints lines per second for ``import_runs`` (read, check, rank, pack, store in one
transaction), the peak memory after 10, 50 and all 129 runs (it must not grow with the number
of runs), and, measured in the same run on the same files, pytrec_eval's ``parse_run`` (the
run loader of the trec_eval Python binding) for comparison.

    .venv/bin/python bench/bench_import.py            # SQLite under var/bench/
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/bench_import.py

Goal (issue 2): >= 500,000 lines/s and memory that does not grow with the number of runs.

With ``uploads``: the organizer's uploads of a 110 MB documents file (100,000 documents) and a
95,000-line qrels file, each in a fresh process, imported as the upload page did before
background jobs (the upload's file object, read whole) and as its import job does now (the
upload stored to a file, streamed, progress recorded); prints time, the growth of peak memory
over the process's size before the import, and the progress rows written (issue 39, item 4).

    .venv/bin/python bench/bench_import.py uploads
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "var" / "bench" / "import"
os.environ.setdefault("VAR_DIR", str(OUT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import numpy as np  # noqa: E402

RUNS, TOPICS, DEPTH = 129, 50, 1000


def generate(folder: Path) -> list[Path]:
    """Write the run files once (docnos like FBIS3-12345, realistic overlap between runs)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"run{r:03d}" for r in range(RUNS)]
    if all(p.exists() for p in paths):
        return paths
    rng = np.random.default_rng(8)
    prefixes = np.array(["FBIS3", "FBIS4", "FT911", "FT921", "LA0101", "LA0620", "FR940104"])
    for r, path in enumerate(paths):
        lines = []
        for t in range(TOPICS):
            # Each topic draws from a pool of 20,000 plausible documents; good runs share the top.
            ids = rng.choice(20000, size=DEPTH, replace=False)
            docno = np.char.add(np.char.add(prefixes[ids % len(prefixes)], "-"), (ids * 7919 % 99991).astype(str))
            score = np.sort(rng.gamma(2.0, 3.0, size=DEPTH))[::-1]
            topic = 401 + t
            lines += [f"{topic} Q0 {d} {k} {s:.6f} run{r:03d}\n" for k, (d, s) in enumerate(zip(docno, score), 1)]
        path.write_text("".join(lines))
    return paths


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    paths = generate(ROOT / "var" / "bench" / "runs")
    lines = RUNS * TOPICS * DEPTH
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from campaigns.run_imports import RunSource, import_runs
    from campaigns.models import Campaign, Topic

    call_command("migrate", verbosity=0)
    Campaign.objects.filter(slug="bench-import").delete()
    campaign = Campaign.objects.create(name="bench", slug="bench-import")
    Topic.objects.bulk_create([Topic(campaign=campaign, identifier=str(401 + t)) for t in range(TOPICS)])
    print(f"database: {connection.vendor}; {RUNS} runs x {TOPICS} topics x {DEPTH} = {lines:,} lines")

    start = time.perf_counter()
    checkpoints = {10: None, 50: None, RUNS: None}
    done = 0
    for count in checkpoints:
        import_runs(campaign, [RunSource(p) for p in paths[done:count]])
        done = count
        checkpoints[count] = peak_mb()
    elapsed = time.perf_counter() - start
    ours = lines / elapsed
    print(f"import_runs: {elapsed:.1f} s, {ours:,.0f} lines/s")
    print("peak memory after " + ", ".join(f"{n} runs {mb:,.0f} MB" for n, mb in checkpoints.items()))

    one_call = Campaign.objects.create(name="bench2", slug="bench-import-2")
    Topic.objects.bulk_create([Topic(campaign=one_call, identifier=str(401 + t)) for t in range(TOPICS)])
    start = time.perf_counter()
    import_runs(one_call, [RunSource(p) for p in paths])  # all 129 files, one transaction
    print(f"import_runs, all files in one call (one transaction): {time.perf_counter() - start:.1f} s; "
          f"peak memory {peak_mb():,.0f} MB")
    Campaign.objects.filter(slug__in=["bench-import", "bench-import-2"]).delete()

    try:
        import pytrec_eval
    except ImportError:
        print("pytrec_eval not installed: no reference figure")
        return
    sample = paths[:10]
    start = time.perf_counter()
    for path in sample:
        with open(path) as f:
            pytrec_eval.parse_run(f)
    reference = len(sample) * TOPICS * DEPTH / (time.perf_counter() - start)
    print(f"pytrec_eval.parse_run (10 files, parse only, nothing stored): {reference:,.0f} lines/s")
    print(f"ratio import_runs / pytrec_eval.parse_run: {ours / reference:.2f}x")


UPLOAD_DOCUMENTS, UPLOAD_QRELS, UPLOAD_TOPICS = 100_000, 95_000, 50


def generate_uploads(folder: Path) -> tuple[Path, Path]:
    """A 110 MB JSONL collection (100,000 documents of about 1,100 bytes) and 95,000 qrels lines
    over 50 topics, naming those documents; written once."""
    folder.mkdir(parents=True, exist_ok=True)
    documents, qrels = folder / "documents.jsonl", folder / "qrels.txt"
    if not documents.exists():
        rng = np.random.default_rng(39)
        words = np.array(["retrieval", "judgment", "assessor", "pool", "topic", "relevance", "document", "run"])
        with documents.open("w") as out:
            for n in range(UPLOAD_DOCUMENTS):
                text = " ".join(words[rng.integers(0, len(words), 133)])
                out.write(json.dumps({"docno": f"DOC-{n:06d}", "title": f"Document {n}", "text": text}) + "\n")
    if not qrels.exists():
        rng = np.random.default_rng(40)
        with qrels.open("w") as out:
            for n in range(UPLOAD_QRELS):
                out.write(f"{401 + n % UPLOAD_TOPICS} 0 DOC-{n:06d} {int(rng.integers(0, 2))}\n")
    return documents, qrels


def run_upload(kind: str, way: str, path: Path) -> dict:
    """One import in this process (a fresh one): ``way`` is ``before`` (the file object, read whole,
    as the upload page passed it) or ``job`` (stored, queued and run as an import job)."""
    import django

    django.setup()
    from django.core.files import File
    from django.core.management import call_command
    from django.db import connection

    from campaigns.imports import import_documents
    from campaigns.models import Campaign, ImportJob, Topic
    from judging import import_jobs
    from judging.qrels import import_qrels

    call_command("migrate", verbosity=0)
    Campaign.objects.filter(slug="bench-upload").delete()
    campaign = Campaign.objects.create(name="bench", slug="bench-upload")
    Topic.objects.bulk_create([Topic(campaign=campaign, identifier=str(401 + t)) for t in range(UPLOAD_TOPICS)])
    writes = []
    record = ImportJob.record_reading
    ImportJob.record_reading = lambda job, done, lines: (writes.append(lines), record(job, done, lines))[1]
    baseline = peak_mb()
    start = time.perf_counter()
    with path.open("rb") as f:
        if way == "before":
            (import_documents if kind == "documents" else import_qrels)(campaign, f, name=path.name)
            lines = None
        else:
            options = {"unknown_topics": "reject", "only_needed": False}
            job = import_jobs.start_import(campaign, kind, [File(f, name=path.name)], options, None)
            import_jobs.run_import_job(job.pk)
            job.refresh_from_db()
            assert job.status == "done", job.message
            lines = job.lines
    seconds = time.perf_counter() - start
    result = {"database": connection.vendor, "seconds": seconds, "baseline_mb": baseline,
              "growth_mb": peak_mb() - baseline, "progress_writes": len(writes), "lines": lines}
    Campaign.objects.filter(slug="bench-upload").delete()
    return result


def uploads() -> None:
    documents, qrels = generate_uploads(ROOT / "var" / "bench" / "uploads")
    print(f"{documents.name}: {documents.stat().st_size / 1e6:,.0f} MB, {UPLOAD_DOCUMENTS:,} documents; "
          f"{qrels.name}: {UPLOAD_QRELS:,} lines")
    for kind, path in (("documents", documents), ("qrels", qrels)):
        for way in ("before", "job"):
            out = subprocess.run([sys.executable, __file__, "one-upload", kind, way, str(path)],
                                 check=True, capture_output=True, text=True).stdout
            r = json.loads(out.splitlines()[-1])
            job = f"; {r['progress_writes']} progress rows written, {r['lines']:,} lines counted" if way == "job" else ""
            print(f"{r['database']} {kind:9} {way:6}: {r['seconds']:5.1f} s, peak memory +{r['growth_mb']:,.0f} MB "
                  f"over {r['baseline_mb']:,.0f} MB{job}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["uploads"]:
        uploads()
    elif sys.argv[1:2] == ["one-upload"]:
        print(json.dumps(run_upload(sys.argv[2], sys.argv[3], Path(sys.argv[4]))))
    else:
        main()
