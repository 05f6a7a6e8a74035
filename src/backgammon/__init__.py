"""backgammon: a rules engine, a computer player, the standard file formats, and a web game.

The public core API is re-exported here::

    from backgammon import Position, legal_plays, WHITE, BLACK
"""

from backgammon.core import *  # noqa: F403
from backgammon.core import __all__ as _core_all

__all__ = list(_core_all)
__version__ = "0.1.0"
