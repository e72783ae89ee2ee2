"""The web table's JSON API (popejoan_solver/web): every endpoint against the command line and
the library it must agree with, bad input a 400 with the CLI's message, the rest a 500 with
one line and no traceback."""

from __future__ import annotations

import json
import random
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'popejoan-solver[web]'")
pytest.importorskip("httpx", reason="the test client needs httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from popejoan_solver.cli import main
from popejoan_solver.model.board import Compartment
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.model.notation import deal_to_json, deal_to_line
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.web import handlers
from popejoan_solver.web.app import create_app
from popejoan_solver.web.requests import time_limit_field
from tests.web_helpers import long_record

RULES = get_ruleset("hoyle-modernized")
DEAL = deal_random(5, 8, RULES)  # QD turned up: the dealer takes Queen before play
LINE = deal_to_line(DEAL)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test_client = TestClient(app, raise_server_exceptions=False)
    yield test_client
    app.state.scheduler.close()  # the worker processes


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    status = main(list(argv))
    out = capsys.readouterr()
    return status, json.loads(out.out) if out.out.strip() else None, out.err


def without_seconds(data: dict[str, Any]) -> dict[str, Any]:
    return data | {"stats": {k: v for k, v in data["stats"].items() if k != "seconds"}}


def table(client: TestClient, line: list[str], **extra: Any) -> dict[str, Any]:
    response = client.post("/api/table", json={"deal": LINE, "line": line, **extra})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


# ----------------------------------------------------------------------------- solve, check

@pytest.mark.parametrize("query", ["", "?seat=2"])
def test_solve_answers_what_the_cli_prints(client: TestClient, capsys: pytest.CaptureFixture[str],
                                           query: str) -> None:
    argv = ["solve", LINE, "--json", "--threads", "1", "--tt-entries", str(1 << 18)]
    status, expected, _ = cli_json(capsys, *argv, *(["--seat", "2"] if query else []))
    assert status == 0
    response = client.post(f"/api/solve{query}", content=json.dumps(deal_to_json(DEAL)))
    assert response.status_code == 200
    assert without_seconds(response.json()) == without_seconds(expected)
    assert list(response.json()) == list(expected)  # the same keys in the same order


def test_solve_of_a_position_in_each_notation(client: TestClient) -> None:
    step = table(client, [])["leads"][0]["runs"][0]["step"]
    t = table(client, [step])
    from popejoan_solver.model.notation import deal_to_toml, parse_deal_text

    position = parse_deal_text(t["position"])
    answers = [client.post("/api/solve", content=text).json()
               for text in (t["position"], deal_to_toml(position),
                            json.dumps(deal_to_json(position)))]
    assert answers[0]["leader"] == t["leader"]
    assert [without_seconds(a) for a in answers[1:]] == [without_seconds(answers[0])] * 2


def test_solve_past_its_time_limit_answers_bounds(client: TestClient) -> None:
    big = deal_to_line(deal_random(4, 3, RULES))
    response = client.post("/api/solve?time_limit=0.000001", content=big)
    assert response.status_code == 200
    assert response.json()["stats"]["exact"] is False


def test_check_answers_what_the_cli_prints(client: TestClient, tmp_path: Any,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    record = client.post("/api/record", json={"deal": LINE, "line": optimal_steps(client)})
    assert record.status_code == 200
    for text in (json.dumps(record.json()["record"]), record.json()["text"]):
        path = tmp_path / "game.txt"
        path.write_text(text, encoding="utf-8")
        status, expected, _ = cli_json(capsys, "check", str(path), "--json")
        assert status == 0
        assert expected["legal"] is True
        response = client.post("/api/check", content=text.encode())
        assert response.status_code == 200
        assert response.json() == expected


def test_check_of_an_illegal_record_says_where(client: TestClient, tmp_path: Any,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    text = client.post("/api/record", json={"deal": LINE, "line": optimal_steps(client)}
                       ).json()["text"]
    lines = text.splitlines()
    play = next(i for i, line in enumerate(lines) if line and line[0].isdigit())
    lines[play] = lines[play].replace(lines[play].split()[1], "KS", 1)  # lead a card not held
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, expected, err = cli_json(capsys, "check", str(path), "--json")
    response = client.post("/api/check", content=path.read_bytes())
    if status == 2:  # the text no longer parses: the same message, as a 400
        assert response.status_code == 400
        assert f"error: {response.json()['error']}" == err.strip()
    else:
        assert status == 1
        assert response.status_code == 200
        assert response.json() == expected
        assert expected["error"] is not None


# ----------------------------------------------------------------------------- the table

def optimal_steps(client: TestClient) -> list[str]:
    solved = client.post("/api/analyse", json={"deal": LINE}).json()
    return [step["step"] for step in solved["line"]]


def test_table_of_the_deal(client: TestClient) -> None:
    t = table(client, [])
    assert t["deal"] == LINE
    assert t["position"] == LINE
    assert t["players"] == 5
    assert [s["count"] for s in t["seats"]] == [h.bit_count() for h in DEAL.hands]
    assert t["board"][Compartment.QUEEN.value] == 0  # taken by the dealer for the turn-up
    assert t["turnup"] == "QD"
    assert len(t["dead"]) == DEAL.dead.bit_count()
    hidden = table(client, [], view="player", seat=2)
    assert hidden["dead"] is None
    assert [s["hand"] is None for s in hidden["seats"]] == [True, False, True, True, True]


def test_optimal_line_keeps_its_seats_value_at_every_position(client: TestClient) -> None:
    """Along the optimal line the defended seat's guaranteed value never changes: the
    positions' boards (turn-up award, compartments taken) are the deal's."""
    start = client.post("/api/analyse", json={"deal": LINE}).json()
    seat = start["line_seat"]
    value = start["seats"][seat - 1]["guaranteed"]
    steps = [s["step"] for s in start["line"]]
    for k in range(len(steps)):
        at = client.post("/api/analyse", json={"deal": LINE, "line": steps[:k]}).json()
        assert at["seats"][seat - 1]["guaranteed"] == value, k
        if at["leader"] == seat:
            best = max(lead["guaranteed"] for lead in at["leads"])
            chosen = steps[k].split("+")[0]
            assert {lead["card"]: lead["guaranteed"] for lead in at["leads"]}[chosen] == best
        assert client.post("/api/solve", content=at["position"]).json()["seats"] == at["seats"]
    end = table(client, steps)
    assert end["over"]
    assert end["winner"] == start["line"][-1]["out"]
    assert end["settlement"]["values"][seat - 1] >= value


def test_random_lines_conserve_counters(client: TestClient) -> None:
    """Random lines, choices inside runs included, end with every counter accounted for: the
    seats' net is what left the compartments, each compartment lost what play paid from it;
    the position's notation reproduces the end."""
    rng = random.Random(16)
    for rules in ("hoyle-modernized", "peel", "spinado"):
        line = deal_to_line(deal_random(4, rng.randrange(1000), get_ruleset(rules)))
        turnup = client.post("/api/analyse", json={"deal": line, "time_limit": 0.01}
                             ).json()["turnup"]
        steps: list[str] = []
        t = client.post("/api/table", json={"deal": line}).json()
        start = t["board"]
        while not t["over"]:
            lead = rng.choice(t["leads"])
            steps.append(rng.choice(lead["runs"])["step"])
            t = client.post("/api/table", json={"deal": line, "line": steps}).json()
        assert t["position"] is not None  # the notation takes positions after a Spin too
        again = client.post("/api/table", json={"deal": t["position"]}).json()
        assert again["over"]
        assert again["winner"] == t["winner"]
        paid = t["settlement"]["transfers"]
        assert paid[:len(turnup)] == turnup
        assert sum(t["settlement"]["values"]) == sum(
            x["amount"] for x in paid if isinstance(x["from"], str)), rules
        for compartment, count in start.items():
            assert count - t["board"][compartment] == sum(
                x["amount"] for x in paid[len(turnup):] if x["from"] == compartment), rules


def test_load_a_deal_and_a_record(client: TestClient) -> None:
    assert client.post("/api/load", content=json.dumps(deal_to_json(DEAL))).json() == {
        "deal": LINE, "line": [], "error": None}
    steps = optimal_steps(client)[:3]
    text = client.post("/api/record", json={"deal": LINE, "line": steps}).json()["text"]
    loaded = client.post("/api/load", content=text).json()
    assert loaded == {"deal": LINE, "line": steps, "error": None}


@pytest.mark.parametrize(("mangle", "words"), [
    (lambda text: text.replace("(1)", "(9)", 1), "seat must be from 1 to 5"),
    (lambda text: text.replace("hoyle-modernized", "nope", 1), "unknown ruleset 'nope'"),
    (lambda text: text.split("\n\n", 1)[0], "a record needs at least one [Deal"),
    (lambda text: json.dumps({"format": "popejoan-record", "version": 1}), "\"rules\""),
    (lambda text: json.dumps({"deals": []}), "\"format\": \"popejoan-record\""),
])
def test_load_of_a_bad_record_says_what_is_wrong_with_the_record(
        client: TestClient, capsys: pytest.CaptureFixture[str], tmp_path: Any,
        mangle: Any, words: str) -> None:
    """Text meant as a record (its tags, or a record's JSON keys) that is broken: the error is
    the record's, as ``popejoan check`` gives it, not the deal reader's complaint."""
    steps = optimal_steps(client)[:3]
    text = mangle(client.post("/api/record", json={"deal": LINE, "line": steps}).json()["text"])
    response = client.post("/api/load", content=text)
    assert response.status_code == 400
    error = response.json()["error"]
    assert words in error
    for deal_words in ("TOML", "one-line deal", "in deal (keys"):
        assert deal_words not in error
    path = tmp_path / "bad.txt"
    path.write_text(text, encoding="utf-8")
    assert main(["check", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"error: {error}"


def test_deal_and_options(client: TestClient, capsys: pytest.CaptureFixture[str]) -> None:
    main(["deal", "--players", "5", "--seed", "8", "--format", "line"])
    assert client.get("/api/deal?players=5&seed=8").json() == {
        "deal": capsys.readouterr().out.strip()}
    options = client.get("/api/options").json()
    assert "hoyle-modernized" in options["rules"]
    assert options["players"] == list(range(3, 9))


def test_page_and_static_files(client: TestClient) -> None:
    page = client.get("/?deal=" + LINE)
    assert page.status_code == 200
    assert "/static/app.js" in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/static/../app.py").status_code == 404


@pytest.mark.parametrize("bot", ["hoyle", "lowest", "random", "cheat"])
def test_bots_play_a_deal_to_its_end(client: TestClient, bot: str) -> None:
    """Bots in every seat play a deal out through the API (Spinado's choices included), and
    the record of what they played is legal."""
    for deal in (LINE, deal_to_line(deal_random(4, 3, get_ruleset("spinado")))):
        steps: list[str] = []
        while not client.post("/api/table", json={"deal": deal, "line": steps}).json()["over"]:
            answer = client.post("/api/bot", json={"deal": deal, "line": steps, "bot": bot,
                                                   "seed": 3})
            assert answer.status_code == 200, answer.text
            steps.append(answer.json()["step"])
        again = client.post("/api/bot", json={"deal": deal, "line": steps[:1], "bot": bot,
                                              "seed": 3}).json()
        assert again["step"] == steps[1]  # seeded: the same move again
        record = client.post("/api/record", json={"deal": deal, "line": steps}).json()
        assert client.post("/api/check", content=record["text"]).json()["legal"] is True


def test_view_and_advice_answer_what_the_cli_prints(client: TestClient,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    steps = optimal_steps(client)[:2]
    leader = table(client, steps)["leader"]
    status, expected, _ = cli_json(capsys, "view", LINE, "--seat", "2", "--line",
                                   " ".join(steps), "--json")
    assert status == 0
    assert client.post("/api/view", json={"deal": LINE, "line": steps, "seat": 2}
                       ).json() == expected
    status, expected, _ = cli_json(capsys, "advise", LINE, "--seat", str(leader), "--line",
                                   " ".join(steps), "--samples", "12", "--seed", "4", "--json")
    assert status == 0
    answer = client.post("/api/advice", json={"deal": LINE, "line": steps, "samples": 12,
                                              "seed": 4}).json()
    assert answer | {"seconds": 0} == expected | {"seconds": 0}


# ----------------------------------------------------------------------------- bad input

BAD: list[tuple[str, str, Any, str]] = [
    ("POST", "/api/table", {"deal": "nonsense ^"}, "one-line deal"),
    ("POST", "/api/table", {"deal": LINE, "line": ["KS"]}, "step 1"),
    # a bad step is named as a step, not as the deal's turn-up ("step 1: turnup: not a card")
    ("POST", "/api/table", {"deal": LINE, "line": ["xxxx"]}, "step 1: not a card: 'xxxx'"),
    ("POST", "/api/table", {"deal": LINE, "line": "3C+4C@4C"}, "step 1"),
    ("POST", "/api/table", {"deal": LINE, "line": [1]}, "'line'"),
    ("POST", "/api/table", {"deal": LINE, "line": ["AC"] * 65}, "at most 64"),
    ("POST", "/api/table", {"deal": LINE, "seat": 6}, "seat"),
    ("POST", "/api/table", {"deal": LINE, "view": "god"}, "'view'"),
    ("POST", "/api/table", {"deal": 7}, "'deal'"),
    ("POST", "/api/table", [LINE], "JSON object"),
    ("POST", "/api/table", "{", "broken JSON"),
    ("POST", "/api/analyse", {"deal": LINE, "time_limit": -1}, "time_limit"),
    ("POST", "/api/solve", "", "the deal is empty"),
    ("POST", "/api/solve?seat=9", LINE, "seat"),
    ("POST", "/api/check", "{}", ""),
    ("POST", "/api/record", {"deal": "", "line": []}, "the deal is empty"),
    ("POST", "/api/load", "neither a deal nor a record", ""),
    ("POST", "/api/bot", {"deal": LINE, "bot": "ismcts"}, "unknown bot"),
    ("POST", "/api/bot", {"deal": LINE, "bot": "hoyle", "seed": -1}, "'seed'"),
    ("POST", "/api/view", {"deal": LINE}, "'seat'"),
    ("POST", "/api/advice", {"deal": LINE, "samples": 201}, "'samples'"),
    ("GET", "/api/deal?players=99", None, "players"),
    ("GET", "/api/deal?seed=-1", None, "seed"),
]


@pytest.mark.parametrize(("method", "path", "body", "words"), BAD)
def test_bad_input_is_a_400_with_one_line(client: TestClient, method: str, path: str,
                                          body: Any, words: str) -> None:
    content = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    response = client.request(method, path, content=None if body is None else content)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert words in error
    assert "\n" not in error
    assert "Traceback" not in error


def test_bad_deal_gives_the_cli_message(client: TestClient,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    bad = LINE.replace("^QD", "^QQ")
    assert main(["solve", bad]) == 2
    cli_error = capsys.readouterr().err.strip()
    response = client.post("/api/solve", content=bad)
    assert response.status_code == 400
    assert f"error: {response.json()['error']}" == cli_error


def test_too_large_and_not_utf8(client: TestClient) -> None:
    huge = client.post("/api/solve", content=b" " * ((1 << 20) + 1))
    assert huge.status_code == 400
    assert "larger than 1048576 bytes" in huge.json()["error"]
    latin = client.post("/api/check", content="café".encode("latin-1"))
    assert latin.status_code == 400
    assert "UTF-8" in latin.json()["error"]


def test_unexpected_failure_is_a_500_without_traceback(client: TestClient,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """In the server itself (``/api/options`` is answered there) and in a worker process
    (the job's function, as a worker runs it): a 500 naming only the error's kind, and one
    ``warning:`` line for the server's terminal."""
    from popejoan_solver.web.worker import Job, answer_job

    def broken(*args: Any) -> dict[str, Any]:
        raise RuntimeError("secret detail\nTraceback (most recent call last)")

    expected = {"error": "internal error: RuntimeError (a bug of popejoan: please report it)"}
    monkeypatch.setattr(handlers, "api_options", broken)
    response = client.get("/api/options")
    assert response.status_code == 500
    assert response.json() == expected
    answer = answer_job(Job(1, broken, (), 1 << 20))
    assert (answer.status, json.loads(answer.body)) == (500, expected)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2  # one line each, the exception's message on it
    assert all(line.startswith("warning: internal error in the web server: RuntimeError: ")
               for line in lines)


def test_unknown_path_and_method(client: TestClient) -> None:
    assert client.get("/api/nothing").status_code == 404
    assert client.get("/api/table").status_code == 405
    assert "error" in client.get("/api/table").json()


def test_an_analysis_asked_again_comes_from_the_cache_unchanged(client: TestClient) -> None:
    steps = optimal_steps(client)[:2]
    first = client.post("/api/analyse", json={"deal": LINE, "line": steps, "time_limit": 5})
    again = client.post("/api/analyse", json={"deal": deal_to_json(DEAL), "line": steps})
    assert again.json()["cached"] is True
    assert first.json() | {"cached": True} == again.json()


def test_the_cache_keeps_the_last_entries_only() -> None:
    from popejoan_solver.web.cache import AnswerCache

    cache = AnswerCache(entries=2)
    for key in "abc":
        cache.put(key, {"key": key})
    assert cache.get("a") is None
    assert cache.get("b") == {"key": "b"}
    cache.put("d", {"key": "d"})  # b was used last: c goes
    assert (cache.get("c"), cache.get("b")) == (None, {"key": "b"})


def test_a_killed_worker_process_is_a_500_then_replaced() -> None:
    """A worker killed (out of memory, kill -9) while it works: that request is a 500 saying
    so, and the next one is served by a new worker."""
    import os
    import signal
    import threading

    from popejoan_solver.web.limits import Limits

    app = create_app(Limits(study_workers=1, record_deals=10_000, answer_bytes=1 << 30))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        own = TestClient(app, raise_server_exceptions=False)
    try:
        assert own.post("/api/solve", content=LINE).status_code == 200
        [before] = app.state.scheduler.pids()
        record = long_record(600)  # seconds of work
        killer = threading.Timer(0.5, os.kill, (before, signal.SIGKILL))
        killer.start()
        broken = own.post("/api/check", content=record)
        killer.join()
        assert broken.status_code == 500
        assert broken.json()["error"].startswith("a search process died (killed?)")
        assert own.post("/api/solve", content=LINE).status_code == 200
        assert app.state.scheduler.pids() != [before]
    finally:
        app.state.scheduler.close()


def test_next_deal_of_a_session_is_the_match_drivers(client: TestClient) -> None:
    """A session's next deal is the one ``popejoan match`` plays after the same first deal:
    the next seeded deal on the settled board re-dressed; the person's seat moves one to the
    right as the deal passes to the left."""
    from popejoan_solver.bots.driver import play_session
    from popejoan_solver.bots.registry import make_bot

    played = play_session(RULES, 5, 8, 0, 2, [make_bot("lowest")] * 5, 0)
    first, second = played
    assert deal_to_line(first.deal) == LINE
    steps = [run.step for run in first.runs]
    answer = client.post("/api/next", json={"deal": LINE, "line": steps, "seat": 2, "seed": 8,
                                            "index": 1, "session": 0})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"deal": deal_to_line(second.deal), "seat": 1}
    unfinished = client.post("/api/next", json={"deal": LINE, "line": steps[:1]})
    assert unfinished.status_code == 400
    assert "not over" in unfinished.json()["error"]


@pytest.mark.parametrize(("query", "name", "given"), [
    ({"players": "-1"}, "players", "-1"), ({"seed": "-7"}, "seed", "-7"),
    ({"index": "1e3"}, "index", "1e3")])
def test_web_whole_numbers_say_from_zero_and_name_the_value(
        query: dict[str, str], name: str, given: str) -> None:
    """A whole number out of range in a web query (``players=-1``) is refused with the range
    (from 0 to 2**63 - 1) and the value given."""
    from popejoan_solver.web.handlers import api_deal

    with pytest.raises(PopeJoanError, match=rf"^{name} must be a whole number from 0 to "
                       rf"2\*\*63 - 1, not '{given}'$"):
        api_deal(query)


@pytest.mark.parametrize("value", [True, False])
def test_a_boolean_time_limit_is_refused(value: bool) -> None:
    # finding 10: JSON true was read as 1 second (bool is an int in Python)
    with pytest.raises(PopeJoanError, match="time_limit must be a number of seconds"):
        time_limit_field(value)


@pytest.mark.parametrize(("value", "seconds"), [(None, 10.0), ("", 10.0), (1, 1.0), ("2.5", 2.5),
                                                (99, 10.0)])
def test_time_limits_still_read(value: object, seconds: float) -> None:
    assert time_limit_field(value) == seconds
