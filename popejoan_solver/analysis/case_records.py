"""Game records of the published worked examples whose source describes play: the case's
deal and its leads, as a record the referee can confirm (``tests/golden/record-cases/``)."""

from __future__ import annotations

from ..model.record import Record, RecordedDeal, plays_of_run
from .cases import Case, _play, case_deal


def case_record(case: Case) -> Record | None:
    """The case's play as a one-deal record (``None`` for a case with no ``leads``). A play
    the source leaves before anyone went out is tagged ``Termination "unfinished"``."""
    leads = case.data.get("leads")
    if not leads:
        return None
    deal = case_deal(case)
    position, runs = _play(deal, list(leads))
    tags = (("Event", f"worked example {case.name}"), ("Source", case.source))
    ending = () if position.is_over else (("Termination", "unfinished"),)
    plays = tuple(play for run in runs for play in plays_of_run(run))
    return Record(deal.rules, (RecordedDeal(deal, plays, tags=ending),), tags)
