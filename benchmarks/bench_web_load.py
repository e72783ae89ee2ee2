"""Load test of the web table: CLIENTS concurrent clients analysing 4-player positions for
SECONDS against ``popejoan serve`` on 127.0.0.1 (started here, stopped at the end).

Each client loops: pick a position (a seeded 4-player deal and a random legal line of LEADS
leads into it, made by the rules model) from a pool of POSITIONS, ``POST /api/analyse`` it,
wait for the answer, and go again at once (no think time). The server keeps the last 256
exact analyses: a pool larger than the requests made (``--positions 5000``) measures
searches alone; the count of cached answers is printed. Prints the latency quantiles, the
requests and errors, and the server's resident memory sampled every second; exits 1 if
p95 > 0.5 s, any request failed, or memory grew by more than a tenth over the second half of
the run. Each client names itself (``X-Client-Id``), as the page does, so the server serves
them in turn.

``--greedy K`` adds K greedy clients, each keeping four checks of a 100-deal record (the most
the web takes) in flight at once, resent as soon as answered or refused: the measured clients'
latency is then what the server's turns and lanes leave them (the greedy clients' refusals,
503s past their share of the queue, are counted apart, not as errors). Run from the
repository:

    .venv/bin/python benchmarks/bench_web_load.py [--clients 20] [--seconds 30] [--leads 4]
        [--greedy 0]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time

from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.notation import deal_to_line
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import get_ruleset


def positions(count: int, leads: int, seed: int) -> list[dict[str, object]]:
    """``count`` request bodies: 4-player deals and ``leads`` random legal leads into each."""
    rng = random.Random(seed)
    rules = get_ruleset("hoyle-modernized")
    bodies: list[dict[str, object]] = []
    index = 0
    while len(bodies) < count:
        deal = deal_random(4, seed, rules, index)
        index += 1
        position = Position.from_deal(deal)
        steps = []
        for _ in range(leads):
            if position.is_over:
                break
            run, position = position.play(rng.choice(position.legal_leads()))
            steps.append(run.step)
        if not position.is_over:
            bodies.append({"deal": deal_to_line(deal), "line": steps})
    return bodies


def family(pid: int) -> list[int]:
    """The process and its children (the server's search processes)."""
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        children.append(int(entry))
            except (OSError, ValueError):
                continue
    return [pid, *children]


def rss_kib(pid: int) -> int:
    """Resident memory of the server and its search processes."""
    total = 0
    for member in family(pid):
        try:
            with open(f"/proc/{member}/status", encoding="ascii") as status:
                total += next(int(line.split()[1]) for line in status
                              if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            continue
    return total


def cpu_seconds(pid: int) -> float:
    """User and system CPU time the server and its search processes have used."""
    total = 0
    for member in family(pid):
        try:
            with open(f"/proc/{member}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def load_average() -> float:
    with open("/proc/loadavg", encoding="ascii") as loadavg:
        return float(loadavg.read().split()[0])


def client(port: int, bodies: list[dict[str, object]], until: float, seed: int,
           latencies: list[float], errors: list[str], cached: list[bool]) -> None:
    rng = random.Random(seed)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"content-type": "application/json", "x-client-id": f"bench-{seed}"}
    while time.monotonic() < until:
        body = json.dumps(rng.choice(bodies))
        started = time.monotonic()
        try:
            connection.request("POST", "/api/analyse", body, headers)
            response = connection.getresponse()
            data = response.read()
            if response.status != 200:
                errors.append(f"{response.status}: {data[:120]!r}")
            else:
                answer = json.loads(data)
                cached.append(answer["cached"])
                if not answer["stats"]["exact"]:
                    errors.append("time limit reached")
        except (OSError, http.client.HTTPException) as exc:
            errors.append(repr(exc))
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        latencies.append(time.monotonic() - started)


def greedy(port: int, record: bytes, until: float, name: str, answers: list[int]) -> None:
    """One of a greedy client's four connections: a long record checked again and again."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    while time.monotonic() < until:
        try:
            connection.request("POST", "/api/check", record, {"x-client-id": name})
            response = connection.getresponse()
            response.read()
            answers.append(response.status)
            if response.status == 503:
                time.sleep(0.05)
        except (OSError, http.client.HTTPException):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)


def session_record(deals: int) -> bytes:
    """A legal record of ``deals`` seeded deals, each played out by its lowest legal lead."""
    from popejoan_solver.model.record import (
        DealSeed,
        Record,
        RecordedDeal,
        plays_of_run,
        record_to_text,
    )
    from popejoan_solver.model.settlement import turnup_award

    rules = get_ruleset("hoyle-modernized")
    recorded = []
    for index in range(deals):
        deal = deal_random(4, 7, rules, index)
        position = Position.from_deal(deal)
        plays = []
        if turnup_award(deal, deal.board_or_dressed).deal_is_played:
            while not position.is_over:
                run, position = position.play(min(position.legal_leads()))
                plays.extend(plays_of_run(run))
        recorded.append(RecordedDeal(deal, tuple(plays), seed=DealSeed(7, index, 4)))
    return record_to_text(Record(rules, tuple(recorded))).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--leads", type=int, default=4, help="leads played into each position")
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--greedy", type=int, default=0,
                        help="greedy clients, each with four long checks in flight")
    args = parser.parse_args()
    bodies = positions(args.positions, args.leads, args.seed)
    server = subprocess.Popen([sys.executable, "-m", "popejoan_solver", "serve", "--port", "0"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().split(":")[-1].split("/")[0])
        return run(args, bodies, port, server.pid)
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)


def run(args: argparse.Namespace, bodies: list[dict[str, object]], port: int, pid: int) -> int:
    latencies: list[float] = []
    errors: list[str] = []
    cached: list[bool] = []
    until = time.monotonic() + args.seconds
    threads = [threading.Thread(target=client, args=(port, bodies, until, args.seed + i,
                                                     latencies, errors, cached))
               for i in range(args.clients)]
    greedy_answers: list[int] = []
    record = session_record(100) if args.greedy else b""
    threads += [threading.Thread(target=greedy, args=(port, record, until, f"greedy-{g}",
                                                      greedy_answers))
                for g in range(args.greedy) for _ in range(4)]
    memory: list[int] = []
    cpu_before, load = cpu_seconds(pid), load_average()
    for thread in threads:
        thread.start()
    while time.monotonic() < until:
        memory.append(rss_kib(pid))
        time.sleep(1.0)
    for thread in threads:
        thread.join()
    cpu = cpu_seconds(pid) - cpu_before
    searched = len(latencies) - sum(cached)
    ordered = sorted(latencies)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    half = memory[len(memory) // 2:]
    growth = (max(half) - half[0]) / half[0] if half and half[0] else 0.0
    print(f"{args.clients} clients, {args.seconds:g} s, 4-player positions after {args.leads} "
          f"leads ({len(bodies)} positions), {os.cpu_count()} cores, load average {load:.1f} "
          f"at the start")
    print(f"requests {len(latencies)} ({len(latencies) / args.seconds:.1f}/s), errors "
          f"{len(errors)}, answered from the server's cache {sum(cached)}")
    print(f"latency median {statistics.median(ordered):.3f} s, p95 {p95:.3f} s, "
          f"max {ordered[-1]:.3f} s")
    print(f"server RSS MiB: start {memory[0] / 1024:.0f}, middle {half[0] / 1024:.0f}, end "
          f"{memory[-1] / 1024:.0f}, max {max(memory) / 1024:.0f} (growth over the second half "
          f"{growth:+.1%})")
    cores = os.cpu_count() or 1
    per_search = cpu / max(1, searched)
    print(f"server CPU {cpu:.1f} s: {1000 * cpu / max(1, len(latencies)):.1f} ms a request, "
          f"{1000 * per_search:.1f} ms a searched one (so {cores} idle cores would search "
          f"{cores / max(per_search, 1e-9):.0f} requests/s)")
    if args.greedy:
        print(f"{args.greedy} greedy clients: {greedy_answers.count(200)} checks answered, "
              f"{greedy_answers.count(503)} refused past their share (503)")
    for error in errors[:5]:
        print(f"  error: {error}")
    return 0 if p95 <= 0.5 and not errors and growth <= 0.10 else 1


if __name__ == "__main__":
    sys.exit(main())
