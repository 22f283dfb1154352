"""schemathesis against the API's own schema: every operation, generated requests (with a session and
its CSRF token), no 5xx, every response as documented."""

from __future__ import annotations

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from keypeg.analysis.cost import load_kernels
from keypeg.web import create_app


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """The app under test, on a store of its own, made when a test first needs it (not at import), with the
    kernels loaded first as a served app's start-up loads them: a first call that compiled them (10 s and
    more on a busy machine, with numba's cache empty) ran past schemathesis's read timeout."""
    load_kernels()
    return create_app(f"sqlite:///{tmp_path_factory.mktemp('schema') / 'web.sqlite3'}")


@pytest.fixture(scope="module")
def session(app: FastAPI) -> dict[str, str]:
    """A session's cookie and CSRF token, and one of its games."""
    browser = TestClient(app, base_url="http://localhost")
    csrf = browser.get("/api/session").json()["csrf"]
    game = browser.post("/api/games", json={"practice": True}, headers={"X-CSRF-Token": csrf}).json()
    return {"csrf": csrf, "cookie": browser.cookies["keypeg_session"], "game": game["id"]}


SLOWEST_ANSWER = 300.0
"""Seconds the test's client waits for an answer: far past any request's budget, so that only a hang fails."""


def _check(case: schemathesis.Case, session: dict[str, str]) -> None:
    if case.path_parameters and "game_id" in case.path_parameters and case.path_parameters["game_id"].startswith("a"):
        case.path_parameters["game_id"] = session["game"]  # now and then, a game that exists
    case.call_and_validate(
        headers={"X-CSRF-Token": session["csrf"]},
        cookies={"keypeg_session": session["cookie"]},
        # a schema-valid request the rules refuse (5 pegs from 3 colours without repeats) is a 400, as documented
        excluded_checks=[positive_data_acceptance],
        # what is checked is the answer, not how fast it came: an analysis within its budget plus a first compile
        # of a kernel (not counted by the budget) can take 15 s on a busy machine, past the client's 10 s default
        timeout=SLOWEST_ANSWER,
    )


@pytest.mark.slow
def test_no_5xx_and_every_response_as_documented(app: FastAPI, session: dict[str, str]) -> None:
    """Each operation of the schema read from the app (made by a fixture, not at import) gets 25
    generated requests; every operation is tried, and the failures are told together."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    failed: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1

        @given(case=operation.as_strategy())
        @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def requests(case: schemathesis.Case) -> None:
            _check(case, session)

        try:
            requests()
        except Exception as failure:  # every operation's failure, told together below
            causes = getattr(failure, "exceptions", ())  # hypothesis's flaky verdict keeps the first failure
            failed.append(f"{operation.label}: {failure}" + "".join(f"\n  {cause!r}" for cause in causes))
    assert operations >= 20, f"only {operations} operations in the schema"
    assert not failed, "\n\n".join(failed)
