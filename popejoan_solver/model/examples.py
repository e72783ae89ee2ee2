"""The built-in example deal: Hoyle's dead hand, completed to a full four-player deal.

Hoffmann, Hoyle's Games Modernized (c. 1909), "Pope Joan": "We will suppose that such cards
were the two, five and nine of spades, the six and ten of hearts, the knave of diamonds, and
the king of clubs." Seven dead cards leave 44 for the players: four hands of eleven, the only
equal split for 3 to 8 players. The 44 cards were dealt one at a time in pack order (clubs,
diamonds, hearts, spades; ace to king), the first to seat 3, so that eldest holds the 3♦ of
Hoyle's example lead and the 4♦ to 7♦ lie in other hands ("The player who chances to hold the
four thereupon plays"). Hoyle does not name the turn-up; the king of clubs is used. See
``popejoan case hoyle-dead-hand``.
"""

from __future__ import annotations

from typing import Final

from .deal import Deal
from .notation import deal_from_line

HOYLE_DEAD_HAND_LINE: Final = (
    "hoyle-modernized: 37J.37K.49.A7Q 48Q.49.A5J.38K A59.A5T.27Q.4T 26T.26Q.38K.6J"
    " | K.J.6T.259 ^KC"
)


def hoyle_dead_hand() -> Deal:
    """Hoyle's dead-hand deal (four players, eleven cards each, seven dead, K♣ turned up)."""
    return deal_from_line(HOYLE_DEAD_HAND_LINE)
