"""Fair shares of the server, on the web: which requests are event streams and which change something (by
their method and path), whom a request is counted against (its session cookie, and its client's address as the
login throttle takes it), and the gate of an analysis. The counting is
:mod:`keypeg.services.fair_share`'s; a refusal is 429 with ``Retry-After`` (:data:`keypeg.web.errors.STATUSES`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from contextlib import ExitStack

from fastapi import Request, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from keypeg.services.accounts import ThrottledError, address_group
from keypeg.services.fair_share import FairShare, Gate, Who
from keypeg.web.accounts import client_address
from keypeg.web.sessions import COOKIE

__all__ = ["ANALYSES", "READS", "STREAMS", "FairShareGate", "analysis", "share_of", "who"]

STREAMS = re.compile(r"/api/live/[^/]+/events|/api/rooms/[^/]+/stream")
"""The addresses (GET) that answer with an event stream (a live match's, a room's), held open: counted while
they are."""
READS = frozenset({"GET", "HEAD", "OPTIONS"})
"""The methods that change nothing: every other request (every ``POST``: moves, games, matches and live
matches started, joins, resigns, logins, registrations) is counted as a change, but an analysis's."""
ANALYSES = frozenset({"/api/analyse"})
"""The ``POST`` addresses that change nothing: an analysis, counted by its gate (:func:`analysis`) when it is
worked out."""


def share_of(request: Request) -> FairShare:
    """The worker's counts (the app's)."""
    share: FairShare = request.app.state.fair_share
    return share


def who(request: Request) -> Who:
    """Whom ``request`` is counted against: a digest of its session cookie (none without one) and its
    client's address group (an IPv6 /64), the address as :func:`keypeg.web.accounts.client_address` takes it."""
    cookie = request.cookies.get(COOKIE)
    session = hashlib.sha256(cookie.encode()).hexdigest()[:32] if cookie else None
    return Who(session, address_group(client_address(request)))


class FairShareGate:
    """The app's outermost layer (ASGI): a request that changes something is counted (refused past the
    rate), an event stream is held while it is open (refused past the number open); anything else passes.
    A refusal is answered here by ``refuse`` (429 with ``Retry-After``), before any routing, session or body
    is read, so that a flood of refused requests costs the server as little as it can."""

    def __init__(self, app: ASGIApp, refuse: Callable[[Request, ThrottledError], Response]) -> None:
        self.app = app
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        writes = method not in READS and path not in ANALYSES
        streams = method == "GET" and STREAMS.fullmatch(path) is not None
        if not (writes or streams):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        with ExitStack() as held:
            try:
                if writes:
                    share_of(request).write(who(request))
                if streams:
                    held.enter_context(share_of(request).stream(who(request)))
            except ThrottledError as refused:
                await self.refuse(request, refused)(scope, receive, send)
                return
            await self.app(scope, receive, send)


def analysis(request: Request) -> Gate:
    """The gate of an analysis ``request`` asks for (see :class:`keypeg.services.fair_share.Gate`)."""
    return share_of(request).analysis(who(request))
