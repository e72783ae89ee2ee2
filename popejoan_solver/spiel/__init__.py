"""Pope Joan in OpenSpiel (the ``openspiel`` extra): importing this registers the game
``python_pope_joan`` with ``pyspiel``; :mod:`.bot` is the ``ismcts`` bot built on it."""

from .game import GAME_NAME, PopeJoanGame, PopeJoanState, load

__all__ = ["GAME_NAME", "PopeJoanGame", "PopeJoanState", "load"]
