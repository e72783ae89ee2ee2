"""popejoan play through a pseudo-terminal: a person's view, advice, the record at the end."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from popejoan_solver import deal_random, parse_card
from popejoan_solver.cli import main
from popejoan_solver.model.record import parse_record_text
from popejoan_solver.model.referee import replay

PROMPT = re.compile(rb"your lead \(legal: ([^;]*);[^>]*> $|take it\? \(y/n, q quit\)> $")


def _read_until(fd: int, pattern: re.Pattern[bytes], buffer: bytearray, deadline: float,
                process: subprocess.Popen[bytes]) -> re.Match[bytes] | None:
    """Read the terminal until ``pattern`` matches its tail, or the program ends."""
    while time.monotonic() < deadline:
        found = pattern.search(bytes(buffer))
        if found:
            return found
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the program closed the terminal
                return None
            if not chunk:
                return None
            buffer += chunk
        elif process.poll() is not None:
            return None
    raise AssertionError(f"no prompt within the time limit; the screen:\n{buffer[-2000:]!r}")


def test_a_person_plays_a_deal_in_a_terminal(tmp_path: Path) -> None:
    record = tmp_path / "game.txt"
    main, secondary = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "popejoan_solver", "play", "--seat", "2", "--bots",
         "lowest,hoyle,random", "--players", "4", "--seed", "5", "--record", str(record)],
        stdin=secondary, stdout=secondary, stderr=secondary, close_fds=True)
    os.close(secondary)
    deadline = time.monotonic() + 90
    screen = bytearray()
    asked = False
    try:
        while True:
            found = _read_until(main, PROMPT, screen, deadline, process)
            if found is None:
                break
            shown = bytes(screen)
            screen.clear()
            if found.group(1) is None:  # a choice inside a run
                os.write(main, b"n\n")
                continue
            assert b"your hand (seat 2)" in shown
            if not asked:  # ask for advice once, then play the first legal card
                asked = True
                os.write(main, b"?\n")
                _read_until(main, PROMPT, screen, deadline, process)
                assert b"advised:" in bytes(screen)
                screen.clear()
            os.write(main, found.group(1).split()[0] + b"\n")
        assert process.wait(10) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main)
    assert asked
    text = record.read_text(encoding="utf-8")
    result = replay(parse_record_text(text))
    assert result.error is None
    assert result.record.players[1] == "you"
    assert b"result (counters won" in bytes(screen)
    assert b"the record (popejoan check reads it)" in bytes(screen)


def test_play_bad_input_is_one_line() -> None:
    done = subprocess.run([sys.executable, "-m", "popejoan_solver", "play", "--seat", "5",
                           "--bots", "hoyle,lowest"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("error: --seat must be from 1 to 3")
    assert done.stderr.count("\n") == 1


def test_ctrl_c_while_advice_is_searched_stops_the_game_at_once() -> None:
    """``?`` at the prompt runs ``popejoan advise``'s searches on worker threads; Ctrl-C there
    once waited for the searches under way (12.7 s): now status 130 within about a second."""
    main, secondary = os.openpty()
    process = subprocess.Popen(  # each deal drawn takes a tenth of a second or more to value
        [sys.executable, "-m", "popejoan_solver", "play", "--seat", "1", "--bots", "lowest,hoyle",
         "--rules", "early-hoyle+pope_in_lieu=pope-leads", "--seed", "101"],
        stdin=secondary, stdout=secondary, stderr=secondary, close_fds=True,
        start_new_session=True)
    os.close(secondary)
    screen = bytearray()
    try:
        assert _read_until(main, PROMPT, screen, time.monotonic() + 60, process) is not None
        screen.clear()
        os.write(main, b"?\n")
        time.sleep(1.0)
        while select.select([main], [], [], 0)[0]:
            screen += os.read(main, 65536)
        assert b"advised:" not in screen  # still searching
        process.send_signal(signal.SIGINT)
        asked = time.monotonic()
        assert process.wait(20) == 130
        assert time.monotonic() - asked < 5.0  # a second when idle; the machine may be shared
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main)


def test_play_refuses_a_record_it_cannot_write_before_the_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``play --record`` to a path it cannot write is refused before a card is dealt (never after
    the whole game, losing its record); a good path is checked and left untouched."""
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
    """``play --bots`` with an unknown bot, too few or too many bots for the other seats: the
    error names the bots, and no bot is dropped silently."""
    args = ["play", "--seat", "1", "--bots", bots] + (["--players", players] if players else [])
    assert main(args) == 2
    assert capsys.readouterr().err.startswith(f"error: {message}")


def test_play_says_when_the_turn_up_ends_the_deal(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Under early Hoyle a turned-up Pope ends the deal unplayed: ``play`` prints the turn-up,
    its payment and why nothing was played, before the result."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert deal_random(4, 179, "early-hoyle").turnup == parse_card("9D")  # the Pope turned up
    assert main(["play", "--seat", "2", "--bots", "hoyle,lowest,random", "--rules",
                 "early-hoyle", "--seed", "179"]) == 0
    out = capsys.readouterr().out
    assert "turn-up 9D: pope -> seat 4: 6 (Pope turned up)" in out
    assert "the turn-up ends the deal" in out
    assert out.index("the turn-up ends the deal") < out.index("result (counters won")


POPEJOAN = [sys.executable, "-m", "popejoan_solver"]


def test_play_against_two_bots_of_one_kind() -> None:
    done = subprocess.run([*POPEJOAN, "play", "--seat", "1", "--bots", "random,random",
                           "--players", "3"], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "your hand (seat 1)" in done.stdout
