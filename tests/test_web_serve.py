"""``popejoan serve``: listens on loopback, answers, and stops cleanly on Ctrl-C (status 0);
an address it cannot listen on is one ``error:`` line and status 2."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import urllib.request

import pytest

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
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert err == ""


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
