"""Game records and the referee: legal records of every ruleset confirmed, every kind of illegal
step caught at the right play with its rule, the JSON and text forms lossless, the CLI."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from popejoan_solver.model.board import Board, Compartment
from popejoan_solver.model.cards import card_name, parse_card
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.errors import CONTROL_CHARACTERS, NotationError
from popejoan_solver.model.notation import deal_from_json
from popejoan_solver.model.play import Position, Run
from popejoan_solver.model.record import (
    Claim,
    DealSeed,
    Play,
    Record,
    RecordedDeal,
    parse_record_text,
    plays_of_run,
    record_from_json,
    record_from_text,
    record_of_line,
    record_to_json,
    record_to_text,
)
from popejoan_solver.model.referee import Breach, RecordReplay, replay
from popejoan_solver.model.rules import RULESETS, get_ruleset
from popejoan_solver.model.settlement import turnup_award
from popejoan_solver.model.sources import appears_in
from popejoan_solver.model.table import compile_rules
from tests.conftest import deal_holding, short_deal
from tests.contract import assert_contract, run_cli, run_main
from tests.quotes import REFEREE_PHRASES, read_excerpt

CHOICE_RULESETS = ("hoyle-modernized+pope_in_lieu=run-continues",
                   "hoyle-modernized+pope_in_lieu=pope-leads", "spinado")


def random_line(deal: Deal, rng: random.Random) -> list[Run]:
    """A whole deal played by random legal leads and random choices inside the runs (none
    when the turn-up ends the deal unplayed, as a Pope does under early-hoyle)."""
    if not turnup_award(deal, deal.board_or_dressed).deal_is_played:
        return []
    position = Position.from_deal(deal)
    runs = []
    while not position.is_over:
        run = rng.choice(position.outcomes(rng.choice(position.legal_leads())))
        runs.append(run)
        position = position.after(run)
    return runs


def one_deal(deal: Deal, runs: list[Run]) -> Record:
    return record_of_line(deal, runs)


def plays(record: Record) -> list[Play]:
    return list(record.deals[0].plays)


def with_plays(record: Record, new: list[Play]) -> Record:
    return replace(record, deals=(replace(record.deals[0], plays=tuple(new)),))


def error_of(record: Record) -> tuple[Breach, int | None]:
    result = replay(record)
    assert result.error is not None, "the referee confirmed an illegal record"
    return result.error.breach, result.error.play


@pytest.mark.parametrize("name", [*RULESETS, *CHOICE_RULESETS])
def test_a_legal_record_of_every_ruleset_is_confirmed(name: str) -> None:
    rules = get_ruleset(name)
    choice = compile_rules(rules).choice_points
    for seed in range(4):
        players = 3 + seed
        deal = (deal_holding(name, choice[0].card, players, 5, seed) if choice
                else deal_random(players, seed, rules))
        runs = random_line(deal, random.Random(seed))
        result = replay(one_deal(deal, runs))
        assert result.legal, result.error
        assert [s.run for s in result.deals[0].steps] == runs
        replayed = result.deals[0]
        assert sum(replayed.values) + replayed.board_after.total() \
            == replayed.board_before.total() == 0


def test_a_choice_in_a_run_is_its_own_marked_entry() -> None:
    case = deal_from_json({"rules": "hoyle-modernized+pope_in_lieu=run-continues",
                           "hands": ["8S 9S 3C 4C", "9D JS QS 4H", "KS 5H"],
                           "dead": _rest("8S 9S 3C 4C 9D JS QS 4H KS 5H"), "turnup": "KC"})
    position = Position.from_deal(case)
    runs = position.outcomes(parse_card("8S"))
    in_lieu = next(r for r in runs if r.chosen is not None)
    entries = plays_of_run(in_lieu)
    assert [p.text for p in entries] == ["8S(1)", "9S(1)", "+9D(2)", "JS(2)", "QS(2)", "KS(3)"]
    record = one_deal(case, [in_lieu, position.after(in_lieu).play(parse_card("5H"))[0]])
    assert replay(record).legal
    unmarked = [replace(p, choice=False) for p in plays(record)]
    assert error_of(with_plays(record, unmarked)) == (Breach.CHOICE, 2)


def _rest(held: str) -> str:
    from popejoan_solver.model.cards import PACK, CardSet, format_cards
    return format_cards(PACK & ~CardSet.parse(held).mask)


@pytest.fixture
def example() -> Record:
    deal = deal_random(4, 7, get_ruleset("britannica"))
    return one_deal(deal, random_line(deal, random.Random(7)))


def test_a_lead_the_lead_rule_forbids(example: Record) -> None:
    position = Position.from_deal(example.deals[0].deal)
    held = position.game.held(0, 1)
    illegal = next(c for c in range(52) if held >> c & 1 and c not in position.legal_leads())
    bad = [Play(1, illegal), *plays(example)]
    result = replay(with_plays(example, bad))
    assert result.error is not None
    assert (result.error.breach, result.error.play) == \
        (Breach.LEAD_RULE, 0)
    assert "lowest" in result.error.source.phrase
    assert result.error.to_json()["play"] == 1


def test_a_lead_out_of_turn_and_a_card_not_held(example: Record) -> None:
    first = plays(example)[0]
    assert error_of(with_plays(example, [replace(first, seat=2), *plays(example)[1:]])) == \
        (Breach.LEAD_OUT_OF_TURN, 0)
    stranger = next(c for c in range(52)
                    if example.deals[0].deal.hands[1] >> c & 1)
    assert error_of(with_plays(example, [Play(1, stranger), *plays(example)[1:]])) == \
        (Breach.LEAD_RULE, 0)


def _long_run(record: Record) -> tuple[int, Run]:
    """The index of the first play of the first run of three cards or more by two seats."""
    steps = replay(record).deals[0].steps
    step = next(s for s in steps if len(s.run.cards) >= 3 and len(set(s.run.seats)) > 1)
    return step.first_play, step.run


def test_a_card_played_out_of_turn_in_a_run(example: Record) -> None:
    at, run = _long_run(example)
    k = next(i for i in range(1, len(run.cards)) if run.seats[i] != run.seats[i - 1])
    bad = plays(example)
    bad[at + k] = replace(bad[at + k], seat=bad[at + k].seat % 4 + 1)
    assert error_of(with_plays(example, bad)) == (Breach.OUT_OF_TURN, at + k)


def test_a_run_stopped_too_early(example: Record) -> None:
    at, run = _long_run(example)
    k = next(i for i in range(1, len(run.cards)) if run.seats[i] != run.seats[i - 1])
    bad = plays(example)
    held = Position.from_deal(example.deals[0].deal).game.dealt[run.seats[k - 1] - 1]
    played = {p.card for p in bad[:at + k]}
    other = next(c for c in range(52) if held >> c & 1 and c not in played)
    bad[at + k] = Play(run.seats[k - 1], other)
    assert error_of(with_plays(example, bad)) == (Breach.STOPPED_EARLY, at + k)


def test_a_run_continued_past_a_stop() -> None:
    hands = ["3C 4C 2H", "5C 9H", "7C TH"]
    deal = deal_from_json({"hands": hands, "dead": _rest(" ".join(hands)), "turnup": "KS"})
    good = one_deal(deal, random_line(deal, random.Random(0)))
    assert replay(good).legal
    # 3C 4C 5C: the 6C is dead, so the 5C is a stop; the 7C by seat 3 goes on past it.
    bad = with_plays(good, [Play(1, parse_card("3C")), Play(1, parse_card("4C")),
                            Play(2, parse_card("5C")), Play(3, parse_card("7C"))])
    result = replay(bad)
    assert result.error is not None
    assert (result.error.breach, result.error.play) == (Breach.PAST_STOP, 3)
    assert "5C is a stop" in result.error.message


def test_a_player_who_should_have_gone_out_and_an_unfinished_deal(example: Record) -> None:
    done = plays(example)
    winner = replay(example).deals[0].steps[-1].run.winner
    assert winner is not None
    extra = Play(winner % 4 + 1, next(c for c in range(52) if all(p.card != c for p in done)
                                      and example.deals[0].deal.hands[winner % 4] >> c & 1))
    assert error_of(with_plays(example, [*done, extra])) == (Breach.AFTER_OUT, len(done))
    assert error_of(with_plays(example, done[:-1])) == (Breach.UNFINISHED, len(done) - 1)


def test_a_turnup_that_ends_the_deal() -> None:
    rules = get_ruleset("early-hoyle")
    deal = next(d for d in (deal_random(3, s, rules) for s in range(400))
                if card_name(d.turnup) == "9D")
    record = one_deal(deal, [])
    assert replay(record).legal
    assert Position.from_deal(deal).legal_leads() == []
    lead = Play(1, Position.from_deal(deal).game.legal_leads(0, 1)[0])  # by the lead rule
    assert error_of(with_plays(record, [lead])) == (Breach.TURNUP, 0)


def test_a_claimed_payment_the_rules_do_not_give(example: Record) -> None:
    values = replay(example).deals[0].values
    right = replace(example.deals[0], claim=Claim(values, replay(example).deals[0].board_after))
    assert replay(replace(example, deals=(right,))).legal
    wrong = replace(right, claim=Claim((values[0] + 1, *values[1:])))
    result = replay(replace(example, deals=(wrong,)))
    assert result.error is not None
    assert result.error.breach is Breach.CLAIM
    assert result.error.to_json()["play"] is None


def test_every_cited_phrase_stands_in_its_source() -> None:
    from popejoan_solver.model import referee
    text = read_excerpt("hoyles-games-modernized.txt")
    for name in REFEREE_PHRASES:
        assert appears_in(getattr(referee, name).phrase, text), name


# ----------------------------------------------------------------------------- forms

@st.composite
def records(draw: st.DrawFn) -> Record:
    """Records of random deals and plays (legal or not: the forms carry any)."""
    name = draw(st.sampled_from([*RULESETS, *CHOICE_RULESETS]))
    players = draw(st.integers(3, 6))
    deal = short_deal(players, draw(st.integers(1, 6)), draw(st.integers(0, 10_000)),
                      get_ruleset(name))
    if draw(st.booleans()):
        kept = compile_rules(deal.rules).compartments
        deal = deal.with_board(Board(**{c.value: draw(st.integers(0, 50)) if c in kept else 0
                                        for c in Compartment}))
    names = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,10}", fullmatch=True).filter(
        lambda k: k.lower() not in ("rules", "player", "dealer", "deal", "claimedvalues",
                                    "claimedboard", "finalround"))
    shown = st.text(max_size=20).filter(lambda s: not CONTROL_CHARACTERS.search(s))
    tags = tuple(draw(st.dictionaries(names, shown, max_size=3)).items())
    play_list = draw(st.lists(st.builds(Play, st.integers(1, players), st.integers(0, 51)
                                        .filter(lambda c: card_name(c) != "8D"), st.booleans()),
                              max_size=12))
    claim = Claim(draw(st.none() | st.tuples(*[st.integers(-99, 99)] * players)),
                  draw(st.none() | st.builds(Board, *[st.integers(0, 9)] * 8)))
    dealt_by: DealSeed | None = None
    if draw(st.booleans()):
        dealt_by = DealSeed(draw(st.integers(-(1 << 62), 1 << 62)), draw(st.integers(0, 99)),
                            players)
        deal = dealt_by.deal(deal.rules)
    recorded = RecordedDeal(deal, tuple(play_list), draw(st.none() | st.integers(1, players)),
                            tags, claim, dealt_by)
    session = (recorded,) * draw(st.integers(1, 3))
    people = draw(st.none() | st.lists(st.text(min_size=1, max_size=8).filter(
        lambda s: s.strip() != "" and not CONTROL_CHARACTERS.search(s)), min_size=players,
        max_size=players))  # control characters are refused (cli/test_terminal_safety.py)
    return Record(deal.rules, session, tags, tuple(people or ()),
                  draw(st.none() | st.integers(1, players)))


@given(records())
@settings(max_examples=150, deadline=None)
def test_json_and_text_convert_into_each_other_without_loss(record: Record) -> None:
    as_json = json.loads(json.dumps(record_to_json(record)))
    assert record_from_json(as_json) == record
    text = record_to_text(record)
    assert record_from_text(text) == record
    assert parse_record_text(text) == parse_record_text(json.dumps(as_json)) == record


@pytest.mark.parametrize(("bad", "message"), [
    ("", "empty"),
    ('{"format": "popejoan-record", "version": 2, "rules": "parlett", "deals": []}', "version"),
    ('{"format": "popejoan-record", "version": 1, "rules": "parlett", "deals": [{}]}',
     "needs \"deal\""),
    ('[Rules "parlett"]\n[Deal "x"]', "deal 1"),
    ('[Rules "nope"]', "unknown ruleset"),
    ('[Deal "x"]', "starts with"),
    ('[Rules "parlett"]\n3C(1)', "after a [Deal"),
    ('{"format": "popejoan-record", "version": 1, "rules": "parlett", "tags": {"Dealer": "2"},'
     ' "deals": [{"deal": {"seed": 1, "players": 3}}]}', "names a field"),
    ('{"format": "popejoan-record", "version": 1, "rules": "parlett",'
     ' "deals": [{"deal": {"seed": 1, "players": 3, "rules": "peel"}}]}', "unknown key"),
    ('[Rules "parlett"]\n[Deal "seed 1 index 0 players 9"]', "3 to 8"),
    ('[Rules "parlett"]\n[Deal "seed 1 index 0 players 3"]\n5X(1)', "not a card"),
    ('[Rules "parlett"]\n[Deal "seed 1 index 0 players 3"]\n5C(4)', "seat must be"),
])
def test_malformed_records_are_notation_errors(bad: str, message: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_record_text(bad)
    assert message in str(caught.value)


def test_a_deal_under_other_rules_than_the_record() -> None:
    from popejoan_solver.model.notation import deal_to_line
    line = deal_to_line(deal_random(3, 1, get_ruleset("peel+lead=lowest-in-hand")))
    with pytest.raises(NotationError, match="not the record's"):
        record_from_text(f'[Rules "peel"]\n[Deal "{line}"]')
    same = deal_to_line(deal_random(3, 1, get_ruleset("peel+ace=low")))
    assert record_from_text(f'[Rules "peel"]\n[Deal "{same}"]').deals[0].deal.rules \
        .options() == get_ruleset("peel").options()


# ----------------------------------------------------------------------------- CLI

def test_check_confirms_what_solve_writes_and_reports_the_first_error(
        tmp_path: Path) -> None:
    path = tmp_path / "line.json"
    done = run_main(["solve", "--record", str(path), "--seat", "1"])
    assert_contract(done, 0)
    checked = run_main(["check", str(path), "--json"])
    assert_contract(checked, 0)
    data = json.loads(checked.stdout)
    assert data["legal"] is True
    assert data["error"] is None
    # The solver's value for seat 1 is what the referee's replay of its line pays seat 1 (the
    # dealer, seat 4, dresses the board and takes the turned-up king's compartment).
    solved = json.loads(run_main(["solve", "--seat", "1", "--json"]).stdout)
    assert data["deals"][0]["values"][0] == solved["seats"][0]["guaranteed"]
    assert sum(data["totals"]) + sum(data["board"].values()) == 0
    record = record_from_json(json.loads(path.read_text()))
    broken = with_plays(record, plays(record)[1:])
    text = tmp_path / "broken.txt"
    text.write_text(record_to_text(broken))
    failed = run_main(["check", str(text), "--json"])
    assert_contract(failed, 1)
    assert json.loads(failed.stdout)["error"]["play"] == 1
    # The real command, reading the record on its standard input.
    assert_contract(run_cli(["check", "-"], stdin=record_to_text(broken).encode()), 1)


@pytest.mark.parametrize("stdin", [b"{", b"[Rules \"parlett\"]\nnonsense", b"\xff",
                                   b"{\"format\": \"popejoan-record\"}"])
def test_a_malformed_record_is_one_error_line(stdin: bytes) -> None:
    assert_contract(run_main(["check", "-"], stdin=stdin), 2)


def test_a_record_file_too_large_a_folder_or_missing(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b";" * (1 << 20) + b"\n")
    too_large = run_main(["check", str(big)])
    for outcome in (too_large, run_main(["check", str(tmp_path)]),
                    run_main(["check", str(tmp_path / "missing.json")])):
        assert_contract(outcome, 2)
    assert "larger than 1048576 bytes" in too_large.stderr


def test_a_record_starts_from_popejoan_deal() -> None:
    dealt = run_main(["deal", "--players", "4", "--seed", "3", "--format", "record"])
    assert_contract(dealt, 0)
    assert json.loads(dealt.stdout)["deals"][0]["deal"] == {"seed": 3, "index": 0, "players": 4}
    record = record_from_json(json.loads(dealt.stdout))
    assert record.deals[0].deal == deal_random(4, 3)
    assert "[Deal \"seed 3 index 0 players 4\"]" in record_to_text(record)
    result: RecordReplay = replay(record)
    assert result.error is not None
    assert result.error.breach is Breach.UNFINISHED


@pytest.mark.parametrize("name", [*RULESETS, *CHOICE_RULESETS])
def test_illegal_records_of_every_ruleset(name: str) -> None:
    """Each ruleset: a lead out of turn, a card out of turn in a run, a play after a player
    went out and a deal left unfinished are each caught at their play."""
    rules = get_ruleset(name)
    for seed in range(50):
        deal = deal_random(4, seed, rules)
        record = one_deal(deal, random_line(deal, random.Random(seed)))
        runs = [s for s in replay(record).deals[0].steps if len(set(s.run.seats)) > 1]
        if runs:
            break
    else:
        pytest.fail("no deal with a run by two seats")
    done = plays(record)
    assert error_of(with_plays(record, [replace(done[0], seat=2), *done[1:]])) == \
        (Breach.LEAD_OUT_OF_TURN, 0)
    step = runs[0]
    k = next(i for i, s in enumerate(step.run.seats) if s != step.run.leader)
    moved = list(done)
    moved[step.first_play + k] = replace(moved[step.first_play + k],
                                         seat=step.run.seats[k] % 4 + 1)
    assert error_of(with_plays(record, moved)) == (Breach.OUT_OF_TURN, step.first_play + k)
    assert error_of(with_plays(record, [*done, done[0]])) == (Breach.AFTER_OUT, len(done))
    assert error_of(with_plays(record, done[:-1]))[0] is Breach.UNFINISHED
    if rules.lead.value != "any":
        position = Position.from_deal(deal)
        held = position.game.held(0, 1)
        banned = [c for c in range(52) if held >> c & 1 and c not in position.legal_leads()]
        if banned:
            assert error_of(with_plays(record, [Play(1, banned[0]), *done])) == \
                (Breach.LEAD_RULE, 0)
