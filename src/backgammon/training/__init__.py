"""Offline training: scripts that play games and fit the AI's constants (never imported at run
time by the game, the server or the AI itself)."""
