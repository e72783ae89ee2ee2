"""Pope Joan in OpenSpiel (the ``openspiel`` extra): importing this registers the game
``python_pope_joan`` with ``pyspiel``; the ``ismcts`` bot (``bots.ismcts``) searches it."""

from .game import GAME_NAME, PopeJoanGame, PopeJoanState, load

__all__ = ["GAME_NAME", "PopeJoanGame", "PopeJoanState", "load"]
