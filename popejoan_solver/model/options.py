"""The values of the rule options, and what the compiled table reads of a ruleset.

The enums here are the values a :class:`~.rules.Ruleset` field takes; the field declares the
option (its doc, default and the source of every value, in ``model/rules.py``). They sit below
both the rulesets and the compiled table (``model/table.py``), which reads a ruleset through
:class:`RuleOptions` and so needs nothing else from ``rules.py``. ``rules.py`` re-exports every
name, so ``from popejoan_solver.model.rules import AceRank`` keeps working.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final, Protocol


class GameKind(StrEnum):
    """Which game of the stops family the table plays."""

    POPE_JOAN = "pope-joan"
    SPINADO = "spinado"
    """Parlett's Spinado: 47 cards (no 8♦, no deuces), no trumps, no Pope; Matrimony (K♦-Q♦),
    Intrigue (Q♦-J♦) and Game on the board; Kings and the A♦ ("Spin") paid by every opponent;
    the holder of Spin may play it on any card he plays, to make that card a stop."""


class PopeInLieu(StrEnum):
    """Peel's variation: the holder of the unplayed Pope may play it in place of a missing card
    when a run stops (each unclear point of his text is one value)."""

    NO = "no"
    RUN_CONTINUES = "run-continues"
    """Not after a King; the run goes on with the card above the missing one, whoever holds it
    (if that card cannot be played, the Pope's player leads next)."""
    POPE_LEADS = "pope-leads"
    """Not after a King; the Pope is a stop, and its player leads next."""
    POPE_LEADS_AFTER_KING = "pope-leads-after-king"
    """As ``pope-leads``, and after a King too ("at any time")."""


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
    """Who pays the counters that dress the board, and how many go where."""

    DEALER = "dealer"
    """The dealer pays the whole layout (15 counters; 12 with five pools)."""
    PLAYERS = "players"
    """Every other player gives two, the dealer the rest."""
    PEEL = "peel"
    """Every other player pays a share, the dealer two: the least shares that make the layout,
    the surplus to Game."""
    BRITANNICA_1911 = "britannica-1911"
    """Every player pays ``stake`` counters: one each to Ace, King, Queen, Knave and Game, two
    each to Matrimony and Intrigue, the rest to Pope."""


class Pools(StrEnum):
    """The compartments of the board."""

    EIGHT = "eight"
    FIVE = "five"
    """Peel's Five-Pool Pope: no King, Queen or Knave compartments."""


class SpareHand(StrEnum):
    """Who may look at the dead (spare) hand."""

    UNSEEN = "unseen"
    DEALER_SEES = "dealer-sees"
    DEALER_STANDS_OUT = "dealer-sees-and-stands-out"
    """Peel: the dealer who sees it is dealt no cards. Not modelled yet: refused."""


MIN_PLAYERS: Final = 3
"""The fewest players Pope Joan is dealt to."""
MAX_PLAYERS: Final = 8
"""The most players Pope Joan is dealt to."""


class RuleOptions(Protocol):
    """What the compiled table reads of a ruleset: one property per option (a
    :class:`~.rules.Ruleset` is one). The table is built from these and nothing else."""

    @property
    def game(self) -> GameKind: ...
    @property
    def ace(self) -> AceRank: ...
    @property
    def lead(self) -> LeadRule: ...
    @property
    def dead_hand(self) -> DeadHandRule: ...
    @property
    def stock_size(self) -> int: ...
    @property
    def pope_turnup(self) -> PopeTurnup: ...
    @property
    def pairs(self) -> PairRule: ...
    @property
    def dressing(self) -> Dressing: ...
    @property
    def stake(self) -> int: ...
    @property
    def pope_exemption(self) -> bool: ...
    @property
    def pools(self) -> Pools: ...
    @property
    def pope_in_lieu(self) -> PopeInLieu: ...
    @property
    def spare_hand(self) -> SpareHand: ...
