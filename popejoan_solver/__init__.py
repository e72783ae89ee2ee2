"""popejoan-solver: a formal rules checker and double-dummy solver for Pope Joan.

>>> from popejoan_solver import analyse_stops, card_name, hoyle_dead_hand
>>> " ".join(card_name(c) for c in analyse_stops(hoyle_dead_hand()).stops[:3])
'QC 7D TD'
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .advice.leads import Advice, LeadAdvice, advise
    from .logic.find import FindQuery, FindResult, Property, find_deals
    from .logic.prover import TheoremResult
    from .logic.theorems import THEOREMS, prove
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
    from .model.table import TransferKind
    from .search import Solution, Value, solve
    from .seat import Knowledge, view

__version__ = "0.1.0"

_LAZY = {
    "advice.leads": ("Advice", "LeadAdvice", "advise"),
    "logic.find": ("FindQuery", "FindResult", "Property", "find_deals"),
    "logic.prover": ("TheoremResult",),
    "logic.theorems": ("THEOREMS", "prove"),
    "model.board": ("Board", "Compartment"),
    "model.cards": ("CardSet", "card_name", "parse_card"),
    "model.deal": ("Deal", "deal_random", "deal_warnings"),
    "model.errors": ("CardError", "DealError", "IllegalPlayError", "NotationError",
                     "PopeJoanError", "RulesError"),
    "model.examples": ("hoyle_dead_hand",),
    "model.notation": ("deal_from_json", "deal_from_line", "deal_to_json", "deal_to_line",
                       "parse_deal_text"),
    "model.play": ("Game", "Position", "Run", "StopReason"),
    "model.rules": ("RULESETS", "Ruleset", "get_ruleset"),
    "model.settlement": ("Transfer", "settle"),
    "model.stops": ("StopsReport", "View", "analyse_stops"),
    "model.table": ("TransferKind",),
    "search": ("Solution", "Value", "solve"),
    "seat": ("Knowledge", "view"),
}
_HOME = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str) -> Any:
    """The public API, each name imported from its module on first use: importing the package
    stays instant (z3, python-sat and the solver load only when needed), so the command line
    can take a Ctrl-C from its very start."""
    if name in _HOME:
        value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})


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
    "TransferKind",
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
