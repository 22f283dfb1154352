"""The load benchmark's client through a fault: a connection reset after a guess reached the server
(its answer lost) neither stops the client nor loses or doubles a move (benchmarks/web_load.py, issue 28)."""

from __future__ import annotations

import asyncio
import socket
import struct
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import pytest

from conftest import free_port, keypeg_serve

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import web_load


def reset(writer: asyncio.StreamWriter) -> None:
    """Close a connection with a reset (RST), not a clean end."""
    sock = writer.get_extra_info("socket")
    with suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


@asynccontextmanager
async def dropping_proxy(upstream: int, nth_guess: int) -> AsyncIterator[tuple[int, list[bytes]]]:
    """A TCP proxy on a free loopback port to ``upstream`` that, once, resets the client's connection
    carrying the ``nth_guess``-th guess as soon as the server has begun its answer (the guess is applied,
    its answer never arrives): its port, and the requests it dropped so (filled in when it happens)."""
    guesses, dropped = [0], list[bytes]()

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with suppress(OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def serve(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", upstream)
        back = asyncio.create_task(pipe(server_reader, client_writer))
        try:
            while data := await client_reader.read(65536):
                if b"/guesses" in data and not dropped:
                    guesses[0] += 1
                    if guesses[0] == nth_guess:
                        back.cancel()
                        with suppress(asyncio.CancelledError):
                            await back
                        server_writer.write(data)
                        await server_writer.drain()
                        await server_reader.read(1)  # the server answers: the guess is applied
                        dropped.append(data.split(b"\r\n", 1)[0])
                        reset(client_writer)
                        return
                server_writer.write(data)
                await server_writer.drain()
        except OSError:
            pass
        finally:
            back.cancel()
            server_writer.close()

    port = free_port()
    proxy = await asyncio.start_server(serve, "127.0.0.1", port)
    try:
        yield port, dropped
    finally:
        proxy.close()


@pytest.mark.slow
def test_the_load_client_rides_out_a_reset_and_its_ledger_matches_the_database(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'load.sqlite3'}"
    tally = web_load.Tally()

    async def play(upstream: int) -> list[bytes]:
        async with dropping_proxy(upstream, nth_guess=5) as (port, dropped):
            await web_load.load(f"http://127.0.0.1:{port}", 3, 2, 0.0, tally, seed=0)
        return dropped

    with keypeg_serve(db, tmp_path) as serving:
        dropped = asyncio.run(play(serving.port))
    assert len(dropped) == 1 and dropped[0].startswith(b"POST /api/games/")
    assert tally.errors["reset"] == 1 and tally.retries >= 1
    assert len(tally.finished) == 6 and tally.outcomes["won"] + tally.outcomes["lost"] == 6  # every game played out
    checked = web_load.check(db, tally.games, tally.finished)
    assert checked.problems == []
    assert (checked.created, checked.found, checked.matching, checked.finished) == (6, 6, 6, 6)
    assert checked.stored_games == 6 and checked.unknown == 0  # the guess tried again was not applied twice


def test_the_check_names_what_a_half_written_game_lacks() -> None:
    assert web_load.half_written(4, "solved", 3, [(1, 0), (2, 1), (3, 4)]) == ""
    assert web_load.half_written(4, None, 2, [(1, 0), (2, 1)]) == ""
    assert "3 guesses counted, 2 stored" in web_load.half_written(4, None, 3, [(1, 0), (2, 1)])
    assert "numbered [1, 3]" in web_load.half_written(4, None, 2, [(1, 0), (3, 1)])
    assert "outcome None" in web_load.half_written(4, None, 2, [(1, 0), (2, 4)])  # won, not marked solved
    assert "winning guess at 1 of 2" in web_load.half_written(4, "solved", 2, [(1, 4), (2, 0)])
    assert "solved without a winning guess" in web_load.half_written(4, "solved", 1, [(1, 3)])
