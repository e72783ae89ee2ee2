"""Rulesets: one frozen object per reading of the rules, every option tied to its source.

Each option is declared once, in its :class:`Ruleset` field (:func:`option`): its values, its
default, its doc and the source of every value, a work and a phrase quoted from it (see
:mod:`.sources`), so that a user can check any choice the model makes. :data:`OPTIONS`,
``--set``, ``popejoan rules``, the tables of ``docs/rules.md`` and :func:`variant_matrix` are
all read from those fields. Named rulesets are in :data:`RULESETS`; any option can be
overridden with :meth:`Ruleset.with_options`.

>>> get_ruleset("parlett").ace
<AceRank.HIGH: 'high'>
>>> get_ruleset("hoyle-modernized").with_options({"ace": "high"}).name
'hoyle-modernized+ace=high'
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import Field, dataclass, field, fields, replace
from enum import Enum
from functools import cache, cached_property, partial
from typing import Any, Final

from .errors import RulesError, clip
from .options import MAX_PLAYERS as MAX_PLAYERS  # re-exported: rules.py named them first
from .options import MIN_PLAYERS as MIN_PLAYERS
from .options import AceRank as AceRank
from .options import DeadHandRule as DeadHandRule
from .options import Dressing as Dressing
from .options import GameKind as GameKind
from .options import LeadRule as LeadRule
from .options import PairRule as PairRule
from .options import Pools as Pools
from .options import PopeInLieu as PopeInLieu
from .options import PopeTurnup as PopeTurnup
from .options import SpareHand as SpareHand
from .sources import (
    BRITANNICA,
    CASSELL,
    EARLY_HOYLE,
    HOFFMANN,
    MODERN_BOOK,
    PARLETT_PENGUIN,
    PEEL,
    WIKIPEDIA,
)
from .sources import MODEL as MODEL  # re-exported: the model's own choices
from .sources import Source as Source  # re-exported: theorems and proofs cite with it
from .sources import Work as Work
from .table import RuleTable, build_table

# The works cited, under the names other modules import (theorems cite them too).
HOYLE: Final = HOFFMANN
EARLY: Final = EARLY_HOYLE
WIKI: Final = WIKIPEDIA
MODERN: Final = MODERN_BOOK
PARLETT: Final = PARLETT_PENGUIN

NOT_MODELLED: Final[Mapping[str, tuple[object, str]]] = {
    "spare_hand": (SpareHand.DEALER_STANDS_OUT, "a dealer dealt no cards has no seat in the "
                   "model's deals; use spare_hand=unseen or dealer-sees"),
}
"""Option values declared, with their source, that every ruleset refuses: documented gaps."""

NOT_IN_SPINADO: Final[Mapping[str, object]] = {
    "pope_turnup": PopeTurnup.COMPARTMENT, "dressing": Dressing.DEALER, "stake": 5,
    "pope_exemption": False, "pools": Pools.EIGHT, "pope_in_lieu": PopeInLieu.NO,
}
"""Options of Pope Joan's trumps, Pope and board, and the only value each takes under Spinado."""

_OPTION: Final = "popejoan.option"
"""The key under which a :class:`Ruleset` field's metadata declares its option."""


@dataclass(frozen=True)
class OptionSpec:
    """One option of the rules as its :class:`Ruleset` field declares it: name, doc, default,
    values and the source of each value. :data:`OPTIONS` is read from the fields."""

    name: str
    doc: str
    parse: Callable[[str], object]
    choices: tuple[str, ...]
    """The values as ``--set`` takes them: one per value, or one range such as ``1..20``."""
    default: object = None
    values: tuple[object, ...] = ()
    samples: tuple[object, ...] = ()
    """The values :func:`variant_matrix` covers: all of them, or a range's few that sources name."""
    sources: Mapping[object, Source] = field(default_factory=dict)
    """The source of every value."""

    def text(self, value: object) -> str:
        """A value as ``--set`` and ruleset names write it (``high``, ``true``, ``6``)."""
        if isinstance(value, Enum):
            return str(value.value)
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    def json_value(self, value: object) -> object:
        """A value as JSON gives it: an enum's text, a bool or a number as itself."""
        return value.value if isinstance(value, Enum) else value

    def to_json(self) -> dict[str, Any]:
        """The declaration as ``rules --json`` prints it, with the source of each choice."""
        if len(self.choices) == len(self.values):
            sources = {self.text(v): self.sources[v].to_json() for v in self.values}
        else:  # a range: one source for all its values
            sources = {self.choices[0]: self.sources[self.default].to_json()}
        return {"name": self.name, "values": [self.json_value(v) for v in self.values],
                "default": self.json_value(self.default), "doc": self.doc, "sources": sources}


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise ValueError(text)


def _parse_in(values: range, text: str) -> int:
    value = int(text)
    if value not in values:
        raise ValueError(text)
    return value


def _domain(default: object, values: Sequence[object] | None
            ) -> tuple[tuple[object, ...], tuple[str, ...], Callable[[str], object]]:
    """Values, choices and parser of an option, from its default's type (an enum or a bool) or
    from the range it is given."""
    if isinstance(default, Enum):
        members: tuple[Enum, ...] = tuple(type(default))
        return members, tuple(str(m.value) for m in members), type(default)
    if isinstance(default, bool):
        return (True, False), ("true", "false"), _parse_bool
    if isinstance(values, range) and values.step == 1:
        return tuple(values), (f"{values.start}..{values.stop - 1}",), partial(_parse_in, values)
    raise TypeError(f"an option is an enum, a bool or a range of int, not {default!r}")


@dataclass(frozen=True)
class _Declaration:
    """What :func:`option` puts in a field's metadata; :func:`_spec` completes it."""

    doc: str
    sources: Mapping[Any, Source] | Source
    values: range | None
    samples: tuple[object, ...] | None


def option(doc: str, sources: Mapping[Any, Source] | Source, *, values: range | None = None,
           samples: Sequence[object] | None = None) -> Mapping[str, object]:
    """A :class:`Ruleset` field's metadata declaring an option: its doc and the source of each
    value (one :class:`Source` for a whole range); the values come from the default's type."""
    chosen = tuple(samples) if samples is not None else None
    return {_OPTION: _Declaration(doc, sources, values, chosen)}


def _spec(declared: Field[Any]) -> OptionSpec:
    """The option a field declares, checked: every value has a source, the default is sampled."""
    decl: _Declaration = declared.metadata[_OPTION]
    default = declared.default
    domain, choices, parse = _domain(default, decl.values)
    cited: dict[object, Source] = (dict.fromkeys(domain, decl.sources)
                                   if isinstance(decl.sources, Source) else dict(decl.sources))
    chosen = decl.samples if decl.samples is not None else domain
    if set(cited) != set(domain) or default not in chosen or not set(chosen) <= set(domain):
        raise TypeError(f"option {declared.name}: every value needs one source, and the "
                        "samples must be values, the default among them")
    return OptionSpec(declared.name, decl.doc, parse, choices, default, domain, chosen, cited)


@dataclass(frozen=True)
class Ruleset:
    """A complete, frozen choice of every rule option. Equal options mean equal rulesets.

    Each option is declared once, in its field: ``field(default=..., metadata=option(doc,
    sources))`` gives its default, its doc and the source of every value; its values come from
    the default's type. ``--set``, ``rules --json``, the tables in ``docs/rules.md`` and
    :func:`variant_matrix` all read :data:`OPTIONS`, which is read from these fields.
    """

    name: str = field(compare=False)
    description: str = field(compare=False)
    game: GameKind = field(default=GameKind.POPE_JOAN, metadata=option(
        "the game of the stops family: Pope Joan, or its simplified descendant Spinado", {
        GameKind.POPE_JOAN: Source(
            HOFFMANN, "It is played with a pack of fifty-two cards, from which the eight of "
            "diamonds (for a reason which will presently appear) has been removed"),
        GameKind.SPINADO: Source(
            PARLETT_PENGUIN, "Simplified Pope Joan played with a 47-card pack made by stripping "
            "out 8[♦] and four Deuces", "the pack, the board (Matrimony, Intrigue, Game), the "
            "payments for Kings and Spin and the Spin itself; docs/rules.md gives each point "
            "with its quote", section="Spinado"),
    }))
    ace: AceRank = field(default=AceRank.LOW, metadata=option(
        "ace low (below the two) or high (above the king)", {
        AceRank.LOW: Source(
            HOFFMANN, "the only known cards which cannot be led to are the four aces", also=(
                Source(WIKIPEDIA, "cards rank A 2 3 4 5 6 7 8 9 10 J Q K"),
                Source(EARLY_HOYLE, "particularly an ace, for that never can be led through"))),
        AceRank.HIGH: Source(PARLETT_PENGUIN, "Ace is high"),
    }))
    lead: LeadRule = field(default=LeadRule.ANY, metadata=option("which cards may be led", {
        LeadRule.ANY: Source(HOFFMANN, "leads any card he pleases", also=(
            Source(MODERN_BOOK, "He may lead any card he chooses"),)),
        LeadRule.LOWEST_OF_SUIT: Source(
            WIKIPEDIA, "it may be of any suit, but must be the lowest he has of it", also=(
                Source(PARLETT_PENGUIN, "the lowest card held of any suit he chooses"),)),
        LeadRule.LOWEST_IN_HAND: Source(
            WIKIPEDIA, "as long as it is his lowest card",
            "a literal reading of the first-lead sentence; lowest by rank, any suit on a tie"),
    }))
    dead_hand: DeadHandRule = field(default=DeadHandRule.EQUAL_HANDS, metadata=option(
        "how the dead hand is dealt", {
        DeadHandRule.EQUAL_HANDS: Source(
            WIKIPEDIA, "so that all players have an equal number of cards", also=(
                Source(MODERN_BOOK, "any over-cards go to the widow"),
                Source(PARLETT_PENGUIN, "including a dead hand"))),
        DeadHandRule.STOCK: Source(EARLY_HOYLE,
                                   "about six or eight left in the stock to form stops"),
    }))
    stock_size: int = field(default=6, metadata=option(
        "least number of cards left in the stock (only with dead_hand=stock)",
        Source(EARLY_HOYLE, "about six or eight left in the stock to form stops",
               "players are dealt equally and at least this many cards are left"),
        values=range(1, 21), samples=(6, 8)))
    pope_turnup: PopeTurnup = field(default=PopeTurnup.COMPARTMENT, metadata=option(
        "what a Pope turn-up gives the dealer", {
        PopeTurnup.COMPARTMENT: Source(
            HOFFMANN, "Should the turn-up be Pope (nine of diamonds), or an ace, king, queen or "
            "knave, the dealer is entitled to all the counters in the corresponding compartment"),
        PopeTurnup.ENDS_DEAL: Source(
            EARLY_HOYLE, "when Pope be turned up, the dealer is entitled both to that and the "
            "game, besides a stake for every card dealt to each player",
            "\"Unless the game be determined by Pope being turned up\": the deal is not played"),
    }))
    pairs: PairRule = field(default=PairRule.SAME_PLAYER, metadata=option(
        "who takes Matrimony and Intrigue", {
        PairRule.SAME_PLAYER: Source(
            HOFFMANN, "Should knave and queen, or queen and king of trumps fall from the same hand",
            also=(Source(PARLETT_PENGUIN, "only when the same player plays both"),)),
        PairRule.DIVIDED: Source(
            WIKIPEDIA, "if they are in different hands these counters are sometimes divided",
            "model reading: each player of one of the two cards takes half, rounded down; "
            "an odd counter stays on the board"),
    }))
    dressing: Dressing = field(default=Dressing.DEALER, metadata=option(
        "who pays to dress the board, and the fresh board's layout", {
        Dressing.DEALER: Source(
            HOFFMANN, "paying from his own store, and distributing between the various divisions "
            "fifteen counters"),
        Dressing.PLAYERS: Source(
            EARLY_HOYLE, "the players usually contribute two stakes each towards the pool",
            "model reading: every other player gives the dealer two counters towards the fifteen, "
            "or the twelve of five pools; a surplus goes to Game"),
        Dressing.PEEL: Source(
            PEEL, "The players then contribute between them fifteen (or more) counters or coins "
            "to form a pool, the dealer giving double the amount paid by the other players",
            "model reading: each other player pays the least share s with (players + 1) x s at "
            "least 15 (12 with five pools), the dealer 2s; Pope 6, Matrimony and Intrigue 2, "
            "Ace, King, Queen and Knave 1, \"and the remainder for Game\"", also=(Source(
                PEEL, "Six of the counters are placed for Pope Joan, two each for Matrimony and "
                "Intrigue, one each for Ace, King, Queen, and Knave, and the remainder for Game"),
            )),
        Dressing.BRITANNICA_1911: Source(
            BRITANNICA, "every player contributes a stake",
            "the 1911 text was not available to us: the wording is that of our notes on it. "
            "Every player pays `stake` counters; one each to Ace, King, Queen, Knave and Game, "
            "two each to Matrimony and Intrigue, the rest to Pope"),
    }))
    stake: int = field(default=5, metadata=option(
        "counters in each player's stake (only with dressing=britannica-1911)",
        Source(MODEL, "", "the Britannica does not say what a stake is; it must be several "
               "counters, as three players' stakes cover the nine counters of the lesser "
               "compartments. 5 makes a three-player board the fifteen of the other sources"),
        values=range(3, 21), samples=(5,)))
    pope_exemption: bool = field(default=True, metadata=option(
        "an unplayed Pope exempts its holder from paying", {
        True: Source(HOFFMANN, "save that the holder of Pope is exempt from payment. If Pope is "
                     "played, the exemption ceases"),
        False: Source(MODEL, "", "no exemption; for comparison only"),
    }))
    pools: Pools = field(default=Pools.EIGHT, metadata=option(
        "the board's compartments: eight, or five without King, Queen and Knave", {
        Pools.EIGHT: Source(HOFFMANN, "divided into eight compartments"),
        Pools.FIVE: Source(
            PEEL, "twelve coins or counters are sufficient to dress the board",
            "model reading: the usual layout less the King, Queen and Knave counters: Pope 6, "
            "Matrimony 2, Intrigue 2, Ace 1, Game 1; no awards for the king, queen or knave of "
            "trumps, played or turned up", section="Five-Pool Pope", also=(Source(
                PEEL, "Pope Joan, Matrimony, Intrigue, Ace, and Game are retained, King, Queen, "
                "and Knave being omitted", section="Five-Pool Pope"),)),
    }))
    pope_in_lieu: PopeInLieu = field(default=PopeInLieu.NO, metadata=option(
        "whether, when a run stops, the holder of the unplayed Pope may play it in place of the "
        "missing card, and who goes on", {
        PopeInLieu.NO: Source(
            HOFFMANN, "\"Pope,\" as we have seen, can only be played when the holder has the lead",
            "the Pope is played only in its turn, as the main rules of every source have it"),
        PopeInLieu.RUN_CONTINUES: Source(
            PEEL, "The holder of Pope may play it in lieu of the ten of spades, and then "
            "continue with his knave of that suit, first taking his winnings on Pope",
            "model reading: not after a King (nothing is missing above it); the run goes on "
            "with the card above the missing one, whoever holds it; if that card cannot be "
            "played, the Pope's player leads", section="Looking at the Spare Hand", also=(
                Source(PEEL, "Pope Joan is sometimes allowed to be played at any time in lieu "
                       "of a stop", section="Looking at the Spare Hand"),)),
        PopeInLieu.POPE_LEADS: Source(
            PEEL, "Pope Joan is sometimes allowed to be played at any time in lieu of a stop",
            "model reading: not after a King; the Pope is itself the stop, and its player "
            "leads next (in Peel's example he leads his knave)",
            section="Looking at the Spare Hand", also=(
                Source(WIKIPEDIA, "The Pope card is sometimes considered a universal \"stop.\""),)),
        PopeInLieu.POPE_LEADS_AFTER_KING: Source(
            PEEL, "Pope Joan is sometimes allowed to be played at any time in lieu of a stop",
            "model reading: \"at any time\", after a King too; the Pope's player leads next",
            section="Looking at the Spare Hand", also=(
                Source(WIKIPEDIA, "The Pope card is sometimes considered a universal \"stop.\""),)),
    }))
    spare_hand: SpareHand = field(default=SpareHand.UNSEEN, metadata=option(
        "who may look at the dead hand", {
        SpareHand.UNSEEN: Source(
            HOFFMANN, "By some players the dealer is allowed the privilege of looking at the "
            "extra cards", "no one; Hoffmann's note 41 on the dealer who looks: \"the practice "
            "is not recommended\""),
        SpareHand.DEALER_SEES: Source(
            EARLY_HOYLE, "the dealer is the only person permitted, in the course of the game, to "
            "refer occasionally to the stock", "only what a seat knows changes; the double-dummy "
            "search knows every card anyway", also=(
                Source(CASSELL, "no one but the dealer has the privilege of looking at them"),
                Source(PEEL, "it is sometimes agreed that the dealer shall look at the spare hand",
                       section="Looking at the Spare Hand"))),
        SpareHand.DEALER_STANDS_OUT: Source(
            PEEL, "he ought to stand out, no cards being dealt him that round",
            "not modelled yet: every command refuses it; see docs/rules.md",
            section="Looking at the Spare Hand"),
    }, samples=(SpareHand.UNSEEN, SpareHand.DEALER_SEES)))

    def __post_init__(self) -> None:
        """Refuse an option value the model declares but cannot play yet (NOT_MODELLED), and
        a Pope Joan option set under Spinado, which has no trumps, Pope or eight-pool board."""
        for name, (value, why) in NOT_MODELLED.items():
            if getattr(self, name) == value:
                raise RulesError(f"option {name}={value} is not modelled yet: {why}")
        if self.game is GameKind.SPINADO:
            for name, value in NOT_IN_SPINADO.items():
                if getattr(self, name) != value:
                    raise RulesError(
                        f"option {name} does not apply to game=spinado (no trumps, no Pope, "
                        f"Spinado's own board): leave it at {OPTIONS[name].text(value)}")

    def options(self) -> dict[str, object]:
        """Every option's value, keyed by option name, as JSON-ready values."""
        return {name: spec.json_value(getattr(self, name)) for name, spec in OPTIONS.items()}

    def sources(self) -> dict[str, Source]:
        """The declared source of every option's current value."""
        return {name: spec.sources[getattr(self, name)] for name, spec in OPTIONS.items()}

    def with_options(self, overrides: Mapping[str, str]) -> Ruleset:
        """A copy with options set from text values, e.g. ``{"ace": "high"}``.

        Raises :class:`RulesError` for an unknown option or a value it cannot take.
        """
        if not isinstance(overrides, Mapping):
            raise RulesError(f"options are a mapping of option names to values (like "
                             f"{{'ace': 'high'}}), not {type(overrides).__name__}")
        changes: dict[str, object] = {}
        for name, text in overrides.items():
            spec = OPTIONS.get(name.replace("-", "_")) if isinstance(name, str) else None
            if spec is None:
                raise RulesError(
                    f"unknown rule option {clip(str(name))!r} (known: {', '.join(OPTIONS)})")
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
        diff = [f"{name}={spec.text(getattr(changed, name))}" for name, spec in OPTIONS.items()
                if getattr(changed, name) != getattr(base, name)]
        name = base_name + ("+" + ",".join(diff) if diff else "")
        description = (f"{base_name} with {', '.join(diff)}; otherwise as {base_name}: "
                       f"{base.description}" if diff else base.description)
        return replace(changed, name=name, description=description)

    @cached_property
    def table(self) -> RuleTable:
        """The ruleset compiled into the tables that dealing, play, settlement and every engine
        read (:mod:`.table`): the one place each derived table lives. A subclass that adds an
        option of its own overrides it, refining ``super().table`` (every backend reads the
        table here, so they all follow: tests/model/test_example_option.py)."""
        return build_table(self)


def declared_options(cls: type) -> dict[str, OptionSpec]:
    """The options a dataclass declares with :func:`option`, named after their fields, each
    checked (a source for every value); :data:`OPTIONS` is ``declared_options(Ruleset)``."""
    return {f.name: _spec(f) for f in fields(cls) if _OPTION in f.metadata}


OPTIONS: Final[Mapping[str, OptionSpec]] = declared_options(Ruleset)
"""Every option, in declaration order, read from the :class:`Ruleset` fields."""

RULESETS: Final[Mapping[str, Ruleset]] = {
    r.name: r
    for r in (
        Ruleset(
            "hoyle-modernized",
            "Hoffmann's Hoyle's Games Modernized (c. 1909): ace low, lead any card. The default.",
        ),
        Ruleset(
            "britannica",
            "The 1911 Encyclopaedia Britannica through Wikipedia's \"Pope Joan (card game)\" "
            "(the Britannica not read at first hand): ace low, lead the lowest of a suit.",
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
            "An early Hoyle's Games (edition not identified): a stock of six to eight, a Pope "
            "turn-up ends the deal, the players dress the board.",
            dead_hand=DeadHandRule.STOCK,
            pope_turnup=PopeTurnup.ENDS_DEAL,
            dressing=Dressing.PLAYERS,
        ),
        Ruleset(
            "peel",
            "Peel, Round Games with Cards (1891), his main rules: ace low, a spare hand, the "
            "players dress the board, the dealer paying double. Options his text as we read it "
            "does not settle take the default (docs/rules.md).",
            dressing=Dressing.PEEL,
        ),
        Ruleset(
            "cassell",
            "Cassell's Book of In-door Amusements (1881): ace low, lead any card, an extra hand "
            "that only the dealer may look at, a Pope turn-up ends the deal.",
            pope_turnup=PopeTurnup.ENDS_DEAL,
            spare_hand=SpareHand.DEALER_SEES,
        ),
        Ruleset(
            "britannica-1911",
            "The 1911 Encyclopaedia Britannica: as britannica (through Wikipedia), with the "
            "Britannica's own dressing, every player staking and the rest to Pope (the 1911 text "
            "not read at first hand: docs/rules.md).",
            lead=LeadRule.LOWEST_OF_SUIT,
            dressing=Dressing.BRITANNICA_1911,
        ),
        Ruleset(
            "spinado",
            "Spinado, Pope Joan's simplified descendant, after Parlett: 47 cards, aces low and "
            "stops, lead the lowest of a suit as at Newmarket; Matrimony, Intrigue and Game on "
            "the board; Kings and Spin (the A♦, which its holder may play on any card he plays "
            "to make it a stop) paid by every opponent.",
            game=GameKind.SPINADO,
            lead=LeadRule.LOWEST_OF_SUIT,
            pope_exemption=False,
        ),
    )
}

DEFAULT_RULESET: Final = "hoyle-modernized"

def _unsettled(work: Work, where: str = "", aside: str = "") -> Source:
    """The citation of a default a work does not settle: the model's choice, saying so."""
    note = f"not settled by {work.citation()}{where}: the default"
    return Source(MODEL, "", f"{note}; {aside}" if aside else note)


_PEEL_UNREAD = " in the passages we could read (pp. 80-81, 85-86)"
_CASSELL_UNREAD = " in the passage we could read"
_THROUGH_WIKI = "Wikipedia cites the 1911 Britannica for its rules"

_BRITANNICA_SOURCES: Final[Mapping[str, Source]] = {
    "ace": Source(WIKI, "cards rank A 2 3 4 5 6 7 8 9 10 J Q K"),
    "pope_turnup": Source(WIKI, "If it is Pope (9♦), or the Ace, King, Queen or Jack, the "
                          "dealer wins the contents of the appropriate compartment outright"),
    "pairs": Source(WIKI, "That for Intrigue can only be won if the same player is able to "
                    "play Queen and Jack, as does Matrimony for King and Queen"),
    "dressing": Source(WIKI, "The dealer \"dresses the board\" by placing a stake of six "
                       "counters in the compartment labelled Pope",
                       "Wikipedia's reading; the 1911 Britannica is reported to have every "
                       "player stake: see britannica-1911"),
    "pope_exemption": Source(WIKI, "except the player holding the Pope who is excused "
                             "payment"),
    "pools": Source(WIKI, "A staking board is required, with eight compartments",
                    section="Setup"),
}

# Sources for the choices each named ruleset makes, where the ruleset's own text says so.
# They override the options' declared sources in `popejoan rules`: each ruleset cites its book.
RULESET_SOURCES: Final[Mapping[str, Mapping[str, Source]]] = {
    "britannica": _BRITANNICA_SOURCES,
    "parlett": {
        "lead": Source(PARLETT, "Eldest leads by playing the lowest card held of any suit he "
                       "chooses"),
        "dead_hand": Source(PARLETT, "He deals al[l] the cards around as at Newmarket, including "
                            "a dead hand"),
        "pope_turnup": Source(PARLETT, "if it is Pope, Ace, King, Queen or Jack, he wins the "
                              "stake from the appropriate division"),
        "pairs": Source(PARLETT, "The contents of Matrimony can be taken only when the same "
                        "player plays both King and Queen of the trump suit"),
        "dressing": Source(PARLETT, "Dealer starts by set[t]ing 6 counters on Pope"),
        "pope_exemption": Source(PARLETT, "a player who is left with 9[♦] in hand is exempt from "
                                 "this penalty"),
    },
    "early-hoyle": {
        "ace": Source(EARLY, "particularly an ace, for that never can be led through"),
        "lead": Source(EARLY, "the eldest hand begins by playing out as many cards as possible; "
                       "first the stops, then Pope, if he have it, and afterwards the lowest card "
                       "of his longest suit", "advice on what to lead, not a restriction"),
        "pairs": Source(EARLY, "queen and knave, when in the same hand, make intrigue"),
        "pope_exemption": Source(EARLY, "except from any one holding Pope, which excuses him "
                                 "from paying"),
    },
    "peel": {
        "ace": Source(PEEL, "which are here reckoned in regular order from ace to king"),
        "lead": _unsettled(PEEL, _PEEL_UNREAD),
        "dead_hand": Source(PEEL, "The best way, however, is to deal a spare hand with the "
                            "others", "Peel's Limited Stops, a stock instead, is a variation",
                            section="Limited Stops"),
        "stock_size": _unsettled(PEEL, aside="his Limited Stops names no number; unused with "
                                 "a spare hand"),
        "pope_turnup": Source(
            PEEL, "In this variation, when Pope Joan is turned up the dealer at once wins the "
            "game", "this is Peel's variation \"Pope Joan Wins\": in his main rules the deal is "
            "played. The main rule's \"payment from each of the players already referred to\" "
            "is in a passage we could not read, and is not modelled", section="Pope Joan Wins"),
        "pairs": _unsettled(PEEL, _PEEL_UNREAD),
        "stake": _unsettled(PEEL, aside="unused with dressing=peel"),
        "pope_exemption": _unsettled(PEEL, _PEEL_UNREAD),
        "pools": Source(PEEL, "a special board, or a pool with eight compartments, is required",
                        "Five-Pool Pope is a variation"),
        "spare_hand": Source(PEEL, "It is an altogether objectionable variation, and not at all "
                             "a necessary one", section="Looking at the Spare Hand"),
    },
    "cassell": {
        "ace": Source(CASSELL, "the ace counting only as one in the game"),
        "lead": Source(CASSELL, "The dealer's left-hand player begins by playing any card he "
                       "likes"),
        "dead_hand": Source(CASSELL, "an extra hand is placed in the middle of the table, to form "
                            "what is called the stops", also=(Source(
                                CASSELL, "the rest are dealt out equally to all the players"),)),
        "stock_size": _unsettled(CASSELL, aside="unused with an extra hand"),
        "pope_turnup": Source(
            CASSELL, "He takes both it and game, and also can claim a stake for every card dealt "
            "to each player", "taking Game ends the deal: it is not played, as in the early "
            "Hoyle"),
        "pairs": _unsettled(CASSELL, _CASSELL_UNREAD),
        "dressing": Source(CASSELL, "the fifteen counters necessary for this performance are "
                           "either supplied by the dealer alone or are contributed by the "
                           "company, according to arrangement",
                           "the dealer alone: the company's shares are not given"),
        "stake": _unsettled(CASSELL, aside="unused with dressing=dealer"),
        "pope_exemption": _unsettled(CASSELL, _CASSELL_UNREAD),
        "pools": Source(CASSELL, "Six are given to pope, two to matrimony, two to intrigue, and "
                        "one each to ace, king, queen, knave, and game"),
        "spare_hand": Source(CASSELL, "no one but the dealer has the privilege of looking at "
                             "them"),
    },
    "britannica-1911": {
        **{name: replace(source, note=source.note or _THROUGH_WIKI)
           for name, source in _BRITANNICA_SOURCES.items() if name != "dressing"},
        "stock_size": _unsettled(BRITANNICA, aside="unused with equal hands"),
        "stake": Source(MODEL, "", "the Britannica's stake is not given in counters: 5, so that "
                        "three players make the usual fifteen"),
        "spare_hand": _unsettled(BRITANNICA),
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
    if not isinstance(name, str):
        raise RulesError(f"a ruleset is named by a string, not {clip(repr(name))}")
    base, plus, overrides = name.strip().partition("+")
    base = base.strip()  # "parlett + ace=high" names parlett
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
            raise RulesError(f"a rule option is set as OPTION=VALUE (--set, or after '+' in a "
                             f"ruleset name), not {clip(item)!r}")
        key = name.strip().replace("-", "_")
        if result.get(key, value.strip()) != value.strip():
            raise RulesError(f"option {clip(key)} is set twice, to {clip(result[key])!r} and "
                             f"{clip(value.strip())!r}")
        result[key] = value.strip()
    return result


# The test matrix: every pair of option values in some ruleset.

@cache
def variant_matrix() -> tuple[Ruleset, ...]:
    """Rulesets for differential tests: every pair of sample values of two options together in
    at least one (so every value too), the default ruleset first; then the same for Spinado
    over the options that apply to it (:data:`NOT_IN_SPINADO` take their one value there).

    Greedy and deterministic (AETG-like): for each pair not yet covered, a candidate ruleset
    takes that pair and gives every other option, in declaration order, the sample value that
    covers the most new pairs with the options already set (on a tie, the value in most pairs
    still uncovered, then the earlier sample); the candidate covering most new pairs is kept
    (the first on a tie). ``stock_size`` is sampled
    at 6 and 8 and matters only with ``dead_hand=stock``. Rulesets are ``hoyle-modernized``
    or ``spinado`` with overrides, named so that :func:`get_ruleset` reads them back.
    """
    pope_joan = [s for s in OPTIONS.values() if s.name != "game"]
    spinado = [s for s in pope_joan if s.name not in NOT_IN_SPINADO]
    return (_pairwise(RULESETS[DEFAULT_RULESET], pope_joan)
            + _pairwise(RULESETS["spinado"], spinado))


def _pairwise(base: Ruleset, specs: Sequence[OptionSpec]) -> tuple[Ruleset, ...]:
    """``base`` with overrides covering every pair of sample values of ``specs``."""
    uncovered = {(i, a, j, b) for i, j in itertools.combinations(range(len(specs)), 2)
                 for a in range(len(specs[i].samples)) for b in range(len(specs[j].samples))}
    row = [spec.samples.index(getattr(base, spec.name)) for spec in specs]
    rows: list[list[int]] = []
    while True:
        rows.append(row)
        uncovered -= {(i, row[i], j, row[j])
                      for i, j in itertools.combinations(range(len(specs)), 2)}
        if not uncovered:
            break
        left = collections.Counter(value for p, x, q, y in uncovered
                                   for value in ((p, x), (q, y)))
        row = max((_row_from(specs, uncovered, left, pair) for pair in sorted(uncovered)),
                  key=lambda r: _covers(r, uncovered))
    return tuple(base.with_options({spec.name: spec.text(spec.samples[index])
                                    for spec, index in zip(specs, r, strict=True)})
                 for r in rows)


def _covers(row: Sequence[int], uncovered: set[tuple[int, int, int, int]]) -> int:
    """How many uncovered pairs a row of sample indices covers."""
    return sum((i, row[i], j, row[j]) in uncovered
               for i, j in itertools.combinations(range(len(row)), 2))


def _row_from(specs: Sequence[OptionSpec], uncovered: set[tuple[int, int, int, int]],
              left: Mapping[tuple[int, int], int], pair: tuple[int, int, int, int],
              ) -> list[int]:
    """A candidate row: ``pair``, then each other option's sample that covers most new pairs
    (``left``: how many uncovered pairs hold each option's sample)."""
    i, a, j, b = pair
    fixed = {i: a, j: b}
    for k in range(len(specs)):
        if k in fixed:
            continue

        def merit(value: int, k: int = k) -> tuple[int, int, int]:
            gain = sum((min(k, m), value if k < m else v, max(k, m), v if k < m else value)
                       in uncovered for m, v in fixed.items())
            return gain, left.get((k, value), 0), -value

        fixed[k] = max(range(len(specs[k].samples)), key=merit)
    return [fixed[k] for k in range(len(specs))]


# How the rules are shown: `popejoan rules`, its JSON, and the tables of docs/rules.md.

def ruleset_lines(ruleset: Ruleset) -> list[str]:
    """``popejoan rules`` for one ruleset: a line per option with its source, then the sources
    that agree and the note, indented."""
    width = max(map(len, OPTIONS)) + 1
    value_width = max(len(spec.text(v)) for spec in OPTIONS.values() for v in spec.values
                      if NOT_MODELLED.get(spec.name, (None,))[0] != v) + 1
    indent = " " * (2 + width + 1 + value_width + 1)
    lines = [f"{ruleset.name}: {ruleset.description}"]
    for name, source in ruleset_sources(ruleset).items():
        value = OPTIONS[name].text(getattr(ruleset, name))
        lines.append(f"  {name:{width}} {value:{value_width}} {source.cite()}")
        lines += [f"{indent}also {more.cite()}" for more in source.also]
        if source.note:
            lines.append(f"{indent}({source.note})")
    return lines


def options_lines() -> list[str]:
    """``popejoan rules``'s closing list of options: choices, default and what each decides."""
    width = max(map(len, OPTIONS)) + 1
    lines = ["options (set with --set OPTION=VALUE, or NAME+OPTION=VALUE as a ruleset name):"]
    for spec in OPTIONS.values():
        lines.append(f"  {spec.name:{width}} {'|'.join(spec.choices)} "
                     f"(default {spec.text(spec.default)}): {spec.doc}")
    return lines


def rules_json(rulesets: Sequence[Ruleset]) -> dict[str, Any]:
    """``popejoan rules --json``: the rulesets with the source of each value, and every option."""
    return {
        "rulesets": [{"name": r.name, "description": r.description, "options": r.options(),
                      "sources": {k: s.to_json() for k, s in ruleset_sources(r).items()}}
                     for r in rulesets],
        "options": [spec.to_json() for spec in OPTIONS.values()],
    }


def _cell(source: Source) -> str:
    """A source in a Markdown table cell: citation, agreeing sources, note."""
    text = "; ".join([source.cite(markdown=True)]
                     + [f"also {more.cite(markdown=True)}" for more in source.also])
    if source.note:
        text += f" ({source.note})"
    return text.replace("|", "\\|")


def options_table() -> str:
    """The "Options against sources" table of ``docs/rules.md``, from the declarations."""
    lines = ["| option | what it decides | value | source |", "|---|---|---|---|"]
    for spec in OPTIONS.values():
        first = f"`{spec.name}`"
        if len(spec.choices) < len(spec.values):  # a range: one source for every value
            rows = [(f"`{spec.choices[0]}` (default `{spec.text(spec.default)}`)",
                     spec.sources[spec.default])]
        else:
            rows = [(f"`{spec.text(v)}`" + (" (default)" if v == spec.default else ""),
                     spec.sources[v]) for v in spec.values]
        for value, source in rows:
            lines.append(f"| {first} | {spec.doc if first else ''} | {value} | {_cell(source)} |")
            first = ""
    return "\n".join(lines) + "\n"


def rulesets_table() -> str:
    """The table of named rulesets in ``docs/rules.md``: every option's value, and what each
    ruleset is."""
    lines = ["| ruleset | " + " | ".join(f"`{n}`" for n in OPTIONS) + " |",
             "|---" * (len(OPTIONS) + 1) + "|"]
    for ruleset in RULESETS.values():
        label = f"`{ruleset.name}`" + (" (default)" if ruleset.name == DEFAULT_RULESET else "")
        values = (OPTIONS[n].text(getattr(ruleset, n)) for n in OPTIONS)
        lines.append(f"| {label} | " + " | ".join(values) + " |")
    lines.append("")
    lines += [f"- `{r.name}`: {r.description}" for r in RULESETS.values()]
    return "\n".join(lines) + "\n"


def split_rulesets(text: str) -> list[str]:
    """A comma list of ruleset names, where a name's own overrides may hold commas too:
    ``"parlett,hoyle-modernized+ace=high,pairs=divided"`` is two rulesets (an item with ``=``
    and no ``+`` continues the ruleset before it)."""
    names: list[str] = []
    for item in (part.strip() for part in text.split(",")):
        if names and "=" in item and "+" not in item and "+" in names[-1]:
            names[-1] += "," + item
        elif item:
            names.append(item)
    return names
