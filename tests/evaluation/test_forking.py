"""``forking``: the command line's work in forked processes, results and errors as if done here.

``fork_map`` is driven in a fresh interpreter (one thread, as the command line runs it): a
fork from the test process, which may hold other threads, is what the module refuses to do.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from evaluation.measures.forking import Tickets, available_processes

ROOT = Path(__file__).resolve().parents[2]


def python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_each_part_after_the_first_runs_in_its_own_process_and_results_keep_the_order():
    done = python(
        "import os\n"
        "from evaluation.measures.forking import fork_map\n"
        "out = fork_map(lambda n: (n * n, os.getpid()), [1, 2, 3])\n"
        "print([v for v, _ in out], len({p for _, p in out}), out[0][1] == os.getpid())\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "[1, 4, 9] 3 True"


def test_a_childs_file_error_reaches_the_parent_whole():
    done = python(
        "from evaluation.measures.forking import fork_map\n"
        "from evaluation.measures.trec_files import TrecFormatError\n"
        "def read(name):\n"
        "    if name != 'good':\n"
        "        raise TrecFormatError(name, 7, 'expected 6 columns')\n"
        "    return name\n"
        "try:\n"
        "    fork_map(read, ['good', 'run-b', 'run-c'])\n"
        "except TrecFormatError as exc:\n"
        "    print(exc.path, exc.line, exc.problem, '|', exc)\n"
    )
    assert done.returncode == 0, done.stderr
    # the first error in the order of the parts, not whichever child finished first
    assert done.stdout.strip() == "run-b 7 expected 6 columns | run-b, line 7: expected 6 columns"


def test_an_error_here_stops_the_children_and_leaves_no_zombie():
    done = python(
        "import os, time\n"
        "from evaluation.measures.forking import fork_map\n"
        "def work(n):\n"
        "    if n == 0:\n"
        "        raise ValueError('bad first part')\n"
        "    time.sleep(30)\n"
        "started = time.monotonic()\n"
        "try:\n"
        "    fork_map(work, [0, 1])\n"
        "except ValueError as exc:\n"
        "    print(exc, time.monotonic() - started < 10)\n"
        "try:\n"
        "    os.waitpid(-1, os.WNOHANG)\n"
        "except ChildProcessError:\n"
        "    print('no children')\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["bad first part True", "no children"]


def test_a_child_that_dies_without_a_result_is_an_error_not_a_hang():
    done = python(
        "import os\n"
        "from evaluation.measures.forking import fork_map\n"
        "try:\n"
        "    fork_map(lambda n: n if n == 0 else os._exit(3), [0, 1])\n"
        "except RuntimeError as exc:\n"
        "    print(exc)\n"
    )
    assert done.returncode == 0, done.stderr
    assert "ended without a result" in done.stdout


def test_no_forking_while_another_thread_runs():
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert available_processes() == 1
    finally:
        stop.set()
        thread.join()


def test_a_fresh_single_threaded_interpreter_may_fork_one_process_per_cpu():
    if not sys.platform.startswith("linux"):
        pytest.skip("forking is used on Linux only")
    done = subprocess.run(
        [sys.executable, "-c", "from evaluation.measures.forking import available_processes; print(available_processes())"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(os.sched_getaffinity(0))


def test_tickets_go_to_whichever_process_asks_each_exactly_once_and_in_order():
    done = python(
        "import time\n"
        "from evaluation.measures.forking import Tickets, fork_map\n"
        "tickets = Tickets(200)\n"
        "def work(part):\n"
        "    got = []\n"
        "    while (i := tickets.take()) is not None:\n"
        "        got.append(i)\n"
        "        time.sleep(0.0005 * (part + 1))  # one process slower than the other\n"
        "    return got\n"
        "fast, slow = fork_map(work, [0, 1])\n"
        "print(sorted(fast + slow) == list(range(200)), fast == sorted(fast), slow == sorted(slow), len(fast) > len(slow))\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True True True True"


def test_tickets_are_at_most_what_a_pipe_holds():
    with pytest.raises(ValueError, match="16384"):
        Tickets(Tickets.MAX_TICKETS + 1)
    tickets = Tickets(0)
    assert tickets.take() is None
    tickets.close()
