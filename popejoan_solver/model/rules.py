"""Rulesets: one frozen object per reading of the rules, every option tied to its source.

Every option value names the text it comes from (a file in ``shared/sources`` and a quoted
phrase), so that a user can check any choice the model makes. Named rulesets are in
:data:`RULESETS`; any option can be overridden with :meth:`Ruleset.with_options`.

>>> get_ruleset("parlett").ace
<AceRank.HIGH: 'high'>
>>> get_ruleset("hoyle-modernized").with_options({"ace": "high"}).name
'hoyle-modernized+ace=high'
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from typing import Final

from .cards import NUM_CARDS, PACK, make_card
from .errors import RulesError, clip


class AceRank(StrEnum):
    """Where the ace stands in its suit."""

    LOW = "low"
    HIGH = "high"


class LeadRule(StrEnum):
    """Which cards the player on lead may lead."""

    ANY = "any"
    LOWEST_OF_SUIT = "lowest-of-suit"
    LOWEST_IN_HAND = "lowest-in-hand"


class DeadHandRule(StrEnum):
    """How the cards that no player holds are dealt."""

    EQUAL_HANDS = "equal-hands"
    """An extra hand dealt like the others, taking the over-cards so all players hold equally."""
    STOCK = "stock"
    """Players are dealt equally; at least ``stock_size`` cards are left in a stock."""


class PopeTurnup(StrEnum):
    """What happens when the turn-up is Pope (the nine of diamonds)."""

    COMPARTMENT = "compartment"
    """The dealer takes the Pope compartment and the deal is played."""
    ENDS_DEAL = "ends-deal"
    """The dealer takes Pope and Game and a stake for every card dealt; the deal is not played."""


class PairRule(StrEnum):
    """Who takes Matrimony (K-Q of trumps) and Intrigue (Q-J of trumps)."""

    SAME_PLAYER = "same-player"
    """Only a player who plays both cards."""
    DIVIDED = "divided"
    """Both cards played: one player takes all, or two players take half each."""


class Dressing(StrEnum):
    """Who pays the 15 counters that dress the board."""

    DEALER = "dealer"
    PLAYERS = "players"
    """Every other player gives two, the dealer the rest."""


@dataclass(frozen=True)
class Source:
    """Where a rule choice comes from: a file in ``shared/sources`` and a phrase quoted from it."""

    file: str
    phrase: str
    note: str = ""

    def to_json(self) -> dict[str, str]:
        data = {"file": self.file, "phrase": self.phrase}
        if self.note:
            data["note"] = self.note
        return data


HOYLE: Final = "hoyles-games-modernized.txt"
EARLY: Final = "early-hoyle.txt"
WIKI: Final = "wikipedia-pope-joan.txt"
MODERN: Final = "modern-card-games-book.txt"
PARLETT: Final = "parlett-penguin.txt"
MODEL: Final = "(model)"

CHOICE_SOURCES: Final[Mapping[tuple[str, str], Source]] = {
    ("ace", "low"): Source(
        HOYLE, "the only known cards which cannot be led to are the four aces",
        "also wikipedia-pope-joan.txt: \"cards rank A 2 3 4 5 6 7 8 9 10 J Q K\"",
    ),
    ("ace", "high"): Source(PARLETT, "Ace is high"),
    ("lead", "any"): Source(HOYLE, "leads any card he pleases"),
    ("lead", "lowest-of-suit"): Source(
        WIKI, "it may be of any suit, but must be the lowest he has of it",
        "also parlett-penguin.txt: \"the lowest card held of any suit he chooses\"",
    ),
    ("lead", "lowest-in-hand"): Source(
        WIKI, "as long as it is his lowest card",
        "a literal reading of the first-lead sentence; lowest by rank, any suit on a tie",
    ),
    ("dead_hand", "equal-hands"): Source(
        WIKI, "so that all players have an equal number of cards",
        "also modern-card-games-book.txt: \"any over-cards go to the widow\"",
    ),
    ("dead_hand", "stock"): Source(EARLY, "about six or eight left in the stock to form stops"),
    ("pope_turnup", "compartment"): Source(
        HOYLE, "Should the turn-up be Pope (nine of diamonds), or an ace, king, queen or knave, "
        "the dealer is entitled to all the counters in the corresponding compartment",
    ),
    ("pope_turnup", "ends-deal"): Source(
        EARLY, "when Pope be turned up, the dealer is entitled both to that and the game, "
        "besides a stake for every card dealt to each player",
        "\"Unless the game be determined by Pope being turned up\": the deal is not played",
    ),
    ("pairs", "same-player"): Source(
        HOYLE, "Should knave and queen, or queen and king of trumps fall from the same hand",
    ),
    ("pairs", "divided"): Source(
        WIKI, "if they are in different hands these counters are sometimes divided",
        "model reading: each player of one of the two cards takes half, rounded down; "
        "an odd counter stays on the board",
    ),
    ("dressing", "dealer"): Source(
        HOYLE, "paying from his own store, and distributing between the various divisions "
        "fifteen counters",
    ),
    ("dressing", "players"): Source(
        EARLY, "the players usually contribute two stakes each towards the pool",
        "model reading: every other player gives the dealer two counters towards the fifteen",
    ),
    ("pope_exemption", "true"): Source(
        HOYLE, "save that the holder of Pope is exempt from payment. If Pope is played, "
        "the exemption ceases",
    ),
    ("pope_exemption", "false"): Source(
        MODEL, "no exemption", "not in any source; for comparison only",
    ),
}


def _stock_source(value: int) -> Source:
    return Source(EARLY, "about six or eight left in the stock to form stops",
                  f"the stock holds at least {value} cards; used only with dead_hand=stock")


@dataclass(frozen=True)
class OptionSpec:
    """One option of the rules: its name, what it means and how to read a value."""

    name: str
    doc: str
    parse: Callable[[str], object]
    choices: tuple[str, ...]


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise ValueError(text)


def _parse_stock(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 20:
        raise ValueError(text)
    return value


OPTIONS: Final[Mapping[str, OptionSpec]] = {
    spec.name: spec
    for spec in (
        OptionSpec("ace", "ace low (below the two) or high (above the king)", AceRank,
                   tuple(AceRank)),
        OptionSpec("lead", "which cards may be led", LeadRule, tuple(LeadRule)),
        OptionSpec("dead_hand", "how the dead hand is dealt", DeadHandRule, tuple(DeadHandRule)),
        OptionSpec("stock_size", "least number of cards left in the stock", _parse_stock,
                   ("1..20",)),
        OptionSpec("pope_turnup", "what a Pope turn-up gives the dealer", PopeTurnup,
                   tuple(PopeTurnup)),
        OptionSpec("pairs", "who takes Matrimony and Intrigue", PairRule, tuple(PairRule)),
        OptionSpec("dressing", "who pays to dress the board", Dressing, tuple(Dressing)),
        OptionSpec("pope_exemption", "an unplayed Pope exempts its holder from paying",
                   _parse_bool, ("true", "false")),
    )
}


@dataclass(frozen=True)
class Ruleset:
    """A complete, frozen choice of every rule option. Equal options mean equal rulesets."""

    name: str = field(compare=False)
    description: str = field(compare=False)
    ace: AceRank = AceRank.LOW
    lead: LeadRule = LeadRule.ANY
    dead_hand: DeadHandRule = DeadHandRule.EQUAL_HANDS
    stock_size: int = 6
    pope_turnup: PopeTurnup = PopeTurnup.COMPARTMENT
    pairs: PairRule = PairRule.SAME_PLAYER
    dressing: Dressing = Dressing.DEALER
    pope_exemption: bool = True

    def options(self) -> dict[str, object]:
        """Every option's value, keyed by option name, as JSON-ready values."""
        return {name: _json_value(getattr(self, name)) for name in OPTIONS}

    def sources(self) -> dict[str, Source]:
        """The source of every option's current value."""
        result: dict[str, Source] = {}
        for name in OPTIONS:
            value = getattr(self, name)
            if name == "stock_size":
                result[name] = _stock_source(value)
            else:
                result[name] = CHOICE_SOURCES[(name, str(_json_value(value)).lower())]
        return result

    def with_options(self, overrides: Mapping[str, str]) -> Ruleset:
        """A copy with options set from text values, e.g. ``{"ace": "high"}``.

        Raises :class:`RulesError` for an unknown option or a value it cannot take.
        """
        changes: dict[str, object] = {}
        for name, text in overrides.items():
            spec = OPTIONS.get(name.replace("-", "_"))
            if spec is None:
                raise RulesError(
                    f"unknown rule option {clip(name)!r} (known: {', '.join(OPTIONS)})")
            try:
                changes[spec.name] = spec.parse(str(text))
            except ValueError:
                raise RulesError(
                    f"option {spec.name} cannot be {clip(str(text))!r} "
                    f"(choices: {', '.join(spec.choices)})"
                ) from None
        if not changes:
            return self
        changed = replace(self, **changes)  # type: ignore[arg-type]
        base_name = self.name.partition("+")[0]
        base = RULESETS.get(base_name, changed)
        diff = [
            f"{k}={str(v).lower()}"
            for k, v in changed.options().items()
            if v != base.options()[k]
        ]
        name = base_name + ("+" + ",".join(diff) if diff else "")
        return replace(changed, name=name, description=base.description)

    # Derived tables used by the play model and the solvers.

    @cached_property
    def suit_order(self) -> tuple[int, ...]:
        """Ace-low rank values from the bottom of a suit to its top."""
        if self.ace is AceRank.LOW:
            return tuple(range(13))
        return (*range(1, 13), 0)

    @cached_property
    def successor(self) -> tuple[int, ...]:
        """``successor[c]`` is the card just above ``c`` in its suit, or -1 at the top.

        The 8♦ is a real successor here (of the 7♦); it is simply never in play.
        """
        table = [-1] * NUM_CARDS
        order = self.suit_order
        for suit in range(4):
            for low, high in itertools.pairwise(order):
                table[make_card(suit, low)] = make_card(suit, high)
        return tuple(table)

    @cached_property
    def predecessor(self) -> tuple[int, ...]:
        """``predecessor[c]`` is the card just below ``c`` in its suit, or -1 at the bottom."""
        table = [-1] * NUM_CARDS
        for card, above in enumerate(self.successor):
            if above >= 0:
                table[above] = card
        return tuple(table)

    @cached_property
    def order_key(self) -> tuple[int, ...]:
        """``order_key[c]`` is the position of card ``c`` within its suit (0 = bottom)."""
        keys = [0] * NUM_CARDS
        for position, rank in enumerate(self.suit_order):
            for suit in range(4):
                keys[make_card(suit, rank)] = position
        return tuple(keys)

    def cards_per_player(self, players: int) -> int:
        """How many cards the dealing rule gives each of ``players`` players."""
        size = PACK.bit_count()
        if self.dead_hand is DeadHandRule.EQUAL_HANDS:
            return size // (players + 1)
        return (size - self.stock_size) // players

    def dead_hand_size(self, players: int) -> int:
        return PACK.bit_count() - players * self.cards_per_player(players)


def _json_value(value: object) -> object:
    if isinstance(value, StrEnum):
        return value.value
    return value


RULESETS: Final[Mapping[str, Ruleset]] = {
    r.name: r
    for r in (
        Ruleset(
            "hoyle-modernized",
            "Hoffmann's Hoyle's Games Modernized (c. 1909): ace low, lead any card. The default.",
        ),
        Ruleset(
            "britannica",
            "Encyclopaedia Britannica 1911 via Wikipedia: ace low, lead the lowest of a suit.",
            lead=LeadRule.LOWEST_OF_SUIT,
        ),
        Ruleset(
            "parlett",
            "Parlett, The Penguin Book of Card Games: ace high, lead the lowest of a suit.",
            ace=AceRank.HIGH,
            lead=LeadRule.LOWEST_OF_SUIT,
        ),
        Ruleset(
            "early-hoyle",
            "An early Hoyle's Games: a stock of six to eight, a Pope turn-up ends the deal, "
            "the players dress the board.",
            dead_hand=DeadHandRule.STOCK,
            pope_turnup=PopeTurnup.ENDS_DEAL,
            dressing=Dressing.PLAYERS,
        ),
    )
}

DEFAULT_RULESET: Final = "hoyle-modernized"

# Sources for the choices each named ruleset makes, where the ruleset's own text says so.
# They override CHOICE_SOURCES in `popejoan rules` so each ruleset cites its own book.
RULESET_SOURCES: Final[Mapping[str, Mapping[str, Source]]] = {
    "britannica": {
        "ace": Source(WIKI, "cards rank A 2 3 4 5 6 7 8 9 10 J Q K"),
        "pope_turnup": Source(WIKI, "If it is Pope (9♦), or the Ace, King, Queen or Jack, the "
                              "dealer wins the contents of the appropriate compartment outright"),
        "pairs": Source(WIKI, "That for Intrigue can only be won if the same player is able to "
                        "play Queen and Jack, as does Matrimony for King and Queen"),
        "dressing": Source(WIKI, "The dealer \"dresses the board\" by placing a stake of six "
                           "counters in the compartment labelled Pope"),
        "pope_exemption": Source(WIKI, "except the player holding the Pope who is excused "
                                 "payment"),
    },
    "parlett": {
        "lead": Source(PARLETT, "Eldest leads by playing the lowest card held of any suit he "
                       "chooses"),
        "dead_hand": Source(PARLETT, "He deals al the cards around as at Newmarket, including "
                            "a dead hand", "OCR: \"al\" is \"all\""),
        "pope_turnup": Source(PARLETT, "if it is Pope, Ace, King, Queen or Jack, he wins the "
                              "stake from the appropriate division"),
        "pairs": Source(PARLETT, "The contents of Matrimony can be taken only when the same "
                        "player plays both King and Queen of the trump suit"),
        "dressing": Source(PARLETT, "Dealer starts by set ing 6 counters on Pope",
                           "OCR: \"set ing\" is \"setting\""),
        "pope_exemption": Source(PARLETT, "a player who is left with 9 in hand is exempt from "
                                 "this penalty", "the OCR lost the ♦ of the 9♦"),
    },
    "early-hoyle": {
        "ace": Source(EARLY, "particularly an ace, for that never can be led through"),
        "lead": Source(EARLY, "the eldest hand begins by playing out as many cards as possible; "
                       "first the stops, then Pope, if he have it, and afterwards the lowest card "
                       "of his longest suit"),
        "pairs": Source(EARLY, "queen and knave, when in the same hand, make intrigue"),
        "pope_exemption": Source(EARLY, "except from any one holding Pope, which excuses him "
                                 "from paying"),
    },
}


def ruleset_sources(ruleset: Ruleset) -> dict[str, Source]:
    """Sources for every option; a named ruleset's own text is preferred where it says so."""
    sources = ruleset.sources()
    base_name = ruleset.name.partition("+")[0]
    base = RULESETS.get(base_name)
    if base is not None:
        own = RULESET_SOURCES.get(base_name, {})
        for option, source in own.items():
            if getattr(ruleset, option) == getattr(base, option):
                sources[option] = source
    return sources


def get_ruleset(name: str) -> Ruleset:
    """The ruleset ``NAME`` or ``NAME+OPT=V,OPT=V`` (the form :meth:`Ruleset.with_options` names).

    Raises :class:`RulesError` naming the known rulesets otherwise.
    """
    base, plus, overrides = name.strip().partition("+")
    try:
        ruleset = RULESETS[base]
    except KeyError:
        raise RulesError(f"unknown ruleset {clip(base)!r} (known: {', '.join(RULESETS)})") from None
    if plus and not overrides.strip():
        raise RulesError(f"ruleset {clip(name)!r}: '+' must be followed by OPTION=VALUE,...")
    if overrides:
        ruleset = ruleset.with_options(parse_assignments(overrides.split(",")))
    return ruleset


def parse_assignments(items: Sequence[str]) -> dict[str, str]:
    """Read ``OPT=VALUE`` strings (from ``--set``) into a dict."""
    result: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise RulesError(f"--set takes OPTION=VALUE, not {clip(item)!r}")
        result[name.strip()] = value.strip()
    return result
