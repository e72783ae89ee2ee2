"""Regression tests for the second hostile-user pass (docs/reviews/hostile-pass-2.md): each test
names its finding and failed before the fix."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from popejoan_solver import (
    analyse_stops,
    deal_from_line,
    deal_random,
    deal_to_line,
    get_ruleset,
    hoyle_dead_hand,
    parse_card,
    parse_deal_text,
)
from popejoan_solver.analysis.match import read_match, run_match
from popejoan_solver.cli import main
from popejoan_solver.model.errors import PopeJoanError


@pytest.fixture(scope="module")
def small_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two deals of three players between hoyle and random (well under a second)."""
    out = tmp_path_factory.mktemp("match") / "m.db"
    run_match(out, ["hoyle", "random"], 3, 2, 1, workers=1)
    return out


def test_maxims_at_one_seat_counts_only_that_seat(
        small_match: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 1: ``--seat N --maxims BOT`` ignored ``--seat`` (the whole match's counts)."""
    per_seat = []
    for seat in (1, 2, 3):
        assert main(["standings", str(small_match), "--maxims", "random", "--seat", str(seat),
                     "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)["maxims"]
        per_seat.append(next(r["leads"] for r in rows if r["maxim"] == "all leads"))
    assert main(["standings", str(small_match), "--maxims", "random", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["maxims"]
    total = next(r["leads"] for r in rows if r["maxim"] == "all leads")
    assert sum(per_seat) == total
    assert all(0 < leads < total for leads in per_seat)


def test_maxims_still_writes_records_and_refuses_a_plot(
        small_match: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 1: with ``--maxims``, ``--records DIR`` wrote nothing and ``--plot`` was
    dropped, both silently."""
    settings, _ = read_match(small_match)
    assert main(["standings", str(small_match), "--maxims", "hoyle", "--records",
                 str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("s*-r*.json"))) == 2 * len(settings.bots)
    capsys.readouterr()
    assert main(["standings", str(small_match), "--maxims", "hoyle", "--plot",
                 str(tmp_path / "p.png")]) == 2
    assert capsys.readouterr().err.startswith("error: --plot draws the standings")
    assert not (tmp_path / "p.png").exists()


def test_play_refuses_a_record_it_cannot_write_before_the_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 2: ``play --record`` to a missing folder was found out only after the whole
    game had been played (the deal's record then lost with status 2)."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # the person would leave at once
    for path in (tmp_path / "missing" / "game.txt", tmp_path):
        assert main(["play", "--seat", "1", "--bots", "lowest,hoyle", "--record",
                     str(path)]) == 2
        captured = capsys.readouterr()
        assert captured.err.startswith("error: --record ")
        assert captured.out == ""  # refused before a card was dealt
    good = tmp_path / "game.txt"
    assert main(["play", "--seat", "1", "--bots", "lowest,hoyle", "--record", str(good)]) == 0
    assert not good.exists()  # the check leaves nothing behind


@pytest.mark.parametrize(("bots", "players", "message"), [
    ("nope", None, "unknown bot 'nope'"),
    ("lowest", None, "play needs 3 to 8 players"),
    ("lowest,hoyle,random", "3", "--bots names 3 bots for the 2 other seats"),
])
def test_play_names_the_bad_bot_list(bots: str, players: str | None, message: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 3: ``play --bots nope`` said "Pope Joan is for 3 to 8 players, not 2" (never
    the bot), and bots beyond the other seats were dropped silently."""
    args = ["play", "--seat", "1", "--bots", bots] + (["--players", players] if players else [])
    assert main(args) == 2
    assert capsys.readouterr().err.startswith(f"error: {message}")


@pytest.mark.parametrize("command", ["view", "advise"])
def test_line_on_a_record_is_named_as_such(command: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 4: ``view RECORD --line 9H`` said "not a deal or a game record: broken TOML"
    of a good record (with --line it was read as a deal only)."""
    assert main(["deal", "--players", "4", "--seed", "7", "--format", "record"]) == 0
    record = tmp_path / "game.txt"
    record.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main([command, str(record), "--seat", "1", "--line", "2C"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --line plays runs from a deal; POSITION is a game record")
    assert err.count("\n") == 1


def test_records_folder_is_made_when_new(small_match: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 5: ``standings --records NEW`` said "'NEW': not a folder" of a folder that did
    not exist yet; now it is made (never for a file that cannot be read)."""
    assert main(["standings", str(tmp_path / "missing.db"), "--records",
                 str(tmp_path / "never")]) == 2
    assert not (tmp_path / "never").exists()
    capsys.readouterr()
    assert main(["standings", str(small_match), "--records", str(tmp_path / "new")]) == 0
    assert len(list((tmp_path / "new").glob("s*-r*.json"))) == 4
    assert main(["standings", str(small_match), "--records",
                 str(tmp_path / "no" / "such")]) == 2
    assert capsys.readouterr().err.startswith("error: --records ")


API_WRONG_TYPES = [
    ("deal_random(4.0, 1)", lambda: deal_random(4.0, 1)),  # type: ignore[arg-type]
    ("deal_random(4, 1.0)", lambda: deal_random(4, 1.0)),  # type: ignore[arg-type]
    ("deal_random(4, None)", lambda: deal_random(4, None)),  # type: ignore[arg-type]
    ("deal_random(4, True)", lambda: deal_random(4, True)),
    ("deal_random(4, 1, index=-1)", lambda: deal_random(4, 1, index=-1)),
    ("deal_random(4, 1, rules=5)", lambda: deal_random(4, 1, 5)),  # type: ignore[arg-type]
    ("get_ruleset(None)", lambda: get_ruleset(None)),  # type: ignore[arg-type]
    ("get_ruleset(5)", lambda: get_ruleset(5)),  # type: ignore[arg-type]
    ("analyse_stops(None)", lambda: analyse_stops(None)),  # type: ignore[arg-type]
    ("analyse_stops('deal')", lambda: analyse_stops("deal")),  # type: ignore[arg-type]
    ("analyse_stops(deal, 'player')",
     lambda: analyse_stops(hoyle_dead_hand(), "player")),  # type: ignore[arg-type]
    ("deal_from_line(None)", lambda: deal_from_line(None)),  # type: ignore[arg-type]
    ("parse_deal_text(b'...')", lambda: parse_deal_text(b"x | y ^2S")),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("call", "function"), API_WRONG_TYPES, ids=[c for c, _ in API_WRONG_TYPES])
def test_python_api_wrong_types_are_bad_input(call: str, function: Callable[[], object]) -> None:
    """Finding 9: from Python, a wrong type was an AttributeError or TypeError (None, a number
    for a ruleset name, a float player count) or silently another deal (seed 1.0, None or
    True each seeded a deal of its own, not seed 1's)."""
    with pytest.raises(PopeJoanError):
        function()


def test_python_api_still_takes_what_it_documents() -> None:
    """A ruleset may be named; string seeds and negative seeds stay (they are documented)."""
    assert deal_random(4, 1, "peel") == deal_random(4, 1, get_ruleset("peel"))
    assert deal_random(4, "club night").players == 4
    assert deal_random(4, -1).players == 4


@pytest.mark.parametrize(("query", "name", "given"), [
    ({"players": "-1"}, "players", "-1"), ({"seed": "-7"}, "seed", "-7"),
    ({"index": "1e3"}, "index", "1e3")])
def test_web_whole_numbers_say_from_zero_and_name_the_value(
        query: dict[str, str], name: str, given: str) -> None:
    """Finding 11: ``GET /api/deal?players=-1`` answered "players must be a whole number below
    2**63" (-1 is below it); the message now gives the range and the value."""
    from popejoan_solver.web.handlers import api_deal

    with pytest.raises(PopeJoanError, match=rf"^{name} must be a whole number from 0 to "
                       rf"2\*\*63 - 1, not '{given}'$"):
        api_deal(query)


def test_solve_refuses_a_record_it_cannot_write_before_solving(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 12: ``solve --record missing/x.txt`` solved the deal first (minutes for a hard
    one), then failed naming its temporary file: "No such file or directory: x.txt.tmp11167"."""
    import popejoan_solver.cli as cli

    def no_search(*args: object, **kwargs: object) -> object:
        raise AssertionError("solved before the record's path was checked")

    monkeypatch.setattr(cli, "solve", no_search)
    for path in (tmp_path / "missing" / "x.txt", tmp_path):
        assert main(["solve", "--record", str(path)]) == 2
        err = capsys.readouterr().err.splitlines()[-1]  # after the example deal's warning
        assert err.startswith("error: --record ")
        assert ".tmp" not in err


def test_kill_9_of_serve_leaves_no_search_process() -> None:
    """Finding 13: ``kill -9`` of ``popejoan serve`` left its search process (and
    multiprocessing's resource tracker) running for good, adopted by init."""
    import subprocess
    import sys
    import time
    import urllib.request

    pytest.importorskip("uvicorn", reason="the web extra: pip install 'popejoan-solver[web]'")
    from tests.test_web_serve import alive, children

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


def test_a_changed_ruleset_does_not_describe_itself_as_its_base() -> None:
    """Finding 14: ``rules hoyle-modernized+ace=high`` printed "ace low, lead any card. The
    default." as its description (the base's, unchanged)."""
    changed = get_ruleset("hoyle-modernized+ace=high")
    assert changed.description.startswith("hoyle-modernized with ace=high; otherwise as ")
    assert get_ruleset("hoyle-modernized+ace=low").description == \
        get_ruleset("hoyle-modernized").description  # no change, the base's own words


@pytest.mark.parametrize("args", [["rules", "hoyle-modernized+ace=high,ace=low"],
                                  ["deal", "--players", "4", "--seed", "1", "--set", "ace=high",
                                   "--set", "ace=low"],
                                  ["deal", "--players", "4", "--seed", "1", "--rules",
                                   "early-hoyle", "--set", "stock-size=6", "--set",
                                   "stock_size=8"]])
def test_an_option_set_twice_to_two_values_is_refused(
        args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 14: ``--set ace=high --set ace=low`` (or ``+ace=high,ace=low``) silently took
    the last value."""
    assert main(args) == 2
    assert "is set twice" in capsys.readouterr().err


def test_grade_text_gives_a_bounded_total_cost_as_bounds(small_match: Path) -> None:
    """Finding 15: ``grade --time-limit`` printed "total cost {'lower': 8, 'upper': 151}" (a
    Python dict) when the costs were bounds; now "8..151", as each lead's cost is written."""
    from popejoan_solver.analysis.grading import describe, grade_record
    from popejoan_solver.analysis.match import session_records

    settings, rows = read_match(small_match)
    record = next(iter(session_records(settings, rows)))[2]
    result = grade_record(record, time_limit=1e-6)
    totals = [line for line in describe(result) if "total cost" in line]
    costs = [row["cost"] for row in result.players()]
    assert any(isinstance(cost, dict) for cost in costs)  # the limit left some bounds
    for line, cost in zip(totals, costs, strict=True):
        written = f"{cost['lower']}..{cost['upper']}" if isinstance(cost, dict) else str(cost)
        assert line.endswith(f"total cost {written}")


@pytest.mark.parametrize(("seed", "index"), [(10**30, 0), (-(10**30), 0), (1, 2**31)])
def test_deal_record_of_a_seed_a_record_cannot_hold(
        seed: int, index: int, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 16: ``deal --seed 10**30 --format record`` (or ``--index 2**31``) wrote a record
    that ``check`` refuses ("seed must be a whole number below 2**63"); such a deal is now
    written by its cards."""
    from popejoan_solver.model.record import parse_record_text

    assert main(["deal", "--players", "4", "--seed", str(seed), "--index", str(index),
                 "--format", "record"]) == 0
    record = parse_record_text(capsys.readouterr().out)
    assert record.deals[0].deal == deal_random(4, seed, None, index)


def test_a_key_written_twice_says_broken_json_once() -> None:
    """Finding 17: "error: broken JSON: broken JSON: the key 'hands' is written twice" (the
    duplicate-key error, a ValueError, was wrapped again)."""
    with pytest.raises(PopeJoanError) as caught:
        parse_deal_text('{"hands": ["2C"], "hands": ["3C"], "dead": "", "turnup": "2S"}')
    assert str(caught.value) == "broken JSON: the key 'hands' is written twice"


def test_intervals_of_a_few_values_use_students_t() -> None:
    """Finding 18: every "95% interval" of a mean (standings over a few units, advice over a
    few samples, stats) was the normal one, 1.96 standard errors whatever the count: for two
    units it covers about 70%, and standings called pairs "separated" on that. The quantiles
    against the printed table (Student's t, two-sided 95%) and, where SciPy is installed,
    against it to 1e-9."""
    from popejoan_solver.analysis.stats import mean_ci, t95

    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 10: 2.228, 20: 2.086,
             30: 2.042, 60: 2.000, 120: 1.980}
    for df, printed in table.items():
        assert round(t95(df), 3) == printed
    mean, _, high = mean_ci([0.0, 2.0])
    assert (mean, high - mean) == (1.0, pytest.approx(12.706204736174694))  # sd √2, n 2
    try:
        from scipy.stats import t as student
    except ImportError:
        return
    for df in [*range(1, 60), 99, 500, 999, 1000, 1001, 4000, 10**6]:
        assert t95(df) == pytest.approx(student.ppf(0.975, df), abs=1e-9)


def test_a_share_of_optimal_leads_stays_a_rate() -> None:
    """Finding 19: ``study hoyle-maxims --deals 2 --players 3`` printed "random lead ...
    optimal 0.583 [-1.534, 2.701]": a rate's interval outside 0 to 1."""
    from popejoan_solver.analysis.maxims import MaximSummary

    _, low, high = MaximSummary("random lead", (0.25, 0.9166666), (0.0, 1.0)).optimal_rate
    assert (low, high) == (0.0, 1.0)


def test_ctrl_c_of_serve_does_not_wait_for_a_long_search() -> None:
    """Finding 20: Ctrl-C of ``popejoan serve`` during a 10-second search waited for it (8 s),
    a second Ctrl-C did not help and printed a CancelledError traceback. Now a request in
    flight has a second, then the server stops its searches and exits 0, quietly."""
    import contextlib
    import subprocess
    import sys
    import threading
    import time
    import urllib.error
    import urllib.request

    pytest.importorskip("uvicorn", reason="the web extra: pip install 'popejoan-solver[web]'")
    from tests.test_web_serve import alive, children

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
        time.sleep(2.5)  # the search is under way in its process
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


def test_one_value_gives_no_interval_and_no_separation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 21: one unit (``match --deals 1``) or one sample (``advise --samples 1``) had
    the zero-width interval ``[mean, mean]``, and standings called every pair "separated"."""
    import math

    from popejoan_solver.analysis.stats import mean_ci, mean_ci_from_sums

    for mean, low, high in (mean_ci([5.0]), mean_ci_from_sums(1, 5.0, 25.0)):
        assert mean == 5.0
        assert math.isnan(low)
        assert math.isnan(high)
    out = tmp_path / "one.db"
    run_match(out, ["hoyle", "random", "lowest"], 3, 1, 2, workers=1)
    assert main(["standings", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)  # strict JSON: no NaN
    assert data["units"] == 1
    assert all(b["ci95"] == [None, None] for b in data["bots"])
    assert not any(p["separates"] for p in data["pairs"])
    assert main(["standings", str(out)]) == 0
    text = capsys.readouterr().out
    assert "separated" not in text
    assert "[-, -]" in text


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 22: ``popejoan --version`` said "error: the following arguments are required:
    command" (status 2)."""
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"popejoan {version('popejoan-solver')}\n"


def test_play_says_when_the_turn_up_ends_the_deal(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 23: under early Hoyle a turned-up Pope ends the deal unplayed; ``play`` printed
    only "result ... seat 2 (you) -13", never the turn-up nor why nothing was played."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert deal_random(4, 179, "early-hoyle").turnup == parse_card("9D")  # the Pope turned up
    assert main(["play", "--seat", "2", "--bots", "hoyle,lowest,random", "--rules",
                 "early-hoyle", "--seed", "179"]) == 0
    out = capsys.readouterr().out
    assert "turn-up 9D: pope -> seat 4: 6 (Pope turned up)" in out
    assert "the turn-up ends the deal" in out
    assert out.index("the turn-up ends the deal") < out.index("result (counters won")


def test_standings_without_a_complete_unit_is_strict_json(
        small_match: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 24: a match file whose every unit is unfinished (a run killed in each session)
    gave ``"mean": NaN`` in ``standings --json`` (not JSON: a browser or jq refuses it) and
    "+nan" in the text."""
    import shutil
    import sqlite3

    copy = tmp_path / "unfinished.db"
    shutil.copy(small_match, copy)
    with sqlite3.connect(copy) as db:
        db.execute("DELETE FROM plays WHERE rotation = 0")
    db.close()
    assert main(["standings", str(copy), "--json"]) == 0

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in the JSON")

    data = json.loads(capsys.readouterr().out, parse_constant=refuse)
    assert data["units"] == 0
    assert all(b["mean"] is None for b in data["bots"])
    assert main(["standings", str(copy)]) == 0
    assert "nan" not in capsys.readouterr().out


def test_the_readme_python_example_prints_cards(capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 25: the README's "From Python" example printed the stops as card numbers
    (['11', '19', '22', ...]): ``str`` of a card, which is an int. Run as the README has it."""
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    block = re.search(r"### From Python\n\n```python\n(.*?)```", readme, re.S)
    assert block is not None
    exec(compile(block.group(1), "README.md", "exec"), {})  # the README's own code
    guaranteed, stops = capsys.readouterr().out.splitlines()
    assert guaranteed == "-1 0"
    assert stops.startswith("['QC', '7D', ")


def test_a_search_process_killed_mid_request_is_no_bug_and_no_traceback() -> None:
    """Finding 26: a search process killed while it searched gave "internal error:
    BrokenProcessPool (a bug of popejoan: please report it)" and a traceback on the server's
    terminal; it is no bug of the tool: a 500 that says what happened, one warning line."""
    import subprocess
    import sys
    import threading
    import time
    import urllib.error
    import urllib.request

    pytest.importorskip("uvicorn", reason="the web extra: pip install 'popejoan-solver[web]'")
    from tests.test_web_serve import children

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
        time.sleep(2.5)
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


@pytest.mark.parametrize("count", ["1001", "99999999999"])
def test_find_count_is_bounded(count: str) -> None:
    """Finding 27: ``find forced-win --players 3 --count 99999999999`` ran on with its memory
    growing about 4 MB a second (every deal found kept and blocked in the SAT instance) and
    nothing printed before the end: unbounded memory. (Run under the contract's time bound.)"""
    from tests.contract import assert_contract, run_cli

    outcome = run_cli(["find", "forced-win", "--players", "3", "--count", count], timeout=30)
    assert_contract(outcome, 2)
    assert outcome.stderr.startswith("error: --count must be from 1 to 1,000")


def test_a_table_size_past_this_machines_memory_is_refused_in_the_api_and_the_cli(
        capsys: pytest.CaptureFixture[str]) -> None:
    # 2**40 entries (16 TiB) was accepted: a table grows on demand, so a typo surfaced only as
    # memory exhausted in the middle of a long search.
    from popejoan_solver.search.api import check_tt_entries, tt_entries_limit

    limit = tt_entries_limit()
    assert 1 << 20 <= limit < 1 << 40  # this machine has gigabytes, not terabytes
    check_tt_entries(limit)
    with pytest.raises(PopeJoanError, match="must be from 1 to"):
        check_tt_entries(limit + 1)
    code = main(["solve", "--tt-entries", str(1 << 40)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    errors = [line for line in err.splitlines() if not line.startswith("warning:")]
    assert len(errors) == 1
    assert errors[0].startswith("error: tt_entries (--tt-entries) must be from 1 to")
