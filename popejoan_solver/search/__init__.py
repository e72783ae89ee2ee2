"""Search engines: exact double-dummy values of Pope Joan deals."""

from .api import ENGINES, forced_win, solve
from .leads import LeadEval, lead_values
from .objective import Goal, Objective
from .result import LeadResult, LineStep, SeatResult, Solution, SolveStats, Value

__all__ = ["ENGINES", "Goal", "LeadEval", "LeadResult", "LineStep", "Objective", "SeatResult",
           "Solution", "SolveStats", "Value", "forced_win", "lead_values", "solve"]
