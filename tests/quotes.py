"""The passages of the rule texts that the code quotes, kept in ``tests/sources`` so that the
quotation tests run in a plain clone (tests/sources/README.md says where each comes from).

Every quoted phrase is checked against its work's excerpt; where the whole texts are at hand
(``$POPEJOAN_SOURCES``, or ``../shared/sources`` beside the checkout) each excerpt is checked
against its whole text, and ``pytest --update-golden`` makes the excerpts again from them. A
public-domain or CC BY-SA work keeps the sentence round each phrase; a work in copyright keeps
only the words quoted (fair quotation)."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path

from popejoan_solver.model import referee
from popejoan_solver.model.rules import OPTIONS, RULESET_SOURCES
from popejoan_solver.model.sources import MODEL, Source, find_quotation
from popejoan_solver.studies.conformance import load_examples
from tests.conftest import SOURCES

WHOLE_TEXTS = Path(os.environ.get("POPEJOAN_SOURCES") or SOURCES)
"""The whole texts: ``$POPEJOAN_SOURCES``, else ``../shared/sources`` beside the checkout."""

EXCERPTS = Path(__file__).resolve().parent / "sources"
"""Our excerpts, one file a work, named as its whole text is (``Work.file``)."""

IN_COPYRIGHT = frozenset({"parlett-penguin.txt", "modern-card-games-book.txt"})
"""Works whose excerpts keep only the words quoted."""

REFEREE_PHRASES = ("FIRST_LEAD", "RUN", "STOP", "OUT", "AWARDS", "CARRY", "ROTATION", "FINAL")
"""The referee's citations of Hoffmann (``model.referee``)."""

_SENTENCE_END = re.compile(r"[.!?]\"? ")


def every_source() -> list[tuple[str, Source]]:
    """Every source the rules cite, with where it is cited: each option value's, each named
    ruleset's own, the sources that agree with them, and the referee's."""
    cited = [(f"{spec.name}={spec.text(v)}", spec.sources[v])
             for spec in OPTIONS.values() for v in spec.values]
    cited += [(f"{name}: {option}", source)
              for name, own in RULESET_SOURCES.items() for option, source in own.items()]
    cited += [(f"referee.{name}", getattr(referee, name)) for name in REFEREE_PHRASES]
    return [(where, s) for where, source in cited for s in (source, *source.also)]


def quoted_phrases() -> dict[str, set[str]]:
    """The phrases quoted from each work we hold a text of, by its file: the rules' and the
    conformance examples'."""
    phrases: dict[str, set[str]] = defaultdict(set)
    for _, source in every_source():
        if source.work is not MODEL and source.file is not None:
            phrases[source.file].add(source.phrase)
    for example in load_examples():  # the conformance examples' (studies/conformance.py)
        if example.work.file is not None:
            phrases[example.work.file].add(example.phrase)
    return dict(phrases)


def passages(text: str) -> list[str]:
    """An excerpt file's passages: its paragraphs, each on one line of single spaces."""
    return [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]


def read_excerpt(file: str) -> str:
    """The excerpt of a work, by its file name."""
    return (EXCERPTS / file).read_text(encoding="utf-8")


def _line_starts(whole: str) -> list[int]:
    """Where each non-empty line of ``whole`` starts in its text of single spaces."""
    starts, at = [], 0
    for line in whole.splitlines():
        words = line.split()
        if words:
            starts.append(at)
            at += len(" ".join(words)) + 1
    return starts


def _sentence_round(text: str, lines: list[int], start: int, end: int) -> tuple[int, int]:
    """The span widened to the sentences it stands in, within its lines of the whole text (a
    sentence ends at . ! or ? and a space; an abbreviation's full stop may end one early: the
    passage is then shorter, never longer)."""
    begins = [m.end() for m in _SENTENCE_END.finditer(text, 0, start + 1)]
    begins += [s for s in lines if s <= start]
    ends = [m.end() - 1 for m in [_SENTENCE_END.search(text, max(end - 2, 0))] if m]
    ends += [s - 1 for s in lines if s > end]
    return max(begins, default=0), min(ends, default=len(text))


def make_excerpt(whole: str, phrases: set[str], words_only: bool) -> str:
    """The passages of ``whole`` that hold the phrases, in the text's order, one a paragraph:
    each phrase's own words where ``words_only``, else the sentences round it."""
    text, lines = " ".join(whole.split()), _line_starts(whole)
    spans = []
    for phrase in sorted(phrases):
        found = find_quotation(phrase, text)
        if found is None:
            raise AssertionError(f"not in the whole text: {phrase!r}")
        spans.append(found if words_only else _sentence_round(text, lines, *found))
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return "\n\n".join(text[start:end].strip() for start, end in merged) + "\n"


def whole_text(file: str) -> str | None:
    """The whole text of a work where the whole texts are at hand, else None."""
    path = WHOLE_TEXTS / file
    return path.read_text(encoding="utf-8") if path.is_file() else None
