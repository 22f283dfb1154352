"""Shared test settings: a hypothesis profile without deadlines (the first kernel call JIT-compiles)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "keypeg",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("keypeg")


import signal  # noqa: E402

import pytest  # noqa: E402


def pytest_sessionstart(session: pytest.Session) -> None:
    """The tests of Ctrl-C need it heard: a shell's background job starts with SIGINT ignored, and
    Python and every process it starts keep it ignored."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def private_database(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test plays into a database of its own, never the user's."""
    folder = tmp_path_factory.mktemp("db")
    monkeypatch.setenv("KEYPEG_DB", f"sqlite:///{folder / 'keypeg.sqlite3'}")
    monkeypatch.setenv("KEYPEG_PLAYER", "tester")
    monkeypatch.delenv("KEYPEG_PASSWORD", raising=False)


@pytest.fixture(autouse=True)
def private_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs in a folder of its own: files a command writes by default (a match file) stay there."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test keeps what it caches (solved trees, the web's analyses) in a folder of its own, never the
    user's cache; a test that names a cache folder sets ``KEYPEG_CACHE`` itself."""
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path_factory.mktemp("cache")))
