"""Bots by spec: ``make_bot("pimc:samples=32,model=paranoid", seed)``; lists of specs as
``--bots`` writes them (``pimc:samples=16,peek,hoyle,random``). Every mistake is one
:class:`BotError` line naming the spec and what is allowed."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Final

from ..model.errors import clip
from .base import Bot, BotError

BOTS: Final = ("random", "lowest", "hoyle", "pimc", "epimc", "strong", "cheat", "ismcts")
"""Every bot name, the ceiling (``cheat``) and OpenSpiel's ``ismcts`` included."""

FLAGS: Final = ("peek",)
"""Options that may be written bare (meaning yes)."""

STRONG: Final = "epimc:samples=32"
"""What ``strong`` is: the strongest fair bot by the matches of docs/studies/bots.md (the
default opponent of ``popejoan play`` and of the web table)."""

SAMPLER_DEFAULTS: Final = {"samples": "32", "model": "paranoid", "pool": "1", "clock": "wall",
                           "top": "3", "peek": "no"}
"""The options a sampling bot (``pimc``, ``epimc``) takes when a spec leaves them out: ``pimc``
and ``pimc:samples=32`` are one bot."""

MAX_SAMPLES: Final = 10_000
MAX_POOL: Final = 64
MAX_TOP: Final = 13
MAX_BOTS: Final = 16


def _flag(value: str, key: str, spec: str) -> bool:
    if value in ("", "1", "yes", "true", "on"):
        return True
    if value in ("0", "no", "false", "off"):
        return False
    raise BotError(f"bot {clip(spec)!r}: {key} is yes or no, not {clip(value)!r}")


def _count(value: str, key: str, spec: str, high: int) -> int:
    if not (value.isascii() and value.isdigit()) or not 1 <= int(value[:8]) <= high:
        raise BotError(f"bot {clip(spec)!r}: {key} is a whole number from 1 to {high}, not "
                       f"{clip(value)!r}")
    return int(value)


def _seconds(value: str, key: str, spec: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or not 0 < seconds <= 3600:
        raise BotError(f"bot {clip(spec)!r}: {key} is a number of seconds above 0 (at most "
                       f"3600), not {clip(value)!r}")
    return seconds


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``name:key=value,key,...`` to the name and its options (a bare key means yes)."""
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in BOTS:
        raise BotError(f"unknown bot {clip(spec)!r} (bots: {', '.join(BOTS)})")
    options: dict[str, str] = {}
    for part in rest.split(",") if rest.strip() else []:
        key, _, value = part.strip().partition("=")
        key = key.strip().lower()
        if not key:
            raise BotError(f"bot {clip(spec)!r}: an empty option")
        if key in options:
            raise BotError(f"bot {clip(spec)!r}: option {clip(key)!r} given twice")
        options[key] = value.strip()
    return name, options


def _simple(cls: Callable[..., Bot]) -> Callable[[str, Mapping[str, str], int], Bot]:
    def make(spec: str, options: Mapping[str, str], seed: int) -> Bot:
        return cls(spec, _flag(options.get("peek", ""), "peek", spec)
                   if "peek" in options else False)
    return make


def _pimc(spec: str, options: Mapping[str, str], seed: int) -> Bot:
    """``pimc``: sampled deals, each solved double dummy."""
    return _sampler(spec, options, deferred=False)


def _epimc(spec: str, options: Mapping[str, str], seed: int) -> Bot:
    """``epimc``: ``pimc`` with the seat's next lead deferred to its information set."""
    return _sampler(spec, options, deferred=True)


def _sampler(spec: str, options: Mapping[str, str], deferred: bool) -> Bot:
    """A sampling bot from its options, each checked (a mistake names ``spec``)."""
    from ..advice.values import MODELS
    from .pimc import PimcBot
    model = options.get("model", SAMPLER_DEFAULTS["model"])
    if model not in MODELS:
        raise BotError(f"bot {clip(spec)!r}: model is one of {', '.join(MODELS)}, not "
                       f"{clip(model)!r}")
    samples = _count(options.get("samples", SAMPLER_DEFAULTS["samples"]), "samples", spec,
                     MAX_SAMPLES)
    seconds = _seconds(options["time"], "time", spec) if "time" in options else None
    peek = _flag(options["peek"], "peek", spec) if "peek" in options else False
    infer = _infer(options, spec)
    pool = _count(options.get("pool", SAMPLER_DEFAULTS["pool"]), "pool", spec, MAX_POOL)
    if "pool" in options and infer is None:
        raise BotError(f"bot {clip(spec)!r}: pool weighs deals for infer=MODEL, given none")
    clock = options.get("clock", SAMPLER_DEFAULTS["clock"])
    if clock not in ("wall", "cpu"):
        raise BotError(f"bot {clip(spec)!r}: clock is wall or cpu, not {clip(clock)!r}")
    bot = PimcBot(spec, peek, samples, model, seconds, sees=_sees(options, spec),
                  infer=infer, pool=pool, clock=clock)
    if deferred:
        from dataclasses import asdict

        from .deferred import EpimcBot
        top = _count(options.get("top", SAMPLER_DEFAULTS["top"]), "top", spec, MAX_TOP)
        return EpimcBot(**asdict(bot), top=top)
    return bot


def _infer(options: Mapping[str, str], spec: str) -> str | None:
    from ..advice.opponents import ModelError, make_model
    infer = options.get("infer")
    if infer is None:
        return None
    try:
        return make_model(infer).name
    except ModelError as exc:
        raise BotError(f"bot {clip(spec)!r}: {exc}") from None


def _sees(options: Mapping[str, str], spec: str) -> str | None:
    from .sight import SIGHTS
    sees = options.get("sees")
    if sees is not None and sees not in SIGHTS:
        raise BotError(f"bot {clip(spec)!r}: sees is one of {', '.join(SIGHTS)}, not "
                       f"{clip(sees)!r}")
    return sees


def _strong(spec: str, options: Mapping[str, str], seed: int) -> Bot:
    """:data:`STRONG` under the name ``strong`` (its ``time=S``, ``clock`` and ``peek``
    added; a mistake in them names the spec as given)."""
    name, defaults = parse_spec(STRONG)
    return _factories()[name][0](spec, {**defaults, **options}, seed)


def _ismcts(spec: str, options: Mapping[str, str], seed: int) -> Bot:
    """OpenSpiel's ISMCTS over the game's adapter (:mod:`.ismcts`), imported only when asked
    for: without the ``openspiel`` extra, one line saying how to install it."""
    try:
        from .ismcts import make_ismcts_bot
    except ImportError as exc:
        raise BotError(f"bot {clip(spec)!r} needs OpenSpiel: pip install "
                       f"'popejoan-solver[openspiel]' ({clip(str(exc), 80)})") from None
    return make_ismcts_bot(spec, dict(options), seed)


def _factories() -> dict[str, tuple[Callable[[str, Mapping[str, str], int], Bot],
                                    tuple[str, ...]]]:
    from .cheat import CheatBot
    from .hoyle import HoyleBot
    from .simple import LowestBot, RandomBot
    return {"random": (_simple(RandomBot), ("peek",)),
            "lowest": (_simple(LowestBot), ("peek",)),
            "hoyle": (_simple(HoyleBot), ("peek",)),
            "cheat": (_simple(CheatBot), ()),
            "strong": (_strong, ("time", "clock", "peek")),
            "pimc": (_pimc, ("samples", "model", "time", "clock", "peek", "sees", "infer",
                             "pool")),
            "epimc": (_epimc, ("samples", "time", "clock", "peek", "infer", "pool", "top")),
            "ismcts": (_ismcts, ())}


def make_bot(spec: str, seed: int = 0) -> Bot:
    """The bot a spec names (``seed`` is for bots that keep their own generator: the others
    draw from each decision's seeded generator)."""
    name, options = parse_spec(spec)
    factory, keys = _factories()[name]
    unknown = [k for k in options if keys and k not in keys]
    if unknown or (not keys and name != "ismcts" and options):
        key = unknown[0] if unknown else next(iter(options))
        allowed = ", ".join(keys) if keys else "none"
        raise BotError(f"bot {clip(spec)!r}: unknown option {clip(key)!r} (options: {allowed})")
    return factory(spec.strip(), options, seed)


def split_bots(text: str, *, unique: bool = True) -> list[str]:
    """``--bots``: specs separated by commas, where an option (``key=value``, or a bare flag
    such as ``peek``) belongs to the bot before it (``pimc:samples=16,peek,hoyle`` is two
    bots). ``unique``: each bot named once; otherwise a bot may be named again (``pimc,random,
    random,random``: one ``pimc`` against three ``random``), and every copy takes the first
    copy's spelling, so that standings group the copies by one name."""
    specs: list[str] = []
    pieces = text.split(",")
    if any(not p.strip() for p in pieces) and any(p.strip() for p in pieces):
        raise BotError(f"--bots {clip(text)!r} has an empty spec between commas (a bot left "
                       "out?)")
    for piece in pieces:
        if not piece.strip():
            continue
        name = piece.strip().partition(":")[0].strip().lower()
        option = "=" in piece or name in FLAGS
        if name in BOTS or not specs or not option:
            specs.append(piece.strip())
        else:
            sep = "," if ":" in specs[-1] else ":"
            specs[-1] += sep + piece.strip()
    specs = [s for s in specs if s]
    if not specs:
        raise BotError("--bots names no bot (bots: " + ", ".join(BOTS) + ")")
    if len(specs) > MAX_BOTS:
        raise BotError(f"--bots names {len(specs)} bots: at most {MAX_BOTS}")
    first: dict[object, str] = {}
    for index, spec in enumerate(specs):
        key = _same_bot(spec)
        if unique and key in first:
            raise BotError(f"--bots names {clip(spec)!r} twice: each bot once (the rotations "
                           "seat it in every place)")
        specs[index] = first.setdefault(key, spec)
    return specs


def _same_bot(spec: str) -> object:
    """What makes two specs the same bot: the name and options, whatever their case or
    order (``lowest`` and ``LOWEST``, ``pimc:peek,samples=8`` and ``pimc:samples=8,peek``),
    with an option given at its default the same as one left out (``pimc`` and
    ``pimc:samples=32``, ``hoyle`` and ``hoyle:peek=no``)."""
    try:
        name, options = parse_spec(spec)
    except BotError:  # refused with its own message when the bot is made
        return spec.strip().lower()
    defaults = SAMPLER_DEFAULTS if name in ("pimc", "epimc") else {"peek": "no"}
    written = {k: _plain_value(k, v) for k, v in options.items()}
    return name, tuple(sorted((k, v) for k, v in written.items() if defaults.get(k) != v))


def _plain_value(key: str, value: str) -> str:
    """One spelling of an option's value: a flag's yes or no, a whole number's digits."""
    value = value.lower()
    if key in FLAGS and value in ("", "1", "yes", "true", "on", "0", "no", "false", "off"):
        return "yes" if value in ("", "1", "yes", "true", "on") else "no"
    if value.isascii() and value.isdigit():
        return str(int(value))
    return value
