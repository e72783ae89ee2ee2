"""The command line: golden outputs, JSON contracts, and one-line errors with status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from popejoan_solver.cli import main
from popejoan_solver.model.examples import HOYLE_DEAD_HAND_LINE
from popejoan_solver.model.notation import deal_to_json
from tests.conftest import ROOT, prove_at_three_players
from tests.contract import assert_contract, run_cli

GOLDEN = Path(__file__).parents[1] / "golden"
SMALL = ("hoyle-modernized: 37J.3.4.A 48.4.5J.3 5.5.2Q.4 6.6.3K.6 | "
         "A29TQK.A279TJQK.A6789T.25789TJQK ^KC")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def check_golden(name: str, text: str, update: bool) -> None:
    path = GOLDEN / name
    if update:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {name}: run pytest --update-golden"
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(("name", "argv"), [
    ("rules.txt", ["rules"]),
    ("rules-parlett.json", ["rules", "parlett", "--json"]),
    ("deal-4-7.json", ["deal", "--players", "4", "--seed", "7"]),
    ("deal-3-7-early.toml", ["deal", "--players", "3", "--seed", "7", "--rules", "early-hoyle",
                             "--format", "toml"]),
    ("stops-example.txt", ["stops", HOYLE_DEAD_HAND_LINE]),
    ("stops-example-player.json", ["stops", HOYLE_DEAD_HAND_LINE, "--view", "player",
                                   "--json"]),
    ("graph-small.txt", ["graph", SMALL]),
    ("solve-small.txt", ["solve", SMALL]),
    ("solve-small.json", ["solve", SMALL, "--json"]),
])
def test_golden_outputs(capsys: pytest.CaptureFixture[str], update_golden: bool, name: str,
                        argv: list[str]) -> None:
    code, out, _ = run(capsys, *argv)
    assert code == 0
    if argv[0] == "solve":
        out = _drop_timing(out, name.endswith(".json"))
    check_golden(name, out, update_golden)


def _drop_timing(out: str, is_json: bool) -> str:
    if is_json:
        data = json.loads(out)
        data["stats"]["seconds"] = data["stats"]["nodes"] = 0
        data["stats"].pop("core", None)
        data["stats"].pop("threads", None)
        return json.dumps(data, indent=2) + "\n"
    return "\n".join("<timing>" if " nodes, " in line else line
                     for line in out.splitlines()) + "\n"


def test_solve_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", SMALL, "--json")
    data = json.loads(out)
    assert code == 0
    assert list(data)[:4] == ["seats", "leads", "line", "stats"]
    assert [s["seat"] for s in data["seats"]] == [1, 2, 3, 4]
    for seat in data["seats"]:
        assert set(seat) == {"seat", "guaranteed", "forced_win", "best_case"}
        assert isinstance(seat["forced_win"], bool)
        assert seat["guaranteed"] <= seat["best_case"]
    assert all(set(lead) == {"card", "guaranteed"} for lead in data["leads"])
    assert set(data["stats"]) >= {"nodes", "seconds", "engine"}
    code, out, _ = run(capsys, "solve", SMALL, "--json", "--seat", "3")
    assert [s["seat"] for s in json.loads(out)["seats"]] == [3]


def test_solve_reads_files_and_stdin(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from popejoan_solver.model.notation import deal_from_line, deal_to_toml
    deal = deal_from_line(SMALL)
    (tmp_path / "d.json").write_text(json.dumps(deal_to_json(deal)), encoding="utf-8")
    (tmp_path / "d.toml").write_text(deal_to_toml(deal), encoding="utf-8")
    outputs = []
    for path in ("d.json", "d.toml"):
        code, out, _ = run(capsys, "solve", str(tmp_path / path), "--json")
        assert code == 0
        outputs.append(json.loads(out)["seats"])
    import io
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(deal_to_json(deal))))
    code, out, _ = run(capsys, "solve", "-", "--json")
    outputs.append(json.loads(out)["seats"])
    assert outputs[0] == outputs[1] == outputs[2]


def test_time_limit_gives_bounds_and_status_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "--json", "--time-limit", "0.05")
    data = json.loads(out)
    assert code == 3
    assert data["stats"]["exact"] is False
    inexact = [s for s in data["seats"] if isinstance(s["best_case"], dict)]
    assert inexact
    assert all(v["best_case"]["lower"] <= v["best_case"]["upper"] for v in inexact)


def _json_file(tmp_path: Path, **changes: object) -> str:
    from popejoan_solver.model.examples import hoyle_dead_hand
    data = deal_to_json(hoyle_dead_hand())
    data.update(changes)
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


BAD_INPUTS = [
    ("duplicate card", lambda p: ["stops", _json_file(p, dead="KC JD 6H TH 2S 5S 9S 3C")]),
    ("missing card", lambda p: ["stops", _json_file(p, dead="KC JD 6H TH 2S 5S")]),
    ("unknown card", lambda p: ["stops", _json_file(p, dead="KC JD 6H TH 2S 5S 9S ZZ")]),
    ("eight of diamonds", lambda p: ["stops", _json_file(p, dead="KC JD 6H TH 2S 5S 9S 8D")]),
    ("turn-up outside", lambda p: ["stops", _json_file(p, turnup="3C")]),
    ("too few players", lambda p: ["stops", _json_file(p, hands=["AC", "2C"])]),
    ("too many players", lambda p: ["deal", "--players", "9", "--seed", "1"]),
    ("unknown ruleset", lambda p: ["solve", "--rules", "whist"]),
    ("unknown option", lambda p: ["solve", "--set", "colour=red"]),
    ("bad option value", lambda p: ["solve", "--set", "ace=middle"]),
    ("bad --set", lambda p: ["solve", "--set", "ace"]),
    ("broken JSON", lambda p: ["stops", _write(p, "x.json", "{\"hands\": [")]),
    ("broken TOML", lambda p: ["stops", _write(p, "x.toml", "hands = [")]),
    ("empty file", lambda p: ["stops", _write(p, "x.json", "")]),
    ("huge file", lambda p: ["stops", _write(p, "x.json", " " * (1 << 21))]),
    ("binary file", lambda p: ["stops", _write_bytes(p, "x.bin", b"\xff\xfe\x00")]),
    ("no such file", lambda p: ["stops", str(p / "nope.json")]),
    ("a directory", lambda p: ["stops", str(p)]),
    ("unknown case", lambda p: ["case", "nope"]),
    ("unknown command", lambda p: ["fly"]),
    ("bad seat", lambda p: ["solve", SMALL, "--seat", "7"]),
    ("bad time limit", lambda p: ["solve", SMALL, "--time-limit", "soon"]),
    ("graph too large", lambda p: ["graph", HOYLE_DEAD_HAND_LINE, "--max-states", "10"]),
    ("unreachable position", lambda p: ["stops", _json_file(
        p, hands=["7C JC 3D 7D KD 4H 9H AS 7S QS", "4C 8C QC 4D 9D AH 5H JH 3S 8S KS",
                  "AC 5C 9C AD 5D TD 2H 7H QH 4S TS", "2C 6C TC 2D 6D QD 3H 8H KH 6S JS"],
        played=["3C", "", "", ""], to_lead=1)]),
]


def _write(path: Path, name: str, text: str) -> str:
    (path / name).write_text(text, encoding="utf-8")
    return str(path / name)


def _write_bytes(path: Path, name: str, data: bytes) -> str:
    (path / name).write_bytes(data)
    return str(path / name)


@pytest.mark.parametrize(("what", "argv"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_is_one_error_line_and_status_2(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path, what: str, argv: object) -> None:
    code, _out, err = run(capsys, *argv(tmp_path))  # type: ignore[operator]
    assert code == 2, what
    lines = [line for line in err.splitlines() if not line.startswith("warning: ")]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    assert "Traceback" not in err


def test_warning_for_a_deal_the_ruleset_would_not_deal(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "stops", HOYLE_DEAD_HAND_LINE)
    assert code == 0
    assert err.startswith("warning: hoyle-modernized deals 10 cards")
    assert len(err.splitlines()) == 1


def test_case_exit_status(capsys: pytest.CaptureFixture[str],
                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A case that agrees is status 0 and says so. Its theorem is proved at 3 players here
    (this is about the command's status, not the player range: the case at 3 to 8 players is
    tests/search/test_stops_graph_cases.py's, the theorem's tests/logic/test_catalogue.py's),
    the proofs cached by ``case`` forgotten before and after."""
    from popejoan_solver.studies import cases

    prove_at_three_players(monkeypatch)
    cases.forget_proofs()
    try:
        code, out, _ = run(capsys, "case", "parlett-six-pools")
    finally:
        cases.forget_proofs()
    assert code == 0
    assert "the model agrees" in out


@pytest.mark.parametrize("argv", [["--help"], ["solve", "--help"], ["graph", "--help"]])
def test_help(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0


def test_python_dash_m_and_console_script_agree() -> None:
    result = subprocess.run([sys.executable, "-m", "popejoan_solver", "rules", "--json"],
                            capture_output=True, text=True, check=False, cwd=ROOT)
    assert result.returncode == 0
    names = [r["name"] for r in json.loads(result.stdout)["rulesets"]]
    assert names == ["hoyle-modernized", "britannica", "parlett", "early-hoyle", "peel", "cassell",
                     "britannica-1911", "spinado"]


def test_a_closed_pipe_is_not_an_error() -> None:
    script = ("import sys; from popejoan_solver.cli import main; "
              "sys.exit(main(['graph', sys.argv[1], '--format', 'dot']))")
    proc = subprocess.Popen([sys.executable, "-c", script, SMALL], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None
    assert proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "error" not in err
    assert "Traceback" not in err


def test_start_up_does_not_load_the_solvers_of_proofs_and_graphs() -> None:
    """`popejoan solve` should not pay for z3, python-sat and networkx; the package still
    offers the proof API, loaded on first use."""
    import subprocess
    import sys

    code = ("import sys, popejoan_solver.cli; "
            "print(sorted(m for m in ('z3', 'pysat', 'networkx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
    import popejoan_solver

    assert callable(popejoan_solver.prove)
    assert "pope-only-led" in popejoan_solver.THEOREMS
    with pytest.raises(AttributeError):
        _ = popejoan_solver.no_such_name


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    """``popejoan --version`` prints the version and exits 0 (no command needed)."""
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"popejoan {version('popejoan-solver')}\n"


@pytest.mark.parametrize("megabytes", [16, 20, 24, 27, 30, 32, 34, 40])
def test_too_little_memory_to_start_is_one_error_line(megabytes: int) -> None:
    """Under an address-space cap too small to load the modules (or z3 and the compiled
    core), ``popejoan rules`` is one ``error:`` line and status 2, never a traceback; with
    enough it runs."""
    outcome = run_cli(["rules"], memory=megabytes << 20, timeout=30)
    if outcome.status == 0:
        assert outcome.stdout.startswith("hoyle-modernized")
    else:
        assert_contract(outcome, 2)
