"""The fast engine's general mode, in Python: alpha-beta over slot space with runs walked card by
card, for rule tables with choices inside a run (Spin, the Pope in lieu of a stop) or payments
between players (Spinado's Kings), where the facts of ``docs/solver.md`` that assume a forced run
do not hold; with the Pope in lieu it keeps fact 4 where its argument holds ("Choices inside a
run"). The compiled core's ``search_general`` is the same search; this is its specification,
and the reference engine (:meth:`Game.run_tree`) is the oracle of both.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..model.cards import Mask
from ..model.table import LeadId
from . import facts
from .objective import INF, Goal, Objective, SearchTimeoutError
from .slots import SlotGame, lieu_goes_on
from .state import Search, SearchState


# The general mode's search kernel, whole on purpose as the forced-run one (kernel.py): one
# closure with its locals bound for speed, every pruning fact cited at its cut.
def general_searcher(slots: SlotGame, objective: Objective, state: SearchState,  # noqa: C901
                     plain: Search | None) -> Search:
    """The alpha-beta closure of one objective in general mode (transposition table in
    ``state``, shared with later searches of the same objective, as in the forced-run mode).
    ``plain`` is the forced-run kernel's search of the objective, which takes over once the
    card in lieu is played where no other choice is left (``slots.plain_after_lieu``)."""
    sg = slots
    table = state.table(objective)
    dealt, holder, in_play = sg.dealt, sg.holder, sg.in_play
    leads = sg.lead_generator()
    target = objective.index  # slot space: seats from 0
    is_max = tuple(objective.maximises(s + 1) for s in range(sg.players))
    spin, lieu = sg.spin_slot, sg.lieu_slot
    deadline = state.deadline
    up = sg.up
    lead_any = sg.game.table.lead is LeadId.ANY
    skipped = facts.own_run_skipped  # the mutation test patches it: looked up here

    def terminal(played: Mask, winner: int) -> int:
        if objective.goal is Goal.FORCED_WIN:
            return int(winner == target)
        return sg.payoff(played, winner, target)

    def choose(chooser: int, options: list[Callable[[int, int], int]], alpha: int,
               beta: int) -> int:
        """A choice node: its chooser takes the best option for it (fail-soft)."""
        maximising = is_max[chooser]
        best = -INF if maximising else INF
        for option in options:
            score = option(alpha, beta)
            if maximising:
                best, alpha = max(best, score), max(alpha, score)
            else:
                best, beta = min(best, score), min(beta, score)
            if alpha >= beta:
                break
        return best

    def play_card(played: Mask, slot: int, seat: int, alpha: int, beta: int) -> int:
        """``seat`` plays ``slot`` in a run; the holder of Spin may then play Spin on it."""
        played |= 1 << slot
        if not dealt[seat] & ~played:
            return terminal(played, seat)
        if spin < 0 or slot == spin or holder[spin] != seat or played >> spin & 1:
            return after_card(played, slot, seat, alpha, beta)
        spun = played | 1 << spin
        return choose(seat, [
            lambda a, b: after_card(played, slot, seat, a, b),
            lambda a, b: (terminal(spun, seat) if not dealt[seat] & ~spun
                          else search(spun, seat, a, b))], alpha, beta)

    def after_card(played: Mask, slot: int, seat: int, alpha: int, beta: int) -> int:
        """After ``slot`` (no one out): the next card up, or the stop and the card in lieu."""
        following = slot + 1
        if slot % 13 != 12 and in_play >> following & 1 and not played >> following & 1:
            return play_card(played, following, holder[following], alpha, beta)
        if (lieu < 0 or holder[lieu] < 0 or played >> lieu & 1
                or (slot % 13 == 12 and not sg.lieu_after_top)):
            return search(played, seat, alpha, beta)
        return choose(holder[lieu], [lambda a, b: search(played, seat, a, b),
                                     lambda a, b: in_lieu(played, slot, a, b)], alpha, beta)

    def in_lieu(played: Mask, slot: int, alpha: int, beta: int) -> int:
        """The card in lieu of the one missing above ``slot``, then the card above the missing
        one (if the reading goes on and it can be played), else its player leads."""
        chooser = holder[lieu]
        played |= 1 << lieu
        if not dealt[chooser] & ~played:
            return terminal(played, chooser)
        above = lieu_goes_on(slot, lieu, sg.lieu_continues, in_play, played)
        if above >= 0:
            return play_card(played, above, holder[above], alpha, beta)
        return search(played, chooser, alpha, beta)

    def search(played: Mask, leader: int, alpha: int, beta: int) -> int:
        if plain is not None and played >> lieu & 1:
            # The Pope played, every run is forced again: the Pope, the bottom card of its
            # stretch, is left behind as if dead, and the facts of docs/solver.md hold.
            return plain(played, leader, alpha, beta)
        state.nodes += 1
        if state.nodes & 1023 == 0 and (state.cancelled or (
                deadline is not None and time.monotonic() > deadline)):
            raise SearchTimeoutError
        key = played << 3 | leader
        lower, upper, best_move = table.get(key, (-INF, INF, -1))
        if lower >= beta:
            return lower
        if upper <= alpha or lower == upper:
            return upper
        alpha, beta = max(alpha, lower), min(beta, upper)
        window_low, window_high = alpha, beta
        moves = leads(played, leader)
        if best_move in moves:
            moves.remove(best_move)
            moves.insert(0, best_move)
        maximising = is_max[leader]
        best, chosen = (-INF if maximising else INF), -1
        # Fact 4 (docs/solver.md) with the Pope in lieu: only while its holder plays on the
        # leader's side (leading the top card of an own run first gives that side more stops
        # to choose at), and not where the Pope would carry the own run on.
        prune = plain is not None and lead_any and is_max[holder[lieu]] == maximising
        own = dealt[leader]
        for lead in moves:
            if prune:
                run = up[lead] & ~played
                if skipped(run, own, lieu_goes_on(run.bit_length() - 1, lieu,
                                                  sg.lieu_continues, in_play, played)):
                    continue
            score = play_card(played, lead, leader, alpha, beta)
            if maximising and score > best:
                best, chosen, alpha = score, lead, max(alpha, score)
            elif not maximising and score < best:
                best, chosen, beta = score, lead, min(beta, score)
            if alpha >= beta:
                break
        if best <= window_low:
            upper = min(upper, best)
        elif best >= window_high:
            lower = max(lower, best)
        else:
            lower = upper = best
        if len(table) >= state.tt_entries:
            table.clear()
        table[key] = (lower, upper, chosen)
        return best

    return search
