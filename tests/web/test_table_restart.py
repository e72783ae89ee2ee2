"""A server killed with ``kill -9`` in the middle of a session, then started again on the same
data folder: every table resumes where its last accepted play left it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="the web extra: pip install 'popejoan-solver[web]'")


def _serve(data: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen([sys.executable, "-m", "popejoan_solver", "serve", "--port", "0",
                                "--data", str(data)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, process.stdout.readline().split()[5].rstrip("/")


def _call(base: str, path: str, token: str | None = None, body: Any = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(base + path, data, headers)) as answer:
        return json.load(answer)


def test_kill_9_and_start_again(tmp_path: Path) -> None:
    process, base = _serve(tmp_path)
    try:
        tables = []
        for seed in (1, 2):
            made = _call(base, "/api/tables", body={"players": 3, "seed": seed, "pace": 0,
                                                    "seats": ["person", "person", "lowest"]})
            tokens = {s["seat"]: s["token"] for s in made["seats"]}
            for _ in range(4):
                state = _call(base, f"/api/tables/{made['table']}")
                while state["to_play"] not in tokens:
                    time.sleep(0.05)
                    state = _call(base, f"/api/tables/{made['table']}")
                token = tokens[state["to_play"]]
                mine = _call(base, f"/api/tables/{made['table']}", token)
                _call(base, f"/api/tables/{made['table']}/play", token, {"card": mine["legal"][0]})
            while _call(base, f"/api/tables/{made['table']}")["to_play"] not in tokens:
                time.sleep(0.05)  # the table stands still: it waits for a person
            tables.append((made["table"], tokens, {p: _call(base, f"/api/tables/{made['table']}", t)
                                                   for p, t in tokens.items()}))
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    again, base = _serve(tmp_path)
    try:
        for table, tokens, before in tables:
            after = {p: _call(base, f"/api/tables/{table}", t) for p, t in tokens.items()}
            for seat in tokens:
                assert after[seat]["plays"] == before[seat]["plays"]
                assert after[seat]["hand"] == before[seat]["hand"]
                assert after[seat]["version"] == before[seat]["version"]
    finally:
        again.send_signal(signal.SIGINT)
        again.wait(timeout=30)
