"""Peak memory of importing the worst files an attacker or a careless user can send.

Each file is imported in a fresh process (``import_runs``, ``import_qrels``, ``import_topics`` or
``import_documents``, as the upload pages and commands call them, with ``IMPORT_MAX_BYTES``) on a campaign in a migrated SQLite
database, and the process's peak resident memory is printed beside the file's size and what the
import said: the files just within and just over each limit (``trec_files.TABLE_IMPORT_LINES_MAX``,
``TABLE_IMPORT_BYTES_MAX`` and ``TABLE_IMPORT_DOCNO_BYTES_MAX``, and ``IMPORT_MAX_BYTES``).
The goals (issue #36): every file under 1 GiB; the 10 KB-docno upload under 200 MB; (issue #48)
every topic and document file under 512 MiB, the gzip bombs of one 300 MB line included.

    .venv/bin/python bench/bench_hostile_input.py [--max-bytes N] [--only NAME]

``--max-bytes`` sets ``IMPORT_MAX_BYTES`` (default: the settings' default). A process that
does nothing but set up Django and open the database is measured first: the floor.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from campaigns.collection_files import DOCUMENT_MAX_BYTES, TOPIC_LINES_MAX, TOPICS_MAX, TOPICS_MAX_BYTES  # noqa: E402
from evaluation.measures.trec_files import TABLE_IMPORT_BYTES_MAX, TABLE_IMPORT_LINES_MAX  # noqa: E402

TOPICS = [str(t) for t in range(1, 51)]


def run_lines(n: int, *, docno=lambda i: f"d{i}", tag="evil") -> list[bytes]:
    """``n`` run lines over 50 topics, 1000 documents each at most."""
    return [f"{TOPICS[i // 1000 % 50]} Q0 {docno(i)} {i % 1000 + 1} {1000 - i % 1000} {tag}\n".encode() for i in range(n)]


def qrels_lines(n: int) -> list[bytes]:
    return [f"{TOPICS[i // 1000 % 50]} 0 d{i} {i % 2}\n".encode() for i in range(n)]


def files(directory: Path, max_bytes: int) -> list[tuple[str, str, Path]]:
    """(name, kind, path) of each worst case."""
    out = []

    def write(name: str, kind: str, data: bytes, *, compress: bool = False) -> None:
        path = directory / (name + (".gz" if compress else ""))
        path.write_bytes(gzip.compress(data, 6) if compress else data)
        out.append((name, kind, path))

    base = run_lines(50_000)
    write("run, 50,000 lines and one 10 KB docno (gzip)", "run",
          b"".join(base[:25_000] + [b"1 Q0 " + b"x" * 10_000 + b" 1 1 evil\n"] + base[25_000:]), compress=True)
    write("run, one 12 MB line", "run", b"1 Q0 " + b"y" * (12 * 1024 * 1024) + b" 1 1 evil\n")
    write("run, 1 MB of gzip expanding past the limit", "run", b"1 Q0 d1 1 1 evil\n" * (max_bytes // 17 + 2), compress=True)
    write(f"run, {max_bytes // 2 // 2**20} MiB of short lines", "run", b"1 Q0 d1 1 1 evil\n" * (max_bytes // 2 // 17))
    # The most lines an import takes, each document number new (d0 … d4194303: 8 bytes, lines ×
    # longest at trec_files.TABLE_IMPORT_DOCNO_BYTES_MAX), 1,000 a topic: every line a new document row.
    lines = TABLE_IMPORT_LINES_MAX
    most = [b"%d Q0 d%d 1 %d evil\n" % (i // 1000 + 1, i, 1000 - i % 1000) for i in range(lines)]
    write(f"run, {lines:,} lines (the most), each document new", "run", b"".join(most))
    # The same lines padded with tabs and spaces to the most bytes an import reads (the general reader).
    pad = TABLE_IMPORT_BYTES_MAX // lines - 1
    write(f"run, {lines:,} lines padded to {TABLE_IMPORT_BYTES_MAX // 2**20} MiB, tabs and spaces (general reader)", "run",
          b"".join(line[:-1].replace(b" ", b"\t", 1).ljust(pad) + b"\n" for line in most))
    del most
    # One document number at the length limit and as many short lines as lines × longest allows.
    rows = 32 * 2**20 // 200
    short = [b"%d Q0 d%d 1 1 evil\n" % (i // 1000 + 1, i % 1000) for i in range(rows)]
    short[rows // 2] = b"%d Q0 " % (rows // 2 // 1000 + 1) + b"z" * 200 + b" 1 1 evil\n"
    write(f"run, {rows:,} short lines and one 200-character docno", "run", b"".join(short))
    short.append(short[0])  # one line more, the first repeated: over lines × longest, and a duplicate found last
    write(f"run, {rows + 1:,} short lines and one 200-character docno", "run", b"".join(short))
    del short
    # Qrels are an organizer's import, each line a judgment row written through the ORM.
    write("qrels, 1,000,000 ordinary lines", "qrels", b"".join(qrels_lines(1_000_000)))
    write(f"qrels, {lines:,} lines (the most)", "qrels", b"".join(qrels_lines(lines)))
    # Topics are read whole, documents a line at a time: a gzip bomb of one 300 MB line, and the
    # largest files and lines within their limits (campaigns.collection_files).
    bomb = 300 * 10**6
    write("topics, gzip of one 300 MB line", "topics", b"1\t" + b"t" * bomb + b"\n", compress=True)
    write("documents, gzip of one 300 MB line", "documents", b"d1\t" + b"x" * bomb + b"\n", compress=True)
    per_topic = TOPICS_MAX_BYTES // TOPICS_MAX - 1  # the most topics, filling the most bytes
    write(f"topics, {TOPICS_MAX:,} TSV topics, {TOPICS_MAX_BYTES // 2**20} MiB (the most)", "topics",
          b"".join(b"%d\t%s\n" % (i, b"t" * (per_topic - 1 - len(str(i)))) for i in range(TOPICS_MAX)))
    write(f"topics, {TOPIC_LINES_MAX:,} short TSV lines (the most lines), {TOPICS_MAX + 1:,} topics", "topics",
          b"".join(b"%d\tt\n" % i if i <= TOPICS_MAX else b"\n" for i in range(TOPIC_LINES_MAX)))
    write(f"documents, one JSONL line of {DOCUMENT_MAX_BYTES // 2**20} MiB (the longest)", "documents",
          b'{"docno": "d1", "text": "' + b"x" * (DOCUMENT_MAX_BYTES - 30) + b'"}\n')
    write(f"documents, one <DOC> of {DOCUMENT_MAX_BYTES // 2**20} MiB over short lines (the longest)", "documents",
          b"<DOC>\n<DOCNO>d1</DOCNO>\n" + (b"y" * 99 + b"\n") * ((DOCUMENT_MAX_BYTES - 64) // 100) + b"</DOC>\n")
    write("documents, 200,000 short TSV documents", "documents", b"".join(b"d%d\tsome text %d\n" % (i, i) for i in range(200_000)))
    return out


CHILD = r"""
import json, os, sys, time
import django
django.setup()
from django.conf import settings
from campaigns.run_imports import RunSource, import_runs
from campaigns.imports import UnknownTopics, import_documents, import_topics
from judging.qrels import import_qrels
from campaigns.models import Campaign
kind, path = sys.argv[1], sys.argv[2]
campaign = Campaign.objects.get(slug="hostile")
start = time.perf_counter()
outcome = "stored"
try:
    with open(path if kind != "none" else os.devnull, "rb") as upload:
        if kind == "run":
            import_runs(campaign, [RunSource(upload, name=os.path.basename(path))], max_bytes=settings.IMPORT_MAX_BYTES,
                        unknown_topics=UnknownTopics.CREATE)
        elif kind == "qrels":
            import_qrels(campaign, upload, name=os.path.basename(path), max_bytes=settings.IMPORT_MAX_BYTES,
                         unknown_topics=UnknownTopics.CREATE)
        elif kind == "topics":
            import_topics(campaign, upload, name=os.path.basename(path), max_bytes=settings.IMPORT_MAX_BYTES)
        elif kind == "documents":
            import_documents(campaign, upload, name=os.path.basename(path), max_bytes=settings.IMPORT_MAX_BYTES)
except ValueError as exc:
    outcome = str(exc)
# VmHWM: this process's own peak (ru_maxrss would count the parent's memory copied at fork).
peak = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"peak": peak,
                  "seconds": time.perf_counter() - start, "outcome": outcome}))
"""


def measure(env: dict, kind: str, path: Path) -> dict:
    result = subprocess.run([sys.executable, "-c", CHILD, kind, str(path)], cwd=ROOT, env=env, capture_output=True,
                            text=True, check=False)
    if result.returncode != 0:
        return {"peak": 0, "seconds": 0.0, "outcome": "crashed: " + result.stderr.strip().splitlines()[-1][:200]}
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-bytes", type=int, default=None, help="IMPORT_MAX_BYTES (default: the settings')")
    parser.add_argument("--only", default=None, help="only the files whose name contains this")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        directory = Path(tmp)
        env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings", VAR_DIR=str(directory / "var"))
        for key in ("DATABASE_URL", "REDIS_URL"):
            env.pop(key, None)
        if args.max_bytes:
            env["IMPORT_MAX_BYTES"] = str(args.max_bytes)
        setup = ("import django; django.setup(); from django.conf import settings; from django.core.management import call_command; "
                 "call_command('migrate', verbosity=0); from campaigns.models import Campaign; "
                 "Campaign.objects.create(name='Hostile', slug='hostile', scale=[{'grade': 0, 'label': 'no'}, {'grade': 1, 'label': 'yes'}]); "
                 "print(settings.IMPORT_MAX_BYTES)")
        max_bytes = int(subprocess.run([sys.executable, "-c", setup], cwd=ROOT, env=env, capture_output=True, text=True,
                                       check=True).stdout.split()[-1])
        database = directory / "var" / "db.sqlite3"
        pristine = directory / "pristine.sqlite3"
        shutil.copy(database, pristine)
        floor = measure(env, "none", directory)
        print(f"IMPORT_MAX_BYTES = {max_bytes:,}; a process that only sets up Django: {floor['peak'] / 2**20:,.0f} MiB")
        print(f"{'file':<62} {'size':>10} {'content':>10} {'peak':>9} {'time':>7}  outcome")
        for name, kind, path in files(directory, max_bytes):
            if args.only and args.only not in name:
                continue
            shutil.copy(pristine, database)
            content = len(gzip.decompress(path.read_bytes())) if path.suffix == ".gz" else path.stat().st_size
            started = time.perf_counter()
            row = measure(env, kind, path)
            outcome = row["outcome"].replace(str(path.name), "FILE")
            print(f"{name:<62} {path.stat().st_size / 2**20:>8.1f}Mi {content / 2**20:>8.1f}Mi "
                  f"{row['peak'] / 2**20:>7.0f}Mi {time.perf_counter() - started:>6.1f}s  {outcome[:110]}")
            path.unlink()


if __name__ == "__main__":
    main()
