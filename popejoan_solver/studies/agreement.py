"""How often a bot's leads agree with Hoyle's maxims (``popejoan standings FILE --maxims BOT``).

Every lead the bot made in a match file's complete sessions is set beside the lead the maxims
(``advice.maxims``) advise from the same view (the seat's knowledge before the lead: its hand,
the cards known dead, the cards played; the legal leads). Tallied by the maxim that speaks, so
the answer is, per maxim: when this maxim would have chosen, how often did the bot choose the
same card — with a 95% Wilson interval. Leads with one legal card are left out (nothing to
agree about).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..advice.maxims import FALLBACK, MAXIMS, maxim_lead
from ..intervals import wilson
from ..jobs.match import MatchRow, MatchSettings, session_records
from ..model.play import Run
from ..model.referee import replay
from ..seat import knowledge


@dataclass(frozen=True)
class Agreement:
    bot: str
    counts: dict[str, tuple[int, int]]
    """Per maxim: (leads where it spoke, leads where the bot played its card)."""

    def to_json(self) -> dict[str, Any]:
        rows = []
        for maxim, (leads, same) in self.counts.items():
            low, high = wilson(same, leads)
            rows.append({"maxim": maxim, "leads": leads, "agree": same,
                         "rate": round(same / leads, 4) if leads else None,
                         "ci95": [round(low, 4), round(high, 4)]})
        return {"bot": self.bot, "maxims": rows}


def agreement(settings: MatchSettings, rows: Sequence[MatchRow], bot: str,
              seat: int | None = None) -> Agreement:
    """The bot's leads against the maxims, over every complete session of the file (only
    those made at ``seat``, from 1, when given: ``standings --seat N --maxims BOT``)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for _, _, record in session_records(settings, rows):
        result = replay(record)
        for deal in result.deals:
            line: list[Run] = []
            for step in deal.steps:
                leader = step.position.leader
                player = deal.players[leader - 1]
                legal = step.position.legal_leads()
                ours = record.player_name(player).split(" ", 1)[1] == bot
                if ours and len(legal) > 1 and seat in (None, leader):
                    k = knowledge(deal.deal, leader, tuple(line))
                    card, maxim = maxim_lead(k.rules, k.own, k.known_dead | k.played_mask,
                                             legal)
                    counts[maxim][0] += 1
                    counts["all leads"][0] += 1
                    if step.run.lead == card:
                        counts[maxim][1] += 1
                        counts["all leads"][1] += 1
                line.append(step.run)
    order = [*MAXIMS, FALLBACK, "all leads"]
    return Agreement(bot, {m: (counts[m][0], counts[m][1]) for m in order if m in counts})


def describe_agreement(found: Agreement) -> list[str]:
    lines = [f"{found.bot}'s leads against Hoyle's maxims (the maxim that speaks from the same "
             "view):", "  maxim                 leads   agree  rate [95% CI]"]
    for row in found.to_json()["maxims"]:
        rate = "-" if row["rate"] is None else f"{row['rate']:.3f}"
        lines.append(f"  {row['maxim']:<20} {row['leads']:>6} {row['agree']:>7}  {rate} "
                     f"[{row['ci95'][0]:.3f}, {row['ci95'][1]:.3f}]")
    return lines
