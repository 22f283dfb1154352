"""A live match's guess sent at its deadline while viewers read the match (review F6, PostgreSQL): whatever
order the store takes them in, the database ends as the clients were answered. A guess answered is stored
and the match goes on from it; a guess refused left the game timed out, with no guess. The race is made
reliable with the clock, not with waiting: the turn's stored start is rewound to just before its deadline,
and each thread reads its own clock (the guesser's before the deadline, the viewers' after it)."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from keypeg import Rules
from keypeg.errors import KeypegError
from keypeg.services import live as live_service
from keypeg.services.live_bus import LiveBus
from keypeg.store import Store
from keypeg.store.models import GameRow

RULES = Rules(4, 6)
MOVE_SECONDS = 30
MATCHES = 12
VIEWERS = 5

_skew = threading.local()


class SkewedClock(datetime):
    """``datetime`` whose ``now`` is this thread's own: the real time plus its skew."""

    @classmethod
    def now(cls, tz: object = None) -> SkewedClock:
        real = datetime.now(UTC) + timedelta(seconds=getattr(_skew, "seconds", 0.0))
        return cls.fromtimestamp(real.timestamp(), UTC)


def near_deadline(store: Store, match: str, left: float) -> None:
    """Rewind the stored start of the turn so that ``left`` seconds of it remain."""
    record = store.live.get(match)
    state = json.loads(record.state)
    state["clock"]["began"] = (datetime.now(UTC) - timedelta(seconds=MOVE_SECONDS - left)).isoformat()
    store.live.save(record.id, json.dumps(state), record.version)


def race(store: Store, bus: LiveBus, match: str) -> str:
    """bob guesses (0.5 s before the deadline by his clock) while viewers read (1 s after it by theirs);
    what bob was answered: "guessed" or the refusal's class."""
    start = threading.Barrier(1 + VIEWERS, timeout=30)
    answered: list[str] = []
    failures: list[BaseException] = []

    def guesser() -> None:
        _skew.seconds = 0.0
        start.wait()
        try:
            seen = live_service.guess(store, bus, match, "bob", "AABB", row=1)
            assert [m["guess"] for m in seen["current"]["history"]] == ["AABB"]
            answered.append("guessed")
        except KeypegError as error:
            answered.append(type(error).__name__)

    def viewer() -> None:
        _skew.seconds = 1.0
        start.wait()
        try:
            live_service.snapshot(store, bus, match, None)
        except BaseException as error:  # a viewer's read is never refused
            failures.append(error)

    threads = [threading.Thread(target=guesser)] + [threading.Thread(target=viewer) for _ in range(VIEWERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures, failures
    return answered[0]


@pytest.mark.slow
def test_a_guess_at_the_deadline_and_viewers_timing_it_out_leave_what_the_clients_saw(
    postgres: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_service, "datetime", SkewedClock)
    store = Store(postgres)
    bus = LiveBus(store)
    answers = []
    for _ in range(MATCHES):
        match = live_service.create(store, "ann", RULES, 2, move_seconds=MOVE_SECONDS)
        live_service.join(store, bus, match, "bob", live_service.invite_token(store, match))
        live_service.set_code(store, bus, match, "ann", "ABCD")
        near_deadline(store, match, 0.5)
        answer = race(store, bus, match)
        answers.append(answer)
        with store.engine.connect() as connection:
            match_id = store.live.get(match).id
            rows = connection.execute(
                select(GameRow.id, GameRow.guesses, GameRow.outcome).where(GameRow.match_id == match_id)
            ).all()
        assert len(rows) == 1
        _, guesses, outcome = rows[0]
        _skew.seconds = 0.0
        seen = live_service.snapshot(store, bus, match, None)
        if answer == "guessed":  # stored, and the match goes on from it: bob's next guess is awaited
            assert (guesses, outcome) == (1, None), (match, answer, guesses, outcome)
            assert [m["guess"] for m in seen["current"]["history"]] == ["AABB"]
            assert seen["scores"] == {"ann": 0, "bob": 0}
            assert not any("ran out of time" in str(note) for note in seen["notes"])
        else:  # bob was timed out first: the game is over without his guess
            assert guesses == 0 and outcome is not None, (match, answer, guesses, outcome)
            assert seen["current"] is None and seen["last"]["history"] == []
    assert "guessed" in answers  # the race was run both ways round, not only ever lost by the guess
