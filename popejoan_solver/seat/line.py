"""A line of play given as steps (``3C``, ``8S+9D@9S``: ``model.notation.parse_step``) read
into runs, with errors that name the step and say what is wrong with it.

The command line (``view --line``), the web API (``"line"``) and the Python API
(``view(deal, seat, ["3C", ...])``) read their lines here, so each says the same thing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..model.arguments import is_whole, shown
from ..model.cards import NUM_CARDS, card_name, parse_card
from ..model.deal import Deal
from ..model.errors import CardError, IllegalPlayError, NotationError, clip
from ..model.notation import parse_step
from ..model.play import Position, Run
from ..model.settlement import turnup_ends_deal


def read_step(position: Position, number: int, text: str) -> Run:
    """Step ``number`` (from 1) of a line, played from ``position``: its run, or the
    :class:`NotationError` / :class:`IllegalPlayError` saying which step and why."""
    if position.is_over:
        raise IllegalPlayError(f"step {number} ({clip(text)!r}): the deal is over")
    try:
        return parse_step(position, text)
    except NotationError as exc:
        raise NotationError(f"step {number}: {_card_problem(text) or exc}") from None
    except IllegalPlayError as exc:
        raise IllegalPlayError(f"step {number} ({clip(text)!r}): {exc}") from None


def _card_problem(text: str) -> str | None:
    """What is wrong with the step's cards, read one by one (the step reader's message names
    the turn-up's field); None if each is a card or one is missing (then the form is wrong)."""
    tokens = re.split(r"[+@]", text)
    if not all(token.strip() for token in tokens):
        return None
    for token in tokens:
        try:
            parse_card(token)
        except CardError as exc:
            return str(exc)
    return None


def _is_outcome(position: Position, run: Run) -> bool:
    """Whether ``run`` is one of the runs a legal lead from ``position`` can end in (a run
    built by hand may hold anything: it is compared, never read)."""
    return run.leader == position.leader and any(
        run in position.outcomes(lead) for lead in position.legal_leads()
        if type(run.cards) is tuple and run.cards[:1] == (lead,))


def _run_text(run: Run) -> str:
    """A run's cards for a message: by name, or as given when they are not cards."""
    cards = run.cards
    if type(cards) is tuple and all(is_whole(c) and 0 <= c < NUM_CARDS for c in cards):
        return " ".join(card_name(c) for c in cards) or "of no cards"
    return shown(cards)


def read_line(deal: Deal, line: Sequence[Run | str]) -> tuple[Run, ...]:
    """The runs of ``line`` played from ``deal``: each entry a :class:`Run` (checked when the
    view replays it) or a step string. A step once the deal is over is refused."""
    position = Position.from_deal(deal)
    ended = turnup_ends_deal(deal)
    runs: list[Run] = []
    for number, entry in enumerate(line, start=1):
        if ended:
            raise IllegalPlayError(f"step {number}: the deal is over (the turn-up "
                                   "ended it unplayed)")
        if isinstance(entry, str):
            run = read_step(position, number, entry)
        elif isinstance(entry, Run):
            run = entry
            if position.is_over or not _is_outcome(position, run):
                raise IllegalPlayError(f"step {number} (the run {_run_text(run)}) is not a "
                                       "play of this position")
        else:
            raise NotationError(f"step {number} of the line is neither a Run nor a step like "
                                f"'3C' or '8S+9D@9S' (it is of type {type(entry).__name__})")
        runs.append(run)
        position = position.after(run)
    return tuple(runs)


__all__ = ["read_line", "read_step", "turnup_ends_deal"]
