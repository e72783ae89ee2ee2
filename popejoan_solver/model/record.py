"""Game records: the deals of a played game and every card in the order it was played.

A :class:`Record` is what a table, a bot or a web page hands over to be refereed
(``docs/records.md``): header tags, the players, then for each deal the deal as dealt (the JSON
deal), its plays (seat and card, a choice inside a run marked as such) and optionally the
results its players claimed. Two forms, converted into each other without loss: the JSON
object (:func:`record_from_json`, :func:`record_to_json`) and a line-based text in the manner
of PGN (:func:`record_from_text`, :func:`record_to_text`). Pure: no I/O, no checking of play
(that is :mod:`popejoan_solver.model.referee`'s job), only of shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .board import Board, Compartment
from .cards import Card, Mask, card_name, format_cards
from .deal import Deal, deal_random
from .errors import CONTROL_CHARACTERS, CardError, NotationError, PopeJoanError, clip
from .notation import (
    COUNT_DIGITS,
    cards_field,
    deal_from_json,
    deal_from_line,
    deal_to_json,
    deal_to_line,
    decode_json,
    hand_from_line,
    hand_to_line,
    single_card,
)
from .play import Run
from .rules import Ruleset, get_ruleset

FORMAT: Final = "popejoan-record"
VERSION: Final = 1
RECORD_KEYS: Final = ("format", "version", "rules", "tags", "players", "dealer", "deals",
                      "final_round")
DEAL_KEYS: Final = ("deal", "dealer", "tags", "plays", "claimed")
PLAY_KEYS: Final = ("seat", "card", "choice")
CLAIM_KEYS: Final = ("values", "board_after")
MAX_DEALS: Final = 10_000
"""The most deals one record may hold (a file is at most 1 MiB anyway)."""
SEED_LIMIT: Final = 1 << 63
"""A seeded deal's seed is below this in size (a signed 64-bit number)."""
INDEX_LIMIT: Final = 1 << 31
"""A seeded deal's index is below this."""


class RecordTooLongError(NotationError):
    """A record holds more deals than its reader takes (``max_deals``): found while reading,
    before the deals past the limit are built."""

    def __init__(self, max_deals: int) -> None:
        super().__init__(f"a record holds at most {max_deals} deals")
        self.max_deals = max_deals


@dataclass(frozen=True)
class Play:
    """One card played, by its seat (from 1); ``choice`` marks a card a choice inside a run
    played out of turn (the Pope in lieu of a stop, Spin on top)."""

    seat: int
    card: Card
    choice: bool = False

    def __post_init__(self) -> None:
        if type(self.seat) is not int or self.seat < 1:
            raise NotationError(f"a play's seat counts from 1, not {clip(repr(self.seat))}")

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"seat": self.seat, "card": card_name(self.card)}
        if self.choice:
            data["choice"] = True
        return data

    @property
    def text(self) -> str:
        """``3D(1)``, or ``+9D(2)`` for a choice."""
        return f"{'+' if self.choice else ''}{card_name(self.card)}({self.seat})"


@dataclass(frozen=True)
class Claim:
    """Results the players claimed for a deal: each seat's counters won (negative: lost), the
    dressing included, and the board left for the next deal."""

    values: tuple[int, ...] | None = None
    board_after: Board | None = None


@dataclass(frozen=True)
class DealSeed:
    """A deal given by the seed that deals it (``popejoan deal --players P --seed S --index
    I``), in place of its cards."""

    seed: int
    index: int
    players: int

    def deal(self, rules: Ruleset) -> Deal:
        return deal_random(self.players, self.seed, rules, self.index)

    @property
    def fits(self) -> bool:
        """Whether a record can hold it (else the deal's cards are written instead)."""
        return abs(self.seed) < SEED_LIMIT and 0 <= self.index < INDEX_LIMIT

    def to_json(self) -> dict[str, int]:
        return {"seed": self.seed, "index": self.index, "players": self.players}

    @property
    def text(self) -> str:
        return f"seed {self.seed} index {self.index} players {self.players}"


@dataclass(frozen=True)
class RecordedDeal:
    """One deal of a record: the deal as dealt, its plays, its dealer (a player number from 1,
    when the record names it), its own tags, the claimed results, and the seed that dealt it
    when the record gives the deal so."""

    deal: Deal
    plays: tuple[Play, ...] = ()
    dealer: int | None = None
    tags: tuple[tuple[str, str], ...] = ()
    claim: Claim = field(default_factory=Claim)
    seed: DealSeed | None = None


@dataclass(frozen=True)
class Record:
    """A game record: one deal or a session of deals under one ruleset.

    ``players`` name the players in their order round the table (each one's left neighbour
    next); ``dealer`` is the player (from 1) who deals the first deal; the deal passes to the
    left after each deal. ``final_round`` is Hoyle's closing round dealt face up: each hand.
    """

    rules: Ruleset
    deals: tuple[RecordedDeal, ...]
    tags: tuple[tuple[str, str], ...] = ()
    players: tuple[str, ...] = ()
    dealer: int | None = None
    final_round: tuple[Mask, ...] | None = None

    @property
    def seats(self) -> int:
        """The number of players (every deal has the same)."""
        return self.deals[0].deal.players if self.deals else len(self.players)

    @property
    def first_dealer(self) -> int:
        """The player (from 1) who deals the first deal: the record's ``dealer``, else the
        first deal's, else the last player (so that the first deal's seats are the players in
        order)."""
        first = self.dealer if self.dealer is not None else self.deals[0].dealer
        return first if first is not None else self.seats

    def dealer_of(self, index: int) -> int:
        """The player (from 1) who deals the deal at ``index`` of :attr:`deals` (the one after
        the last: the final round's dealer): one to the left each deal."""
        return (self.first_dealer - 1 + index) % self.seats + 1

    def player_at(self, index: int, seat: int) -> int:
        """The player (from 1) at ``seat`` (from 1) of the deal at ``index`` of :attr:`deals`
        (seat 1, eldest, is the dealer's left)."""
        return (self.dealer_of(index) - 1 + seat) % self.seats + 1

    def player_name(self, player: int) -> str:
        """Player ``player``'s name (from 1), or ``player N`` when the record names none."""
        return self.players[player - 1] if self.players else f"player {player}"


# ----------------------------------------------------------------------------- JSON

def _where(deal: int | None = None, play: int | None = None) -> str:
    parts = []
    if deal is not None:
        parts.append(f"deal {deal + 1}")
    if play is not None:
        parts.append(f"play {play + 1}")
    return ", ".join(parts) + ": " if parts else ""


def _object(data: object, what: str, keys: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise NotationError(f"{what} must be a JSON object")
    unknown = [k for k in data if k not in keys]
    if unknown:
        raise NotationError(f"unknown key {clip(str(unknown[0]))!r} in {what} "
                            f"(keys: {', '.join(keys)})")
    return data


def _tags(data: object, what: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(data, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise NotationError(f"{what} must be an object of strings")
    for key in data:
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,39}", key):
            raise NotationError(f"{what}: a tag name is a letter then letters, digits, _ or -, "
                                f"at most 40: not {clip(key)!r}")
        if key.lower() in RESERVED_TAGS:
            raise NotationError(f"{what}: {key!r} names a field of the record, not a free tag")
        _no_controls(data[key], f"{what}: the tag {key}")
    return tuple(data.items())


def _player_number(value: object, what: str, players: int) -> int:
    if type(value) is not int or not 1 <= value <= players:
        raise NotationError(f"{what} must be a player number from 1 to {players}")
    return value


def play_from_json(data: object, players: int, where: str) -> Play:
    """A play ``{"seat": 1, "card": "3D"}`` (``"choice": true`` for a choice)."""
    obj = _object(data, f"{where}the play", PLAY_KEYS)
    for key in ("seat", "card"):
        if key not in obj:
            raise NotationError(f"{where}a play needs {key!r}")
    seat = obj["seat"]
    if type(seat) is not int or not 1 <= seat <= players:
        raise NotationError(f"{where}seat must be a seat number from 1 to {players}")
    try:
        card = single_card(obj["card"])
    except NotationError:
        raise NotationError(f"{where}card must be one card, like \"3D\"") from None
    choice = obj.get("choice", False)
    if type(choice) is not bool:
        raise NotationError(f"{where}choice must be true or false")
    return Play(seat, card, choice)


def _claim_from_json(data: object, players: int, where: str) -> Claim:
    obj = _object(data, f"{where}claimed", CLAIM_KEYS)
    values = None
    if "values" in obj:
        raw = obj["values"]
        if (not isinstance(raw, list) or len(raw) != players
                or not all(type(v) is int and abs(v) < 1 << 40 for v in raw)):
            raise NotationError(f"{where}claimed values must be {players} whole numbers, one "
                                "per seat")
        values = tuple(raw)
    board = Board.from_json(obj["board_after"]) if "board_after" in obj else None
    return Claim(values, board)


def _deal_from_json(data: object, rules: Ruleset, index: int) -> RecordedDeal:
    where = _where(index)
    obj = _object(data, f"{where}the deal entry", DEAL_KEYS)
    if "deal" not in obj:
        raise NotationError(f"{where}a deal entry needs \"deal\", the JSON deal")
    raw = obj["deal"]
    seed = None
    if isinstance(raw, Mapping) and "seed" in raw:
        seed = _seed_from_json(raw, where)
    elif isinstance(raw, Mapping) and "rules" not in raw:
        raw = {"rules": rules.name, **raw}
    try:
        deal = seed.deal(rules) if seed is not None else deal_from_json(raw)
    except PopeJoanError as exc:
        raise NotationError(f"{where}{exc}") from None
    _check_deal(deal, rules, where)
    plays_data = obj.get("plays", [])
    if not isinstance(plays_data, list):
        raise NotationError(f"{where}plays must be a list")
    plays = tuple(play_from_json(p, deal.players, _where(index, i))
                  for i, p in enumerate(plays_data))
    dealer = (_player_number(obj["dealer"], f"{where}dealer", deal.players)
              if "dealer" in obj else None)
    tags = _tags(obj.get("tags", {}), f"{where}tags")
    claim = _claim_from_json(obj.get("claimed", {}), deal.players, where)
    return RecordedDeal(deal, plays, dealer, tags, claim, seed)


def _seed_from_json(raw: Mapping[str, Any], where: str) -> DealSeed:
    """``{"seed": S, "index": I, "players": P}`` (``index`` 0 when left out)."""
    obj = _object(raw, f"{where}the seeded deal", ("seed", "index", "players"))
    seed, index, players = obj.get("seed"), obj.get("index", 0), obj.get("players")
    if type(seed) is not int or abs(seed) >= SEED_LIMIT:
        raise NotationError(f"{where}seed must be a whole number below 2**63")
    if type(index) is not int or not 0 <= index < INDEX_LIMIT:
        raise NotationError(f"{where}index must be a whole number from 0 below 2**31")
    if type(players) is not int:
        raise NotationError(f"{where}a seeded deal needs \"players\", 3 to 8")
    return DealSeed(seed, index, players)


def _check_deal(deal: Deal, rules: Ruleset, where: str) -> None:
    """A record's deal is a deal as dealt, under the record's ruleset."""
    if deal.rules.options() != rules.options():
        raise NotationError(f"{where}the deal's rules {clip(deal.rules.name)!r} are not the "
                            f"record's {clip(rules.name)!r}")
    if deal.played:
        raise NotationError(f"{where}a record's deal is the deal as dealt: give the cards "
                            "played as plays, not as \"played\"")


def _players_from_json(data: object) -> tuple[str, ...]:
    if (not isinstance(data, list) or not all(isinstance(p, str) and p.strip() for p in data)
            or any("\n" in p or len(p) > 200 for p in data)):
        raise NotationError("players must be a list of names (one line each, at most 200 "
                            "characters)")
    for number, name in enumerate(data, 1):
        _no_controls(name, f"the name of player {number}")
    return tuple(data)


def _no_controls(text: str, what: str) -> None:
    """Refuse text that a terminal would act on when it is shown (``ESC [2J``, BEL, an OSC,
    U+202E): a record's names and tags are printed by ``popejoan check``."""
    found = CONTROL_CHARACTERS.search(text)
    if found is not None:
        raise NotationError(f"{what} holds the control character U+{ord(found[0]):04X} "
                            "(names and tags are text to show: no control characters)")


def _final_from_json(data: object, rules: Ruleset) -> tuple[Mask, ...]:
    obj = _object(data, "final_round", ("hands",))
    hands = obj.get("hands")
    if not isinstance(hands, list):
        raise NotationError("final_round needs \"hands\", one string of cards per seat")
    return check_final_hands(tuple(cards_field(h, f"final round hand {i + 1}")
                                   for i, h in enumerate(hands)), rules)


def check_final_hands(hands: tuple[Mask, ...], rules: Ruleset) -> tuple[Mask, ...]:
    """The final round's hands: every card of the pack, each once, no dead hand."""
    seen = 0
    pack = rules.table.pack
    for i, hand in enumerate(hands):
        if hand & seen:
            raise NotationError(f"final round hand {i + 1}: "
                                f"{format_cards(hand & seen)} dealt twice")
        if hand & ~pack:
            raise NotationError(f"final round hand {i + 1}: {format_cards(hand & ~pack)} "
                                "not in the pack")
        seen |= hand
    if seen != pack:
        raise NotationError("the final round deals every card of the pack face up, no dead "
                            f"hand: missing {format_cards(pack & ~seen)}")
    return hands


def record_from_json(data: object, *, max_deals: int = MAX_DEALS) -> Record:
    """Build a record from the decoded JSON object (of at most ``max_deals`` deals)."""
    obj = _object(data, "a record", RECORD_KEYS)
    if obj.get("format") != FORMAT:
        raise NotationError(f"a record has \"format\": \"{FORMAT}\"")
    version = obj.get("version")
    if type(version) is not int:  # true and 1.0 equal 1 in Python, not in a record
        raise NotationError(f"a record's \"version\" is the whole number {VERSION}, not "
                            f"{clip(json.dumps(version, ensure_ascii=False), 40)}")
    if version != VERSION:
        raise NotationError(f"unsupported record version (this tool reads version {VERSION})")
    rules_name = obj.get("rules")
    if not isinstance(rules_name, str):
        raise NotationError("a record needs \"rules\", the name of a ruleset")
    rules = get_ruleset(rules_name)
    deals_data = obj.get("deals")
    if not isinstance(deals_data, list) or not deals_data:
        raise NotationError("a record needs \"deals\", a list of at least one deal")
    if len(deals_data) > min(max_deals, MAX_DEALS):
        raise RecordTooLongError(min(max_deals, MAX_DEALS))
    deals = tuple(_deal_from_json(d, rules, i) for i, d in enumerate(deals_data))
    players = _players_from_json(obj["players"]) if "players" in obj else ()
    final = _final_from_json(obj["final_round"], rules) if "final_round" in obj else None
    record = Record(rules, deals, _tags(obj.get("tags", {}), "tags"), players,
                    _player_number(obj["dealer"], "dealer", deals[0].deal.players)
                    if "dealer" in obj else None, final)
    check_shape(record)
    return record


def check_shape(record: Record) -> None:
    """Every deal and the final round have the same number of players, the names too."""
    n = record.seats
    for i, recorded in enumerate(record.deals):
        if recorded.deal.players != n:
            raise NotationError(f"deal {i + 1} has {recorded.deal.players} players but deal 1 "
                                f"has {n}: a session keeps its players")
    if record.players and len(record.players) != n:
        raise NotationError(f"players names {len(record.players)} players but the deals have "
                            f"{n}")
    if record.final_round is not None and len(record.final_round) != n:
        raise NotationError(f"the final round has {len(record.final_round)} hands but the deals "
                            f"have {n} players")


def record_to_json(record: Record) -> dict[str, Any]:
    """The JSON record (optional keys only when set)."""
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "rules": record.rules.name}
    if record.tags:
        data["tags"] = dict(record.tags)
    if record.players:
        data["players"] = list(record.players)
    if record.dealer is not None:
        data["dealer"] = record.dealer
    data["deals"] = [_deal_to_json(d) for d in record.deals]
    if record.final_round is not None:
        data["final_round"] = {"hands": [format_cards(h) for h in record.final_round]}
    return data


def _deal_to_json(recorded: RecordedDeal) -> dict[str, Any]:
    data: dict[str, Any] = {"deal": recorded.seed.to_json() if recorded.seed is not None
                            else deal_to_json(recorded.deal)}
    if recorded.dealer is not None:
        data["dealer"] = recorded.dealer
    if recorded.tags:
        data["tags"] = dict(recorded.tags)
    data["plays"] = [p.to_json() for p in recorded.plays]
    claimed: dict[str, Any] = {}
    if recorded.claim.values is not None:
        claimed["values"] = list(recorded.claim.values)
    if recorded.claim.board_after is not None:
        claimed["board_after"] = recorded.claim.board_after.to_json()
    if claimed:
        data["claimed"] = claimed
    return data


# ----------------------------------------------------------------------------- text

RESERVED_TAGS: Final = ("rules", "player", "dealer", "deal", "claimedvalues", "claimedboard",
                        "finalround")
"""Tag names the text form uses for the record's own fields (any case): not free tags."""
_TAG_LINE: Final = re.compile(r"\[([A-Za-z][A-Za-z0-9_-]{0,39})\s+(\".*\")\]")
_PLAY: Final = re.compile(r"(\+?)([^\s()+]+)\(([0-9]{1,2})\)")
_MOVE_NUMBER: Final = re.compile(r"[0-9]{1,4}\.")
_SEEDED: Final = re.compile(r"seed (-?[0-9]+) index ([0-9]+) players ([0-9]+)")
_DIGITS: Final = 20
"""A seed, index or player count of the text form is read as a number up to this many
digits (more is out of range either way)."""


def _tag_line(name: str, value: str) -> str:
    """``[Name "value"]``, the value a JSON string with every line break escaped (Python
    also breaks lines at U+0085, U+2028 and U+2029, which JSON leaves as they are)."""
    quoted = json.dumps(value, ensure_ascii=False)
    for char in "\x85\u2028\u2029":
        quoted = quoted.replace(char, f"\\u{ord(char):04x}")
    return f"[{name} {quoted}]"


def _groups(plays: Sequence[Play], rules: Ruleset) -> list[list[Play]]:
    """The plays cut where a new run seems to start (for reading only: the reader ignores the
    grouping): an unmarked card that is not the next card, or the one after, of the last."""
    groups: list[list[Play]] = []
    last = -1
    successor = rules.table.successor
    for play in plays:
        follows = last >= 0 and play.card in (successor[last],
                                              successor[successor[last]]
                                              if successor[last] >= 0 else -2)
        if not groups or not (play.choice or follows):
            groups.append([])
        groups[-1].append(play)
        if not play.choice:
            last = play.card
    return groups


def record_to_text(record: Record) -> str:
    """The text form: tag pairs, then each deal's tags and its plays, a run to a line."""
    lines = [_tag_line("Rules", record.rules.name)]
    lines += [_tag_line(k, v) for k, v in record.tags]
    lines += [_tag_line("Player", p) for p in record.players]
    if record.dealer is not None:
        lines.append(_tag_line("Dealer", str(record.dealer)))
    for recorded in record.deals:
        lines += ["", _tag_line("Deal", recorded.seed.text if recorded.seed is not None
                                else deal_to_line(recorded.deal))]
        if recorded.dealer is not None:
            lines.append(_tag_line("Dealer", str(recorded.dealer)))
        lines += [_tag_line(k, v) for k, v in recorded.tags]
        if recorded.claim.values is not None:
            lines.append(_tag_line("ClaimedValues", " ".join(map(str, recorded.claim.values))))
        if recorded.claim.board_after is not None:
            lines.append(_tag_line("ClaimedBoard", " ".join(
                str(n) for _, n in recorded.claim.board_after.items())))
        for number, group in enumerate(_groups(recorded.plays, record.rules), 1):
            lines.append(f"{number}. " + " ".join(p.text for p in group))
    if record.final_round is not None:
        lines += ["", _tag_line("FinalRound", " ".join(hand_to_line(h)
                                                        for h in record.final_round))]
    return "\n".join(lines) + "\n"


@dataclass
class _DealDraft:
    """A deal being read from the text form."""

    deal: Deal
    seed: DealSeed | None = None
    plays: list[Play] = field(default_factory=list)
    dealer: str | None = None
    tags: list[tuple[str, str]] = field(default_factory=list)
    values: str | None = None
    board: str | None = None


@dataclass
class _Draft:
    """A record being read from the text form."""

    rules: Ruleset | None = None
    tags: list[tuple[str, str]] = field(default_factory=list)
    players: list[str] = field(default_factory=list)
    dealer: str | None = None
    deals: list[_DealDraft] = field(default_factory=list)
    final: str | None = None
    max_deals: int = MAX_DEALS


def record_from_text(text: str, *, max_deals: int = MAX_DEALS) -> Record:
    """Read the text form; a malformed line is a :class:`NotationError` naming the line. A
    deal past ``max_deals`` stops the reading there."""
    draft = _Draft(max_deals=min(max_deals, MAX_DEALS))
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        try:
            if line.startswith("["):
                _read_tag(draft, line)
            else:
                _read_plays(draft, line)
        except RecordTooLongError:
            raise
        except PopeJoanError as exc:
            raise NotationError(f"line {number}: {exc}") from None
    return _finish(draft)


def _read_tag(draft: _Draft, line: str) -> None:
    match = _TAG_LINE.fullmatch(line)
    if match is None:
        raise NotationError(f"a tag is [Name \"value\"], not {clip(line)!r}")
    name = match[1]
    try:
        value = json.loads(match[2])
    except json.JSONDecodeError:
        raise NotationError(f"the value of {clip(name)} is not a quoted string") from None
    if not isinstance(value, str):
        raise NotationError(f"the value of {clip(name)} is not a quoted string")
    key = name.lower()
    if key == "finalround":
        draft.final = _once(draft.final, value, name)
    elif draft.final is not None:
        raise NotationError("nothing may follow the final round")
    elif key == "deal":
        _new_deal(draft, value)
    elif not draft.deals:
        _read_header_tag(draft, key, name, value)
    else:
        _read_deal_tag(draft.deals[-1], key, name, value)


def _once(old: str | None, value: str, name: str) -> str:
    if old is not None:
        raise NotationError(f"the tag {clip(name)} is given twice")
    return value


def _new_deal(draft: _Draft, value: str) -> None:
    if draft.rules is None:
        raise NotationError("the record starts with its [Rules \"...\"] tag")
    if len(draft.deals) >= draft.max_deals:
        raise RecordTooLongError(draft.max_deals)
    where = _where(len(draft.deals))
    seeded = _SEEDED.fullmatch(value.strip())
    seed = None
    try:
        if seeded is not None:
            seed = _seed_from_json(dict(zip(("seed", "index", "players"), (
                int(n) if len(n.lstrip("-")) <= _DIGITS else SEED_LIMIT for n in seeded.groups()),
                strict=True)), "")
            deal = seed.deal(draft.rules)
        else:
            deal = deal_from_line(value if ":" in value.split("|")[0]
                                  else f"{draft.rules.name}: {value}")
    except PopeJoanError as exc:
        raise NotationError(f"{where}{exc}") from None
    _check_deal(deal, draft.rules, where)
    draft.deals.append(_DealDraft(deal, seed))


def _read_header_tag(draft: _Draft, key: str, name: str, value: str) -> None:
    if key == "rules":
        if draft.rules is not None:
            raise NotationError("the tag Rules is given twice")
        draft.rules = get_ruleset(value)
    elif draft.rules is None:
        raise NotationError("the record starts with its [Rules \"...\"] tag")
    elif key == "player":
        draft.players.append(value)
    elif key == "dealer":
        draft.dealer = _once(draft.dealer, value, name)
    elif key in RESERVED_TAGS:
        raise NotationError(f"the tag {clip(name)} belongs to a deal: give it after [Deal ...]")
    else:
        draft.tags.append((name, value))


def _read_deal_tag(deal: _DealDraft, key: str, name: str, value: str) -> None:
    if deal.plays:
        raise NotationError("a deal's tags come before its plays")
    if key == "dealer":
        deal.dealer = _once(deal.dealer, value, name)
    elif key == "claimedvalues":
        deal.values = _once(deal.values, value, name)
    elif key == "claimedboard":
        deal.board = _once(deal.board, value, name)
    elif key in RESERVED_TAGS:
        raise NotationError(f"the tag {clip(name)} belongs to the record's header")
    else:
        deal.tags.append((name, value))


def _read_plays(draft: _Draft, line: str) -> None:
    if not draft.deals or draft.final is not None:
        raise NotationError("plays come after a [Deal \"...\"] tag")
    deal = draft.deals[-1]
    for token in line.split():
        if _MOVE_NUMBER.fullmatch(token):
            continue
        match = _PLAY.fullmatch(token)
        if match is None:
            raise NotationError(f"a play is CARD(SEAT), or +CARD(SEAT) for a choice, not "
                                f"{clip(token)!r}")
        seat = int(match[3])
        if not 1 <= seat <= deal.deal.players:
            raise NotationError(f"{clip(token)}: seat must be from 1 to {deal.deal.players}")
        try:
            card = single_card(match[2])
        except (NotationError, CardError):
            raise NotationError(f"{clip(token)}: not a card") from None
        deal.plays.append(Play(seat, card, match[1] == "+"))


def _number(text: str, what: str) -> int:
    if not COUNT_DIGITS.fullmatch(text.strip()):
        raise NotationError(f"{what} must be a whole number, not {clip(text)!r}")
    return int(text)


def _finish(draft: _Draft) -> Record:
    """The record read, its fields checked as the JSON reader checks them."""
    if draft.rules is None:
        raise NotationError("the record starts with its [Rules \"...\"] tag")
    if not draft.deals:
        raise NotationError("a record needs at least one [Deal \"...\"]")
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "rules": draft.rules.name,
                            "tags": dict(draft.tags), "deals": []}
    if len(dict(draft.tags)) != len(draft.tags):
        raise NotationError("a header tag is given twice")
    if draft.players:
        data["players"] = draft.players
    if draft.dealer is not None:
        data["dealer"] = _number(draft.dealer, "Dealer")
    for i, deal in enumerate(draft.deals):
        data["deals"].append(_deal_draft_json(deal, i))
    if draft.final is not None:
        hands = [hand_from_line(t, f"final round hand {i + 1}")
                 for i, t in enumerate(draft.final.split())]
        data["final_round"] = {"hands": [format_cards(h) for h in hands]}
    return record_from_json(data, max_deals=draft.max_deals)


def _deal_draft_json(deal: _DealDraft, index: int) -> dict[str, Any]:
    where = _where(index)
    if len(dict(deal.tags)) != len(deal.tags):
        raise NotationError(f"{where}a tag is given twice")
    data: dict[str, Any] = {"deal": deal.seed.to_json() if deal.seed is not None
                            else deal_to_json(deal.deal), "tags": dict(deal.tags),
                            "plays": [p.to_json() for p in deal.plays]}
    if deal.dealer is not None:
        data["dealer"] = _number(deal.dealer, f"{where}Dealer")
    claimed: dict[str, Any] = {}
    if deal.values is not None:
        claimed["values"] = [_signed(v, f"{where}ClaimedValues") for v in deal.values.split()]
    if deal.board is not None:
        counts = [_number(c, f"{where}ClaimedBoard") for c in deal.board.split()]
        if len(counts) != len(Compartment):
            raise NotationError(f"{where}ClaimedBoard takes 8 counts: pope matrimony intrigue "
                                "ace king queen jack game")
        claimed["board_after"] = dict(zip((c.value for c in Compartment), counts, strict=True))
    if claimed:
        data["claimed"] = claimed
    return data


def _signed(text: str, what: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]{1,12}", text):
        raise NotationError(f"{what}: {clip(text)!r} is not a whole number")
    return int(text)


def looks_like_a_record(text: str) -> bool:
    """Whether ``text`` is meant as a record rather than a deal: a JSON object with a record's
    ``format`` or ``deals``, or text whose first line (comments aside) is a tag such as
    ``[Rules "peel"]`` (a TOML deal's tables have no quoted value). Text that is neither is
    read as a deal, whose reader then says what is wrong with it."""
    stripped = text.strip().removeprefix("\ufeff").strip()
    if stripped.startswith("{"):
        try:
            data = decode_json(stripped)
        except NotationError:  # broken JSON: either reader says so in the same words
            return False
        return isinstance(data, dict) and ("format" in data or "deals" in data)
    first = next((line.strip() for line in stripped.splitlines()
                  if line.strip() and not line.strip().startswith(";")), "")
    return _TAG_LINE.fullmatch(first) is not None


def parse_record_text(text: str, *, max_deals: int = MAX_DEALS) -> Record:
    """A record in either form: JSON (it opens with ``{``) or the text form; one of more than
    ``max_deals`` deals is refused (:class:`RecordTooLongError`) as soon as that is seen."""
    stripped = text.strip().removeprefix("\ufeff").strip()
    if not stripped:
        raise NotationError("the record is empty")
    if stripped.startswith("{"):
        return record_from_json(decode_json(stripped), max_deals=max_deals)
    return record_from_text(stripped, max_deals=max_deals)


def plays_of_run(run: Run) -> tuple[Play, ...]:
    """The plays a run makes, its choice card marked."""
    return tuple(Play(seat, card, k == run.chosen)
                 for k, (card, seat) in enumerate(zip(run.cards, run.seats, strict=True)))


def record_of_line(deal: Deal, runs: Sequence[Run],
                   tags: Sequence[tuple[str, str]] = ()) -> Record:
    """A one-deal record of ``deal`` (as dealt) played by ``runs`` in order."""
    if deal.played:
        raise NotationError("a record starts from a deal as dealt, not a position with cards "
                            "played")
    plays = tuple(play for run in runs for play in plays_of_run(run))
    return Record(deal.rules, (RecordedDeal(deal, plays),), tuple(tags))
