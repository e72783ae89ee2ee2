"""Reading and writing deals: the JSON deal, the same as TOML, and the one-line notation.

The one-line notation (see ``docs/notation.md``)::

    hoyle-modernized: 37J.37K.49.A7Q ... | K.J.6T.259 ^KC | played ... | lead 2

Each hand is its clubs, diamonds, hearts and spades separated by dots.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from typing import Any, Final

from .board import Board, Compartment
from .cards import RANK_LETTERS, Card, CardSet, Mask, card_name, format_cards, make_card
from .deal import Deal, check_deal
from .errors import CardError, IllegalPlayError, NotationError, clip
from .play import Position, Run
from .rules import DEFAULT_RULESET, get_ruleset

COUNT_DIGITS: Final = re.compile(r"[0-9]{1,10}")
"""A seat number or a count as the one-line notation writes it: ASCII digits only (``²`` is a
digit to ``str.isdigit`` but not to ``int``), ten at most (2**31 has ten)."""

DEAL_KEYS: Final = ("rules", "hands", "dead", "turnup", "board", "played", "to_lead")


def cards_field(value: object, where: str) -> Mask:
    """A field of cards in a deal or record file (``"AC 2C 10D"``, or a list of card names) as
    a mask; ``where`` names the field in the error."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = " ".join(value)
    if not isinstance(value, str):
        raise NotationError(f"{where} must be a string of cards like \"AC 2C 10D\"")
    try:
        return CardSet.parse(value).mask
    except CardError as exc:
        raise NotationError(f"{where}: {exc}") from None


def deal_from_json(data: object) -> Deal:
    """Build a deal from the decoded JSON (or TOML) object."""
    if not isinstance(data, Mapping):
        raise NotationError("a deal must be an object with \"hands\", \"dead\" and \"turnup\"")
    unknown = [k for k in data if k not in DEAL_KEYS]
    if unknown:
        raise NotationError(f"unknown key {clip(str(unknown[0]))!r} in deal "
                            f"(keys: {', '.join(DEAL_KEYS)})")
    for key in ("hands", "dead", "turnup"):
        if key not in data:
            raise NotationError(f"deal has no {key!r}")
    rules_name = data.get("rules", DEFAULT_RULESET)
    if not isinstance(rules_name, str):
        raise NotationError("rules must be the name of a ruleset")
    rules = get_ruleset(rules_name)
    hands_data = data["hands"]
    if not isinstance(hands_data, list):
        raise NotationError("hands must be a list, one string of cards per seat")
    hands = [cards_field(h, f"hand {i + 1}") for i, h in enumerate(hands_data)]
    dead = cards_field(data["dead"], "dead")
    turnup = single_card(data["turnup"])
    board = Board.from_json(data["board"]) if "board" in data else None
    played = None
    if "played" in data:
        played_data = data["played"]
        if not isinstance(played_data, list):
            raise NotationError("played must be a list, one string of cards per seat")
        played = [cards_field(p, f"played by seat {i + 1}") for i, p in enumerate(played_data)]
        if len(played) != len(hands):
            raise NotationError(f"played lists {len(played)} seats but there are {len(hands)} "
                                "hands")
    to_lead = data.get("to_lead", 1)
    if type(to_lead) is not int:
        raise NotationError("to_lead must be a seat number")
    if played and any(played) and "to_lead" not in data:
        raise NotationError("a position with played cards needs \"to_lead\"")
    return Deal.create(hands, dead, turnup, rules, board, played, to_lead)


def deal_to_json(deal: Deal) -> dict[str, Any]:
    """The JSON deal object (keys in the documented order; optional keys only when set)."""
    check_deal(deal, "deal_to_json takes a Deal", NotationError)
    data: dict[str, Any] = {
        "rules": deal.rules.name,
        "hands": [format_cards(h) for h in deal.hands],
        "dead": format_cards(deal.dead),
        "turnup": card_name(deal.turnup),
    }
    if deal.board is not None:
        data["board"] = deal.board.to_json()
    if deal.played:
        data["played"] = [format_cards(p) for p in deal.played]
    if deal.played or deal.leader != 1:
        data["to_lead"] = deal.leader
    return data


def deal_to_toml(deal: Deal) -> str:
    """The same deal as TOML."""
    data = deal_to_json(deal)
    lines = [f"rules = {json.dumps(data['rules'])}"]
    lines.append("hands = [\n" + "".join(f"  {json.dumps(h)},\n" for h in data["hands"]) + "]")
    lines.append(f"dead = {json.dumps(data['dead'])}")
    lines.append(f"turnup = {json.dumps(data['turnup'])}")
    if "played" in data:
        lines.append("played = [\n" + "".join(f"  {json.dumps(p)},\n" for p in data["played"])
                     + "]")
    if "to_lead" in data:
        lines.append(f"to_lead = {data['to_lead']}")
    if "board" in data:
        lines.append("\n[board]")
        lines += [f"{k} = {v}" for k, v in data["board"].items()]
    return "\n".join(lines) + "\n"


def hand_to_line(mask: Mask) -> str:
    """A set of cards as the one-line notation writes a hand: four suits C.D.H.S by dots."""
    suits = []
    for suit in range(4):
        suits.append("".join(RANK_LETTERS[r] for r in range(13)
                             if mask >> make_card(suit, r) & 1))
    return ".".join(suits)


def hand_from_line(token: str, where: str) -> Mask:
    """A hand written as :func:`hand_to_line` writes it, as a mask (``-`` for a void suit);
    ``where`` names the hand in the error."""
    parts = token.upper().replace("10", "T").split(".")
    if len(parts) != 4:
        raise NotationError(f"{where}: {clip(token)!r} is not four suits C.D.H.S separated by dots")
    mask = 0
    for suit, holding in enumerate(parts):
        if holding == "-":
            continue
        for letter in holding:
            rank = RANK_LETTERS.find(letter)
            if rank < 0:
                raise NotationError(f"{where}: {letter!r} is not a rank (A 2-9 T J Q K)")
            bit = 1 << make_card(suit, rank)
            if mask & bit:
                raise NotationError(f"{where}: {card_name(make_card(suit, rank))} written twice")
            mask |= bit
    return mask


def deal_to_line(deal: Deal) -> str:
    """The one-line notation of a deal."""
    check_deal(deal, "deal_to_line takes a Deal", NotationError)
    text = f"{deal.rules.name}: " + " ".join(hand_to_line(h) for h in deal.hands)
    text += f" | {hand_to_line(deal.dead)} ^{card_name(deal.turnup)}"
    if deal.played:
        text += " | played " + " ".join(hand_to_line(p) for p in deal.played)
    if deal.played or deal.leader != 1:
        text += f" | lead {deal.leader}"
    if deal.board is not None:
        text += " | board " + " ".join(str(n) for _, n in deal.board.items())
    return text


def deal_from_line(text: str) -> Deal:
    """Read the one-line notation."""
    if not isinstance(text, str):
        raise NotationError(f"a one-line deal is a string, not {type(text).__name__}")
    sections = [s.strip() for s in text.strip().split("|")]
    if len(sections) < 2:
        raise NotationError("one-line deal: expected 'HANDS | DEAD ^TURNUP' (see docs/notation.md)")
    head = sections[0]
    rules_name = DEFAULT_RULESET
    if ":" in head:
        rules_name, _, head = head.partition(":")
        rules_name = rules_name.strip()
    rules = get_ruleset(rules_name)
    hands = [hand_from_line(tok, f"hand {i + 1}") for i, tok in enumerate(head.split())]
    dead_tokens = sections[1].split()
    if len(dead_tokens) != 2 or not dead_tokens[1].startswith("^"):
        raise NotationError("one-line deal: the second section is 'DEAD ^TURNUP', e.g. "
                            "'K.J.6T.259 ^KC'")
    dead = hand_from_line(dead_tokens[0], "dead hand")
    turnup = single_card(dead_tokens[1][1:])
    played = None
    leader = 1
    board = None
    seen: set[str] = set()
    for section in sections[2:]:
        word, _, rest = section.partition(" ")
        word = word.lower()
        if word in seen:
            raise NotationError(f"one-line deal: the section {clip(word)!r} is given twice")
        seen.add(word)
        if word == "played":
            played = [hand_from_line(t, f"played by seat {i + 1}")
                      for i, t in enumerate(rest.split())]
            if len(played) != len(hands):
                raise NotationError(f"one-line deal: 'played' lists {len(played)} seats but "
                                    f"there are {len(hands)} hands")
        elif word == "lead":
            if not COUNT_DIGITS.fullmatch(rest.strip()):
                raise NotationError("one-line deal: 'lead N' takes a seat number")
            leader = int(rest)
        elif word == "board":
            counts = rest.split()
            if (len(counts) != len(Compartment)
                    or not all(COUNT_DIGITS.fullmatch(c) for c in counts)):
                raise NotationError("one-line deal: 'board' takes 8 counts: pope matrimony "
                                    "intrigue ace king queen jack game")
            board = Board(*(int(c) for c in counts))
        else:
            raise NotationError(f"one-line deal: unknown section {clip(word)!r} "
                                "(played, lead, board)")
    return Deal.create(hands, dead, turnup, rules, board, played, leader)


def single_card(text: object) -> Card:
    """Exactly one card named in a file (a turn-up, a lead); anything else is an error."""
    mask = cards_field(text, "turnup") if isinstance(text, str) else -1
    if mask < 0 or mask.bit_count() != 1:
        raise NotationError("turnup must be exactly one card, like \"KC\"")
    return mask.bit_length() - 1


def parse_deal_text(text: str) -> Deal:
    """Read a deal written as JSON, TOML or the one-line notation (told apart by content)."""
    if not isinstance(text, str):
        raise NotationError(f"a deal's text is a string, not {type(text).__name__}")
    stripped = text.strip().removeprefix("\ufeff").strip()  # a byte-order mark is no content
    if not stripped:
        raise NotationError("the deal is empty")
    if stripped.startswith("{"):
        return deal_from_json(decode_json(stripped))
    if stripped.startswith("["):
        # A JSON array is not a deal; a TOML file may open with a table header.
        try:
            return deal_from_json(decode_json(stripped))
        except NotationError as exc:
            if str(exc).startswith("broken JSON"):
                return deal_from_json(decode_toml(stripped))
            raise
    if ("^" in stripped or "|" in stripped) and "\n" not in stripped:
        return deal_from_line(stripped)
    return deal_from_json(decode_toml(stripped))


def decode_json(text: str) -> object:
    """Decode JSON, refusing nesting past the parser's depth and numbers too long to read."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise NotationError(f"broken JSON: {exc.msg} at line {exc.lineno} column "
                            f"{exc.colno}") from None
    except RecursionError:
        raise NotationError("broken JSON: nested too deeply to read") from None
    except NotationError:  # a key written twice: its message says "broken JSON" already
        raise
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise NotationError(f"broken JSON: {clip(str(exc))}") from None


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object, refusing a key written twice (JSON would silently keep the last)."""
    data: dict[str, object] = {}
    for key, value in pairs:
        if key in data:
            raise NotationError(f"broken JSON: the key {clip(key)!r} is written twice")
        data[key] = value
    return data


def decode_toml(text: str) -> object:
    """Decode TOML, refusing nesting past the parser's depth."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise NotationError(f"broken TOML: {clip(str(exc))}") from None
    except RecursionError:
        raise NotationError("broken TOML: nested too deeply to read") from None
    except ValueError as exc:
        raise NotationError(f"broken TOML: {clip(str(exc))}") from None


_STEP: Final = re.compile(r"\s*([^\s+@]+)\s*(?:\+\s*([^\s+@]+)\s*@\s*([^\s+@]+))?\s*")


def parse_step(position: Position, text: str) -> Run:
    """One step of a line of play from ``position``: ``LEAD`` (every choice in its run
    declined), or ``LEAD+CARD@AFTER``, the run in which a choice plays CARD right after AFTER
    (``8S+9D@9S``: the Pope in lieu of the stop 9S; ``5C+AD@5C``: Spin on the 5C).

    Raises :class:`NotationError` for a malformed step and :class:`IllegalPlayError` for one
    that cannot be played here.
    """
    match = _STEP.fullmatch(text)
    if match is None:
        raise NotationError(f"a step is LEAD or LEAD+CARD@AFTER (e.g. 8S+9D@9S), not "
                            f"{clip(text)!r}")
    lead = single_card(match[1])
    if match[2] is None:
        return position.play(lead)[0]
    extra, after = single_card(match[2]), single_card(match[3])
    for run in position.outcomes(lead):
        chosen = run.chosen
        if chosen is not None and (run.cards[chosen], run.cards[chosen - 1]) == (extra, after):
            return run
    raise IllegalPlayError(
        f"after the lead {card_name(lead)}, no choice plays {card_name(extra)} after "
        f"{card_name(after)} (the runs it can make: "
        f"{'; '.join(r.step for r in position.outcomes(lead))})")
