"""``popejoan serve``: listens on loopback, answers, and stops cleanly on Ctrl-C (status 0);
an address it cannot listen on is one ``error:`` line and status 2."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.notation import deal_to_line
from popejoan_solver.model.rules import get_ruleset

pytest.importorskip("uvicorn", reason="the web extra: pip install 'popejoan-solver[web]'")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as a terminal gives it, even in a background run


def test_serve_answers_on_loopback_and_stops_on_ctrl_c() -> None:
    process = subprocess.Popen([sys.executable, "-m", "popejoan_solver", "serve", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_default_sigint)
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert banner.startswith("popejoan: the web table on http://127.0.0.1:")
        url = banner.split()[5]
        with urllib.request.urlopen(url + "api/options", timeout=20) as response:
            assert "hoyle-modernized" in json.load(response)["rules"]
        deal = deal_to_line(deal_random(6, 1, get_ruleset("hoyle-modernized"))).encode()
        with urllib.request.urlopen(url + "api/solve", deal, timeout=60) as response:
            assert json.load(response)["stats"]["exact"] is True  # in a search process
        searchers = children(process.pid)
        assert searchers
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert err == ""
    deadline = time.monotonic() + 10  # multiprocessing's resource tracker ends just after
    while [pid for pid in searchers if alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [(pid, Path(f"/proc/{pid}/cmdline").read_bytes()[:200]) for pid in searchers
                if alive(pid)]


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (not a zombie waiting to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text(encoding="ascii")
        except (OSError, ValueError):
            continue
        if entry.name.isdigit() and int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def test_serve_refuses_an_address_in_use() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "popejoan_solver", "serve", "--port",
                                 str(port)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: cannot listen on 127.0.0.1 port {port}: ")
    assert result.stderr.count("\n") == 1
