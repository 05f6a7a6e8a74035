"""Process settings for a long-running game server.

:func:`tune_gc` is applied by ``backgammon serve`` once the app is built, and by
``bench/online_load.py`` to its server and clients.
"""

from __future__ import annotations

import gc
from typing import Final

__all__ = ["GC_THRESHOLDS", "tune_gc"]

#: The collector thresholds :func:`tune_gc` sets: Python's first two (700 allocations, 10
#: young collections), and 100 instead of 10 middle collections before a full one.
GC_THRESHOLDS: Final = (700, 10, 100)


def tune_gc() -> None:
    """Keep full garbage collections out of the way of live games.

    Measured with ``bench/online_load.py`` (200 rooms on a 2-core machine): with Python's
    defaults a full collection walks every tracked object (the imported framework, some 70,000
    objects, plus every game in memory) and paused the server 100-230 ms, about once every 12
    seconds: those pauses were the whole latency tail. ``gc.freeze()`` takes everything alive
    after start-up out of every future collection, and a third threshold of 100 makes full
    collections about ten times rarer (none in a 2-minute, 200-room run), leaving the young
    ones (~1-15 ms) as they were. Raising the first threshold instead made each young collection
    nearly as slow as a full one.

    Call it once, after the app is built and before serving. It changes this process's
    collector (:func:`gc.freeze`, :func:`gc.set_threshold`); nothing else.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
