"""The application layer's accounts, web sessions, daily puzzle and records: each use case on a store,
with no web request and no command line, saying what went wrong by kind."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from keypeg import find_variant
from keypeg.errors import ConflictError, ForbiddenError, RefusedError
from keypeg.play import daily as daily_rules
from keypeg.services import accounts, daily, records, web_sessions
from keypeg.services.stores import InvalidNameError, Store, WrongPasswordError
from keypeg.store import web_sessions as kept_sessions
from keypeg.web.errors import status_of

CLASSIC = find_variant("classic")


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'accounts.sqlite3'}")


def test_a_name_is_registered_once_and_never_as_a_guest(store: Store) -> None:
    assert accounts.register(store, "Ann", "secret-1") == "Ann"
    with pytest.raises(accounts.NameTakenError, match="taken") as taken:
        accounts.register(store, "ANN", "another secret")
    assert isinstance(taken.value, ConflictError) and status_of(taken.value) == 409
    with pytest.raises(InvalidNameError, match="kept for guests"):
        accounts.register(store, "guest-abc", "pw")


def test_a_login_is_checked_and_slowed_down_per_name_and_address_never_locking_the_name(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    accounts.register(store, "ann", "right one")
    assert accounts.log_in(store, "ANN", "right one", "10.0.0.1") == "ann"
    for name in ("ann", "nobody", "x" * 200):  # a wrong password, an unknown name, a name that cannot be
        with pytest.raises(WrongPasswordError, match="wrong name or password") as wrong:
            accounts.log_in(store, name, "wrong", "10.0.0.1")
        assert isinstance(wrong.value, ForbiddenError)
    for _ in range(accounts.LOGIN_FREE_PER_NAME_AND_ADDRESS - 1):
        with pytest.raises(WrongPasswordError):
            accounts.log_in(store, "ann", "wrong", "10.0.0.1")
    with pytest.raises(accounts.ThrottledError, match="too many failed logins") as throttled:
        accounts.log_in(store, "ann", "right one", "10.0.0.1")  # even the right password, from that address
    assert isinstance(throttled.value, RefusedError) and status_of(throttled.value) == 429
    assert throttled.value.retry_after == accounts.LOGIN_DELAY_START.total_seconds()
    # the owner, from an address with no failures, logs in while the other one keeps trying
    assert accounts.log_in(store, "ann", "right one", "10.0.0.9") == "ann"
    for _ in range(30):
        with pytest.raises(accounts.ThrottledError):
            accounts.log_in(store, "ann", "wrong", "10.0.0.1")
    assert accounts.log_in(store, "ann", "right one", "10.0.0.9") == "ann"
    # the delay doubles with each failure past the free ones, and a refused attempt does not count
    later = datetime.now(UTC) + timedelta(seconds=3)

    def at(moment: datetime) -> None:  # the clock of the throttle and of the failures it stores
        monkeypatch.setattr(accounts, "datetime", Clock(moment))
        monkeypatch.setattr(kept_sessions, "now", lambda: moment)

    at(later)
    with pytest.raises(WrongPasswordError):
        accounts.log_in(store, "ann", "wrong", "10.0.0.1")  # 2 s have passed: one more try
    with pytest.raises(accounts.ThrottledError) as again:
        accounts.log_in(store, "ann", "right one", "10.0.0.1")
    assert again.value.retry_after == 2 * accounts.LOGIN_DELAY_START.total_seconds()
    at(later + timedelta(seconds=2.5))  # 2.5 s of the 4 s have passed
    with pytest.raises(accounts.ThrottledError) as sooner:
        accounts.log_in(store, "ann", "right one", "10.0.0.1")
    assert sooner.value.retry_after == 2  # what is left of the delay (1.5 s), not all of it


class Clock:
    """``datetime`` whose ``now`` is ``at``."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self, tz: object = None) -> datetime:
        return self.at


def test_failures_from_one_address_on_many_names_slow_that_address_down(store: Store) -> None:
    accounts.register(store, "ann", "right one")
    for number in range(accounts.LOGIN_FREE_PER_ADDRESS):
        with pytest.raises(WrongPasswordError):
            accounts.log_in(store, f"name{number}", "wrong", "10.0.0.5")
    with pytest.raises(accounts.ThrottledError):
        accounts.log_in(store, "ann", "right one", "10.0.0.5")
    assert accounts.log_in(store, "ann", "right one", "10.0.0.6") == "ann"


def test_registrations_are_capped_per_address(store: Store) -> None:
    for number in range(accounts.REGISTRATION_LIMIT_PER_ADDRESS):
        accounts.register(store, f"player{number}", "long enough pw", "10.0.0.7")
    with pytest.raises(accounts.ThrottledError, match="too many registrations") as throttled:
        accounts.register(store, "one-more", "long enough pw", "10.0.0.7")
    assert status_of(throttled.value) == 429 and throttled.value.retry_after > 0
    assert accounts.register(store, "one-more", "long enough pw", "10.0.0.8") == "one-more"
    assert accounts.register(store, "from-the-cli", "long enough pw") == "from-the-cli"  # no address: no cap


@pytest.mark.parametrize(
    "password",
    [
        "",
        "short",
        "1234567",
        "password",
        "PassWord1",
        "QWERTY123",
        "iloveyou",
        "\u0440\u0430ssw\u043erd",
        "\u0456l\u043eveyou",
    ],
)
def test_one_password_rule_refuses_short_and_common_passwords_without_saying_them(store: Store, password: str) -> None:
    for attempt in (
        lambda: accounts.register(store, "ann", password),
        lambda: accounts.change_password(store, "bob", password),
    ):
        with pytest.raises(accounts.WeakPasswordError) as weak:
            attempt()
        assert isinstance(weak.value, ValueError) and status_of(weak.value) == 400
        assert str(weak.value) in (  # one fixed line: the password is never shown
            "choose a password of at least 8 characters",
            "that password is one of the most common ones: choose another",
        )
    assert store.players.registered("ann") is None and not accounts.has_password(store, "bob")
    accounts.check_password_rule("correct horse battery")  # a long, uncommon one passes


def test_a_guest_who_logs_in_keeps_their_games_and_a_player_does_not_give_theirs(store: Store) -> None:
    from keypeg.play.codemakers import FixedCodemaker
    from keypeg.play.sessions import BreakSession
    from keypeg.services.recording import GameKeeper

    accounts.register(store, "ann", "long enough pw")
    for owner in ("guest-1234", "bob"):
        GameKeeper.start(store, owner, BreakSession(CLASSIC.rules, FixedCodemaker(CLASSIC.rules.parse("RGBY"))))
    accounts.welcome(store, "guest-1234", "ann")
    accounts.welcome(store, "bob", "ann")
    accounts.welcome(store, None, "ann")
    assert [g.player for g in records.history(store, "ann")] == ["ann"]
    assert [g.player for g in records.history(store, "bob")] == ["bob"]


def test_the_terminal_claims_a_name_with_its_password(store: Store) -> None:
    asked: list[str] = []

    def ask() -> str:
        asked.append("asked")
        return "long enough pw"

    assert accounts.claim_player(store, "cid", ask) == "cid" and not asked  # no password: none asked for
    assert accounts.change_password(store, "Ann", "long enough pw") == "Ann"
    assert accounts.claim_player(store, "ANN", ask) == "Ann" and asked == ["asked"]
    with pytest.raises(WrongPasswordError, match="wrong password for 'Ann'"):
        accounts.claim_player(store, "ann", lambda: "nope")
    with pytest.raises(WrongPasswordError):
        accounts.change_password(store, "ann", "a new password", old="nope")
    assert accounts.has_password(store, "ann") and not accounts.has_password(store, "cid")
    assert accounts.ensure_player(store, "dee") == "dee" and records.registered(store, "DEE") == "dee"


def test_a_web_session_is_found_by_its_token_and_a_new_one_forgets_the_old(store: Store) -> None:
    token, guest = web_sessions.open_new(store)
    assert guest.player is None and guest.person is None
    assert web_sessions.find(store, token) == guest
    assert web_sessions.find(store, None) is None and web_sessions.find(store, "x" * 129) is None
    made = web_sessions.player_for(store, guest)
    assert made.startswith("guest-") and web_sessions.find(store, token) == web_sessions.WebSession(
        guest.token_hash, guest.csrf, made
    )
    assert web_sessions.player_for(store, web_sessions.find(store, token) or guest) == made  # made once
    bound = web_sessions.bind(store, guest, "guest-99")
    assert bound.person is None and web_sessions.find(store, token) == bound  # a guest's player: no person
    accounts.register(store, "ann", "long enough pw")
    fresh_token, fresh = web_sessions.open_new(store, "ann", old=bound)
    assert fresh.person == "ann" and fresh_token != token and fresh.token_hash == web_sessions.token_hash(fresh_token)
    assert web_sessions.find(store, token) is None and web_sessions.find(store, fresh_token) == fresh


def test_the_daily_view_of_a_player_and_of_nobody(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(daily_rules, "today", lambda: "2026-11-23")
    public_id = daily.start_on_web(store, "ann", CLASSIC, "public-ann")
    assert public_id == "public-ann" and daily.start_on_web(store, "ann", CLASSIC, "another") == "public-ann"
    nobody = daily.daily_view(store, CLASSIC)
    assert nobody.day == "2026-11-23" and nobody.player is None and nobody.board == [] and nobody.grid is None
    game, keeper = daily.start_daily(store, "ann", CLASSIC)
    game.guess(game.codemaker.reveal())
    keeper.sync(game)
    view = daily.daily_view(store, CLASSIC, None, "ann")
    assert view.played and view.solved and view.game == "public-ann" and view.streak == 1
    assert view.grid is not None and view.grid.endswith("●●●●") and [r.player for r in view.board] == ["ann"]
    with pytest.raises(daily.PlayedAlreadyError, match="one attempt a day"):
        daily.start_on_web(store, "ann", CLASSIC, "again")
    daily.start_daily(store, "bob", CLASSIC)  # in the terminal: no public id
    with pytest.raises(daily.StartedElsewhereError, match="started in the terminal") as elsewhere:
        daily.start_on_web(store, "bob", CLASSIC, "bob-on-the-web")
    assert status_of(elsewhere.value) == 400
    assert daily.streaks(store, "ann") == {"classic": 1} and daily.streaks(store, "bob") == {}
    with pytest.raises(Exception, match="YYYY-MM-DD"):
        daily.daily_view(store, CLASSIC, "23/11/2026")


FULL_WIDTH_PASSWORD = "".join(chr(0xFF00 + ord(c) - 0x20) for c in "PASSWORD")
"""PASSWORD in full-width letters, which NFKC reads as PASSWORD."""


@pytest.mark.parametrize(
    "password",
    [" " * 8, "\u00a0" * 8, "aaaaaaaa", "abababab", "1234567\x00", "password\u200b", FULL_WIDTH_PASSWORD, "pass word"],
)
def test_the_password_rule_reads_what_shows(store: Store, password: str) -> None:
    """Spaces, invisible characters, full-width letters and a repeated letter do not make a password."""
    with pytest.raises(accounts.WeakPasswordError) as weak:
        accounts.register(store, "ann", password)
    assert password.strip() not in str(weak.value) or not password.strip()


def test_one_ipv6_network_is_one_address_for_the_limits(store: Store) -> None:
    assert accounts.address_group("2001:db8:1:2::1") == accounts.address_group("2001:db8:1:2:ffff::9")
    assert accounts.address_group("2001:db8:1:3::1") != accounts.address_group("2001:db8:1:2::1")
    assert accounts.address_group("::ffff:10.0.0.7") == "10.0.0.7" == accounts.address_group("10.0.0.7")
    for number in range(accounts.REGISTRATION_LIMIT_PER_ADDRESS):
        accounts.register(store, f"player{number}", "long enough pw", f"2001:db8:1:2::{number + 1:x}")
    with pytest.raises(accounts.ThrottledError):  # a new address of the same /64 is the same home
        accounts.register(store, "one-more", "long enough pw", "2001:db8:1:2::ff")
    accounts.register(store, "owner", "long enough pw")
    for number in range(accounts.LOGIN_FREE_PER_NAME_AND_ADDRESS):  # each from another address of one /64
        with pytest.raises(WrongPasswordError):
            accounts.log_in(store, "owner", "wrong guess!", f"2001:db8:9:9::{number + 1:x}")
    with pytest.raises(accounts.ThrottledError):  # the guesser's whole /64 waits ...
        accounts.log_in(store, "owner", "another guess", "2001:db8:9:9::abcd")
    assert accounts.log_in(store, "owner", "long enough pw", "2001:db8:7:7::1") == "owner"  # ... not the owner


def test_a_refused_registration_does_not_count_toward_the_cap(store: Store) -> None:
    for _ in range(accounts.REGISTRATION_LIMIT_PER_ADDRESS + 5):  # mistyped passwords, names taken
        with pytest.raises((accounts.WeakPasswordError, accounts.NameTakenError)):
            accounts.register(store, "ann", "short", "10.0.0.9")
    assert accounts.register(store, "ann", "long enough pw", "10.0.0.9") == "ann"


def test_a_sessions_requests_racing_to_its_first_game_make_one_guest(store: Store) -> None:
    """A new visitor's first requests, sent at once (a page's form and a retry, a bot's burst), each find
    the session without a player: they all get the same guest, so an idempotency key finds its game."""
    _, pending = web_sessions.open_pending(store)
    start = threading.Barrier(6)
    players: list[str] = []

    def first_game() -> None:
        start.wait()
        players.append(web_sessions.player_for(store, pending))

    racers = [threading.Thread(target=first_game) for _ in range(6)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(60)
    assert len(players) == 6 and len(set(players)) == 1
    assert store.web_sessions.get(pending.token_hash) == (pending.csrf, players[0])
    assert store.web_sessions.claim(pending.token_hash, "guest-000000000000") == players[0]  # claimed already
    assert store.players.registered("guest-000000000000") is None


def test_a_login_forgets_the_old_token_for_good_pending_or_kept(store: Store) -> None:
    """The session a login replaces names nothing from then on: a visitor's pending one (never kept) as
    well as a kept guest's, so whatever was opened with it (a live stream) sees it gone."""
    pending_token, pending = web_sessions.open_pending(store)
    kept_token, kept = web_sessions.open_pending(store)
    kept = web_sessions.bind(store, kept, None)
    assert web_sessions.find(store, pending_token) == pending and web_sessions.find(store, kept_token) == kept
    for token, old in ((pending_token, pending), (kept_token, kept)):
        new_token, new = web_sessions.open_new(store, old=old)
        assert web_sessions.find(store, token) is None and web_sessions.find(store, new_token) == new
