"""Fair shares of the server, on the web: which requests are event streams and which change something (by
their method and path), whom a request is counted against (its session cookie, and its client's address as the
login throttle takes it), and the gate of an analysis. The counting is
:mod:`keypeg.services.fair_share`'s; a refusal is 429 with ``Retry-After`` (:data:`keypeg.web.errors.STATUSES`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator

from fastapi import Request

from keypeg.services.accounts import address_group
from keypeg.services.fair_share import FairShare, Gate, Who
from keypeg.web.accounts import client_address
from keypeg.web.sessions import COOKIE

__all__ = ["ANALYSES", "READS", "STREAMS", "admit", "analysis", "share_of", "who"]

STREAMS = re.compile(r"/api/live/[^/]+/events")
"""The addresses (GET) that answer with an event stream, held open: counted while they are."""
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


async def admit(request: Request) -> AsyncIterator[None]:
    """Every route's dependency: a request that changes something is counted (429 past the rate), an event
    stream held while it is open (429 past the number open); anything else passes."""
    path = request.url.path
    if request.method not in READS and path not in ANALYSES:
        share_of(request).write(who(request))
    if request.method == "GET" and STREAMS.fullmatch(path):
        with share_of(request).stream(who(request)):
            yield
        return
    yield


def analysis(request: Request) -> Gate:
    """The gate of an analysis ``request`` asks for (see :class:`keypeg.services.fair_share.Gate`)."""
    return share_of(request).analysis(who(request))
