"""A bot's decision at a table, made in one of the server's worker processes (the game's
lane): a lead, or an option at a choice inside a run, from the seat's knowledge alone (the true
position only for a bot that ``sees_all``, labelled the ceiling), as ``bots.driver`` asks it."""

from __future__ import annotations

from typing import Final

from ...bots.base import Bot, BotError, ChoiceRequest, LeadRequest
from ...bots.driver import decision_rng, peek_rules
from ...bots.registry import make_bot, parse_spec
from ...model.cards import Card
from ...model.deal import Deal, position_deal
from ...model.play import Choice, Position, Run
from ...seat import knowledge, knowledge_at_choice
from ...seat.inference import common_prefix
from ..worker import Reply

BOT_SECONDS: Final = 2.0
"""A sampling bot (``pimc``, ``epimc``, ``strong``) given no time of its own stops adding
samples after this."""

TIMED_BOTS: Final = ("pimc", "epimc", "strong")
"""The bots that take ``time=S``: those that sample deals."""


def table_bot(spec: str) -> Bot:
    """The bot ``spec`` names, a sampling bot bounded in time unless its spec says."""
    name, options = parse_spec(spec)
    if name in TIMED_BOTS and "time" not in options:
        spec = f"{spec.strip()}{',' if ':' in spec else ':'}time={BOT_SECONDS:g}"
    return make_bot(spec)


def decide(spec: str, deal: Deal, runs: tuple[Run, ...], lead: Card | None,
           path: tuple[int, ...], seed: int, label: str, count: int) -> Reply:
    """The decision of the bot ``spec`` at the table's position: ``deal`` as dealt, ``runs``
    played, and, inside a run under way, its ``lead`` and the options taken so far
    (``path``); ``count`` is the deciding seat's decisions so far (its generator). ``extra``
    of the reply is the card led or the option taken."""
    bot = table_bot(spec)
    position = Position.from_deal(deal)
    for run in runs:
        position = position.after(run)
    seat = position.leader
    board = deal.board_or_dressed
    if lead is None:
        view = deal.with_rules(peek_rules(deal.rules)) if bot.peeks and \
            seat == deal.players else deal
        legal = tuple(position.legal_leads())
        truth = position_deal(deal, position, board) if bot.sees_all else None
        card = bot.lead(LeadRequest(knowledge(view, seat, runs), legal,
                                    decision_rng(seed, label, seat, count), truth))
        if card not in legal:
            raise BotError(f"bot {bot.name!r} chose a card that is not a legal lead")
        return Reply(None, card)
    tree = position.game.run_tree(position.played, seat, lead)
    for option in path:
        assert isinstance(tree, Choice)
        tree = tree.options[option]
    if not isinstance(tree, Choice):
        raise BotError("no choice is waiting")
    chooser = tree.chooser
    view = deal.with_rules(peek_rules(deal.rules)) if bot.peeks and \
        chooser == deal.players else deal
    truth = position_deal(deal, position, board) if bot.sees_all else None
    index = bot.choose(ChoiceRequest(knowledge_at_choice(view, chooser, runs, lead, tree),
                                     tree.kind, lead, common_prefix(tree), len(tree.options),
                                     decision_rng(seed, label, chooser, count), truth))
    if not 0 <= index < len(tree.options):
        raise BotError(f"bot {bot.name!r} chose option {index} of {len(tree.options)}")
    return Reply(None, index)
