"""keypeg in the browser and for bots: a FastAPI app over the play layer and the store.

Server-rendered pages (Play, Daily, Match, Friends, Analyse, Strategies, Players) and a JSON API for
bots and for the pages' script, documented at ``/docs``. Every game's and match's state lives in the
store, none in the process, so any number of workers serve the same games; live matches wake their
followers across workers through the store (PostgreSQL's NOTIFY).
"""

from __future__ import annotations

from keypeg.web.app import create_app

__all__ = ["create_app"]
