"""SIGTERM stops a command the way Ctrl-C does, so the same clean-up runs: a sync run journals and
records itself interrupted, embedded servers and temporary graphs are stopped.

Inside the command's event loop SIGTERM cancels the main task, as asyncio does for Ctrl-C, so
clean-up starts at an ``await`` and never half-way through a lock, a pool or a ``finally``. This
holds whatever SIGINT's disposition: a job a non-interactive shell started with ``&`` has SIGINT
ignored, and asyncio then installs no Ctrl-C handler at all. Outside the loop (argument parsing,
synchronous set-up) SIGTERM raises KeyboardInterrupt where Python stands.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import warnings
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

_terminated: list[int] = []


def terminated() -> bool:
    """True once SIGTERM arrived: the command reports "terminated" and exits 143."""
    return bool(_terminated)


def _record(signum: int) -> None:
    _terminated.append(signum)
    # Tasks cancelled while queued behind a semaphore (graphiti-core's semaphore_gather) drop their
    # coroutines unstarted; Python would warn about each at exit.
    warnings.filterwarnings("ignore", r"coroutine .* was never awaited", RuntimeWarning)


def _on_sigterm(signum: int, frame: object) -> None:
    _record(signum)
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """For the command's duration, outside its event loop SIGTERM raises KeyboardInterrupt."""
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread (an embedding application): leave its handler
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion in its own event loop; SIGTERM cancels it (then
    KeyboardInterrupt, unless the coroutine turned the cancellation into its own error)."""
    try:
        return asyncio.run(_cancelled_by_sigterm(coro))
    except asyncio.CancelledError:
        if terminated():
            raise KeyboardInterrupt from None
        raise


async def _cancelled_by_sigterm(coro: Coroutine[Any, Any, T]) -> T:
    loop, task = asyncio.get_running_loop(), asyncio.current_task()
    previous = signal.getsignal(signal.SIGTERM)
    try:
        loop.add_signal_handler(signal.SIGTERM, _cancel, task)
    except (ValueError, RuntimeError, NotImplementedError):  # not the main thread, or no loop signals
        return await coro
    try:
        return await coro
    finally:
        loop.remove_signal_handler(signal.SIGTERM)  # leaves SIG_DFL behind: put back what was there
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _cancel(task: asyncio.Task[Any]) -> None:
    _record(signal.SIGTERM)
    task.cancel()
