"""Hostile input to ``prove``, ``find`` and ``graph``, and Ctrl-C while they run: one ``error:``
line and status 2 for bad input; status 130 within about a second, one ``error: interrupted``
line and nothing half-written for Ctrl-C; never a traceback or a silently wrong answer.

The deal-reading commands have theirs in ``test_hostile.py``; batch, stats and study in
``test_hostile_batch.py``. Each case here failed before the hostile-input work.
"""

from __future__ import annotations

import math
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import z3

from popejoan_solver.analysis import graph as graph_module
from popejoan_solver.analysis.graph import GraphTooLargeError, build_graph, write_atomically
from popejoan_solver.logic import prover
from popejoan_solver.logic.find import FindQuery, Property, find_deals, parse_hold
from popejoan_solver.logic.prover import Status, Workspace, check_sat
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.logic.theorems import prove
from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.model.examples import HOYLE_DEAD_HAND_LINE
from popejoan_solver.model.notation import parse_deal_text
from popejoan_solver.model.rules import get_ruleset

from .contract import ROOT, assert_contract, default_sigint, run_cli

HOYLE = get_ruleset("hoyle-modernized")
GRAPH_DEAL = ("hoyle-modernized: 34TJ..27. 27.T.Q.9K Q.A67K..2 6.5J.5.TJ | "
              "A589K.2349Q.A34689TJK.A345678Q ^3D")
"""A deal of six cards a hand: 565 states, about 100 KB of DOT, built in a moment."""

# ----------------------------------------------------------------------------- bad input

BAD: list[tuple[str, list[str], str]] = [
    # (what, argv, a word the one error line must contain)
    ("--hold of the 8D, not in the pack", ["find", "first-lead-out", "--hold", "1:8D"], "8D"),
    ("--hold of a seat out of range", ["find", "first-lead-out", "--hold", "9:AC"], "seat 9"),
    ("--hold of no cards", ["find", "first-lead-out", "--hold", "1:"], "no cards"),
    ("--hold of no seat", ["find", "first-lead-out", "--hold", "x:AC"], "SEAT:CARDS"),
    ("--hold of a superscript seat", ["find", "first-lead-out", "--hold", "\u00b2:AC"],
     "SEAT:CARDS"),
    ("--dead of the 8D", ["find", "first-lead-out", "--dead", "8D"], "8D"),
    ("--dead of no cards", ["find", "first-lead-out", "--dead", ","], "no cards"),
    ("a card both held and dead",
     ["find", "first-lead-out", "--hold", "1:AC", "--dead", "AC"], "AC"),
    ("one card held by two seats",
     ["find", "first-lead-out", "--hold", "1:AC", "--hold", "2:AC"], "two seats"),
    ("more cards held than a hand has",
     ["find", "first-lead-out", "--hold", "1:AC,2C,3C,4C,5C,6C,7C,8C,9C,TC,JC"], "11 cards"),
    ("more cards dead than the dead hand has",
     ["find", "first-lead-out", "--players", "4", "--dead", "AC,2C,3C,4C,5C,6C,7C,8C,9C,TC,JC,QC"],
     "12 cards"),
    ("--time-limit nan", ["find", "forced-win", "--time-limit", "nan"], "time-limit"),
    ("--time-limit inf", ["find", "forced-win", "--time-limit", "inf"], "time-limit"),
    ("--time-limit -1", ["find", "forced-win", "--time-limit", "-1"], "time-limit"),
    ("--time-limit 1e400", ["find", "forced-win", "--time-limit", "1e400"], "time-limit"),
    ("--players 2", ["find", "forced-win", "--players", "2"], "players"),
    ("--seat 9 of 4", ["find", "forced-win", "--seat", "9", "--players", "4"], "seat"),
    ("an unknown theorem", ["prove", "--theorem", "nonexistent"], "nonexistent"),
    ("a ruleset ending in +", ["prove", "--rules", "parlett+"], "parlett+"),
    ("graph --output without --format", ["graph", GRAPH_DEAL, "--output", "g.dot"],
     "--format"),
]


@pytest.mark.parametrize(("what", "argv", "word"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_error_line_and_status_2(what: str, argv: list[str],
                                                  word: str) -> None:
    outcome = run_cli(argv, timeout=60)
    assert_contract(outcome, 2, within=30)
    assert word in outcome.stderr, (what, outcome.stderr)
    assert outcome.stdout == ""


def test_graph_output_into_a_missing_folder_fails_before_the_graph_is_built(
        tmp_path: Path) -> None:
    """Hoyle's deal has more states than the default limit: found out only after seconds of
    building. A folder that does not exist is named at once instead."""
    target = tmp_path / "missing" / "g.dot"
    outcome = run_cli(["graph", HOYLE_DEAD_HAND_LINE, "--format", "dot", "--output",
                       str(target)], timeout=60)
    assert_contract(outcome, 2, within=5)
    assert "does not exist" in outcome.stderr  # the folder, named (docs/contract.md)
    assert not target.parent.exists()


def test_graph_output_onto_a_folder_is_an_error(tmp_path: Path) -> None:
    outcome = run_cli(["graph", GRAPH_DEAL, "--format", "dot", "--output", str(tmp_path)])
    assert_contract(outcome, 2, within=30)
    assert "is a folder, not a file" in outcome.stderr


def test_find_query_is_checked_in_the_library_too() -> None:
    """From Python, not only from the command line: a wrong query raises PopeJoanError."""
    def query(**changes: Any) -> FindQuery:
        fields: dict[str, Any] = {"prop": Property.FIRST_LEAD_OUT, "rules": HOYLE,
                                  "players": 4}
        return FindQuery(**(fields | changes))

    eight_of_diamonds = 1 << 20  # 8D: a card of the 52, not of the Pope Joan pack
    for bad in (query(time_limit=math.nan), query(time_limit=math.inf),
                query(time_limit=-1.0), query(time_limit=0.0), query(count=0),
                query(hold={0: eight_of_diamonds}), query(dead=eight_of_diamonds),
                query(hold={0: 1, 1: 1}), query(hold={0: 1}, dead=1), query(hold={7: 1})):
        with pytest.raises(PopeJoanError):
            find_deals(bad)
    for text in ("1:", "1:8D", "\u00b2:AC", ":AC", "1"):
        with pytest.raises(PopeJoanError):
            parse_hold(text, 4)


def test_find_time_limit_also_bounds_one_long_sat_call() -> None:
    """The deadline interrupts the SAT solver itself, not only the loop around it."""
    started = time.monotonic()
    result = find_deals(FindQuery(Property.FORCED_WIN, HOYLE, 8, count=50, time_limit=0.5))
    assert time.monotonic() - started < 3
    assert result.stats.timed_out or result.stats.exhausted


# ----------------------------------------------------------------------------- prove

def test_an_interrupted_z3_check_is_an_interrupt_not_an_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """z3 takes SIGINT during check() and answers ``unknown``; that must not become a verdict,
    and the shared encodings must not keep what the interrupted query asserted."""
    def interrupted(self: z3.Solver, *assumptions: Any) -> z3.CheckSatResult:
        return z3.unknown

    monkeypatch.setattr(z3.Solver, "check", interrupted)
    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "interrupted from keyboard")
    with pytest.raises(KeyboardInterrupt):
        prove(HOYLE, ["kings-are-stops"])

    ws = Workspace(PlaySemantics.of(HOYLE), players=(3,))
    ws._invariant[3] = True  # the invariant's own checks are not what this is about
    frame = ws.step_frame(3)
    before = len(frame.solver.assertions())
    with pytest.raises(KeyboardInterrupt):
        ws.check_step(3, lambda deal, position, step: step.lead[0])
    assert frame.solver.num_scopes() == 0
    assert len(frame.solver.assertions()) == before

    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "timeout")
    assert check_sat(z3.Solver()) == z3.unknown  # any other unknown stays an answer


def _pigeons(holes: int) -> z3.Solver:
    """``holes + 1`` pigeons in ``holes`` holes: unsat, and slow for z3 from about 9 holes."""
    solver = z3.Solver()
    at = [[z3.Bool(f"p{i}h{j}") for j in range(holes)] for i in range(holes + 1)]
    for row in at:
        solver.add(z3.Or(row))
    for j in range(holes):
        for i in range(holes + 1):
            for k in range(i):
                solver.add(z3.Not(z3.And(at[i][j], at[k][j])))
    return solver


def _ctrl_c_in(seconds: float) -> threading.Timer:
    """Ctrl-C to this process ``seconds`` from now (the main thread takes it)."""
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def _check_until(solver: z3.Solver, seconds: float) -> None:
    """Check ``solver`` (unsat) again and again for ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert check_sat(solver) == z3.unsat


@pytest.fixture
def python_ctrl_c() -> Iterator[None]:
    """Python's own Ctrl-C handler (test runners and xdist workers may ignore SIGINT)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach only the main thread")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("python_ctrl_c")
def test_ctrl_c_stops_a_long_z3_check_at_once() -> None:
    """A check that would run for many seconds is cancelled within a second of Ctrl-C."""
    solver = _pigeons(11)
    started = time.monotonic()
    timer = _ctrl_c_in(0.3)
    with pytest.raises(KeyboardInterrupt):
        check_sat(solver)
    timer.join()
    assert time.monotonic() - started < 1.5
    assert check_sat(_pigeons(3)) == z3.unsat  # and the next check answers as before


@pytest.mark.usefixtures("python_ctrl_c")
def test_ctrl_c_is_not_lost_to_a_check_that_takes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """z3's own SIGINT handler (on unless the solver's ``ctrl_c`` is off) takes a Ctrl-C that
    comes during a check, and a check that finishes anyway answers as if none came: the CI run
    of a ``prove`` once exited 0 after Ctrl-C. Modelled here: such a check swallows the signal
    whenever it is allowed to take it; Ctrl-C must still stop the run."""
    real_check, real_set = z3.Solver.check, z3.Solver.set
    ctrl_c_off: set[int] = set()

    def recording_set(self: z3.Solver, *args: Any, **keys: Any) -> None:
        if keys.get("ctrl_c") is False:
            ctrl_c_off.add(id(self))
        real_set(self, *args, **keys)

    def swallowing_check(self: z3.Solver, *assumptions: Any) -> z3.CheckSatResult:
        if id(self) in ctrl_c_off:
            time.sleep(0.1)
            return real_check(self, *assumptions)
        previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
        try:
            time.sleep(0.1)
            return real_check(self, *assumptions)
        finally:
            signal.signal(signal.SIGINT, previous)

    monkeypatch.setattr(z3.Solver, "set", recording_set)
    monkeypatch.setattr(z3.Solver, "check", swallowing_check)
    solver = _pigeons(3)
    timer = _ctrl_c_in(0.25)
    with pytest.raises(KeyboardInterrupt):
        _check_until(solver, 2)
    timer.join()
    solver.push()  # an interrupt that came between checks does not stay behind in z3
    solver.pop()


@pytest.mark.usefixtures("python_ctrl_c")
@pytest.mark.parametrize("attempt", range(2))
def test_ctrl_c_among_many_short_checks_is_never_lost(attempt: int) -> None:
    """Short checks back to back, Ctrl-C among them: it is always an interrupt. With z3's own
    handler on, a signal that came during a check which then finished was swallowed (the CI
    run of a ``prove`` exited 0 after Ctrl-C)."""
    solver = _pigeons(5)
    timer = _ctrl_c_in(0.2 + 0.013 * attempt)
    with pytest.raises(KeyboardInterrupt):
        _check_until(solver, 3)
    timer.join()


def test_a_theorem_is_proved_again_after_an_interrupted_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The third check (the vacuity guard's, after the theorem's own and the deal frame's)
    is interrupted; the same workspace then proves the theorem as if nothing had happened."""
    real = z3.Solver.check
    calls = [0]

    def interrupted_once(self: z3.Solver, *assumptions: Any) -> z3.CheckSatResult:
        calls[0] += 1
        return z3.unknown if calls[0] == 3 else real(self, *assumptions)

    monkeypatch.setattr(z3.Solver, "check", interrupted_once)
    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "interrupted from keyboard")
    ws = Workspace(PlaySemantics.of(HOYLE), players=(3,))
    with pytest.raises(KeyboardInterrupt):
        prove(HOYLE, ["seven-of-diamonds-stop"], workspace=ws)
    assert calls[0] == 3
    [result] = prove(HOYLE, ["seven-of-diamonds-stop"], workspace=ws)
    assert result.status is Status.PROVED


def test_ctrl_c_is_never_raised_inside_z3s_python_objects() -> None:
    """Raised there, KeyboardInterrupt left half-built z3 objects (a traceback from their
    ``__del__`` at exit), became a ctypes.ArgumentError, or was printed and lost in a
    ``__del__``; the handler puts it off while a z3 frame or a ``__del__`` is on the stack."""
    assert prover._safe_to_raise(sys._getframe())
    frames: list[FrameType] = []

    def record(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and (frame.f_code.co_filename.startswith(prover._Z3_DIR)
                                or frame.f_code.co_name == "__del__"):
            frames.append(frame)

    class Finalised:
        def __del__(self) -> None:
            pass

    sys.setprofile(record)
    try:
        z3.And(z3.Bool("a"), z3.Bool("b"))
        Finalised()
    finally:
        sys.setprofile(None)
    assert any(f.f_code.co_name == "__del__" for f in frames)
    assert len(frames) > 1
    assert not any(prover._safe_to_raise(f) for f in frames)


# ----------------------------------------------------------------------------- graph

def test_write_atomically_leaves_all_or_nothing(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "g.dot"
    write_atomically(target, "new\n")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot"]

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, "half\n")
    assert target.read_text() == "new\n"  # the old file, untouched
    with pytest.raises(KeyboardInterrupt):
        write_atomically(tmp_path / "other.dot", "half\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot"]  # no temporary file left
    monkeypatch.undo()
    with pytest.raises(PopeJoanError, match="cannot write"):
        write_atomically(tmp_path / "missing" / "g.dot", "text\n")


def test_a_graph_too_large_for_memory_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_memory(*args: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(graph_module, "_to_networkx", no_memory)
    with pytest.raises(GraphTooLargeError, match="does not fit in memory"):
        build_graph(parse_deal_text(GRAPH_DEAL))


@pytest.mark.parametrize(("memory_mb", "argv", "message"), [
    (300, [], "more than 200000 states"),
    (85, ["--max-states", "10000000"], "does not fit in memory"),
])
def test_graph_under_a_memory_cap_is_one_error_line(memory_mb: int, argv: list[str],
                                                   message: str) -> None:
    """Before: a networkx graph of about 1.6 KB a state ran out of memory at the default
    limit of 200,000 states (a MemoryError traceback); now the search keeps about 150 bytes a
    state, and running out of memory anyway is a clean error."""
    outcome = run_cli(["graph", HOYLE_DEAD_HAND_LINE, *argv], timeout=120,
                      memory=memory_mb << 20)
    assert_contract(outcome, 2, within=90)
    assert message in outcome.stderr


def _ignore_xfsz_and_cap_files() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (32 << 10, 32 << 10))


def test_a_failed_graph_write_leaves_no_half_written_file(tmp_path: Path) -> None:
    """Files are capped at 32 KB, the export is about 100 KB: the write fails part way. The
    old file at the path is kept as it was and no temporary file is left behind."""
    target = tmp_path / "g.dot"
    target.write_text("old\n")
    proc = subprocess.run([sys.executable, "-m", "popejoan_solver", "graph", GRAPH_DEAL,
                           "--format", "dot", "--output", str(target)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60,
                          preexec_fn=_ignore_xfsz_and_cap_files, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert [line for line in proc.stderr.splitlines() if line.startswith("error:")] == [
        f"error: cannot write {target}: File too large"]
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot"]


# ----------------------------------------------------------------------------- Ctrl-C

def _interrupt(argv: list[str], after: float) -> tuple[int, str, str, float]:
    """Start a command, send its process group SIGINT ``after`` seconds later; returns the
    status, stdout, stderr and the seconds it took to stop once signalled."""
    proc = subprocess.Popen([sys.executable, "-m", "popejoan_solver", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            start_new_session=True, preexec_fn=default_sigint)
    try:
        time.sleep(after)
        assert proc.poll() is None, "the command ended before the signal"
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return proc.returncode, out.decode(), err.decode(), time.monotonic() - sent


def _assert_interrupted(status: int, out: str, err: str, seconds: float) -> None:
    assert "Traceback" not in err, err
    assert status == 130, (status, err[-2000:])
    assert [line for line in err.splitlines() if not line.startswith("warning:")] == [
        "error: interrupted"], err
    assert seconds < 1.5, seconds
    assert out == ""  # nothing half-written


def test_ctrl_c_during_find_is_status_130() -> None:
    """Before: python-sat's own "Caught keyboard interrupt" error, a traceback."""
    for after in (1.5, 4.0):
        _assert_interrupted(*_interrupt(["find", "forced-win", "--players", "8", "--count",
                                         "50", "--json"], after))


def test_ctrl_c_during_prove_is_status_130_and_no_verdict() -> None:
    """Before: z3 swallowed the signal, the run went on and reported every theorem."""
    for argv, after in ((["prove", "--json"], 3.0), (["prove"], 9.0)):
        _assert_interrupted(*_interrupt(argv, after))


def test_ctrl_c_during_graph_is_status_130_and_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "g.dot"
    status, out, err, seconds = _interrupt(
        ["graph", HOYLE_DEAD_HAND_LINE, "--max-states", "10000000", "--format", "dot",
         "--output", str(target)], 6.0)
    _assert_interrupted(status, out, err, seconds)
    assert list(tmp_path.iterdir()) == []
