"""The worker pool (``popejoan_solver/jobs/pool.py``): a worker whose parent died stops, and
stopping a pool waits for its manager thread."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

import pytest

from tests.contract import ROOT, assert_group_gone, live_group_members

WORKER_SCRIPT = """
import ctypes, os, sys, time
from concurrent.futures import ProcessPoolExecutor
from popejoan_solver.jobs import pool as jobs_pool
if sys.argv[1] == "watcher":
    def no_prctl(*args, **kwargs):
        raise OSError("no parent-death signal")
    ctypes.CDLL = no_prctl
else:
    jobs_pool.watch_parent = lambda parent: None
pool = ProcessPoolExecutor(1, mp_context=jobs_pool.pool_context(),
                           initializer=jobs_pool.worker_init, initargs=(os.getpid(),))
pool.submit(time.sleep, 120)
time.sleep(1)
print(*[p.pid for p in pool._processes.values()], flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's /proc and prctl")
@pytest.mark.parametrize("alone", ["death-signal", "watcher"])
def test_each_guard_alone_kills_a_worker_whose_parent_died(alone: str) -> None:
    """The parent-death signal and the watcher thread each stop an orphaned worker."""
    proc = subprocess.Popen([sys.executable, "-c", WORKER_SCRIPT, alone], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "the pool never started"
        (worker,) = [int(pid) for pid in proc.stdout.readline().split()]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert_group_gone(proc.pid, within=3)
    finally:
        if live_group_members(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    assert worker not in live_group_members(proc.pid)


def test_stopping_a_pool_waits_for_its_manager_thread() -> None:
    """``stop_pool`` waits for the pool's manager thread, so that the interpreter's exit never
    wakes it through a pipe it is closing (an "Exception ignored in threading._shutdown ...
    Bad file descriptor" under a stopped batch's one line)."""
    from concurrent.futures import ProcessPoolExecutor

    from popejoan_solver.jobs import pool as jobs_pool

    pool = ProcessPoolExecutor(1, mp_context=jobs_pool.pool_context())
    pool.submit(time.sleep, 30)
    time.sleep(0.5)
    manager = pool._executor_manager_thread  # type: ignore[attr-defined]
    assert manager is not None
    assert manager.is_alive()
    jobs_pool.stop_pool(pool)
    assert not manager.is_alive()
