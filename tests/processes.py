"""Stopping the processes a test started (workers, gunicorn, redis-server)."""

from __future__ import annotations

import subprocess


def stop(*processes: subprocess.Popen, timeout: float = 20) -> None:
    """Ask every process still running to stop (SIGTERM), then wait for each; kill one that takes over ``timeout`` seconds."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
