"""Load on the tables: TABLES tables of three people each playing at once (each person thinks
THINK seconds, then plays a legal card) while FLOODERS clients keep study-mode advice in flight,
against ``popejoan serve`` on 127.0.0.1 (started here, on a data folder of its own, stopped at
the end). Prints the round trip of every play (POST .../play to its answer): p50, p95, max.

    python benchmarks/bench_table_load.py [--tables 20] [--deals 1] [--flooders 4] [--think 0.3]

Bounded: every loop ends with its session or after --seconds."""

from __future__ import annotations

import argparse
import json
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from typing import Any

from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.notation import deal_to_line


def call(base: str, path: str, token: str | None = None, body: Any = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(base + path, data, headers),
                                timeout=60) as answer:
        return json.load(answer)


def person(base: str, table: str, token: str, think: float, stop: float,
           times: list[float], rng: random.Random) -> None:
    """A person as the page plays: the seat's stream read, a card played when it is its turn."""
    request = urllib.request.Request(f"{base}/api/tables/{table}/events",
                                     headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=60) as stream:
        for raw in stream:
            if time.monotonic() > stop:
                return
            line = raw.decode()
            if not line.startswith("data: "):
                continue
            state = json.loads(line[6:])
            if state["state"] == "over":
                return
            if state["state"] == "between-deals" and state["seat"] not in state["ready"]:
                try:  # a state read late: the next deal may have started (409)
                    call(base, f"/api/tables/{table}/ready", token, {})
                except urllib.error.HTTPError as exc:
                    if exc.code != 409:
                        raise
            if state["to_play"] != state["seat"]:
                continue
            time.sleep(think * rng.random() * 2)
            card = rng.choice(state["legal"]) if state["legal"] else rng.choice(
                state["options"])["card"]
            started = time.perf_counter()
            try:
                call(base, f"/api/tables/{table}/play", token, {"card": card})
            except urllib.error.HTTPError as exc:
                if exc.code != 409:
                    raise
            times.append(time.perf_counter() - started)


def flood(base: str, stop: float, rng: random.Random, count: list[int]) -> None:
    while time.monotonic() < stop:
        deal = deal_to_line(deal_random(4, rng.randrange(1 << 30)))
        try:
            call(base, "/api/advice", body={"deal": deal, "line": [], "samples": 32,
                                            "seed": 1})
            count[0] += 1
        except (urllib.error.URLError, OSError):  # refused (503), or the server stopped
            count[1] += 1


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--deals", type=int, default=1)
    parser.add_argument("--flooders", type=int, default=4)
    parser.add_argument("--think", type=float, default=0.3)
    parser.add_argument("--seconds", type=float, default=180)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = subprocess.Popen([sys.executable, "-m", "popejoan_solver", "serve", "--port",
                                   "0", "--data", data], stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            base = server.stdout.readline().split()[5].rstrip("/")
            stop = time.monotonic() + args.seconds
            times: list[float] = []
            advice = [0, 0]
            threads = [threading.Thread(target=flood, args=(base, stop, random.Random(k),
                                                            advice), daemon=True)
                       for k in range(args.flooders)]
            for number in range(args.tables):
                made = call(base, "/api/tables", body={"players": 3, "deals": args.deals,
                                                       "seats": ["person"] * 3, "seed": number,
                                                       "pace": 0})
                threads += [threading.Thread(target=person, args=(
                    base, made["table"], seat["token"], args.think, stop, times,
                    random.Random(f"{number}:{seat['seat']}")), daemon=True)
                    for seat in made["seats"]]
            started = time.monotonic()
            for thread in threads:
                thread.start()
            for thread in threads[args.flooders:]:
                thread.join()
            elapsed = time.monotonic() - started
            ordered = sorted(times)
            p95 = ordered[int(0.95 * (len(ordered) - 1))]
            print(f"{args.tables} tables x 3 people, {args.deals} deal(s), {args.flooders} "
                  f"advice flooders, think {args.think} s: {len(times)} plays in {elapsed:.1f} s; "
                  f"round trip p50 {statistics.median(ordered):.3f} s, p95 {p95:.3f} s, max "
                  f"{ordered[-1]:.3f} s; advice answered {advice[0]}, refused {advice[1]}")
            return 0 if p95 <= 0.3 else 1
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
