"""Work spread over forked processes: the command line's way to use every core.

Reading and ranking run files is numpy work that threads share badly (the GIL is
held between the many short array operations, so a second thread adds much less than a
second core); forked processes share nothing and each gets a whole core.
A fork is cheap (the parent's imports are inherited) but safe only in a process with one
thread: a lock another thread held at the fork stays locked in the child forever. So
:func:`fork_map` forks only where :func:`available_processes` says it may, and the caller
falls back to threads elsewhere (a web server, a notebook, a test run with threads).

The processes share work out through :class:`Tickets` as they go, not in fixed parts: the
cores of a virtual machine are not equally fast, and a fixed half waits for the slower core.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
from collections.abc import Callable, Sequence


def available_processes() -> int:
    """How many processes :func:`fork_map` may use here: the CPUs this process may run on, or
    1 where forking is not safe (not Linux, or more than one thread in this process)."""
    if sys.platform != "linux" or not hasattr(os, "fork"):
        return 1
    try:
        threads = len(os.listdir("/proc/self/task"))
    except OSError:
        return 1
    if threads != 1:
        return 1
    return max(1, len(os.sched_getaffinity(0)))


def fork_map(fn: Callable, parts: Sequence) -> list:
    """``[fn(part) for part in parts]``, each part after the first in a forked child process.

    The first part runs here while the children run theirs. A child sends its result (or the
    exception it raised) back pickled, and the first exception in the order of ``parts`` is
    raised here; children still running are then stopped. Call it only where
    :func:`available_processes` allows more than one process; ``fn`` must not write to
    shared files or connections (a child leaves with ``os._exit``, flushing nothing).

    Raises
    ------
    RuntimeError
        A child ended without sending a result (killed, or its result would not pickle).
    """
    if not parts:
        return []
    children = [_fork(fn, part) for part in parts[1:]]
    try:
        first = fn(parts[0])
        results = [first] + [_result(pid, fd) for pid, fd in children]
    finally:
        for pid, fd in children:  # after an exception: stop the rest, leave no zombie
            _stop(pid, fd)
    return results


def _fork(fn: Callable, part) -> tuple[int, int]:
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        return pid, read
    code = 1
    try:  # the child: never return into the parent's code
        os.close(read)
        try:
            outcome = (True, fn(part))
        except BaseException as exc:  # noqa: BLE001 - sent to the parent, which raises it
            outcome = (False, exc)
        with os.fdopen(write, "wb") as out:
            pickle.dump(outcome, out, protocol=pickle.HIGHEST_PROTOCOL)
        code = 0
    finally:
        os._exit(code)


def _result(pid: int, fd: int):
    with os.fdopen(fd, "rb", closefd=False) as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        raise RuntimeError(f"a worker process ended without a result (wait status {status})")
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    return value


def _stop(pid: int, fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
    try:
        if os.waitpid(pid, os.WNOHANG) == (0, 0):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    except ChildProcessError:
        pass  # already reaped by _result


class Tickets:
    """The numbers 0, 1, …, ``count`` − 1, each taken once, in order, by whichever of several
    forked processes asks next.

    A pipe filled before the fork: each :meth:`take` reads the next 4 bytes, and a read from
    a pipe is atomic, so no two processes get the same number. ``count`` is at most
    :data:`MAX_TICKETS`, what a pipe holds without a reader.
    """

    MAX_TICKETS = 16384  # 64 KiB, Linux's pipe capacity

    def __init__(self, count: int) -> None:
        if not 0 <= count <= self.MAX_TICKETS:
            raise ValueError(f"tickets must number 0 to {self.MAX_TICKETS}, got {count}")
        self._read, write = os.pipe()
        try:
            os.write(write, struct.pack(f"<{count}I", *range(count)))
        finally:
            os.close(write)  # readers see the end once every number is taken

    def take(self) -> int | None:
        """The next number, or None when all are taken."""
        data = os.read(self._read, 4)
        return struct.unpack("<I", data)[0] if data else None

    def close(self) -> None:
        os.close(self._read)
