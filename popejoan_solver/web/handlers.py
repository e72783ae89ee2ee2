"""The web table's API, one function per endpoint: request bytes (and query) in, JSON out.

Each is a thin layer over the library's own functions, so the page restates no rule: legal
leads, runs, values and settlements all come from the model and the solver. All but the two
that only read tables (``/api/deal``, ``/api/options``) run in the server's worker processes,
by name (:func:`web_job`); each raises :class:`PopeJoanError` for bad input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..model.deal import MAX_PLAYERS, MIN_PLAYERS, Deal, deal_random
from ..model.errors import clip
from ..model.notation import deal_to_line
from ..model.play import Position
from ..model.record import (
    Play,
    Record,
    RecordTooLongError,
    looks_like_a_record,
    parse_record_text,
    plays_of_run,
    record_of_line,
    record_to_json,
    record_to_text,
)
from ..model.rules import RULESETS, get_ruleset
from ..search import solve
from .bots import WEB_BOTS
from .limits import MAX_RECORD_DEALS
from .requests import (
    body_object,
    body_text,
    deal_field,
    line_field,
    seat_number,
    time_limit_field,
    view_field,
)
from .state import (
    Table,
    WebInputError,
    board_now,
    position_deal,
    position_line,
    replay_steps,
    table_json,
)
from .worker import Reply

WEB_TT_ENTRIES: Final = 1 << 18
"""Transposition-table entries per search (4 MiB): bounded memory per search; the positions
a page asks about need no more (a larger table saved no time on 4-player positions)."""

MAX_SEED: Final = 1 << 63

DEFAULT_ADVICE_SAMPLES: Final = 32
MAX_ADVICE_SAMPLES: Final = 200


def api_solve(data: bytes, query: Mapping[str, str]) -> dict[str, Any]:
    """``POST /api/solve``: a deal or position (JSON, TOML or one line) solved as
    ``popejoan solve --json`` prints it; ``?seat=N`` and ``?time_limit=S`` as the options."""
    from ..model.notation import parse_deal_text

    deal = parse_deal_text(body_text(data))
    seat = seat_number(query.get("seat"), deal.players)
    solution = solve(deal, seats=None if seat is None else [seat],
                     time_limit=time_limit_field(query.get("time_limit")),
                     tt_entries=WEB_TT_ENTRIES, threads=1)
    return solution.to_json()


def api_check(data: bytes, max_deals: int = MAX_RECORD_DEALS) -> dict[str, Any]:
    """``POST /api/check``: a record (JSON or the text form, at most ``max_deals`` deals)
    refereed as ``popejoan check --json`` prints it."""
    from ..model.referee import replay

    return replay(_record(body_text(data), max_deals)).to_json()


def _record(text: str, max_deals: int) -> Record:
    """A record the web takes: at most ``max_deals`` deals, refused as soon as there are
    more (a record of thousands takes seconds to check and tens of megabytes to answer)."""
    try:
        return parse_record_text(text, max_deals=max_deals)
    except RecordTooLongError:
        raise WebInputError(f"the web table takes records of at most {max_deals} deals (a "
                            "longer one: popejoan check)") from None


def api_table(data: bytes) -> dict[str, Any]:
    """``POST /api/table``: ``{"deal", "line", "view", "seat"}`` → the position reached,
    as the page draws it (hands, board, stops, legal leads and their runs)."""
    body = body_object(data)
    deal = deal_field(body)
    table = replay_steps(deal, line_field(body))
    return table_json(table, view_field(body), seat_number(body.get("seat"), deal.players))


AnalysisKey = tuple[str, tuple[str, ...]]
"""An analysed position as the server's cache knows it: the deal's one-line notation and
the steps played from it."""


@dataclass(frozen=True)
class Analysis:
    """An ``/api/analyse`` request read and replayed: the position, its key, its time
    limit."""

    table: Table
    key: AnalysisKey
    time_limit: float


def read_analysis(data: bytes) -> Analysis:
    """``POST /api/analyse`` before any search: ``{"deal", "line", "time_limit"}`` read and
    the line replayed."""
    body = body_object(data)
    table = replay_steps(deal_field(body), line_field(body))
    key = (deal_to_line(table.deal), tuple(run.step for run in table.runs))
    return Analysis(table, key, time_limit_field(body.get("time_limit")))


def analysis_key(data: bytes) -> Reply:
    """``POST /api/analyse``, its first step (the game's lane: quick): the request read, for
    the server to look its answer up; ``extra`` is the key and the request to search if the
    answer is not known (the position as the key says it, and the time limit)."""
    analysis = read_analysis(data)
    request = json_bytes_of({"deal": analysis.key[0], "line": list(analysis.key[1]),
                             "time_limit": analysis.time_limit})
    return Reply(None, (analysis.key, request))


def analyse_uncached(data: bytes) -> Reply:
    """``POST /api/analyse`` searched (study): the position solved (every seat, the leads'
    values, the optimal line from here), as ``/api/solve`` answers for the position's
    one-line notation, with ``cached`` false; ``extra`` is the answer to keep when it is
    exact (kept, it is answered with ``cached`` true and the ``stats`` of this search)."""
    analysis = read_analysis(data)
    solution = solve(position_deal(analysis.table), time_limit=analysis.time_limit,
                     tt_entries=WEB_TT_ENTRIES, threads=1)
    answer = {"position": position_line(analysis.table)} | solution.to_json()
    return Reply(answer | {"cached": False}, answer if solution.stats.exact else None)


def json_bytes_of(data: Any) -> bytes:
    """Compact JSON (a request handed from one step to the next)."""
    import json

    return json.dumps(data, separators=(",", ":")).encode()


def web_job(name: str, data: bytes, query: dict[str, str], record_deals: int) -> Any:
    """The endpoint ``name``'s work on a request's body and query: the function the server's
    worker processes are handed (``record_deals``: the most deals a record may hold)."""
    if name == "solve":
        return api_solve(data, query)
    if name == "check":
        return api_check(data, record_deals)
    if name == "load":
        return api_load(data, record_deals)
    jobs: dict[str, Callable[[bytes], Any]] = {
        "analyse-key": analysis_key, "analyse": analyse_uncached, "table": api_table,
        "bot": api_bot, "advice": api_advice, "view": api_view, "record": api_record,
        "next": api_next}
    return jobs[name](data)


def api_view(data: bytes) -> dict[str, Any]:
    """``POST /api/view``: ``{"deal", "line", "seat"}`` → what that seat knows after the
    line (``popejoan view --json``: its hand, what it knows of the others and of the dead
    hand, the stops it can know, how many deals it cannot tell apart)."""
    from ..seat import knowledge
    from ..seat.report import view_json

    body = body_object(data)
    table = replay_steps(deal_field(body), line_field(body))
    seat = seat_number(body.get("seat"), table.deal.players)
    if seat is None:
        raise WebInputError("'seat' is needed: whose view?")
    return view_json(knowledge(table.deal, seat, table.runs), table.deal)


def api_advice(data: bytes) -> dict[str, Any]:
    """``POST /api/advice``: ``{"deal", "line", "samples", "seed", "time_limit"}`` → advice
    for the seat on lead from what it alone knows (``popejoan advise --json``): each legal
    lead's mean over deals sampled among those it cannot tell apart, the lead advised, and
    Hoyle's maxim beside. At most :data:`MAX_ADVICE_SAMPLES` samples, one search thread."""
    from ..advice.leads import advise

    body = body_object(data)
    table = replay_steps(deal_field(body), line_field(body))
    if table.over:
        raise WebInputError("the deal is over: no one is on lead to advise")
    samples = body.get("samples", DEFAULT_ADVICE_SAMPLES)
    if type(samples) is not int or not 1 <= samples <= MAX_ADVICE_SAMPLES:
        raise WebInputError(f"'samples' must be a whole number from 1 to {MAX_ADVICE_SAMPLES}")
    seed = body.get("seed", 0)
    if type(seed) is not int or not 0 <= seed < MAX_SEED:
        raise _not_whole("'seed'", seed)
    advice = advise(table.deal, table.position.leader, line=table.runs, samples=samples,
                    seed=seed, time_limit=time_limit_field(body.get("time_limit")), workers=1)
    data_json: dict[str, Any] = advice.to_json()
    return data_json


def api_next(data: bytes) -> dict[str, Any]:
    """``POST /api/next``: ``{"deal", "line", "seat", "seed", "index", "session"}`` → the next
    deal of a session once this one is over: deal ``index`` of ``seed`` dealt on this deal's
    board after settlement, re-dressed ("each dealer in rotation should himself dress the
    board"), as ``popejoan match`` plays sessions; ``seat`` (the person's, from 1) moves with
    the deal passing to the left; ``session`` counts the deals played so far."""
    from ..bots.driver import seat_of
    from ..model.settlement import apply_to_board, dressing

    body = body_object(data)
    table = replay_steps(deal_field(body), line_field(body))
    if not table.over:
        raise WebInputError("the deal is not over yet: finish it before the next")
    deal = table.deal
    n = deal.players
    seat = seat_number(body.get("seat"), n)
    session = body.get("session", 0)
    if type(session) is not int or not 0 <= session < MAX_SEED:
        raise WebInputError("'session' must be the number of deals played before this one")
    seed, index = (_whole(str(body.get(k, 0)), k) for k in ("seed", "index"))
    board = apply_to_board(board_now(table), dressing(deal.rules, n))
    following = deal_random(n, seed, deal.rules, index, board)
    player = None if seat is None else (session + seat - 1) % n
    return {"deal": deal_to_line(following),
            "seat": None if player is None else seat_of(session + 1, player, n)}


def api_record(data: bytes) -> dict[str, Any]:
    """``POST /api/record``: ``{"deal", "line"}`` → the game record of the line played (its
    JSON, and the text form), which ``popejoan check`` confirms."""
    body = body_object(data)
    table = replay_steps(deal_field(body), line_field(body))
    record = record_of_line(table.deal, table.runs)
    return {"record": record_to_json(record), "text": record_to_text(record)}


def api_load(data: bytes, max_deals: int = MAX_RECORD_DEALS) -> dict[str, Any]:
    """``POST /api/load``: text pasted on the page, a deal or a record → ``{"deal", "line",
    "error"}``: a record's first deal with its leads, up to the first that is not a run of its
    position (``error`` says which; ``POST /api/check`` says why). Text that is meant as a
    record (:func:`looks_like_a_record`) is read as one, and its errors are the record's."""
    from ..model.notation import parse_deal_text

    text = body_text(data)
    if not looks_like_a_record(text):
        return {"deal": deal_to_line(parse_deal_text(text)), "line": [], "error": None}
    record = _record(text, max_deals)
    if not record.deals:
        raise WebInputError("the record has no deal")
    first = record.deals[0]
    steps, error = steps_of_plays(first.deal, first.plays)
    return {"deal": deal_to_line(first.deal), "line": steps, "error": error}


def steps_of_plays(deal: Deal, plays: Sequence[Play]) -> tuple[list[str], str | None]:
    """A record's plays as the runs the model makes, up to the first play that is not one."""
    position = Position.from_deal(deal)
    steps: list[str] = []
    at = 0
    while at < len(plays):
        outcomes = [] if position.is_over or plays[at].card not in position.legal_leads() \
            else position.outcomes(plays[at].card)
        run = next((r for r in outcomes
                    if tuple(plays[at:at + len(r.cards)]) == plays_of_run(r)), None)
        if run is None:
            return steps, (f"play {at + 1} does not follow the rules from here (popejoan "
                           "check says why)")
        steps.append(run.step)
        position = position.after(run)
        at += len(run.cards)
    return steps, None


def api_deal(query: Mapping[str, str]) -> dict[str, Any]:
    """``GET /api/deal?players=4&seed=7&rules=R&index=0``: a seeded deal, as ``popejoan
    deal`` deals it, in the one-line notation."""
    players = _whole(query.get("players", "4"), "players")
    seed = _whole(query.get("seed", "0"), "seed")
    index = _whole(query.get("index", "0"), "index")
    rules = get_ruleset(query.get("rules", "hoyle-modernized"))
    return {"deal": deal_to_line(deal_random(players, seed, rules, index))}


def api_options() -> dict[str, Any]:
    """``GET /api/options``: what the pages' menus offer: rulesets, numbers of players, the
    study page's bots (``bots``), the bots a table can seat (``table_bots``) and the one it
    seats by default (``table_bot``)."""
    from .tables.spec import DEFAULT_BOT, table_bots

    return {"rules": list(RULESETS), "players": list(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
            "bots": list(WEB_BOTS), "table_bots": list(table_bots()), "table_bot": DEFAULT_BOT}


def api_bot(data: bytes) -> dict[str, Any]:
    """``POST /api/bot``: ``{"deal", "line", "bot", "seed", "time_limit"}`` → the run the bot
    at the seat on lead makes (``step``, the step to add to the line, and the run)."""
    from .bots import bot_move, web_bot

    body = body_object(data)
    table = replay_steps(deal_field(body), line_field(body))
    name = body.get("bot", WEB_BOTS[0])
    if not isinstance(name, str):
        raise WebInputError("'bot' must be a bot's name")
    seed = body.get("seed", 0)
    if type(seed) is not int or not 0 <= seed < MAX_SEED:
        raise _not_whole("'seed'", seed)
    bot = web_bot(name, time_limit_field(body.get("time_limit")))
    run = bot_move(table, bot, seed)
    return {"bot": bot.name, "step": run.step, "run": run.to_json()}


def _whole(text: str, name: str) -> int:
    """A whole number from a query parameter (below 2**63)."""
    if not (text.isascii() and text.isdigit()) or len(text) > 19 or int(text) >= MAX_SEED:
        raise _not_whole(name, text)
    return int(text)


def _not_whole(name: str, value: object) -> WebInputError:
    """The error for a seed, index or count that is not a whole number from 0 below 2**63
    (the value given is named: -1 is below 2**63 too)."""
    return WebInputError(f"{name} must be a whole number from 0 to 2**63 - 1, not "
                         f"{clip(str(value))!r}")
