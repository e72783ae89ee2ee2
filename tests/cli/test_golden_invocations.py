"""Golden outputs of the command line: every command and format, the errors included.

Each entry is one command line, or a few run in order in one temporary folder (a file one
writes, the next reads). What each did (status, standard output, standard error, with only
seconds, node counts of threaded searches and the temporary folder masked) must equal
``tests/golden/cli/NAME.txt`` byte for byte; ``pytest --update-golden`` rewrites the files,
and only an intended change of output may do so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.golden_runner import run
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "cli"
RECORDS = ROOT / "tests" / "golden"
SESSION_JSON = str(RECORDS / "record-session.json")
SESSION_TXT = str(RECORDS / "record-session.txt")
EXAMPLE = ("hoyle-modernized: 37JK.4TQ.367.29QK 2469.AK.5QK.468 A8T.257J.J.AJ 5Q.369.289.357 | "
           "QC.7D.ATTH.T ^TD")
SMALL = ("hoyle-modernized: 37J.3.4.A 48.4.5J.3 5.5.2Q.4 6.6.3K.6 | "
         "A29TQK.A279TJQK.A6789T.25789TJQK ^KC")
THREE = ("hoyle-modernized: 58.47T.8TQK.A28 369.A9K.A23J.34 47J.23.4679.79K | "
         "A2TQK.56JQ.5.56TJQ ^JD")
PARLETT = ("parlett: 236Q.37.TJ.27 458K.29T.3.3J A.AJ.25789.6Q J.456.Q.4589K | "
           "79T.QK.A46K.AT ^4H")
TINY = ("hoyle-modernized: 3.4.. 4.5.. 5.6.. | A26789TJQK.A2379TJQK.A23456789TJQK.A23456789TJQK "
        "^KS")
_ALL = [r + s for s in "CD" for r in "A23456789TJQK" if r + s != "8D"]
_HELD = {"4C", "5C", "7C", "9C", "9D", "8C"}
IN_LIEU = json.dumps({
    "rules": "hoyle-modernized+pope_in_lieu=run-continues",
    "hands": ["4C 5C 7C", "9C 9D", "8C"],
    "dead": " ".join([c for c in _ALL if c not in _HELD]
                     + [r + s for s in "HS" for r in "A23456789TJQK"]),
    "turnup": "KC"}).encode()
EVERY_CARD = "\n".join(r + s for s in "CDHS" for r in "A23456789TJQK").encode() + b"\n"

Steps = list[list[str]]
INVOCATIONS: dict[str, tuple[Steps, bytes | None]] = {
    # rules
    "rules": ([["rules"]], None),
    "rules-parlett": ([["rules", "parlett"]], None),
    "rules-json": ([["rules", "--json"]], None),
    "rules-spinado-json": ([["rules", "spinado", "--json"]], None),
    "rules-unknown": ([["rules", "nonesuch"]], None),
    # deal
    "deal-3-1": ([["deal", "--players", "3", "--seed", "1"]], None),
    "deal-4-7-line": ([["deal", "--players", "4", "--seed", "7", "--format", "line"]], None),
    "deal-5-2-parlett-toml": ([["deal", "--players", "5", "--seed", "2", "--format", "toml",
                                "--rules", "parlett"]], None),
    "deal-6-3-early-record": ([["deal", "--players", "6", "--seed", "3", "--format", "record",
                                "--rules", "early-hoyle"]], None),
    "deal-8-4-1911-line": ([["deal", "--players", "8", "--seed", "4", "--format", "line",
                             "--rules", "britannica-1911"]], None),
    "deal-3-9-index-spinado": ([["deal", "--players", "3", "--seed", "9", "--index", "5",
                                 "--format", "line", "--rules", "spinado"]], None),
    "deal-4-1-peel-ace-high": ([["deal", "--players", "4", "--seed", "1", "--format", "line",
                                 "--rules", "peel", "--set", "ace=high"]], None),
    "deal-7-1-cassell": ([["deal", "--players", "7", "--seed", "1", "--format", "line",
                           "--rules", "cassell"]], None),
    "deal-5-11-britannica-json": ([["deal", "--players", "5", "--seed", "11",
                                    "--rules", "britannica"]], None),
    "deal-nine-players": ([["deal", "--players", "9", "--seed", "1"]], None),
    "deal-no-seed": ([["deal", "--players", "4"]], None),
    "deal-bad-option": ([["deal", "--players", "4", "--seed", "1", "--set", "ace=sideways"]],
                        None),
    "deal-negative-index": ([["deal", "--players", "4", "--seed", "1", "--index", "-1"]], None),
    "deal-seed-not-number": ([["deal", "--players", "4", "--seed", "x"]], None),
    # stops
    "stops-example": ([["stops", EXAMPLE]], None),
    "stops-example-player": ([["stops", EXAMPLE, "--view", "player"]], None),
    "stops-example-json": ([["stops", EXAMPLE, "--json"]], None),
    "stops-small-early": ([["stops", SMALL, "--rules", "early-hoyle"]], None),
    "stops-three-player-json": ([["stops", THREE, "--view", "player", "--json"]], None),
    "stops-stdin": ([["stops", "-"]], IN_LIEU),
    "stops-garbage": ([["stops", "garbage"]], None),
    "stops-bad-view": ([["stops", SMALL, "--view", "god"]], None),
    # graph
    "graph-small": ([["graph", SMALL]], None),
    "graph-small-json": ([["graph", SMALL, "--json"]], None),
    "graph-tiny-dot": ([["graph", TINY, "--format", "dot"]], None),
    "graph-tiny-json": ([["graph", TINY, "--format", "json"]], None),
    "graph-tiny-graphml": ([["graph", TINY, "--format", "graphml"]], None),
    "graph-in-lieu": ([["graph", "-"]], IN_LIEU),
    "graph-output": ([["graph", TINY, "--format", "dot", "--output", "<TMP>/g.dot"]], None),
    "graph-max-states": ([["graph", SMALL, "--max-states", "10"]], None),
    "graph-output-no-format": ([["graph", TINY, "--output", "<TMP>/g.dot"]], None),
    # case
    "case-dead-hand": ([["case", "hoyle-dead-hand"]], None),
    "case-spinado-spin": ([["case", "parlett-spinado-spin"]], None),
    "case-in-lieu-json": ([["case", "peel-pope-in-lieu-of-a-stop", "--json"]], None),
    "case-unknown": ([["case", "nonesuch"]], None),
    "cases-missing-dir": ([["cases", "--dir", "no-such-folder"]], None),
    # solve
    "solve-example": ([["solve"]], None),
    "solve-example-json": ([["solve", "--json"]], None),
    "solve-small": ([["solve", SMALL]], None),
    "solve-small-json": ([["solve", SMALL, "--json"]], None),
    "solve-small-seat-2": ([["solve", SMALL, "--seat", "2"]], None),
    "solve-small-reference": ([["solve", SMALL, "--engine", "reference", "--seat", "1"]], None),
    "solve-small-parlett": ([["solve", SMALL, "--rules", "parlett"]], None),
    "solve-small-ace-high": ([["solve", SMALL, "--set", "ace=high"]], None),
    "solve-three": ([["solve", THREE]], None),
    "solve-parlett-json": ([["solve", PARLETT, "--json"]], None),
    "solve-in-lieu": ([["solve", "-"]], IN_LIEU),
    "solve-in-lieu-reference": ([["solve", "-", "--engine", "reference"]], IN_LIEU),
    "solve-one-thread": ([["solve", THREE, "--threads", "1", "--seat", "3"]], None),
    "solve-record-then-check": ([["solve", SMALL, "--record", "<TMP>/line.json"],
                                 ["check", "<TMP>/line.json"]], None),
    "solve-record-text": ([["solve", SMALL, "--seat", "1", "--record", "<TMP>/line.txt"],
                           ["check", "<TMP>/line.txt", "--json"]], None),
    "solve-zero-time-limit": ([["solve", SMALL, "--time-limit", "0"]], None),
    "solve-seat-nine": ([["solve", SMALL, "--seat", "9"]], None),
    "solve-bad-engine": ([["solve", SMALL, "--engine", "nope"]], None),
    "solve-missing-file": ([["solve", "no-such-file.json"]], None),
    "solve-bad-card": ([["solve", "hoyle-modernized: 3Z.. | ^KC"]], None),
    # check
    "check-session": ([["check", SESSION_JSON]], None),
    "check-session-text-json": ([["check", SESSION_TXT, "--json"]], None),
    "check-spinado-case": ([["check", str(RECORDS / "record-cases" /
                                          "parlett-spinado-spin.txt")]], None),
    "check-missing": ([["check", "no-such-record.json"]], None),
    "check-stdin-garbage": ([["check", "-"]], b"garbage\n"),
    # grade
    "grade-session": ([["grade", SESSION_JSON]], None),
    "grade-session-seat-2-json": ([["grade", SESSION_TXT, "--json", "--seat", "2"]], None),
    "grade-in-lieu-case": ([["grade", str(RECORDS / "record-cases" /
                                          "peel-pope-in-lieu-of-a-stop.txt")]], None),
    "grade-seat-nine": ([["grade", SESSION_JSON, "--seat", "9"]], None),
    # view
    "view-small-1": ([["view", SMALL, "--seat", "1"]], None),
    "view-small-2-json": ([["view", SMALL, "--seat", "2", "--json"]], None),
    "view-small-line": ([["view", SMALL, "--seat", "3", "--line", "JC AS"]], None),
    "view-session": ([["view", SESSION_JSON, "--seat", "1", "--deal", "1", "--after", "1"]],
                     None),
    "view-seat-zero": ([["view", SMALL, "--seat", "0"]], None),
    # advise
    "advise-small": ([["advise", SMALL, "--seat", "1", "--samples", "10", "--seed", "1"]], None),
    "advise-small-json": ([["advise", SMALL, "--seat", "1", "--samples", "10", "--seed", "1",
                            "--json"]], None),
    "advise-small-maxn": ([["advise", SMALL, "--seat", "1", "--samples", "10",
                            "--model", "maxn"]], None),
    "advise-small-price": ([["advise", SMALL, "--seat", "1", "--samples", "10", "--price"]],
                           None),
    "advise-tiny-exact": ([["advise", TINY, "--seat", "1", "--exact"]], None),
    "advise-three": ([["advise", THREE, "--seat", "1", "--samples", "20", "--seed", "3"]], None),
    "advise-in-lieu-choice": ([["advise", "-", "--seat", "1", "--exact", "--choice", "4C"]],
                              IN_LIEU),
    "advise-not-on-lead": ([["advise", SMALL, "--seat", "2", "--samples", "10"]], None),
    "advise-zero-samples": ([["advise", SMALL, "--seat", "1", "--samples", "0"]], None),
    # prove and find
    "prove-matrimony": ([["prove", "--theorem", "matrimony-needs-one-hand"]], None),
    "find-first-lead-out": ([["find", "first-lead-out", "--players", "3", "--seed", "1"]], None),
    "find-first-lead-out-json": ([["find", "first-lead-out", "--players", "4", "--seed", "2",
                                   "--count", "2", "--json"]], None),
    "prove-unknown-theorem": ([["prove", "--theorem", "nonesuch"]], None),
    "prove-unknown-rules": ([["prove", "--rules", "nonesuch"]], None),
    "find-nine-players": ([["find", "forced-win", "--players", "9"]], None),
    "find-bad-hold": ([["find", "forced-win", "--hold", "9:AC"]], None),
    "find-bad-property": ([["find", "nonesuch"]], None),
    "certificate-check-find": ([["find", "first-lead-out", "--players", "8", "--seat", "2",
                                 "--hold", "1:2H", "--hold", "2:3H,4H,5H,6H,8H", "--dead", "7H",
                                 "--certificate", "<TMP>/c"],
                                ["certificate", "check", "<TMP>/c"]], None),
    "certificate-check-no-manifest": ([["certificate", "check", "<TMP>"]], None),
    "certificate-check-missing": ([["certificate", "check", "<TMP>/nonesuch"]], None),
    # batch, stats, study
    "batch-stats": ([["batch", "--rules", "hoyle-modernized,parlett", "--players", "3-4",
                      "--deals", "2", "--seed", "1", "--workers", "1", "--out", "<TMP>/b.db"],
                     ["stats", "<TMP>/b.db"], ["stats", "<TMP>/b.db", "--json"]], None),
    "batch-zero-deals": ([["batch", "--deals", "0", "--seed", "1", "--out", "<TMP>/b.db"]], None),
    "batch-bad-players": ([["batch", "--deals", "1", "--seed", "1", "--players", "2-9",
                            "--out", "<TMP>/b.db"]], None),
    "stats-missing": ([["stats", "<TMP>/none.db"]], None),
    "study-seat-values": ([["study", "seat-values", "--deals", "2", "--players", "3",
                            "--seed", "1", "--rules", "hoyle-modernized", "--workers", "1",
                            "--out", "<TMP>/s.db"]], None),
    "study-hoyle-maxims": ([["study", "hoyle-maxims", "--deals", "2", "--players", "3",
                             "--seed", "1", "--workers", "1", "--out", "<TMP>/m.db"]], None),
    "study-maxims-with-rules": ([["study", "hoyle-maxims", "--deals", "2", "--rules", "parlett",
                                  "--out", "<TMP>/m.db"]], None),
    # match and standings
    "match-standings": ([["match", "--bots", "random,lowest,hoyle", "--players", "3", "--deals",
                          "2", "--seed", "1", "--workers", "1", "--out", "<TMP>/m.db"],
                         ["standings", "<TMP>/m.db"], ["standings", "<TMP>/m.db", "--json"],
                         ["standings", "<TMP>/m.db", "--seat", "1"],
                         ["standings", "<TMP>/m.db", "--maxims", "lowest"],
                         ["standings", "<TMP>/m.db", "--records", "<TMP>/records"],
                         ["check", "<TMP>/records/s1-r1.json"]], None),
    "match-sessions-parlett": ([["match", "--bots", "pimc:samples=4,hoyle", "--players", "3",
                                 "--deals", "2", "--session", "2", "--seed", "2", "--rules",
                                 "parlett", "--workers", "1", "--out", "<TMP>/p.db"],
                                ["standings", "<TMP>/p.db"]], None),
    "match-unknown-bot": ([["match", "--bots", "random,nonesuch", "--players", "3", "--deals",
                            "1", "--seed", "1", "--out", "<TMP>/m.db"]], None),
    "match-one-bot": ([["match", "--bots", "random", "--players", "3", "--deals", "1",
                        "--seed", "1", "--out", "<TMP>/m.db"]], None),
    "standings-missing": ([["standings", "<TMP>/none.db"]], None),
    # play
    "play-every-card": ([["play", "--seat", "1", "--bots", "lowest,hoyle", "--seed", "1",
                          "--record", "<TMP>/played.json"], ["check", "<TMP>/played.json"]],
                        EVERY_CARD),
    "play-quit": ([["play", "--seat", "2", "--bots", "random", "--players", "4", "--seed", "3"]],
                  b"q\n"),
    "play-closed-input": ([["play", "--seat", "1", "--bots", "random,random", "--seed", "1"]],
                          b""),
    "play-seat-nine": ([["play", "--seat", "9", "--bots", "random,random"]], None),
    # serve (errors only: the server itself is tested in tests/web/)
    "serve-bad-port": ([["serve", "--port", "99999"]], None),
    # the parser
    "no-command": ([[]], None),
    "unknown-command": ([["nonesuch"]], None),
}


@pytest.mark.parametrize("name", sorted(INVOCATIONS))
def test_golden_invocation(name: str, tmp_path: Path, update_golden: bool) -> None:
    steps, stdin = INVOCATIONS[name]
    text = "\n".join(run(argv, tmp_path, stdin) for argv in steps)
    path = GOLDEN / f"{name}.txt"
    if update_golden:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path.name}: run pytest --update-golden"
    assert text == path.read_text(encoding="utf-8")


def test_golden_set_is_large_and_covers_every_command() -> None:
    from popejoan_solver.cli import build_parser

    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr, arg-type]
    used = {argv[0] for steps, _ in INVOCATIONS.values() for argv in steps if argv}
    assert commands <= used, commands - used
    assert sum(len(steps) for steps, _ in INVOCATIONS.values()) >= 100
