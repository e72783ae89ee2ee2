"""The passages of the rule texts kept in tests/sources (tests/quotes.py): each stands in its
whole text where the whole texts are at hand, a work in copyright keeps only the words quoted,
and ``pytest --update-golden`` makes them again from the whole texts."""

from __future__ import annotations

import pytest

from popejoan_solver.model.sources import appears_in
from tests.quotes import (
    EXCERPTS,
    IN_COPYRIGHT,
    WHOLE_TEXTS,
    make_excerpt,
    passages,
    quoted_phrases,
    read_excerpt,
    whole_text,
)

WORKS = sorted(quoted_phrases())


def test_every_work_quoted_has_an_excerpt_and_no_other() -> None:
    kept = {p.name for p in EXCERPTS.glob("*.txt")}
    assert kept == set(WORKS)
    readme = (EXCERPTS / "README.md").read_text(encoding="utf-8")
    for file in WORKS:
        assert f"`{file}`" in readme, file


@pytest.mark.parametrize("file", sorted(IN_COPYRIGHT))
def test_a_work_in_copyright_keeps_only_the_words_quoted(file: str) -> None:
    """Fair quotation: every passage is one quotation's words (or two that overlap), no more."""
    phrases = quoted_phrases()[file]
    for passage in passages(read_excerpt(file)):
        inside = [p for p in phrases if appears_in(p, passage)]
        assert inside, passage
        assert len(passage) <= sum(len(p) for p in inside), passage


@pytest.mark.skipif(not WHOLE_TEXTS.is_dir(),
                    reason="the whole texts are not at hand ($POPEJOAN_SOURCES, ../shared/sources)")
@pytest.mark.parametrize("file", WORKS)
def test_each_excerpt_is_made_from_its_whole_text(file: str, update_golden: bool) -> None:
    """Every passage stands word for word in the whole text, and the excerpt is what the
    quotations take from it now (``--update-golden`` rewrites it)."""
    whole = whole_text(file)
    assert whole is not None, f"{file} is not among the whole texts in {WHOLE_TEXTS}"
    expected = make_excerpt(whole, quoted_phrases()[file], file in IN_COPYRIGHT)
    if update_golden:
        (EXCERPTS / file).write_text(expected, encoding="utf-8")
    text = " ".join(whole.split())
    for passage in passages(read_excerpt(file)):
        assert passage in text, passage
    assert read_excerpt(file) == expected, (
        f"tests/sources/{file} is not what the quotations take from the whole text: run "
        "pytest --update-golden tests/project/test_sources.py")


def test_an_excerpt_keeps_the_sentence_or_only_the_words() -> None:
    whole = "Title\n\nFirst words here. The dealer leads any card he pleases, naming it. Next.\n"
    phrase = {"leads any card he pleases"}
    assert make_excerpt(whole, phrase, words_only=True) == "leads any card he pleases\n"
    assert make_excerpt(whole, phrase, words_only=False) == (
        "The dealer leads any card he pleases, naming it.\n")
    assert make_excerpt("Heading\nthe Pope is a stop.\n", {"Pope is"}, False) == (
        "the Pope is a stop.\n")
    with pytest.raises(AssertionError, match="not in the whole text"):
        make_excerpt(whole, {"leads any card he likes"}, words_only=True)
