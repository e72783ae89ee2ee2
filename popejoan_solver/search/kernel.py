"""The Python forced-run kernel: alpha-beta over slot space, every pruning fact of
``docs/solver.md`` at its cut (the compiled core's ``search`` is the same search; this is its
specification, and the reference engine the oracle of both).

Runs are forced here: a lead plays ``up[lead] & ~played`` (fact 1) and the top of that run's
stretch leads next (fact 2). Rule tables with choices inside a run or payments between players
are searched by ``general.py``, which hands positions back here once every run is forced again.
"""

from __future__ import annotations

import time

from ..model.cards import Mask
from ..model.table import LeadId
from . import facts
from .objective import INF, Goal, Objective, SearchTimeoutError
from .slots import SlotGame
from .state import Search, SearchState


# The search kernel, whole on purpose: one closure with its locals bound for speed, every
# pruning fact cited at its cut (docs/solver.md); splitting it costs a call per node.
def forced_searcher(slots: SlotGame, objective: Objective, state: SearchState) -> Search:  # noqa: C901
    """The alpha-beta closure of one objective over forced runs (locals bound for speed; the
    transposition table in ``state`` is shared with later searches of the same objective)."""
    sg = slots
    table = state.table(objective)
    tt_get = table.get
    limit = state.tt_entries
    n = sg.players
    seats = range(n)
    dealt = sg.dealt
    up = sg.up
    holder = sg.holder
    leads = sg.lead_generator()
    target = objective.index  # slot space: seats from 0
    is_max = tuple(objective.maximises(s + 1) for s in seats)
    win_goal = objective.goal is Goal.FORCED_WIN
    prune_blocks = sg.game.table.lead is LeadId.ANY
    payoff = sg.payoff
    deadline = state.deadline

    counters_goal = not win_goal
    per_card = sg.per_card  # what a card left in hand pays: the rule table's per_card_left
    mine = tuple((cards, amount) for cards, takers in sg.awards for t, amount in takers
                 if t == target)
    all_mine = sum(amount for _, amount in mine) + sg.game_stake
    others = tuple(o for o in seats if o != target)
    my_cards = dealt[target]
    exempt_bit = sg.exempt_bit if sg.exempt_holder >= 0 else 0
    exempt_holder = sg.exempt_holder
    exempt_mine = sum(amount for cards, amount in mine if exempt_bit and cards == exempt_bit)
    theirs = sg.in_play & ~my_cards
    # Fact 3e: no run reaches a card at the bottom of its stretch; under lead=any its
    # holder plays it only by choice, so the Pope's holder can keep it to the end.
    exempt_slot = exempt_bit.bit_length() - 1
    exempt_kept = bool(exempt_bit) and prune_blocks and (
        exempt_slot % 13 == 0 or not sg.in_play >> (exempt_slot - 1) & 1)

    # The facts are looked up in their module when the search is built: the mutation tests
    # patch them there.
    race, first, best_lead = facts.race_sure, facts.played_first, facts.lead_floor
    pope_loss, on_lead_out = facts.pope_cards_lost, facts.goes_out_now
    leader_out = facts.other_goes_out
    two_leads_out, first_out = facts.out_in_two, facts.first_out
    pope_bottom = bool(exempt_bit) and (
        exempt_slot % 13 == 0 or not sg.in_play >> (exempt_slot - 1) & 1)
    isolate, in_play, stretch = facts.isolated_cards, sg.in_play, sg.stretch
    isolating = facts.isolation_applies(objective.goal, prune_blocks,
                                  bool(my_cards & exempt_bit) and not exempt_kept)
    keep_apart = facts.kept_apart(objective.goal, exempt_bit, (cards for cards, _ in mine))
    own_isolating = facts.own_isolation_applies(objective.goal, prune_blocks, mine, my_cards)
    own_keep = facts.own_kept_apart(objective.goal, exempt_bit)

    def pope_floor(held: Mask, sure: int) -> int:
        """The least the target ends with, awards aside, when ``sure`` of its cards are
        played first (fact 3d); holding the Pope it pays nothing, or its rest once the
        Pope is played (fact 3c), or keeps the Pope to the end (fact 3e)."""
        if not held & exempt_bit:
            return per_card * (sure - held.bit_count())
        return 0 if exempt_kept else min(
            0, exempt_mine + per_card * (max(sure, 1) - held.bit_count()))

    def ending(final: Mask, winner: int) -> int:
        return payoff(final, winner, target)

    def taken_at(played: Mask) -> int:
        return sum(amount for cards, amount in mine if played & cards == cards)

    def terminal(final: Mask, winner: int) -> int:
        if win_goal:
            return 1 if winner == target else 0
        return payoff(final, winner, target)

    # The alpha-beta search itself (see forced_searcher): one function, a call per node.
    def search(played: Mask, leader: int, alpha: int, beta: int) -> int:  # noqa: C901
        if isolating if leader != target else own_isolating:
            # Facts 5 and 5b: the seat on lead plays its isolated cards first.
            played |= isolate(stretch, in_play, dealt, played, leader,
                              keep_apart if leader != target else own_keep)
            if not dealt[leader] & ~played:
                return terminal(played, leader)
        state.nodes += 1
        if state.nodes & 1023 == 0 and (state.cancelled or (
                deadline is not None and time.monotonic() > deadline)):
            raise SearchTimeoutError
        key = played << 3 | leader
        entry = tt_get(key)
        best_move = -1
        lower, upper = -INF, INF
        if entry is not None:
            lower, upper, best_move = entry
            if lower >= beta:
                return lower
            if upper <= alpha or lower == upper:
                return upper
            if lower > alpha:
                alpha = lower
            if upper < beta:
                beta = upper
        if counters_goal:
            # Fact 3 (docs/solver.md): before the target goes out, every card above its
            # lowest card in a stretch is played, but in the stretch where it goes out on
            # a card k: there its cards from the lowest up to k, and all from its next card
            # above k to the top. The others are not paid for cards that must be played.
            held = my_cards & ~played
            forced_total = saving_max = cover = 0
            rest = held
            while rest:
                lowest = (rest & -rest).bit_length() - 1
                span = up[lowest]
                cover |= span
                group = held & span
                rest &= ~span
                open_cards = theirs & ~played
                whole = (span & open_cards).bit_count()
                forced_total += whole
                cheapest = whole
                cards = group
                while cards:
                    k = (cards & -cards).bit_length() - 1
                    cards &= cards - 1
                    below = span ^ up[k] ^ (1 << k)
                    cost = (below & open_cards).bit_count()
                    if cards:
                        cost += (up[(cards & -cards).bit_length() - 1] & open_cards).bit_count()
                    if cost < cheapest:
                        cheapest = cost
                if whole - cheapest > saving_max:
                    saving_max = whole - cheapest
            paid_for = saving_max - forced_total  # others' cards the target is paid for
            for other in others:
                paid_for += (dealt[other] & ~played).bit_count()
            led_outside = leader != target and not dealt[leader] & ~played & cover
            if led_outside:
                paid_for -= 1  # Fact 3b: the seat on lead plays one more unpaid card
            pope_out = exempt_bit & ~played & ~cover and exempt_holder != target
            if pope_out:
                # Facts 3c and 3h: another's Pope is kept (and exempts) or played
                paid_for -= pope_loss(up, dealt, exempt_holder, exempt_slot, pope_bottom,
                                      played, cover, theirs & ~played, leader, led_outside)
            bound = all_mine + per_card * paid_for
            if pope_out:
                bound = max(bound, all_mine - sg.game_stake)
            if bound <= alpha:
                return bound
            # Facts 3d and 3g: on lead, the target plays the card it leads, or under
            # lead=any its own runs, then its longest block of consecutive cards.
            sure, after_own, rest_held = first(up, target == leader, prune_blocks, played,
                                               held, exempt_bit)
            taken = taken_at(after_own)
            floor = pope_floor(held, sure) + taken
            if on_lead_out(prune_blocks, target == leader, up, played, held, exempt_bit):
                # Fact 3i: the target goes out now, before anyone else plays a card.
                floor = payoff(played | held, target, target)
            elif floor < beta <= taken and not (held & exempt_bit and exempt_kept):
                # Fact 3f: another seat's race to go out plays some of the target's cards.
                raced = (held ^ rest_held).bit_count() + race(
                    up, dealt, target, after_own, rest_held, target != leader, prune_blocks)
                if raced > sure:
                    floor = pope_floor(held, raced) + taken
            if floor < beta and target == leader and prune_blocks:
                # Fact 3k: on lead, its own runs played, the target leads its best card.
                own_count = (held ^ rest_held).bit_count()

                def led(after: Mask, mine_in_run: Mask) -> int:
                    sure = own_count + mine_in_run.bit_count()
                    paid = (per_card * (sure - held.bit_count()) if mine_in_run & exempt_bit
                            else pope_floor(held, sure))
                    return taken_at(after) + paid

                floor = best_lead(up, dealt, after_own, rest_held, ending, led, floor, beta)
            if floor >= beta:
                return floor
            if bound < beta:
                beta = bound
            if floor > alpha:
                alpha = floor
        elif on_lead_out(prune_blocks, target == leader, up, played, my_cards & ~played,
                         exempt_bit):
            return 1  # Fact 3i: the target can go out before anyone else plays a card
        elif prune_blocks and target == leader and two_leads_out(up, dealt, holder, played,
                                                                 target, exempt_bit):
            return 1  # Fact 3l: it can go out within two leads whatever the others do
        out = leader_out(prune_blocks, up, dealt, played, leader, target, exempt_bit)
        if out >= 0:
            # Fact 3j: another seat on lead can go out at once: a bound (it plays against
            # the target) or a floor (for it).
            now = terminal(played | dealt[out], out)
            if is_max[out]:
                if now >= beta:
                    return now
                alpha = max(alpha, now)
            else:
                if now <= alpha:
                    return now
                beta = min(beta, now)
        window_low, window_high = alpha, beta
        moves = leads(played, leader)
        if best_move >= 0 and best_move in moves:
            moves.remove(best_move)
            moves.insert(0, best_move)
        maximising = is_max[leader]
        best = -INF if maximising else INF
        chosen = -1
        own = dealt[leader]
        for lead in moves:
            run = up[lead] & ~played
            if prune_blocks and not run & ~own and run & (run - 1):
                # Fact 4 (docs/solver.md): a run of the leader's own cards only is the
                # same as leading its top card and going on; that lead is searched.
                continue
            after = played | run
            winner, reached = first_out(dealt, run, after)
            if winner >= 0:
                score = terminal(played | reached, winner)
            else:
                score = search(after, holder[run.bit_length() - 1], alpha, beta)
            if maximising:
                if score > best:
                    best, chosen = score, lead
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            break
            elif score < best:
                best, chosen = score, lead
                if score < beta:
                    beta = score
                    if alpha >= beta:
                        break
        if best <= window_low:
            upper = best if best < upper else upper
        elif best >= window_high:
            lower = best if best > lower else lower
        else:
            lower = upper = best
        if len(table) >= limit:
            table.clear()
        table[key] = (lower, upper, chosen)
        return best

    return search
