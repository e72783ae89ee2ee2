"""The works the rules model cites, and how a quotation from one of them is written.

A :class:`Source` names a :class:`Work` (author, title, year, the section used) and a phrase
quoted from it, so a reader can look the rule up in any copy. Quotations follow the OCR of our
copies; square brackets mark what we restored where the OCR lost it: ``al[l] the cards``,
``set[t]ing``, ``9[♦]``. :func:`appears_in` checks a quotation against a text by that convention.

Each work may also name ``file``, our copy of it: an internal field for the tests that check
every quotation verbatim against the passages of it kept in ``tests/sources`` (and against the
whole text where it is at hand), never printed (users do not have our files). Works with no
copy (Peel, Cassell, the 1911 Britannica) are quoted from the public texts named in
``read_at``, copied by hand: no test can check those quotations, and ``docs/rules.md`` says what
was read of each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final


class TitleKind(StrEnum):
    """How a work's title is written in a citation."""

    BOOK = "book"
    """A book or an encyclopaedia: the title in italics (in Markdown)."""
    ARTICLE = "article"
    """An article of a web encyclopaedia: the title in quotation marks."""
    UNTITLED = "untitled"
    """A work we cannot name: the ``title`` field describes it, in plain text."""
    MODEL = "model"
    """Not a published work: the rules model's own choice."""


@dataclass(frozen=True)
class Work:
    """A published text the rules cite, with what a reader needs to find it."""

    key: str
    title: str
    section: str | None
    author: str | None = None
    year: str | None = None
    kind: TitleKind = TitleKind.BOOK
    details: str = ""
    """Full author, edition and publisher, for ``docs/sources.md``."""
    read_at: str = ""
    """Where a public-domain or public text can be read, or why none can."""
    file: str | None = None
    """Our copy's file name (internal: for the verbatim tests, never printed)."""

    def citation(self, markdown: bool = False) -> str:
        """Author, title and year on one line: ``Hoffmann, Hoyle's Games Modernized (c. 1909)``."""
        title = self.title
        if self.kind is TitleKind.ARTICLE:
            title = f"\"{title}\""
        elif self.kind is TitleKind.BOOK and markdown:
            title = f"*{title}*"
        text = f"{self.author}, {title}" if self.author else title
        return f"{text} ({self.year})" if self.year else text

    def __str__(self) -> str:
        return self.citation()


@dataclass(frozen=True)
class Source:
    """A phrase quoted from a work (brackets restore what the OCR lost), with a note and more
    sources that agree."""

    work: Work
    phrase: str
    note: str = ""
    section: str | None = None
    """The section quoted, when it is not the work's usual one."""
    also: tuple[Source, ...] = ()

    @property
    def file(self) -> str | None:
        """Our copy of the work (internal, never printed); ``None`` for the model's choices."""
        return self.work.file

    @property
    def where(self) -> str | None:
        """The section of the work the phrase is quoted from."""
        return self.section if self.section is not None else self.work.section

    def cite(self, markdown: bool = False) -> str:
        """The whole citation on one line: work, section and the quoted phrase."""
        text = self.work.citation(markdown)
        if self.where:
            text += f", \"{self.where}\""
        return f"{text}: \"{self.phrase}\"" if self.phrase else text

    def to_json(self) -> dict[str, Any]:
        """``work``, ``section`` and ``phrase`` (``null`` for the model), ``note`` and ``also``
        where there are some."""
        data: dict[str, Any] = {"work": self.work.citation(), "section": self.where,
                                "phrase": self.phrase or None}
        if self.note:
            data["note"] = self.note
        if self.also:
            data["also"] = [s.to_json() for s in self.also]
        return data


_RESTORED = re.compile(r"\[[^\]]*\]")


def find_quotation(phrase: str, text: str) -> tuple[int, int] | None:
    """Where a quotation stands in a text whose whitespace is made single spaces (``" ".join(
    text.split())``): its start and end there, or None. Its bracketed restorations are taken
    out first (each may stand for nothing or for the space the OCR left in its place)."""
    pattern = r"\s?".join(
        r"\s+".join(re.escape(word) for word in piece.split())
        for piece in _RESTORED.split(phrase))
    found = re.search(pattern, " ".join(text.split()))
    return None if found is None else found.span()


def appears_in(phrase: str, text: str) -> bool:
    """Whether a quotation stands in a text, whitespace aside (:func:`find_quotation`)."""
    return find_quotation(phrase, text) is not None


HOFFMANN: Final = Work(
    "hoffmann", "Hoyle's Games Modernized", "Pope Joan", author="Hoffmann", year="c. 1909",
    details="Professor Hoffmann (Angelo J. Lewis), editor, *Hoyle's Games Modernized* "
            "(London: George Routledge and Sons; first edition 1898). Our text is that of the "
            "\"New Edition (Reset), thoroughly revised to 1909\".",
    read_at="Wikisource, \"Hoyle's Games Modernized/Pope Joan\": "
            "<https://en.wikisource.org/wiki/Hoyle%27s_Games_Modernized/Pope_Joan>",
    file="hoyles-games-modernized.txt")
EARLY_HOYLE: Final = Work(
    "early-hoyle", "Hoyle's Games", "Pope Joan", year="early edition, n.d.",
    details="An early *Hoyle's Games* text of Pope Joan (\"A game somewhat similar to "
            "Matrimony\"); the edition of our copy is not identified. Wikipedia dates the first "
            "published rules of the game to the Hoyle of 1814, Parlett to 1826.",
    read_at="no edition identified; the same text is on the web as \"Pope Joan (card game)\", "
            "e.g. <http://bennetdictionary.com/pope-joan-card-game/>",
    file="early-hoyle.txt")
WIKIPEDIA: Final = Work(
    "wikipedia", "Pope Joan (card game)", "Play", author="Wikipedia", kind=TitleKind.ARTICLE,
    details="Wikipedia, the free encyclopedia, article \"Pope Joan (card game)\". The access "
            "date of our copy is not recorded (its references include a page accessed "
            "2017-11-09, so it is later). Its rules rest on the 1911 *Encyclopædia Britannica* "
            "(\"Pope-Joan\", cited four times in the Play and Strategy sections); it also "
            "cites Parlett's *Oxford Dictionary of Card Games* (1996) and the Diagram Group's "
            "*Little Giant Encyclopedia of Card Games* (1995).",
    read_at="<https://en.wikipedia.org/wiki/Pope_Joan_(card_game)>",
    file="wikipedia-pope-joan.txt")
MODERN_BOOK: Final = Work(
    "modern-book", "a modern card-games book (not identified)", "Pope Joan",
    kind=TitleKind.UNTITLED,
    details="A modern book of card games; its author and title are not identified in our copy. "
            "It plays with eight saucers in place of the board and calls the dead hand the "
            "widow. Its OCR gives ♠9 and ♠8 for the ♦9 and ♦8 twice (the same text later says "
            "\"Pope (♦9)\").",
    read_at="in copyright; no public text known to us",
    file="modern-card-games-book.txt")
PARLETT_PENGUIN: Final = Work(
    "parlett", "The Penguin Book of Card Games", "Pope Joan", author="Parlett",
    year="rev. ed., c. 2008",
    details="David Parlett, *The Penguin Book of Card Games* (London: Penguin; first published "
            "1979). Our copy is the revised edition subtitled \"Everything You Need to Know to "
            "Play Over 250 Games\"; its OCR lost the suit symbols and the ligatures ff, fi, ll "
            "and tt.",
    read_at="in copyright; no public-domain text. Sections used: \"Pope Joan\" and \"Spinado\"",
    file="parlett-penguin.txt")
PEEL: Final = Work(
    "peel", "Round Games with Cards", "Pope Joan", author="Peel", year="1891",
    details="W. H. Peel, *Round Games with Cards: A Practical Treatise on All the Most Popular "
            "Games, with Their Different Variations, and Hints for Their Practice* (London). The "
            "title page of the public text names its author \"Baxter-Wray\" and bears the dates "
            "1891 and 1897; Project Gutenberg catalogues it under W. H. Peel. "
            "\"Pope Joan\" (p. 80) with its variations \"Five-Pool Pope\", \"Pope Joan Wins\", "
            "\"Limited Stops\" and \"Looking at the Spare Hand\" (pp. 85-86). We have read pp. "
            "80-81 and 85-86 of the public text, not pp. 82-84.",
    read_at="Project Gutenberg eBook #27819: <https://www.gutenberg.org/ebooks/27819>")
BRITANNICA: Final = Work(
    "britannica", "Encyclopædia Britannica", "Pope-Joan", year="11th ed., 1911",
    details="Hugh Chisholm, editor, *Encyclopædia Britannica*, 11th edition (Cambridge "
            "University Press, 1911), vol. 22, \"Pope-Joan\", p. 88. Its text was not available "
            "to us: the `britannica` ruleset knows it through Wikipedia's article, and "
            "`britannica-1911`'s dressing rests on our notes on it, not on a reading.",
    read_at="Wikisource's transcription of the 1911 Britannica, article \"Pope-Joan\"")
CASSELL: Final = Work(
    "cassell", "Cassell's Book of In-door Amusements, Card Games, and Fireside Fun",
    "Pope Joan", year="1881",
    details="*Cassell's Book of In-door Amusements, Card Games, and Fireside Fun* (London: "
            "Cassell, Petter, Galpin & Co., the publisher of the third edition; first edition "
            "1881). The public text is the third edition; we have read its \"Pope Joan\" as far "
            "as the awards of play.",
    read_at="Project Gutenberg eBook #49137: <https://www.gutenberg.org/ebooks/49137>")
FOSTER: Final = Work(
    "foster", "Foster's Complete Hoyle", "Pope Joan", author="Foster", year="1897",
    details="R. F. Foster, *Foster's Complete Hoyle: An Encyclopedia of Games* (1897). Its "
            "\"Pope Joan\" is a different game under the same name: a five-card layout (10, J, "
            "Q, K and Pope), the full pack and a stock.",
    read_at="Project Gutenberg eBook #53881: <https://www.gutenberg.org/ebooks/53881>")
MODEL: Final = Work(
    "model", "the rules model's own choice, no published source", None, kind=TitleKind.MODEL,
    details="A choice of this rules model that no source makes, offered for comparison.",
    read_at="`docs/rules.md`")

WORKS: Final = (HOFFMANN, EARLY_HOYLE, WIKIPEDIA, MODERN_BOOK, PARLETT_PENGUIN, PEEL, BRITANNICA,
                CASSELL, FOSTER)
"""Every published work the project cites or will cite, in the order ``docs/sources.md`` lists
them (:data:`MODEL` is not one)."""


def bibliography_markdown() -> str:
    """The list of works for ``docs/sources.md``, generated so that it cannot drift."""
    lines = ["| work | cited as | section used | edition, publisher | where to read it |",
             "|---|---|---|---|---|"]
    for work in WORKS:
        cells = (f"`{work.key}`", work.citation(markdown=True), work.section or "",
                 work.details, work.read_at)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
