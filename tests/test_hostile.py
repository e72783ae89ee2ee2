"""Hostile input to the deal-reading commands: every one gets one ``error:`` line and status 2
(130 for Ctrl-C), in bounded time and memory, never a traceback or a silently wrong answer.

The batch, stats and study commands have theirs in ``test_hostile_batch.py``; prove, find and
graph in ``test_hostile_logic.py``. Each case here failed before the hostile-input work.
"""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from popejoan_solver.cli import main
from popejoan_solver.cli.inputs import read_deal
from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.model.examples import HOYLE_DEAD_HAND_LINE
from popejoan_solver.model.notation import deal_to_json
from tests.contract import (
    ROOT,
    Outcome,
    assert_contract,
    assert_interrupted,
    interrupt_cli,
    run_cli,
)

LINE = HOYLE_DEAD_HAND_LINE.replace("hoyle-modernized", "britannica")
DEAL_JSON = json.dumps(deal_to_json(read_deal(None)))


def _file(tmp: Path, name: str, data: bytes) -> str:
    (tmp / name).write_bytes(data)
    return str(tmp / name)


Case = Callable[[Path], tuple[list[str], bytes | None]]

CASES: list[tuple[str, Case]] = [
    ("/dev/zero, size 0 to stat", lambda t: (["solve", "/dev/zero"], None)),
    ("/dev/urandom", lambda t: (["stops", "/dev/urandom"], None)),
    ("/dev/zero on standard input", lambda t: (["solve", "-"], b"\0" * (2 << 20))),
    ("invalid UTF-8 on standard input", lambda t: (["solve", "-"], b"\xff\xfe{}")),
    ("invalid UTF-8 in a file", lambda t: (["solve", _file(t, "d.json", b'{"hands":"\xff"}')],
                                           None)),
    ("deeply nested JSON", lambda t: (["solve", "-"], b'{"a":' * 200_000)),
    ("deeply nested JSON array", lambda t: (["solve", "-"], b"[" * 200_000)),
    ("deeply nested TOML", lambda t: (["solve", "-"], b"a=" + b"[" * 200_000)),
    ("a 5000-digit number in JSON", lambda t: (
        ["solve", "-"], DEAL_JSON[:-1].encode() + b', "to_lead": ' + b"9" * 5000 + b"}")),
    ("a JSON array is not broken TOML", lambda t: (["solve", "-"], b"[1,2,3]")),
    ("a superscript digit as the seat to lead", lambda t: (
        ["solve", HOYLE_DEAD_HAND_LINE + " | lead \u00b2"], None)),
    ("a superscript digit in the board", lambda t: (
        ["solve", HOYLE_DEAD_HAND_LINE + " | board 6 2 2 1 1 1 1 \u00b2"], None)),
    ("a board count past 2**31", lambda t: (
        ["solve", HOYLE_DEAD_HAND_LINE + " | board 6 2 2 1 1 1 1 2147483649"], None)),
    ("a board count of eleven digits", lambda t: (
        ["solve", HOYLE_DEAD_HAND_LINE + " | board 6 2 2 1 1 1 1 99999999999"], None)),
    ("a board count of 2**62 in JSON", lambda t: (
        ["solve", "-"], DEAL_JSON[:-1].encode() + b', "board": {"pope": 4611686018427387904}}')),
    ("--time-limit nan", lambda t: (["solve", "--time-limit", "nan"], None)),
    ("--time-limit inf", lambda t: (["solve", "--time-limit", "inf"], None)),
    ("--time-limit -1", lambda t: (["solve", "--time-limit", "-1"], None)),
    ("--time-limit 1e400", lambda t: (["solve", "--time-limit", "1e400"], None)),
    ("cases --dir that does not exist", lambda t: (["cases", "--dir", "/nonexistent"], None)),
    ("case --dir that does not exist", lambda t: (["case", "x", "--dir", "/nonexistent"], None)),
    ("a case file that is not UTF-8", lambda t: _case_dir(t, b'name = "\xff"\n')),
    ("a case file nested too deeply", lambda t: _case_dir(t, b"a=" + b"[" * 200_000)),
    ("deal --index -3", lambda t: (["deal", "--players", "4", "--seed", "1", "--index", "-3"],
                                   None)),
    ("--rules parlett+", lambda t: (["solve", "--rules", "parlett+"], None)),
    ("--rules parlett+ on deal", lambda t: (["deal", "--players", "4", "--seed", "1",
                                             "--rules", "parlett+"], None)),
    ("a ruleset name of 100 KB", lambda t: (["solve", "--rules", "x" * 100_000], None)),
    ("an option value of 100 KB", lambda t: (["solve", "--set", "ace=" + "x" * 100_000],
                                             None)),
    ("a deal file name of 100 KB", lambda t: (["solve", "y" * 100_000], None)),
    ("a directory as the deal", lambda t: (["solve", str(t)], None)),
    ("a finished position play cannot reach", lambda t: (["solve", "-"], json.dumps({
        "hands": ["", "2S", "3S 4S 4C"], "played": ["AC 2C", "3C", ""], "to_lead": 1,
        "dead": _rest("AC 2C 3C 4C 2S 3S 4S"), "turnup": "KS"}).encode())),
    ("a position whose seat to lead played nothing", lambda t: (["solve", "-"], json.dumps({
        "hands": ["5H", "6H", "7H"], "played": ["2C", "", ""], "to_lead": 2,
        "dead": _rest("2C 5H 6H 7H"), "turnup": "KS"}).encode())),
    ("a fresh deal with seat 2 to lead", lambda t: (
        ["solve", HOYLE_DEAD_HAND_LINE + " | lead 2"], None)),
    ("a JSON key written twice", lambda t: (
        ["solve", "-"], DEAL_JSON[:-1].encode() + b', "rules": "parlett"}')),
    ("a one-line section given twice", lambda t: (
        ["solve", HOYLE_DEAD_HAND_LINE + " | board 9 2 2 1 1 1 1 1 | board 0 0 0 0 0 0 0 0"],
        None)),
    ("an empty 'played' for the wrong number of seats", lambda t: (
        ["solve", "-"], DEAL_JSON[:-1].encode() + b', "played": ["", "", ""]}')),
    ("graph --output onto a named pipe", lambda t: (
        ["graph", SMALL, "--format", "dot", "--output", _fifo(t)], None)),
    ("graph --output onto a device", lambda t: (
        ["graph", SMALL, "--format", "dot", "--output", "/dev/full"], None)),
    ("a 500-character subcommand", lambda t: (["x" * 500], None)),
    ("a 500-character case name", lambda t: (["case", "q" * 500], None)),
]


def _fifo(tmp: Path) -> str:
    """A named pipe that nothing reads: writing it as a file would block or replace it."""
    os.mkfifo(tmp / "pipe")
    return str(tmp / "pipe")


def _small_line() -> str:
    from popejoan_solver.model.notation import deal_to_line
    from popejoan_solver.model.rules import RULESETS
    from tests.conftest import short_deal
    return deal_to_line(short_deal(3, 3, 1, RULESETS["hoyle-modernized"]))


SMALL: str = _small_line()


def _case_dir(tmp: Path, data: bytes) -> tuple[list[str], bytes | None]:
    """``cases`` over a folder whose one case file holds ``data``."""
    (tmp / "bad.toml").write_bytes(data)
    return ["cases", "--dir", str(tmp)], None


def _rest(cards: str) -> str:
    """Every card of the pack but ``cards`` (a dead hand for a composed position)."""
    from popejoan_solver.model.cards import PACK, CardSet, format_cards
    return format_cards(PACK & ~CardSet.parse(cards).mask)


@pytest.mark.parametrize(("what", "case"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_error_line_and_status_2(tmp_path: Path, what: str,
                                                  case: Case) -> None:
    argv, stdin = case(tmp_path)
    outcome = run_cli(argv, stdin=stdin, timeout=60)
    assert_contract(outcome, 2, within=30)
    assert len(outcome.stderr) < 1000, what  # a user's text is never echoed in full


def test_a_long_solve_stops_at_ctrl_c_within_a_second() -> None:
    """A search that runs for minutes, on one thread and on two, by each engine: early-hoyle
    with the Pope in lieu of a stop, 3 players, seed 136, made long by a transposition table
    of one entry for the fast engine (plain early-hoyle's seed 136, once 8 s, takes 0.7 s so
    since fact 5); the reference never finishes it."""
    deal = subprocess.run([sys.executable, "-m", "popejoan_solver", "deal", "--players", "3",
                           "--seed", "136", "--rules", "early-hoyle+pope_in_lieu=pope-leads",
                           "--format", "line"],
                          capture_output=True, text=True, check=True, cwd=ROOT).stdout.strip()
    for engine in (["--tt-entries", "1"], ["--engine", "reference"]):
        for threads in ("1", "2"):
            assert_interrupted(interrupt_cli(["solve", deal, *engine, "--threads", threads,
                                              "--json"], after=2.0))


# ----------------------------------------------------------------------------- fuzzing

def _parse_contract(text: str | bytes) -> None:
    """What the CLI's deal parsing must do with any input: a deal or one clean error."""
    stream = io.BytesIO(text.encode("utf-8", "surrogatepass") if isinstance(text, str)
                        else text)
    message = None
    try:
        read_deal("-", stdin=stream)
    except PopeJoanError as exc:
        message = str(exc)
    if message is not None:
        assert message
        assert "\n" not in message
        assert len(message) < 1000


def _mutated_line(data: st.DataObject) -> str:
    """The example's one-line notation with a few characters changed, dropped or repeated."""
    text = list(LINE)
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text) - 1))
        how = data.draw(st.sampled_from(["set", "drop", "repeat"]))
        if how == "set":
            text[at] = data.draw(st.characters())
        elif how == "drop":
            del text[at]
        else:
            text[at:at] = text[at] * data.draw(st.integers(1, 3))
    return "".join(text)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    _parse_contract(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(["rules", "hands", "dead", "turnup", "board", "played",
                                        "to_lead", "other"]), JSON_VALUES, max_size=7))
def test_random_json_deals(data: dict[str, object]) -> None:
    _parse_contract(json.dumps(data))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_one_line_notation(data: st.DataObject) -> None:
    _parse_contract(_mutated_line(data))


def test_the_fuzzed_parser_is_the_command_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fuzz tests call read_deal: check that it is what the deal-reading commands use.
    import popejoan_solver.cli.inputs as cli_inputs
    seen: list[str | None] = []

    def spy(text: str | None, stdin: object = None) -> object:
        seen.append(text)
        return read_deal(None)

    monkeypatch.setattr(cli_inputs, "read_deal", spy)
    assert main(["stops", "some deal"]) == 0
    assert main(["solve", "another", "--seat", "1"]) == 0
    assert seen == ["some deal", "another"]


def test_a_study_stops_at_ctrl_c_and_keeps_its_rows(tmp_path: Path) -> None:
    out = tmp_path / "study.db"
    outcome = interrupt_cli(["study", "seat-values", "--deals", "300", "--players", "3",
                             "--rules", "early-hoyle", "--workers", "2", "--out", str(out)],
                            after=4.0)
    assert_interrupted(outcome)  # and no half report on stdout
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):
        os.killpg(outcome.pid, 0)  # no worker left behind
    from popejoan_solver.jobs.batch import read_rows
    assert list(read_rows(out))  # the rows solved before the signal are kept


def test_a_fifo_or_device_is_never_replaced_by_graph_output(tmp_path: Path) -> None:
    pipe = _fifo(tmp_path)
    assert_contract(run_cli(["graph", SMALL, "--format", "dot", "--output", pipe]))
    assert Path(pipe).is_fifo()
    assert Path("/dev/full").is_char_device()


def test_closed_standard_input_is_one_error_line() -> None:
    proc = subprocess.run(["bash", "-c", f"exec {sys.executable} -m popejoan_solver solve - <&-"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert_contract(Outcome(proc.returncode, proc.stdout, proc.stderr, 0.0))
    assert "closed" in proc.stderr


def test_a_terminal_without_suit_symbols_gets_escapes_not_a_crash() -> None:
    outcome = run_cli(["rules"], env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert_contract(outcome, 0)
    assert "9[\\u2666]" in outcome.stdout  # the quote "9[♦] in hand", escaped


def test_stats_of_deals_all_past_the_time_limit_is_valid_json(tmp_path: Path) -> None:
    out = tmp_path / "late.db"
    assert_contract(run_cli(["batch", "--rules", "early-hoyle", "--players", "3", "--deals",
                             "2", "--seed", "9", "--time-limit", "0.001", "--workers", "1",
                             "--out", str(out)]), 0)
    outcome = run_cli(["stats", str(out), "--json"])
    assert_contract(outcome, 0)

    def refuse(constant: str) -> object:
        raise AssertionError(f"{constant} is not JSON")

    group = json.loads(outcome.stdout, parse_constant=refuse)["groups"][0]
    assert group["exact_deals"] == 0
    assert group["forced_win_rate"] == [None, None, None]
    text = run_cli(["stats", str(out)])
    assert_contract(text, 0)
    assert "nan" not in text.stdout


def test_ruleset_lists_keep_overrides_with_commas() -> None:
    from popejoan_solver.model.rules import split_rulesets
    assert split_rulesets("parlett, hoyle-modernized+ace=high,pairs=divided,peel") == [
        "parlett", "hoyle-modernized+ace=high,pairs=divided", "peel"]
    assert split_rulesets(" , ") == []


def test_study_options_it_would_ignore_or_fail_on_late_are_refused_first(tmp_path: Path) -> None:
    out = str(tmp_path / "s.db")
    assert_contract(run_cli(["study", "hoyle-maxims", "--deals", "1", "--players", "3",
                             "--rules", "parlett", "--out", out]), within=10)
    (tmp_path / "file").write_text("x")
    for report in ("", str(tmp_path / "file")):
        assert_contract(run_cli(["study", "seat-values", "--deals", "1", "--players", "3",
                                 "--rules", "parlett", "--out", out, "--report", report]),
                        within=10)
    assert not Path(out).exists()  # refused before any work


@pytest.mark.parametrize("limit", [math.nan, math.inf, 0.0, -1.0])
def test_the_python_api_refuses_a_time_limit_that_is_no_limit(limit: float) -> None:
    # NaN never runs out: from Python (not only through the parser) it was an unbounded solve.
    from popejoan_solver.search import forced_win, solve
    deal = read_deal(None)
    with pytest.raises(PopeJoanError, match="time-limit"):
        solve(deal, time_limit=limit)
    with pytest.raises(PopeJoanError, match="time-limit"):
        forced_win(deal, 1, time_limit=limit)
