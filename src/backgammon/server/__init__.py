"""The web game: a FastAPI app (on Starlette) serving the JSON API and the page.

``create_app(settings)`` builds the app; ``backgammon serve`` runs it with uvicorn. This layer
imports the services, the engine and the computer player; nothing imports it.
"""

from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings

__all__ = ["ServerSettings", "create_app"]
