"""A bot's move on the web table: the lead (and any choice inside its run) that a bot of
``popejoan_solver.bots`` makes from its seat's knowledge, as the match driver asks it."""

from __future__ import annotations

import random
from typing import Final

from ..bots.base import Bot, BotError, ChoiceRequest, LeadRequest
from ..bots.registry import make_bot
from ..model.deal import position_deal
from ..model.errors import IllegalPlayError, clip
from ..model.play import Choice, Run
from ..seat import knowledge, knowledge_at_choice
from ..seat.inference import common_prefix
from .state import Table, start_board

WEB_BOTS: Final = ("strong", "hoyle", "lowest", "random", "pimc", "cheat")
"""The bots a person can play against on the page, the default first (``strong``: the
strongest fair bot, ``bots.registry.STRONG``; ``ismcts`` needs OpenSpiel)."""

PIMC_SAMPLES: Final = 16


def _rng(seed: int, seat: int, decision: int) -> random.Random:
    """A decision's generator, from the page's seed, the seat (from 1) and the decision's
    number in the deal: reproducible, and nothing in it from the hidden cards. (The seed
    string holds the seat's 0-based index, as it always has.)"""
    return random.Random(f"popejoan-web:{seed}:{seat - 1}:{decision}")


def web_bot(name: str, seconds: float) -> Bot:
    """The bot ``name`` with the web's bounds: ``pimc`` samples at most 16 deals and stops
    adding samples after ``seconds``; ``strong`` stops after ``seconds``."""
    if name not in WEB_BOTS:
        raise BotError(f"unknown bot {clip(name)!r} (bots: {', '.join(WEB_BOTS)})")
    spec = name
    if name == "pimc":
        spec = f"pimc:samples={PIMC_SAMPLES},time={seconds:g}"
    elif name == "strong":
        spec = f"strong:time={seconds:g}"
    return make_bot(spec)


def bot_move(table: Table, bot: Bot, seed: int) -> Run:
    """The run a bot makes at the table's position: its lead, then each choice inside the
    run asked of its chooser (the same kind of bot in every seat)."""
    position, deal = table.position, table.deal
    if table.over:
        raise IllegalPlayError("the deal is over: no one is to lead")
    seat = position.leader
    decisions = len(table.runs)
    truth = position_deal(deal, position, start_board(deal)) if bot.sees_all else None
    legal = tuple(position.legal_leads())
    card = bot.lead(LeadRequest(knowledge(deal, seat, table.runs), legal,
                                _rng(seed, seat, decisions), truth))
    if card not in legal:
        raise BotError(f"bot {bot.name!r} chose a card that is not a legal lead")
    tree = position.game.run_tree(position.played, seat, card)
    while isinstance(tree, Choice):
        view = knowledge_at_choice(deal, tree.chooser, table.runs, card, tree)
        decisions += 1
        index = bot.choose(ChoiceRequest(view, tree.kind, card, common_prefix(tree),
                                         len(tree.options),
                                         _rng(seed, tree.chooser, decisions),
                                         truth))
        if not 0 <= index < len(tree.options):
            raise BotError(f"bot {bot.name!r} chose option {index} of {len(tree.options)}")
        tree = tree.options[index]
    return tree
