"""One sampled deal valued for the advice: the bots' per-deal evaluation, the same for both.

``pimc`` and ``popejoan advise`` value a drawn deal the same way under the same opponent
models, so the definitions live once, in ``bots/values.py`` (bots sit below analysis), and
are named here for the advice's modules.
"""

from __future__ import annotations

from ..bots.values import MODELS, TT_ENTRIES, SampleEval, evaluate

__all__ = ["MODELS", "TT_ENTRIES", "SampleEval", "evaluate"]
