"""The web server's door: a POST from a page of another site is refused before any work
(403, JSON), a Host that is not this server's (DNS rebinding) is refused on every request,
and every answer carries a Content-Security-Policy with frame-ancestors, nosniff,
X-Frame-Options and Referrer-Policy. (The page works under that policy: the browser tests
fail on any script error or CSP violation.)"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'popejoan-solver[web]'")
pytest.importorskip("httpx", reason="the test client needs httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.notation import deal_to_line
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.web.app import create_app
from popejoan_solver.web.limits import Limits

LINE = deal_to_line(deal_random(4, 3, get_ruleset("hoyle-modernized")))
BASE = "http://127.0.0.1:8000"
POSTS: list[tuple[str, Any]] = [
    ("/api/solve", LINE), ("/api/check", "{}"), ("/api/table", {"deal": LINE}),
    ("/api/analyse", {"deal": LINE}), ("/api/bot", {"deal": LINE}),
    ("/api/view", {"deal": LINE, "seat": 1}), ("/api/advice", {"deal": LINE}),
    ("/api/next", {"deal": LINE}), ("/api/record", {"deal": LINE}), ("/api/load", LINE),
]


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    """The app as ``popejoan serve`` makes it for ``--host 127.0.0.1 --allow-host
    cards.example``, asked at 127.0.0.1:8000; its work limited to a worker per lane."""
    app = create_app(Limits(study_workers=1, play_workers=1),
                     allowed_hosts=["127.0.0.1", "cards.example"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = TestClient(app, base_url=BASE, raise_server_exceptions=False)
    yield client
    app.state.scheduler.close()


def post(http: TestClient, path: str, body: Any, **headers: str) -> Any:
    if isinstance(body, str):
        return http.post(path, content=body, headers=headers)
    return http.post(path, json=body, headers=headers)


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:8001",
                                    "http://localhost:8000", "http://127.0.0.1.evil.example",
                                    "file://", "not an origin"])
@pytest.mark.parametrize(("path", "body"), POSTS)
def test_a_post_from_another_site_is_refused(http: TestClient, path: str, body: Any,
                                             origin: str) -> None:
    response = post(http, path, body, origin=origin)
    assert response.status_code == 403
    assert response.headers["content-type"] == "application/json"
    assert "another site" in response.json()["error"]


def test_a_refused_post_is_refused_before_its_body_is_read(http: TestClient) -> None:
    """A body past the size limit from another site: refused as from another site (its size
    never looked at), so a page elsewhere cannot make the server read or compute."""
    response = http.post("/api/check", content=b" " * ((1 << 20) + 10),
                         headers={"origin": "http://evil.example"})
    assert response.status_code == 403


def test_a_cross_site_fetch_without_origin_is_refused(http: TestClient) -> None:
    response = http.post("/api/load", content=LINE, headers={"sec-fetch-site": "cross-site"})
    assert response.status_code == 403


@pytest.mark.parametrize("origin", [None, BASE, "http://127.0.0.1:8000/"])
def test_the_pages_own_posts_and_scripts_are_answered(http: TestClient,
                                                      origin: str | None) -> None:
    """The page's own origin, or none at all (curl, scripts), is served."""
    headers = {} if origin is None else {"origin": origin}
    response = http.post("/api/load", content=LINE, headers=headers | {
        "sec-fetch-site": "same-origin"})
    assert response.status_code == 200, response.text
    assert response.json()["deal"] == LINE


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.nip.io:8000",
                                  "cards.example.evil:8000", "", "a b", "user@127.0.0.1"])
@pytest.mark.parametrize(("method", "path"), [("GET", "/"), ("GET", "/static/app.js"),
                                              ("GET", "/api/options"), ("POST", "/api/load")])
def test_a_host_that_is_not_this_servers_is_refused(http: TestClient, method: str, path: str,
                                                    host: str) -> None:
    """A page that rebinds its own name to this server's address (DNS rebinding) sends its
    name as Host: refused, whatever is asked, so it can neither read nor make work."""
    response = http.request(method, path, content=LINE if method == "POST" else None,
                            headers={"host": host})
    assert response.status_code == 403
    assert "not" in response.json()["error"]


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "[::1]:8000",
                                  "192.168.1.20:8000", "table.localhost:8000", "LOCALHOST",
                                  "cards.example:8000", "cards.example."])
def test_addresses_loopback_names_and_names_given_are_served(http: TestClient,
                                                             host: str) -> None:
    response = http.get("/api/options", headers={"host": host})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/", 200), ("GET", "/static/app.js", 200), ("GET", "/static/style.css", 200),
    ("GET", "/api/options", 200), ("POST", "/api/load", 200), ("POST", "/api/table", 400),
    ("GET", "/api/nothing", 404), ("GET", "/api/table", 405)])
def test_every_answer_carries_the_security_headers(http: TestClient, method: str, path: str,
                                                   status: int) -> None:
    response = http.request(method, path, content=LINE if method == "POST" else None)
    assert response.status_code == status
    policy = response.headers["content-security-policy"]
    directives = dict(([*d.split(), ""])[:2] for d in policy.split("; "))
    assert directives["default-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["object-src"] == "'none'"
    assert "unsafe-inline" not in policy
    assert "unsafe-eval" not in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["referrer-policy"] == "no-referrer"


def test_refusals_carry_the_security_headers_too(http: TestClient) -> None:
    response = http.get("/", headers={"host": "evil.example"})
    assert response.status_code == 403
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"


def test_the_page_needs_nothing_the_policy_refuses(http: TestClient) -> None:
    """No inline script or style, no event handler attributes in the page itself."""
    page = http.get("/").text
    assert "<script>" not in page
    assert "<style" not in page
    assert " style=" not in page
    assert " onclick=" not in page
    assert "javascript:" not in page
