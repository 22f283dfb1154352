"""``keypeg serve``: the web app (FastAPI, under uvicorn) on the same store as the command line."""

from __future__ import annotations

import contextlib
import os
import socket
from typing import Any

import click

from keypeg.cli.common import cli
from keypeg.cli.options import db_option
from keypeg.errors import KeypegError, UnavailableError
from keypeg.text import visible


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True, help="Worker processes.")
@click.option("--https", is_flag=True, help="Served over https (behind a proxy): session cookies are Secure.")
@click.option(
    "--trust-proxy",
    "trust_proxy",
    multiple=True,
    metavar="ADDRESS",
    help="A proxy (address or network) whose X-Forwarded-For is believed; repeatable. Default: none.",
)
@db_option
def serve(host: str, port: int, workers: int, https: bool, trust_proxy: tuple[str, ...], db: str | None) -> None:
    """Serve the web app (pages, and the JSON API documented at /docs) on the store the command line uses.
    Failed logins and registrations are counted per client address: behind a reverse proxy, name it with
    --trust-proxy, or every client shares the proxy's address."""
    try:
        import uvicorn
    except ImportError:
        raise KeypegError("the web app needs its packages: pip install 'keypeg[web]'") from None
    from keypeg.services.stores import open_store

    _check_address(host, port)
    trust_proxy = _proxies(trust_proxy)
    open_store(db)  # a bad database is one clear line now, not one per worker
    if db is not None:
        os.environ["KEYPEG_DB"] = db
    os.environ["KEYPEG_HTTPS"] = "1" if https else "0"
    os.environ["KEYPEG_TRUST_PROXY"] = ",".join(trust_proxy)
    options: dict[str, Any] = {
        "factory": True,
        "host": host,
        "port": port,
        "proxy_headers": bool(
            trust_proxy
        ),  # X-Forwarded-* only from the proxies named (uvicorn's default: any local one)
        "forwarded_allow_ips": list(trust_proxy),
        "server_header": False,
        "timeout_graceful_shutdown": 3,  # live streams stay open: Ctrl-C closes them after 3 s
        **event_loop_options(),
    }
    try:
        if workers == 1:
            uvicorn.run(APP, **options)
        else:
            serve_workers(APP, workers, options)
    except SystemExit as stop:  # uvicorn exits 3 when it cannot start: one line, a run-time failure
        if stop.code not in (0, None):
            raise ServeError(f"the server on {visible(host)}:{port} stopped (uvicorn exit {stop.code})") from None


def event_loop_options() -> dict[str, str]:
    """uvicorn's event loop and HTTP parser: uvloop and httptools when installed (the web extra has them;
    they cut the server's CPU a request, benchmarks/results/web.md), else asyncio's and h11;
    ``$KEYPEG_PLAIN_HTTP=1`` takes the latter anyway (to measure the difference)."""
    import importlib.util

    plain = os.environ.get("KEYPEG_PLAIN_HTTP") == "1"
    fast = not plain and all(importlib.util.find_spec(name) is not None for name in ("uvloop", "httptools"))
    return {"loop": "uvloop", "http": "httptools"} if fast else {"loop": "asyncio", "http": "h11"}


APP = "keypeg.web.app:app_from_environment"
"""The app each worker makes (from ``$KEYPEG_DB``, ``$KEYPEG_HTTPS`` and ``$KEYPEG_TRUST_PROXY``)."""


def serve_workers(app: str, workers: int, options: dict[str, Any]) -> None:
    """``uvicorn.run`` with ``workers`` processes sharing one listening socket, made as a TCP socket:
    uvicorn makes it without naming TCP, and asyncio then leaves Nagle's algorithm on for every
    connection, which delays most answers by about 40 ms (uvicorn issue 3149)."""
    from uvicorn import Config
    from uvicorn.supervisors import Multiprocess

    config = Config(app, workers=workers, **options)
    made = config.bind_socket()
    listening = socket.socket(made.family, made.type, socket.IPPROTO_TCP, fileno=made.detach())
    with contextlib.suppress(KeyboardInterrupt):
        Multiprocess(config, sockets=[listening]).run()


class ServeError(UnavailableError):
    """The server could not listen or stopped with an error (a failure at run time)."""


def _proxies(proxies: tuple[str, ...]) -> tuple[str, ...]:
    """The ``--trust-proxy`` values in the one form the app and uvicorn both read (``10.0.0.1/8`` is
    ``10.0.0.0/8``, a single address has no ``/32``); one that is neither an address nor a network is
    refused (bad input: exit 2)."""
    import ipaddress

    found = []
    for proxy in proxies:
        try:
            network = ipaddress.ip_network(proxy.strip(), strict=False)
        except ValueError:
            raise click.BadParameter(
                f"{visible(proxy)!r} is not an address or a network", param_hint="--trust-proxy"
            ) from None
        single = network.num_addresses == 1
        found.append(str(network.network_address) if single else str(network))
    return tuple(found)


def _check_address(host: str, port: int) -> None:
    """Refuse an address that cannot be listened on before starting any worker."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError, ValueError):
        raise KeypegError(f"--host {visible(host)!r} is not an address this machine can listen on") from None
    family, kind, proto, _, address = found[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise ServeError(f"cannot listen on {visible(host)}:{port}: {error.strerror or error}") from None


__all__ = ["serve"]
