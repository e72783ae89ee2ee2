"""Settlement: who pays whom, from the board and between players.

Every payment is a :class:`Transfer` from a payer to a payee, each a seat (an ``int`` from 1)
or a board :class:`Compartment`, of a :class:`TransferKind` (what it pays for: read the kind, not
the reason's words, which are for people). Counters are only ever moved, so a settlement
conserves them; the tests check that the board never goes below zero and that the books
balance.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .arguments import is_whole, shown
from .board import Board, Compartment
from .cards import POPE, Mask, Rank, card_name, check_mask, format_cards, make_card
from .deal import Deal, check_deal
from .errors import DealError
from .play import Game
from .rules import Ruleset
from .table import HONOURS, Award, TransferKind, award_shares

Party = int | Compartment
"""A seat (from 1) or a compartment of the board."""



@dataclass(frozen=True)
class Transfer:
    """``amount`` counters from ``payer`` to ``payee``, what for (``kind``), and why in words
    (``reason``: the text shown; the JSON has no kind, to keep its keys as they were)."""

    payer: Party
    payee: Party
    amount: int
    reason: str
    kind: TransferKind

    def __post_init__(self) -> None:
        for party in (self.payer, self.payee):
            if not isinstance(party, Compartment) and (type(party) is not int or party < 1):
                raise DealError(f"a transfer's payer and payee are each a seat from 1 or a "
                                f"Compartment, not {shown(party)}")

    def to_json(self) -> dict[str, object]:
        return {"from": _party_json(self.payer), "to": _party_json(self.payee),
                "amount": self.amount, "reason": self.reason}


def _party_json(party: Party) -> object:
    return party.value if isinstance(party, Compartment) else party


def net(transfers: Iterable[Transfer], seat: int) -> int:
    """What ``seat`` (from 1) gains (positive) or loses over ``transfers``."""
    if type(seat) is not int or seat < 1:
        raise DealError(f"seat must be a seat from 1, not {shown(seat)}")
    total = 0
    for t in transfers:
        if t.payee == seat and not isinstance(t.payee, Compartment):
            total += t.amount
        if t.payer == seat and not isinstance(t.payer, Compartment):
            total -= t.amount
    return total


def apply_to_board(board: Board, transfers: Iterable[Transfer]) -> Board:
    """The board after ``transfers``; raises ``ValueError`` if a compartment would go negative."""
    counts = dict(board.items())
    for t in transfers:
        if isinstance(t.payer, Compartment):
            counts[t.payer] -= t.amount
            if counts[t.payer] < 0:
                raise ValueError(f"compartment {t.payer.value} paid out more than it held")
        if isinstance(t.payee, Compartment):
            counts[t.payee] += t.amount
    return Board(**{c.value: n for c, n in counts.items()})


def dressing(rules: Ruleset, players: int) -> list[Transfer]:
    """Who pays to dress a fresh board, by the rule table: every other seat gives the dealer (the
    last seat) its share, and the dealer lays out the board."""
    dressed = rules.table.dressing(players)
    dealer = players
    transfers = [Transfer(index + 1, dealer, amount, "contribution to the dressing",
                          TransferKind.DRESSING_SHARE)
                 for index, amount in enumerate(dressed.paid[:dealer - 1]) if amount]
    transfers += [Transfer(dealer, compartment, count, "dressing the board",
                           TransferKind.DRESSING)
                  for compartment, count in dressed.layout.items() if count]
    return transfers


@dataclass(frozen=True)
class TurnupAward:
    """What the turn-up gives the dealer before play, and whether the deal is then played."""

    transfers: tuple[Transfer, ...]
    deal_is_played: bool


def turnup_award(deal: Deal, board: Board) -> TurnupAward:
    """The dealer's award for a turned-up Pope, or ace, king, queen or knave of trumps: the
    compartments the card would win if played (the rule table's single-card awards)."""
    table = deal.rules.table
    dealer = deal.players
    card = deal.turnup
    reason = "Pope turned up" if card == POPE else f"{card_name(card)} turned up"
    transfers = [Transfer(comp, dealer, board[comp], reason, TransferKind.TURNUP)
                 for comp in table.turnup_awards(card) if board[comp]]
    if card != table.ends_deal_turnup:
        return TurnupAward(tuple(transfers), True)
    if board.game:
        transfers.append(Transfer(Compartment.GAME, dealer, board.game, reason,
                                  TransferKind.TURNUP))
    for index in range(deal.players - 1):
        dealt = deal.dealt_hand(index).bit_count()
        transfers.append(Transfer(index + 1, dealer, dealt, "a stake per card dealt",
                                  TransferKind.STAKE_PER_CARD))
    return TurnupAward(tuple(transfers), False)


def turnup_ends_deal(deal: Deal) -> bool:
    """True for a fresh deal whose turn-up ends it unplayed (the rule table's award says so):
    no card is played, and no lead is legal."""
    return deal.is_fresh and not turnup_award(deal, deal.board_or_dressed).deal_is_played


def compartments_taken(game: Game, board: Board, played: Mask) -> list[Transfer]:
    """The compartments paid out for the cards in ``played``, by the rule table's awards."""
    transfers: list[Transfer] = []
    for award in game.table.awards(game.trumps):
        if played & award.mask != award.mask:
            continue
        holders = tuple(game.holder_index[card] for card in award.cards)  # 0-based, as the table
        if award.compartment is None:  # from every opponent (Spinado's Kings and Spin)
            transfers += [Transfer(index + 1, holders[0] + 1, award.from_each,
                                   _award_reason(award, 1), award.kind)
                          for index in range(game.players) if index != holders[0]]
            continue
        shares = award_shares(award, holders, board[award.compartment], game.players)
        for index, amount in shares:
            transfers.append(Transfer(award.compartment, index + 1, amount,
                                      _award_reason(award, len(shares)), award.kind))
    return transfers


def _award_reason(award: Award, takers: int) -> str:
    """Why a compartment was paid: the card played, the pair, or a share of the pair."""
    if award.compartment is None:
        return f"played {card_name(award.cards[0])}"
    if len(award.cards) == 1:
        return "played Pope" if award.cards[0] == POPE else f"played {card_name(award.cards[0])}"
    name = award.compartment.value.capitalize()
    return name if takers == 1 else f"half of {name}" if takers == 2 else f"a share of {name}"


def _out_seat(winner: int | None) -> int | None:
    """``winner`` as the public API takes it: a seat from 1, or None (or, kept for scripts
    written before None, -1) when no one went out."""
    return None if winner is None or winner == -1 else winner


def going_out(game: Game, board: Board, played: Mask, winner: int | None) -> list[Transfer]:
    """Game to the player out, and the table's payment for each card left in every other
    hand (none from the holder of the unplayed exempt card, Pope); nothing when ``winner`` is
    None (no one went out; -1 is still taken for None)."""
    winner = _out_seat(winner)
    if winner is None:
        return []
    table = game.table
    exempt = table.exempt_card
    transfers: list[Transfer] = []
    if board.game:
        transfers.append(Transfer(Compartment.GAME, winner, board.game, "Game",
                                  TransferKind.GAME))
    for seat in range(1, game.players + 1):
        if seat == winner:
            continue
        left = game.dealt[seat - 1] & ~played
        if exempt is not None and left >> exempt & 1:
            continue
        if left:
            transfers.append(Transfer(seat, winner, table.per_card_left * left.bit_count(),
                                      "cards left in hand", TransferKind.CARDS_LEFT))
    return transfers


def play_settlement(game: Game, board: Board, played: Mask,
                    winner: int | None) -> list[Transfer]:
    """Everything paid for the play of a deal that ended with ``played`` and ``winner`` out
    (None, or -1 as before None, when no one went out: the compartments alone)."""
    return compartments_taken(game, board, played) + going_out(game, board, played, winner)


def play_values(game: Game, board: Board, played: Mask,
                winner: int | None) -> tuple[int, ...]:
    """Each seat's net counters from the play of a finished deal (the solver's payoff), seat
    ``i + 1``'s at index ``i``; ``winner`` as for :func:`play_settlement`."""
    transfers = play_settlement(game, board, played, winner)
    return tuple(net(transfers, seat) for seat in range(1, game.players + 1))


def best_without_going_out(game: Game, board: Board, seat: int) -> int:
    """The most ``seat`` can end a deal's play with when another seat goes out: every award
    it could take, less a card's payment or, keeping the exempt card (Pope) to the end, less
    the awards that need that card played. A paranoid value above it is a forced win.
    ``seat`` counts from 1."""
    exempt = game.table.exempt_card
    best = needs_exempt = 0
    index = game.seat_index(seat)
    for award in game.table.awards(game.trumps):
        holders = tuple(game.holder_index[card] for card in award.cards)
        amount = board[award.compartment] if award.compartment is not None else 0
        mine = max(0, sum(a for taker, a in award_shares(award, holders, amount, game.players)
                          if taker == index))
        best += mine
        if exempt is not None and exempt in award.cards:
            needs_exempt += mine
    if exempt is not None and game.dealt[index] >> exempt & 1:
        return best - min(game.table.per_card_left, needs_exempt)
    return best - game.table.per_card_left


@dataclass(frozen=True)
class DealSettlement:
    """The whole settlement of a played deal, step by step."""

    dressing: tuple[Transfer, ...]
    turnup: tuple[Transfer, ...]
    play: tuple[Transfer, ...]
    board_before: Board
    board_after: Board

    def net(self, seat: int, include_dressing: bool = False) -> int:
        """What ``seat`` (from 1) gains or loses, the dressing too if asked."""
        transfers = self.turnup + self.play + (self.dressing if include_dressing else ())
        return net(transfers, seat)


def settle(deal: Deal, played: Mask, winner: int | None) -> DealSettlement:
    """Settle a deal whose play ended with ``played`` and ``winner`` out (None: no one, as
    in a deal its turn-up ended unplayed).

    The deal's board is taken as it stands once dressed; the dressing is reported beside.
    ``winner`` is a seat from 1, the one whose cards ``played`` holds all of, or None when
    no one went out; -1 is still taken for None, for scripts written before None.
    """
    game = _checked_end(deal, played, winner)
    winner = _out_seat(winner)
    board = deal.board_or_dressed
    award = turnup_award(deal, board)
    after_turnup = apply_to_board(board, award.transfers)
    play: list[Transfer] = []
    if award.deal_is_played and winner is not None:
        play = play_settlement(game, after_turnup, played, winner)
    return DealSettlement(
        dressing=tuple(dressing(deal.rules, deal.players)),
        turnup=award.transfers,
        play=tuple(play),
        board_before=board,
        board_after=apply_to_board(after_turnup, play),
    )


def _checked_end(deal: Deal, played: Mask, winner: int | None) -> Game:
    """The deal's game, after refusing an end of play it cannot have: cards not dealt to a
    player, a played card left out, a winner who still holds cards or one who is not out."""
    check_deal(deal, "settle takes a Deal")
    check_mask(played, "played")
    n = deal.players
    if winner is not None and (not is_whole(winner) or not (0 < winner <= n or winner == -1)):
        raise DealError(f"winner must be a seat from 1 to {n} (seats count from 1), or None "
                        f"when no one went out, not {shown(winner)}")
    winner = _out_seat(winner)
    if played & ~deal.in_play:
        raise DealError(f"played has {format_cards(played & ~deal.in_play)}, which no player "
                        "was dealt")
    if deal.played_mask & ~played:
        raise DealError(f"played leaves out {format_cards(deal.played_mask & ~played)}, "
                        "already played in the deal")
    game = Game.from_deal(deal)
    out = [s + 1 for s in range(n) if not game.dealt[s] & ~played]
    if out != ([] if winner is None else [winner]):
        said = "no one" if winner is None else f"seat {winner}"
        found = ("no seat is" if not out else
                 " and ".join(f"seat {s}" for s in out) + (" are" if len(out) > 1 else " is"))
        raise DealError(f"winner says {said} went out, but with these cards played {found} "
                        "out")
    return game


def final_round(hands: tuple[Mask, ...], board: Board) -> list[Transfer]:
    """Hoyle's closing round, dealt face up with no dead hand and diamonds trumps.

    The holders of Pope and of the ace, king, queen and knave of diamonds take those
    compartments; the queen's holder takes half of Matrimony and of Intrigue (rounded down),
    the king's and the knave's holders the other halves. Game is not mentioned by Hoyle and
    stays on the board.
    """
    owner = {}
    for seat, mask in enumerate(hands, 1):
        for rank in (Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.NINE):
            card = make_card(1, rank)
            if mask >> card & 1:
                owner[rank] = seat
    missing = [r for r in (Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.NINE)
               if r not in owner]
    if missing:
        raise DealError("the final round deals every card: the diamond honours and Pope "
                        "must all be held")
    transfers: list[Transfer] = []
    if board.pope:
        transfers.append(Transfer(Compartment.POPE, owner[Rank.NINE], board.pope, "holds Pope",
                                  TransferKind.FINAL_ROUND))
    for rank, compartment in HONOURS:
        if board[compartment]:
            transfers.append(Transfer(compartment, owner[rank], board[compartment],
                                      f"holds {card_name(make_card(1, rank))}",
                                      TransferKind.FINAL_ROUND))
    for compartment, other in ((Compartment.MATRIMONY, Rank.KING),
                               (Compartment.INTRIGUE, Rank.JACK)):
        amount = board[compartment]
        half = amount // 2
        if half:
            transfers.append(Transfer(compartment, owner[Rank.QUEEN], half,
                                      f"holds QD: half of {compartment.value}",
                                      TransferKind.FINAL_ROUND))
        if amount - half:
            transfers.append(Transfer(compartment, owner[other], amount - half,
                                      f"holds {card_name(make_card(1, other))}: the other half "
                                      f"of {compartment.value}", TransferKind.FINAL_ROUND))
    return transfers
