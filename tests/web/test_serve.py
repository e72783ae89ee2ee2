"""``popejoan serve``: listens on loopback, answers, and stops cleanly on Ctrl-C (status 0);
an address it cannot listen on is one ``error:`` line and status 2."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.notation import deal_to_line
from popejoan_solver.model.rules import get_ruleset
from tests.web_helpers import long_record

pytest.importorskip("uvicorn", reason="the web extra: pip install 'popejoan-solver[web]'")

LINE = deal_to_line(deal_random(4, 3, get_ruleset("hoyle-modernized")))


@pytest.fixture(autouse=True)
def _own_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each server keeps its tables in a folder of its own (one server to a folder)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


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


def _serve(*options: str) -> tuple[subprocess.Popen[str], str]:
    """``popejoan serve --port 0`` with ``options``: the process and its address."""
    process = subprocess.Popen([sys.executable, "-m", "popejoan_solver", "serve", "--port", "0",
                                *options], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=_default_sigint)
    assert process.stdout is not None
    return process, process.stdout.readline().split()[5]


def _ask(url: str, path: str, body: bytes | None = None, **headers: str) -> tuple[int, Any]:
    request = urllib.request.Request(url + path, body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_clients_that_hang_up_print_nothing_on_the_servers_terminal() -> None:
    """A client that closes its connection in the middle of its body, and one that leaves
    while its work runs: the server says nothing (no traceback) and goes on answering;
    Ctrl-C still ends it with status 0 and nothing on its standard error."""
    process, url = _serve()
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    try:
        assert _ask(url, "api/options")[0] == 200
        for body in (b"{\"deal\": \"hoy", b"x" * 100):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as hanging:
                hanging.sendall(b"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                b"Content-Length: 100000\r\n\r\n" + body)
                time.sleep(0.3)
        record = long_record(300).encode()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as leaving:
            leaving.sendall(b"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "
                            + str(len(record)).encode() + b"\r\n\r\n" + record)
            time.sleep(1.0)  # at work
        assert _ask(url, "api/load", LINE.encode())[0] == 200
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0
    assert err == ""


def test_serve_refuses_a_name_it_was_not_told_and_answers_one_it_was() -> None:
    """DNS rebinding: a page of evil.example rebound to 127.0.0.1 sends Host: evil.example;
    refused. ``--allow-host cards.example`` is answered; a POST from another site is not."""
    process, url = _serve("--allow-host", "cards.example")
    try:
        port = url.rstrip("/").rsplit(":", 1)[1]
        status, answer = _ask(url, "api/options", host=f"evil.example:{port}")
        assert status == 403
        assert "evil.example" in answer["error"]
        assert _ask(url, "api/options", host=f"cards.example:{port}")[0] == 200
        status, answer = _ask(url, "api/load", LINE.encode(), origin="http://evil.example")
        assert status == 403
        assert _ask(url, "api/load", LINE.encode(), origin=url.rstrip("/"))[0] == 200
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
