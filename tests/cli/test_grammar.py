"""One grammar for every command: --rules with --set wherever a command deals or solves,
--seed and --seat read one way, --out for every file written (older spellings kept),
--format with --json as its alias, and every --help with a description and an example."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from popejoan_solver.cli import COMMANDS, build_parser, build_parsers, main
from tests.conftest import ROOT

SMALL = ("hoyle-modernized: 37J.3.4.A 48.4.5J.3 5.5.2Q.4 6.6.3K.6 | "
         "A29TQK.A279TJQK.A6789T.25789TJQK ^KC")
TINY = ("hoyle-modernized: 3.4.. 4.5.. 5.6.. | A26789TJQK.A2379TJQK.A23456789TJQK.A23456789TJQK "
        "^KS")
SESSION = str(ROOT / "tests" / "golden" / "record-session.json")

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> Run:
    """``popejoan ARGV`` in-process, in a folder of its own: (status, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)

    def run_argv(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        status = main(list(argv))
        out, err = capsys.readouterr()
        return status, out, err
    return run_argv


def one_error(outcome: tuple[int, str, str]) -> str:
    """The one ``error:`` line of a command that failed with status 2 (warnings may precede
    it; no traceback)."""
    status, _, err = outcome
    assert status == 2, err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, err
    assert err.splitlines()[-1] == errors[0]
    return errors[0]


def _options(name: str) -> list[str]:
    """The option strings of a command, as its help lists them."""
    text = build_parsers(width=200)[1][name].format_help()
    options = text.split("\noptions:", 1)[1].split("\nexample", 1)[0]
    return sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", options)))


@pytest.fixture(scope="module")
def match_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("match") / "m.db"
    assert main(["match", "--bots", "random,lowest", "--players", "3", "--deals", "1",
                 "--seed", "1", "--workers", "1", "--out", str(path)]) == 0
    return str(path)


# ----------------------------------------------------------------------------- --rules, --set

DEALS_OR_SOLVES = {
    "deal": ["deal", "--players", "3", "--seed", "1"],
    "stops": ["stops", SMALL],
    "graph": ["graph", SMALL],
    "solve": ["solve", SMALL],
    "prove": ["prove"],
    "find": ["find", "forced-win"],
    "batch": ["batch", "--deals", "1", "--seed", "1", "--out", "b.db"],
    "study": ["study", "seat-values", "--deals", "1", "--out", "s.db"],
    "advise": ["advise", SMALL, "--seat", "1"],
    "view": ["view", SMALL, "--seat", "1"],
    "match": ["match", "--bots", "random,random", "--players", "3", "--deals", "1",
              "--seed", "1", "--out", "m.db"],
    "play": ["play", "--seat", "1", "--bots", "random,random"],
}


def test_every_command_that_deals_or_solves_is_listed() -> None:
    """Every command but those that read a record (which names its ruleset), a result file,
    the published cases or nothing about rules at all."""
    others = {"rules", "case", "cases", "check", "grade", "stats", "standings", "serve",
              "certificate"}
    assert {c.name for c in COMMANDS} == set(DEALS_OR_SOLVES) | others


@pytest.mark.parametrize("name", sorted(DEALS_OR_SOLVES))
def test_rules_and_set_are_read_the_same_way(name: str) -> None:
    args = build_parser().parse_args([*DEALS_OR_SOLVES[name], "--rules", "parlett",
                                      "--set", "ace=high", "--set", "pairs=divided"])
    assert args.rules == "parlett"
    assert args.set == ["ace=high", "pairs=divided"]


@pytest.mark.parametrize("name", sorted(DEALS_OR_SOLVES))
def test_a_bad_option_is_one_error(run: Run, name: str) -> None:
    line = one_error(run(*DEALS_OR_SOLVES[name], "--set", "ace=sideways"))
    assert "ace" in line


def test_set_changes_the_deal_dealt_and_solved(run: Run) -> None:
    status, out, _ = run("deal", "--players", "4", "--seed", "1", "--format", "line",
                         "--rules", "peel", "--set", "ace=high")
    assert status == 0
    assert out.startswith("peel+ace=high: ")
    status, out, _ = run("solve", out.strip(), "--seat", "1")
    assert status == 0
    assert out.startswith("peel+ace=high: 4 players")
    status, out, _ = run("solve", SMALL, "--set", "pairs=divided", "--rules", "parlett")
    assert status == 0
    assert out.startswith("parlett+pairs=divided: 4 players")


def test_set_reaches_a_batch_and_its_statistics(run: Run) -> None:
    assert run("batch", "--deals", "1", "--players", "3", "--seed", "1", "--workers", "1",
               "--set", "ace=high", "--out", "b.db")[0] == 0
    groups = json.loads(run("stats", "b.db", "--json")[1])["groups"]
    assert [g["rules"] for g in groups] == ["hoyle-modernized+ace=high"]


def test_set_reaches_a_study(run: Run) -> None:
    status, out, _ = run("study", "seat-values", "--deals", "1", "--players", "3",
                         "--rules", "parlett", "--set", "pairs=divided", "--workers", "1",
                         "--out", "s.db")
    assert status == 0
    assert [g["rules"] for g in json.loads(out)["groups"]] == ["parlett+pairs=divided"]
    line = one_error(run("study", "hoyle-maxims", "--deals", "1", "--set", "ace=high",
                         "--out", "m.db"))
    assert line.startswith("error: --set is for seat-values")


def test_set_reaches_a_match(run: Run) -> None:
    assert run("match", "--bots", "random,lowest", "--players", "3", "--deals", "1",
               "--seed", "1", "--workers", "1", "--set", "ace=high", "--out", "m.db")[0] == 0
    status, out, _ = run("standings", "m.db", "--json")
    assert status == 0
    assert "hoyle-modernized+ace=high" in out


def test_set_reaches_play(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    status, out, _ = run("play", "--seat", "1", "--bots", "random,random", "--rules",
                         "parlett", "--set", "pairs=divided")
    assert status == 0
    assert out.startswith("Pope Joan, parlett+pairs=divided, 3 players")


def test_rules_of_a_position_apply_to_a_deal_not_a_record(run: Run) -> None:
    status, out, _ = run("view", SMALL, "--seat", "1", "--set", "ace=high", "--json")
    assert status == 0
    assert json.loads(out)["rules"] == "hoyle-modernized+ace=high"
    line = one_error(run("view", SESSION, "--seat", "1", "--rules", "parlett"))
    assert "game record" in line
    line = one_error(run("advise", SESSION, "--seat", "1", "--set", "ace=high"))
    assert "game record" in line


def test_an_unknown_ruleset_of_a_position_is_its_own_error(run: Run) -> None:
    line = one_error(run("advise", SMALL, "--seat", "1", "--rules", "nonesuch"))
    assert line.startswith("error: unknown ruleset 'nonesuch'")


# ----------------------------------------------------------------------------- --seed, --seat

TAKES_SEED = {
    "deal": ["deal", "--players", "3"],
    "find": ["find", "forced-win"],
    "batch": ["batch", "--deals", "1", "--out", "b.db"],
    "study": ["study", "seat-values", "--deals", "1", "--out", "s.db"],
    "advise": ["advise", SMALL, "--seat", "1"],
    "match": ["match", "--bots", "random,random", "--players", "3", "--deals", "1",
              "--out", "m.db"],
    "play": ["play", "--seat", "1", "--bots", "random,random"],
}


def test_every_command_with_a_seed_is_listed() -> None:
    assert {c.name for c in COMMANDS if "--seed" in _options(c.name)} == set(TAKES_SEED)


@pytest.mark.parametrize("name", sorted(TAKES_SEED))
@pytest.mark.parametrize("seed", ["x", "1.5", "", "١"])
def test_a_seed_that_is_not_a_whole_number_is_one_error(run: Run, name: str, seed: str) -> None:
    line = one_error(run(*TAKES_SEED[name], "--seed", seed))
    assert line == f"error: argument --seed: invalid int value: {seed!r}"


@pytest.mark.parametrize("name", sorted(TAKES_SEED))
def test_a_seed_is_read_one_way(name: str) -> None:
    parser = build_parser()
    for text, value in (("7", 7), ("-3", -3), (" 12 ", 12), ("+5", 5), ("9" * 40, int("9" * 40))):
        assert parser.parse_args([*TAKES_SEED[name], "--seed", text]).seed == value


def test_the_seeds_defaults_are_each_commands_own(run: Run) -> None:
    parser = build_parser()
    assert parser.parse_args(TAKES_SEED["find"]).seed == 0
    assert parser.parse_args(TAKES_SEED["advise"]).seed == 0
    assert parser.parse_args(TAKES_SEED["study"]).seed == 2026
    assert parser.parse_args(TAKES_SEED["play"]).seed == 1
    for name in ("deal", "batch", "match"):  # required
        line = one_error(run(*TAKES_SEED[name]))
        assert line == "error: the following arguments are required: --seed"


def test_a_negative_seed_deals_as_before(run: Run) -> None:
    status, out, _ = run("deal", "--players", "4", "--seed", "-3", "--format", "line")
    assert status == 0
    assert out.startswith("hoyle-modernized: ")
    assert run("deal", "--players", "4", "--seed", "-3", "--format", "line")[1] == out
    assert run("deal", "--players", "4", "--seed", "3", "--format", "line")[1] != out


def takes_seat(match: str) -> dict[str, list[str]]:
    return {
        "solve": ["solve", SMALL],
        "grade": ["grade", SESSION],
        "find": ["find", "forced-win"],
        "view": ["view", SMALL],
        "advise": ["advise", SMALL],
        "play": ["play", "--bots", "random,random"],
        "standings": ["standings", match],
    }


def test_every_command_with_a_seat_is_listed() -> None:
    assert ({c.name for c in COMMANDS if "--seat" in _options(c.name)}
            == set(takes_seat("m.db")))


@pytest.mark.parametrize("name", sorted(takes_seat("m.db")))
@pytest.mark.parametrize("seat", ["0", "-1", "99"])
def test_a_seat_off_the_table_is_one_error(run: Run, match_file: str, name: str,
                                           seat: str) -> None:
    line = one_error(run(*takes_seat(match_file)[name], "--seat", seat))
    assert "seat" in line
    assert f"not {seat}" in line


@pytest.mark.parametrize("name", sorted(takes_seat("m.db")))
def test_a_seat_that_is_not_a_number_is_one_error(run: Run, match_file: str, name: str) -> None:
    line = one_error(run(*takes_seat(match_file)[name], "--seat", "x"))
    assert line == "error: argument --seat: invalid int value: 'x'"


@pytest.mark.parametrize(("name", "players"), [("view", 4), ("advise", 4), ("play", 3),
                                                ("find", 4)])
def test_the_seat_is_checked_one_way(run: Run, match_file: str, name: str,
                                     players: int) -> None:
    line = one_error(run(*takes_seat(match_file)[name], "--seat", "0"))
    assert line == f"error: --seat must be from 1 to {players}, not 0"


# ----------------------------------------------------------------------------- --out

@pytest.mark.parametrize(("old", "argv"), [
    ("--output", ["graph", TINY, "--format", "dot"]),
    ("--record", ["solve", SMALL, "--seat", "1"]),
])
def test_out_and_its_older_spelling_write_the_same_file(run: Run, old: str,
                                                        argv: list[str]) -> None:
    assert run(*argv, "--out", "new.txt")[0] == 0
    assert run(*argv, old, "old.txt")[0] == 0
    assert Path("new.txt").read_text() == Path("old.txt").read_text() != ""


def test_play_writes_its_record_to_out_or_record(run: Run,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    texts = []
    for option in ("--out", "--record"):
        monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(
            r + s for s in "CDHS" for r in "A23456789TJQK") + "\n"))
        assert run("play", "--seat", "1", "--bots", "lowest,hoyle", "--seed", "1",
                   option, f"played{option}.txt")[0] == 0
        texts.append(Path(f"played{option}.txt").read_text())
    assert texts[0] == texts[1] != ""


@pytest.mark.parametrize("option", ["--out", "--output"])
def test_a_message_names_the_spelling_given(run: Run, option: str) -> None:
    line = one_error(run("graph", TINY, option, "g.dot"))
    assert line == f"error: {option} needs --format (graphml, dot or json)"


def test_every_file_written_is_named_by_out() -> None:
    """The file a command writes as its product is --out; --output and --record are only
    its older spellings (figures, folders of records or certificates and reports keep their
    own names: --plot, --records, --certificate, --report)."""
    for name in ("graph", "solve", "batch", "study", "match", "play"):
        assert "--out" in _options(name), name
    older = {c.name: {"--output", "--record"} & set(_options(c.name)) for c in COMMANDS}
    assert {name: spelt for name, spelt in older.items() if spelt} == {
        "graph": {"--output"}, "solve": {"--record"}, "play": {"--record"}}
    parser = build_parser()
    assert parser.parse_args(["graph", TINY, "--output", "g"]).out == "g"
    assert parser.parse_args(["solve", "--record", "r"]).out == "r"
    assert parser.parse_args(["play", "--seat", "1", "--bots", "x", "--record", "r"]).out == "r"


# ----------------------------------------------------------------------------- --format, --json

def _formatted() -> list[str]:
    """The commands with text and JSON output (graph's --format names its export)."""
    return sorted(c.name for c in COMMANDS if {"--json", "--format"} <= set(_options(c.name))
                  and c.name not in ("graph", "deal"))


def test_every_command_printing_json_has_format_and_json() -> None:
    assert _formatted() == sorted(["rules", "stops", "case", "cases", "solve", "check", "grade",
                                   "prove", "find", "stats", "advise", "standings", "view",
                                   "certificate"])


@pytest.mark.parametrize("name", _formatted())
def test_json_is_format_json(name: str) -> None:
    base = {"rules": ["rules"], "stops": ["stops", SMALL], "case": ["case", "x"],
            "cases": ["cases"], "solve": ["solve"], "check": ["check", "r"],
            "grade": ["grade", "r"], "prove": ["prove"], "find": ["find", "forced-win"],
            "stats": ["stats", "f"], "advise": ["advise", SMALL, "--seat", "1"],
            "standings": ["standings", "f"], "view": ["view", SMALL, "--seat", "1"],
            "certificate": ["certificate", "check", "d"]}[name]
    parser = build_parser()
    assert parser.parse_args(base).format == "text"
    assert parser.parse_args([*base, "--json"]).format == "json"
    assert parser.parse_args([*base, "--format", "json"]).format == "json"
    assert parser.parse_args([*base, "--format", "text"]).format == "text"


@pytest.mark.parametrize("argv", [["rules", "parlett"], ["check", SESSION],
                                  ["stops", SMALL, "--view", "player"],
                                  ["view", SMALL, "--seat", "2"]])
def test_format_json_prints_what_json_prints(run: Run, argv: list[str]) -> None:
    by_json = run(*argv, "--json")
    by_format = run(*argv, "--format", "json")
    assert by_json == by_format
    json.loads(by_json[1])
    assert run(*argv, "--format", "text") == run(*argv)


def test_graph_keeps_both_its_format_and_its_json(run: Run) -> None:
    status, out, err = run("graph", TINY, "--format", "json")
    assert status == 0
    assert json.loads(out)
    assert "\nstates:         5\n" in err  # the summary, after the deal's warning
    summary = json.loads(run("graph", TINY, "--json")[1])
    assert summary["states"] > 0


def test_deal_takes_json_as_format_json(run: Run) -> None:
    argv = ["deal", "--players", "4", "--seed", "7"]
    assert run(*argv, "--json") == run(*argv, "--format", "json") == run(*argv)


# ----------------------------------------------------------------------------- --help

@pytest.mark.parametrize("name", [c.name for c in COMMANDS])
def test_every_help_has_a_description_and_an_example(capsys: pytest.CaptureFixture[str],
                                                     name: str) -> None:
    command = next(c for c in COMMANDS if c.name == name)
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main([name, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: popejoan {name}")
    assert " ".join(command.description.split()) in " ".join(text.split())
    assert len(command.description.split()) >= 12
    assert "\nexample:\n  " in text or "\nexamples:\n  " in text
    assert command.examples
    for example in command.examples:
        assert f"  {example}\n" in text
        assert f"popejoan {name} " in f"{example} "
