"""Bots that play Pope Joan from a seat's view (``docs/bots.md``): the interface, the registry
(:func:`make_bot`), the bots and the driver that plays a deal with them. Heavy pieces are
imported lazily, so that ``advice.maxims`` (used by the first-lead study) stays light."""

from __future__ import annotations
