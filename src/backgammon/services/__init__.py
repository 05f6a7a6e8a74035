"""Services over the engine and the computer player: game sessions and the SQLite store.

Imports the layers below it (``backgammon.core``, ``backgammon.ai``); nothing here imports
``backgammon.server``, and the server is the only caller that speaks HTTP.
"""
