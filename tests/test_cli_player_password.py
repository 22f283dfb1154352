"""``keypeg player NAME --password-stdin`` (review L6): a password piped in is set, never ignored, so no
player is made without the password that was given."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from keypeg.cli import cli
from keypeg.store import Store


def test_password_stdin_alone_sets_the_password(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    made = CliRunner().invoke(
        cli, ["player", "ann", "--password-stdin"], input="long enough pw\n", env={"KEYPEG_DB": url}
    )
    assert made.exit_code == 0, made.output + made.stderr
    store = Store(url)
    assert store.players.has_password("ann") and store.players.check_password("ann", "long enough pw")
    empty = CliRunner().invoke(cli, ["player", "bob", "--password-stdin"], input="", env={"KEYPEG_DB": url})
    assert empty.exit_code != 0 and len(empty.stderr.strip().splitlines()) == 1 and "Traceback" not in empty.output
    assert not store.players.has_password("bob")
