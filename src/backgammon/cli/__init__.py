"""The ``backgammon`` command line: ``backgammon moves | ...``; see ``backgammon --help``."""

from backgammon.cli.main import main

__all__ = ["main"]
