"""``popejoan serve``: listens on loopback, answers, and stops cleanly on Ctrl-C (status 0);
an address it cannot listen on is one ``error:`` line and status 2."""

from __future__ import annotations

import json
import os
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
    """One ``serve``: it answers on loopback (a solve in a search process); clients that hang
    up, one in the middle of its body and one while its work runs, make it say nothing (no
    traceback) and it goes on answering; Ctrl-C ends it with status 0, nothing on its
    standard error, and no search process left. (One server for both: each check is about what
    that server says and does, and a second server would only repeat its start.)"""
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
        _hang_up(url)
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


def _hang_up(url: str) -> None:
    """A client that closes its connection in the middle of its body, and one that leaves
    while its work runs; then the server still answers."""
    port = int(url.rstrip("/").rsplit(":", 1)[1])
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


SEARCHED = 0.8
"""CPU seconds a search process has used once it searches: starting one (Python, the
package) takes some 0.4 s; past that it is at work on the request."""


def _cpu_seconds(pid: int) -> float:
    """User and system CPU seconds ``pid`` has used (0 once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _searchers(pid: int) -> list[int]:
    """The search processes of the server ``pid`` (multiprocessing's spawned children)."""
    found = []
    for child in children(pid):
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(child)
        except OSError:
            continue
    return found


def _until_searching(pid: int, seconds: float = 60) -> None:
    """Wait until a search process of the server ``pid`` is at work (has used
    :data:`SEARCHED` CPU seconds): measured, not a guess of how long it takes to get there
    on a busy machine. (The processes are looked for in /proc every 0.2 s, and only theirs
    read after that.)"""
    deadline = time.monotonic() + seconds
    searchers: list[int] = []
    while time.monotonic() < deadline:
        if not searchers:
            searchers = _searchers(pid)
            time.sleep(0.2)
            continue
        if any(_cpu_seconds(child) >= SEARCHED for child in searchers):
            return
        time.sleep(0.05)
    raise AssertionError("no search process got to work")


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


def test_kill_9_of_serve_leaves_no_search_process() -> None:
    """``kill -9`` of ``popejoan serve`` leaves no search process (nor multiprocessing's resource
    tracker) running, adopted by init."""
    import subprocess
    import sys
    import time
    import urllib.request

    pytest.importorskip("uvicorn", reason="the web extra: pip install 'popejoan-solver[web]'")
    from tests.web.test_serve import alive, children

    process = subprocess.Popen([sys.executable, "-m", "popejoan_solver", "serve", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[5]
        deal = deal_to_line(deal_random(6, 1)).encode()
        with urllib.request.urlopen(url + "api/solve", deal, timeout=60) as response:
            assert json.load(response)["stats"]["exact"] is True  # in a search process
        searchers = children(process.pid)
        assert searchers
    finally:
        process.kill()
        process.wait()
    deadline = time.monotonic() + 10
    while [pid for pid in searchers if alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in searchers if alive(pid)]
    for pid in left:  # clean up after a failure: these are this test's own processes
        os.kill(pid, signal.SIGKILL)
    assert not left


def test_ctrl_c_of_serve_does_not_wait_for_a_long_search() -> None:
    """Ctrl-C of ``popejoan serve`` during a 10-second search does not wait for it: a request in
    flight has a second, then the server stops its searches and exits 0, quietly (no
    CancelledError traceback)."""
    import contextlib
    import subprocess
    import sys
    import threading
    import time
    import urllib.error
    import urllib.request

    pytest.importorskip("uvicorn", reason="the web extra: pip install 'popejoan-solver[web]'")
    from tests.web.test_serve import alive, children

    hard = ("early-hoyle: A45T.236K.357.36JQ 38K.47JQ.A68K.A78K 267JQ.A59.24JQ.25T | "
            "9.T.9T.49 ^9S")  # its sampled deals take seconds each: the search runs 10 s
    process = subprocess.Popen(
        [sys.executable, "-m", "popejoan_solver", "serve", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[5]

        def ask() -> None:
            body = json.dumps({"deal": hard, "samples": 200}).encode()
            with contextlib.suppress(urllib.error.URLError, ConnectionError):  # cancelled
                urllib.request.urlopen(url + "api/advice", body, timeout=60).close()

        asking = threading.Thread(target=ask)
        asking.start()
        _until_searching(process.pid)  # the search is under way in its process
        searchers = children(process.pid)
        started = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
        seconds = time.monotonic() - started
        asking.join(30)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert err == ""
    assert seconds < 4.0, seconds
    time.sleep(1)
    assert not [pid for pid in searchers if alive(pid)]


def test_a_search_process_killed_mid_request_is_no_bug_and_no_traceback() -> None:
    """A search process killed while it searches is no bug of the tool: a 500 that says what
    happened and one warning line on the server's terminal, no traceback."""
    import subprocess
    import sys
    import threading
    import urllib.error
    import urllib.request

    pytest.importorskip("uvicorn", reason="the web extra: pip install 'popejoan-solver[web]'")
    from tests.web.test_serve import children

    hard = ("early-hoyle: A45T.236K.357.36JQ 38K.47JQ.A68K.A78K 267JQ.A59.24JQ.25T | "
            "9.T.9T.49 ^9S")
    process = subprocess.Popen([sys.executable, "-m", "popejoan_solver", "serve", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    answer: dict[str, object] = {}
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[5]

        def ask() -> None:
            body = json.dumps({"deal": hard, "samples": 200}).encode()
            try:
                urllib.request.urlopen(url + "api/advice", body, timeout=60).close()
            except urllib.error.HTTPError as exc:
                answer["status"], answer["body"] = exc.code, json.loads(exc.read())

        asking = threading.Thread(target=ask)
        asking.start()
        _until_searching(process.pid)
        for pid in children(process.pid):
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                os.kill(pid, signal.SIGKILL)
        asking.join(60)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert answer["status"] == 500
    assert answer["body"] == {"error": "a search process died (killed?) before it answered: "
                                       "ask again"}
    assert "Traceback" not in err
    assert err.startswith("warning: a search process died")


POPEJOAN = [sys.executable, "-m", "popejoan_solver"]


def test_serve_refuses_an_empty_host() -> None:
    process = subprocess.Popen([*POPEJOAN, "serve", "--host", "", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        _, err = process.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGINT)
        process.communicate(timeout=20)
        pytest.fail("serve --host '' started a server")
    assert process.returncode == 2
    assert err.startswith("error: ")
