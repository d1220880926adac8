"""Keep Python's full garbage collections off the objects a process had before a run.

A full (generation 2) collection walks every tracked object. In a sync process that is mostly
what imports and set-up left (graphiti-core, pydantic, drivers: ~120k objects, ~70 ms a walk);
the run's own rows come and go. Parsing a large graph reply allocates enough to trigger one
every few replies, so a 100k-edge ``--full`` run spent ~0.5 s (about a tenth of it) and a 1%
incremental run ~85 ms walking objects that cannot be garbage. :func:`startup_objects_frozen`
moves them to the permanent generation (:func:`gc.freeze`) for the run, and back after.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_depth = 0  # blocks open, in any task or thread: the first freezes, the last unfreezes
_lock = threading.Lock()


@contextmanager
def startup_objects_frozen() -> Iterator[None]:
    """Within the block, full collections skip the objects that existed on entry (nestable,
    and safe with runs in several tasks or threads at once)."""
    global _depth
    with _lock:
        if _depth == 0:
            gc.freeze()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.unfreeze()  # back to the oldest generation: collected as usual from now on
