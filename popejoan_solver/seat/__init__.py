"""A seat's point of view: what it knows at a point of play, and the deals consistent with it.

``knowledge`` turns a deal and the runs played into the seat's :class:`Knowledge` (exact
per-card constraints); ``count_deals``, ``sample_deals`` and ``all_deals`` count, draw
uniformly and list the deals consistent with it. See docs/seat.md.
"""

from .counting import CountingLimitError
from .knowledge import Inference, Knowledge, ViewError, knowledge, knowledge_at_choice, view
from .sampling import SamplingError, all_deals, count_deals, sample_deals

__all__ = ["CountingLimitError", "Inference", "Knowledge", "SamplingError", "ViewError",
           "all_deals", "count_deals", "knowledge", "knowledge_at_choice", "sample_deals", "view"]
