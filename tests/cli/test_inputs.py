"""How the commands read a deal (``popejoan_solver/cli/inputs.py``): hostile input to every
deal-reading command is one ``error:`` line and status 2 in bounded time and memory, never a
traceback or a silently wrong answer; the parser fuzzed with random bytes, JSON and notation.

The hostile inputs run in-process (``run_main``: the same message and status as a child's),
but for the endless devices: there the point is bounded memory, which only a child under
its memory cap can show."""

from __future__ import annotations

import io
import json
import os
import stat
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
from tests.contract import assert_contract, run_cli, run_main

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
        ["graph", SMALL, "--format", "dot", "--output", _device(t)], None)),
    ("a 500-character subcommand", lambda t: (["x" * 500], None)),
    ("a 500-character case name", lambda t: (["case", "q" * 500], None)),
]


def _fifo(tmp: Path) -> str:
    """A named pipe that nothing reads: writing it as a file would block or replace it."""
    os.mkfifo(tmp / "pipe")
    return str(tmp / "pipe")


def _device(tmp: Path) -> str:
    """A character device of our own (/dev/full's numbers) in ``tmp``: a slip that replaced
    the output would replace it, not the machine's /dev/full."""
    path = tmp / "full"
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except (PermissionError, AttributeError):
        pytest.skip("cannot make a device node here (not root)")
    return str(path)


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


UNBOUNDED: frozenset[str] = frozenset({"/dev/zero, size 0 to stat", "/dev/urandom"})
"""The cases of a device without end, run in a child under the contract's memory cap: read
whole by mistake, they would fill the memory of whatever process reads them."""


@pytest.mark.parametrize(("what", "case"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_error_line_and_status_2(tmp_path: Path, what: str,
                                                  case: Case) -> None:
    argv, stdin = case(tmp_path)
    run = run_cli if what in UNBOUNDED else run_main
    outcome = run(argv, stdin=stdin, timeout=60)
    assert_contract(outcome, 2, within=30)
    assert len(outcome.stderr) < 1000, what  # a user's text is never echoed in full


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

