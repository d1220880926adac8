"""Reading another process's state from /proc without racing its exit.

A process can vanish between ``open`` and ``read`` of its /proc files: the read then fails with
ESRCH (ProcessLookupError), not ENOENT, so every reader here treats any OSError as "gone".
"""
from __future__ import annotations

import signal
from pathlib import Path


def read_proc(path: str) -> str:
    """The text of a /proc file, "" once its process is gone."""
    try:
        return Path(path).read_text(errors="replace")
    except OSError:
        return ""


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie or a dead process is not alive)."""
    stat = read_proc(f"/proc/{pid}/stat")
    return bool(stat) and stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def children(pid: int) -> list[int]:
    return [int(p) for p in read_proc(f"/proc/{pid}/task/{pid}/children").split()]


def sigint_as_ctrl_c() -> None:
    """``preexec_fn`` for a child the test sends SIGINT: Ctrl-C's default, even when the test
    itself runs with SIGINT ignored (started with ``&`` by a non-interactive shell), which the
    child would inherit, and then Python installs no KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def sigint_ignored() -> None:
    """``preexec_fn`` for a child started as a non-interactive shell's ``&`` job: SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
