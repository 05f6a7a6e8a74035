"""What the tests of the server's process share: a real uvicorn server on a thread, and the
garbage collector put back after ``backgammon serve`` (or :func:`tune_gc`) has tuned it."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn


@contextmanager
def gc_restored() -> Iterator[None]:
    """Run the block, then put this process's collector back as it was (thresholds, and no
    frozen objects), so that the other tests run with the usual collector."""
    thresholds = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


@contextmanager
def running_uvicorn(config: uvicorn.Config, timeout: float = 10.0) -> Iterator[int]:
    """Serve ``config`` (give it ``port=0``) on a daemon thread; yields the port it listens
    on once it has started, and stops it after the block."""
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield int(server.servers[0].sockets[0].getsockname()[1])
    finally:
        server.should_exit = True
        thread.join(timeout)
