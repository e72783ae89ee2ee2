"""``popejoan view`` and ``popejoan_solver.view``: a seat's knowledge on the command line."""

from __future__ import annotations

import json
import random
from math import factorial
from pathlib import Path

import pytest

from popejoan_solver import view
from popejoan_solver.cli import main
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.model.notation import deal_to_line
from popejoan_solver.model.play import Position
from popejoan_solver.model.record import record_of_line, record_to_text
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.seat import ViewError
from tests.seat.test_knowledge import random_line


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_view_json_at_the_outset_counts_the_multinomial(
        capsys: pytest.CaptureFixture[str]) -> None:
    deal = deal_random(4, 7)
    code, out, _ = run(capsys, "view", deal_to_line(deal), "--seat", "2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["seat"] == 2
    assert data["known_dead"] == [deal_to_line(deal).rsplit("^", 1)[1].strip()]
    # 30 cards of three other hands (10 each) and 10 unseen dead cards
    assert data["consistent_deals"] == factorial(40) // (factorial(10) ** 4)
    assert set(data["cannot_be_led_to"]) >= {"AC", "AD", "AH", "AS", "9D"}


def test_view_of_a_record_after_k_runs(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    deal = deal_random(3, 5, get_ruleset("britannica"))
    line = random_line(deal, random.Random(1), 6)
    path = tmp_path / "game.txt"
    path.write_text(record_to_text(record_of_line(deal, line)), encoding="utf-8")
    for after in (0, 3, len(line)):
        code, out, _ = run(capsys, "view", str(path), "--seat", "3", "--after", str(after),
                           "--json")
        assert code == 0
        data = json.loads(out)
        k = view(deal, 3, line[:after])
        assert data["known_dead"] == sorted(data["known_dead"], key=lambda c: (
            "CDHS".index(c[1]), "A23456789TJQK".index(c[0])))
        assert len(data["known_dead"]) == k.known_dead.bit_count()
        position = Position.from_deal(deal)
        for run_ in line[:after]:
            position = position.after(run_)
        assert data["to_lead"] == position.leader == k.leader
    code, out, _ = run(capsys, "view", str(path), "--seat", "1")
    assert code == 0
    assert "consistent deals:" in out


def test_view_with_a_line_of_steps(capsys: pytest.CaptureFixture[str]) -> None:
    deal = deal_random(4, 3)
    line = random_line(deal, random.Random(2), 3)
    steps = " ".join(run_.step for run_ in line)
    code, out, _ = run(capsys, "view", deal_to_line(deal), "--seat", "1", "--line", steps,
                       "--json")
    assert code == 0
    assert json.loads(out)["consistent_deals"] > 0


@pytest.mark.parametrize("extra", [["--seat", "9"], ["--seat", "0"], ["--seat", "1", "--deal",
                                                                       "2"],
                                   ["--seat", "1", "--line", "ZZ"]])
def test_bad_view_input_is_one_error_line(capsys: pytest.CaptureFixture[str],
                                          extra: list[str]) -> None:
    code, _, err = run(capsys, "view", deal_to_line(deal_random(4, 7)), *extra)
    assert code == 2
    assert err.startswith("error: ")
    assert len(err.splitlines()) == 1


def test_a_position_without_its_line_under_a_lead_rule_asks_for_the_record(
        capsys: pytest.CaptureFixture[str]) -> None:
    deal = deal_random(3, 5, get_ruleset("britannica"))
    line = random_line(deal, random.Random(1), 3)
    position = Position.from_deal(deal)
    for run_ in line:
        position = position.after(run_)
    snapshot = deal.__class__.create(
        tuple(position.game.held(position.played, s) for s in range(1, 4)), deal.dead,
        deal.turnup, deal.rules,
        played=tuple(position.game.dealt[s] & position.played for s in range(3)),
        leader=position.leader)
    code, _, err = run(capsys, "view", deal_to_line(snapshot), "--seat", "1")
    assert code == 2
    assert "needs its line of play" in err
    assert len(err.splitlines()) == 1


def test_python_view_takes_seats_from_one() -> None:
    deal = deal_random(3, 1)
    assert view(deal, 1).seat == 1
    assert view(deal, 3).seat == 3
    for bad in (0, 4, -1):
        with pytest.raises(ViewError):
            view(deal, bad)


POPE_ENDS = ("hoyle-modernized+pope_turnup=ends-deal: 34Q.A4.7J.A238J 568J.56K.89.45Q "
             "A79.2TJ.234Q.TK | 2TK.379Q.A56TK.679 ^9D")


def test_a_deal_the_turned_up_pope_ended_is_over_with_no_one_to_lead(
        capsys: pytest.CaptureFixture[str]) -> None:
    from popejoan_solver.model.errors import IllegalPlayError
    from popejoan_solver.model.notation import parse_deal_text

    deal = parse_deal_text(POPE_ENDS)
    k = view(deal, 2)
    assert k.over
    assert k.winner is None
    code, out, _ = run(capsys, "view", POPE_ENDS, "--seat", "2", "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["over"], data["to_lead"], data["out"]) == (True, None, None)
    code, out, _ = run(capsys, "view", POPE_ENDS, "--seat", "2")
    assert "ended the deal unplayed" in out.splitlines()[0]
    outset = Position.from_deal(deal)
    assert outset.legal_leads() == []
    eldest = outset.game.legal_leads(0, 1)[0]  # the lead rule alone would allow it
    with pytest.raises(IllegalPlayError):
        view(deal, 1, [outset.game.run(0, 1, eldest)])
    fresh = parse_deal_text(POPE_ENDS.replace("+pope_turnup=ends-deal", ""))
    assert not view(fresh, 2).over  # the same cards under the default rule are played


@pytest.mark.parametrize(("steps", "message"), [
    ("ZZ", "--line step 1: not a card: 'ZZ'"),
    ("3C+4C@ZZ", "--line step 1: not a card: 'ZZ'"),
    ("3C+", "--line step 1: a step is LEAD or LEAD+CARD@AFTER"),
    ("3C 3C", "--line step 2 ('3C'): seat "),
    ("KD", "--line step 1 ('KD'): seat 1 may not lead KD"),
])
def test_a_bad_line_step_says_which_step_and_why(capsys: pytest.CaptureFixture[str],
                                                 steps: str, message: str) -> None:
    deal = ("hoyle-modernized: A3.26J.8Q.589QK 9.359.45679.36J 6QK.A4TK.23TK.2 | "
            "24578TJ.7Q.AJ.A47T ^AH")
    code, _, err = run(capsys, "view", deal, "--seat", "1", "--line", steps)
    assert code == 2
    assert err.startswith(f"error: {message}"), err
    assert len(err.splitlines()) == 1


def test_python_view_refuses_wrong_types_and_takes_steps_or_runs() -> None:
    from popejoan_solver.model.errors import PopeJoanError

    deal = deal_random(3, 4)
    line = random_line(deal, random.Random(3), 3)
    steps = [run_.step for run_ in line]
    expected = view(deal, 2, line)
    assert view(deal, 2, steps) == expected
    assert view(deal, 2, " ".join(steps)) == expected
    assert view(deal, 2, [steps[0], *line[1:]]) == expected
    for seat in ("1", None, 1.0, True, [1]):
        with pytest.raises(ViewError, match="seat must be a whole number"):
            view(deal, seat)  # type: ignore[arg-type]
    for bad in (3, None, b"3C", {"3C": 1}, [3], [None], ["ZZ"], [line[1], line[1]]):
        with pytest.raises(PopeJoanError):
            view(deal, 1, bad)  # type: ignore[arg-type]
    with pytest.raises(ViewError, match="must be a Deal"):
        view(deal_to_line(deal), 1)  # type: ignore[arg-type]


@pytest.mark.parametrize("seat", ["1", None, 1.0, True])
def test_view_refuses_a_seat_that_is_not_a_number(seat: object) -> None:
    with pytest.raises(PopeJoanError):
        view(deal_random(3, 1), seat)  # type: ignore[arg-type]
