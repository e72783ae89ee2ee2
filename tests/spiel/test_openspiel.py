"""Pope Joan in OpenSpiel: the contract of OpenSpiel's own games_sim_test (random playouts,
clones, serialization, returns within the declared bounds, terminal states with no legal
actions), the returns against the referee's settlement of the same deal and line, the dealing
against the model's, and information states that show a seat what it sees and nothing else."""

from __future__ import annotations

import random
from typing import Any

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed: pip install 'popejoan-solver[openspiel]'")

from popejoan_solver.model.deal import deal_random, shuffled_pack  # noqa: E402
from popejoan_solver.model.record import record_of_line  # noqa: E402
from popejoan_solver.model.referee import replay  # noqa: E402
from popejoan_solver.model.rules import get_ruleset  # noqa: E402
from popejoan_solver.model.settlement import net  # noqa: E402
from popejoan_solver.model.table import compile_rules  # noqa: E402
from popejoan_solver.spiel import game as spiel_game  # noqa: E402

RULESETS = ("hoyle-modernized", "britannica", "spinado", "cassell",
            "peel+pope_in_lieu=run-continues", "early-hoyle+pope_in_lieu=pope-leads")


@pytest.mark.parametrize("rules", RULESETS)
def test_openspiel_random_sim_test(rules: str) -> None:
    """OpenSpiel's own checks (games_sim_test's random_sim_test, serialization included)."""
    for players in (3, 5, 8):
        game = spiel_game.load(players, rules)
        pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def _playout(game: Any, rng: random.Random) -> tuple[Any, list[Any]]:
    """A random playout; every state on the way checked against its clone and its
    serialized copy."""
    state = game.new_initial_state()
    seen = []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
            state.apply_action(rng.choice([a for a, _ in outcomes]))
            continue
        legal = state.legal_actions()
        assert legal == sorted(legal)
        assert legal
        clone = state.clone()
        copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
        for other in (clone, copy):
            assert other.history() == state.history()
            assert other.information_state_string() == state.information_state_string()
            assert other.legal_actions() == legal
        seen.append(clone)
        state.apply_action(rng.choice(legal))
    assert state.legal_actions() == []
    return state, seen


@pytest.mark.parametrize("players", range(3, 9))
def test_playouts_settle_as_the_referee(players: int) -> None:
    """Returns within the declared bounds and equal to the referee's settlement (dressing
    left out) of the same deal and line, under every ruleset family."""
    rng = random.Random(players)
    choices = 0
    for rules in RULESETS:
        game = spiel_game.load(players, rules)
        for _ in range(2):
            state, _ = _playout(game, rng)
            choices += len(state.choices)
            returns = state.returns()
            assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
            deal = state.deal
            replayed = replay(record_of_line(deal, state.runs)).deals[0]
            assert (replayed.steps and replayed.steps[-1].run == state.runs[-1]) or not state.runs
            expected = [v - net(replayed.dressing, s) for s, v in enumerate(replayed.values, 1)]
            assert returns == expected
    assert choices, "no playout reached a choice inside a run"


def test_pope_turned_up_ends_the_deal() -> None:
    """A Pope turned up under a ruleset where it ends the deal: terminal before any lead."""
    rules = get_ruleset("early-hoyle")
    assert compile_rules(rules).ends_deal_turnup is not None
    for index in range(400):
        deal = deal_random(4, 3, rules, index)
        if deal.turnup == compile_rules(rules).ends_deal_turnup:
            break
    state = _dealt(spiel_game.load(4, "early-hoyle"), 3, index)
    assert state.deal.with_board(None) == deal
    assert state.is_terminal()
    assert state.legal_actions() == []
    assert state.returns()[3] > 0


def _dealt(game: Any, seed: int, index: int = 0) -> Any:
    """The state after dealing the pack shuffled by ``seed`` card by card."""
    state = game.new_initial_state()
    for card in shuffled_pack(seed, index, game.rules.table.pack):
        state.apply_action(card)
    return state


@pytest.mark.parametrize("rules", ["hoyle-modernized", "spinado", "britannica"])
def test_dealing_is_the_models(rules: str) -> None:
    """Dealing the model's shuffled pack through the chance nodes gives ``deal_random``'s deal."""
    for players in (3, 6, 8):
        for seed in range(3):
            game = spiel_game.load(players, rules)
            state = _dealt(game, seed)
            assert state.deal.with_board(None) == deal_random(players, seed, get_ruleset(rules))


def _replayed(game: Any, deal_cards: list[int], actions: list[int]) -> Any | None:
    """The state after dealing ``deal_cards`` and playing ``actions``; None if one is illegal
    there."""
    state = game.new_initial_state()
    for card in deal_cards:
        state.apply_action(card)
    for action in actions:
        if state.is_terminal() or action not in state.legal_actions():
            return None
        state.apply_action(action)
    return state


def _views(state: Any, player: int) -> tuple[str, list[float], str, list[float]]:
    return (state.information_state_string(player), state.information_state_tensor(player),
            state.observation_string(player), state.observation_tensor(player))


@pytest.mark.parametrize("rules", ["hoyle-modernized", "britannica", "spinado", "cassell",
                                   "peel+pope_in_lieu=run-continues"])
def test_hidden_cards_do_not_show(rules: str) -> None:
    """Swapping two cards a seat cannot see (between two other hands) leaves its information
    state and observation (strings and tensors) unchanged while the swapped seats' change;
    swapping one of its own cards changes them."""
    rng = random.Random(rules)
    players = 4
    game = spiel_game.load(players, rules)
    choice_cards = {c.card for c in compile_rules(game.rules).choice_points}
    checked = 0
    for seed in range(40):
        if checked >= 6:
            break
        state = _dealt(game, seed)
        if state.is_terminal():
            continue
        actions = []
        for _ in range(rng.randrange(0, 4)):
            if state.is_terminal():
                break
            actions.append(rng.choice(state.legal_actions()))
            state.apply_action(actions[-1])
        if state.is_terminal():
            continue
        player = state.current_player()
        dealt = list(state.dealt)
        order = game.order
        played = state.position.played
        others = [i for i, whom in enumerate(order)
                  if whom not in (player, players) and not played >> dealt[i] & 1
                  and dealt[i] not in choice_cards]
        own = [i for i, whom in enumerate(order) if whom == player
               and not played >> dealt[i] & 1 and dealt[i] not in choice_cards]
        i, j = rng.sample(others, 2)
        if order[i] == order[j]:
            continue
        swapped = _replayed(game, _swap(dealt, i, j), actions)
        if swapped is None or swapped.current_player() != player:
            continue
        assert swapped.deal != state.deal
        assert _views(swapped, player) == _views(state, player)
        assert (swapped.information_state_string(order[i])
                != state.information_state_string(order[i]))
        mine = _replayed(game, _swap(dealt, i, rng.choice(own)), actions)
        if mine is not None:
            seen, seen_now = _views(mine, player), _views(state, player)
            assert seen[0] != seen_now[0]
            assert seen[1] != seen_now[1]
            assert seen[2] != seen_now[2]
            assert seen[3] != seen_now[3]
        checked += 1
    assert checked >= 3


def _swap(cards: list[int], i: int, j: int) -> list[int]:
    swapped = list(cards)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    return swapped


def test_bad_parameters() -> None:
    """A bad ruleset, player count or board is refused with the model's error."""
    from popejoan_solver.model.errors import PopeJoanError
    for params in ({"players": 9}, {"rules": "nonsense"}, {"board": "pope=x"}):
        with pytest.raises(PopeJoanError):
            pyspiel.load_game(spiel_game.GAME_NAME, params)


@pytest.mark.parametrize(("rules", "players"), [("hoyle-modernized", 4), ("britannica", 3),
                                                ("spinado", 5), ("cassell", 4)])
def test_sampled_worlds_share_the_seats_information_state(rules: str, players: int) -> None:
    """The ismcts bot's worlds (deals drawn from the seat's knowledge, dealt and replayed) give
    the seat the information state the true deal gives it, and they are not all the truth."""
    from popejoan_solver.seat import knowledge, sample_deals
    from popejoan_solver.spiel.worlds import state_from

    rng = random.Random(rules)
    game = spiel_game.load(players, rules)
    for index in range(3):
        deal = deal_random(players, 17, get_ruleset(rules), index)
        truth = state_from(game, deal, ())
        line = []
        for _ in range(rng.randrange(1, 4)):
            if truth.is_terminal() or truth.pending is not None:
                break
            truth.apply_action(rng.choice(truth.legal_actions()))
            while truth.pending is not None:
                truth.apply_action(rng.choice(truth.legal_actions()))
            line = list(truth.runs)
        if truth.is_terminal():
            continue
        seat = truth.current_player()
        k = knowledge(deal, seat + 1, line)  # an OpenSpiel player counts from 0
        worlds = [state_from(game, d, k.line) for d in sample_deals(k, 8, index)]
        assert {w.information_state_string(seat) for w in worlds} == {
            truth.information_state_string(seat)}
        assert any(w.deal.at_outset().hands != deal.hands for w in worlds)


def _match_deal(rules: str, spec: str, index: int) -> Any:
    from popejoan_solver.bots.driver import play_deal
    from popejoan_solver.bots.registry import make_bot

    deal = deal_random(4, 23, get_ruleset(rules), index)
    bots = [make_bot(spec, 3), make_bot("random"), make_bot("lowest"), make_bot("random")]
    return play_deal(deal, bots, 9)


@pytest.mark.parametrize("rules", ["hoyle-modernized", "spinado"])
def test_ismcts_bot_plays_legally_and_reproducibly(rules: str) -> None:
    """Through the bots' driver (which checks every choice is legal): the same seed plays the
    same line, and the record passes the referee."""
    spec = "ismcts:simulations=30,worlds=10"
    first, again = _match_deal(rules, spec, 1), _match_deal(rules, spec, 1)
    assert first.runs == again.runs
    assert replay(record_of_line(first.deal, first.runs)).legal


def test_ismcts_options_are_checked() -> None:
    from popejoan_solver.bots.base import BotError
    from popejoan_solver.bots.registry import make_bot

    for spec in ("ismcts:simulations=0", "ismcts:speed=3", "ismcts:uct=x", "ismcts:time=-1",
                 "ismcts:peek=maybe"):
        with pytest.raises(BotError, match=r"^bot 'ismcts"):
            make_bot(spec, 0)
    assert make_bot("ismcts:time=0.5,uct=3", 0).name == "ismcts:time=0.5,uct=3"


@pytest.mark.parametrize("rules", ["hoyle-modernized", "britannica", "spinado",
                                   "peel+pope_in_lieu=run-continues"])
def test_resample_from_infostate(rules: str) -> None:
    """The state's own resampling (what OpenSpiel's ISMCTS calls without a resampler): every
    draw looks the same to the player, at leads and at choices inside a run, and OpenSpiel's
    ISMCTSBot searches the game with it."""
    from open_spiel.python.algorithms import ismcts, mcts

    rng = random.Random(rules)
    game = spiel_game.load(4, rules)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    kinds = set()
    for seed in range(12):
        state = _dealt(game, seed)
        while not state.is_terminal() and len(kinds) < 2:
            player = state.current_player()
            draws = [state.resample_from_infostate(player, sampler) for _ in range(4)]
            assert {d.information_state_string(player) for d in draws} == {
                state.information_state_string(player)}
            assert all(d.legal_actions() == state.legal_actions() for d in draws)
            kinds.add(state.pending is not None)
            state.apply_action(rng.choice(state.legal_actions()))
        if len(kinds) == 2 or (kinds == {False} and not compile_rules(game.rules).choice_points):
            break
    assert kinds == ({False, True} if compile_rules(game.rules).choice_points else {False})
    state = _dealt(game, 1)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, None), 10.0, 20)
    assert bot.step(state) in state.legal_actions()


def test_ismcts_time_per_decision() -> None:
    """With ``time`` the bot searches until the time is up and answers a legal lead."""
    import time

    from popejoan_solver.bots.base import LeadRequest
    from popejoan_solver.bots.registry import make_bot
    from popejoan_solver.model.play import Position
    from popejoan_solver.seat import knowledge

    deal = deal_random(4, 5)
    legal = tuple(Position.from_deal(deal).legal_leads())
    bot = make_bot("ismcts:time=0.3,worlds=5", 0)
    started = time.perf_counter()
    card = bot.lead(LeadRequest(knowledge(deal, 1), legal, random.Random(0)))
    assert card in legal
    assert time.perf_counter() - started >= 0.3


def test_public_observer_shows_no_hand() -> None:
    """The public observation (no private information) shows no cards of any hand; an
    observer of every player's cards is refused."""
    from open_spiel.python.observation import make_observation

    game = spiel_game.load(4)
    public = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
    first = _dealt(game, 1)
    own = game.order.index(0)  # a card of seat 1 and one of seat 2 change places
    second = _replayed(game, _swap(list(first.dealt), own, game.order.index(1)), [])
    assert second is not None
    public.set_from(first, 0)
    text, tensor = public.string_from(first, 0), public.tensor.copy()
    public.set_from(second, 0)
    assert public.string_from(second, 0) == text
    assert (public.tensor == tensor).all()
    assert "hand" not in text
    assert first.information_state_string(0) != second.information_state_string(0)
    with pytest.raises(ValueError, match="observation types"):
        make_observation(game, pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True,
            private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
