"""keypeg in the browser and for bots: a FastAPI app over the play layer and the store.

Only the JSON API exists so far (``keypeg.web.api``); every game's state lives in the store, none in
the process, so any number of workers serve the same games.
"""

from __future__ import annotations

from keypeg.web.app import create_app

__all__ = ["create_app"]
