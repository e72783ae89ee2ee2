"""popejoan-solver: a formal rules checker and double-dummy solver for Pope Joan.

>>> from popejoan_solver import hoyle_dead_hand, analyse_stops
>>> " ".join(card_name(c) for c in analyse_stops(hoyle_dead_hand()).stops[:3])
'QC 7D TD'
"""

import importlib
from typing import TYPE_CHECKING, Any

from .analysis.advice import Advice, LeadAdvice, advise
from .model.board import Board, Compartment
from .model.cards import CardSet, card_name, parse_card
from .model.deal import Deal, deal_random, deal_warnings
from .model.errors import (
    CardError,
    DealError,
    IllegalPlayError,
    NotationError,
    PopeJoanError,
    RulesError,
)
from .model.examples import hoyle_dead_hand
from .model.notation import (
    deal_from_json,
    deal_from_line,
    deal_to_json,
    deal_to_line,
    parse_deal_text,
)
from .model.play import Game, Position, Run, StopReason
from .model.rules import RULESETS, Ruleset, get_ruleset
from .model.settlement import Transfer, settle
from .model.stops import StopsReport, View, analyse_stops
from .search import Solution, Value, solve
from .seat import Knowledge, view

if TYPE_CHECKING:
    from .logic.find import FindQuery, FindResult, Property, find_deals
    from .logic.prover import TheoremResult
    from .logic.theorems import THEOREMS, prove

__version__ = "0.1.0"

_LAZY = {"FindQuery": "find", "FindResult": "find", "Property": "find", "find_deals": "find",
         "TheoremResult": "prover", "THEOREMS": "theorems", "prove": "theorems"}


def __getattr__(name: str) -> Any:
    """The proof and deal-search API, imported on first use (z3 and python-sat are slow to
    load, and most uses of the package never need them)."""
    if name in _LAZY:
        module = importlib.import_module(f".logic.{_LAZY[name]}", __name__)
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "RULESETS",
    "THEOREMS",
    "Advice",
    "Board",
    "CardError",
    "CardSet",
    "Compartment",
    "Deal",
    "DealError",
    "FindQuery",
    "FindResult",
    "Game",
    "IllegalPlayError",
    "Knowledge",
    "LeadAdvice",
    "NotationError",
    "PopeJoanError",
    "Position",
    "Property",
    "RulesError",
    "Ruleset",
    "Run",
    "Solution",
    "StopReason",
    "StopsReport",
    "TheoremResult",
    "Transfer",
    "Value",
    "View",
    "advise",
    "analyse_stops",
    "card_name",
    "deal_from_json",
    "deal_from_line",
    "deal_random",
    "deal_to_json",
    "deal_to_line",
    "deal_warnings",
    "find_deals",
    "get_ruleset",
    "hoyle_dead_hand",
    "parse_card",
    "parse_deal_text",
    "prove",
    "settle",
    "solve",
    "view",
]
