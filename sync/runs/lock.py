"""The sync lock: one sync (or rollback) per graph at a time.

A ``flock`` on ``STATE_DIR/locks/sync-<graph key>.lock``; the file records the holder's pid,
start time and host. The kernel drops a flock when its process dies, so a lock left by a dead
process is free: the next run takes it over and reports the dead holder's pid. Until then,
``holder_gone`` tells ``graph-trust runs`` that a run still marked running has lost its process
(killed outright, power loss), so it is listed as interrupted.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import socket
from pathlib import Path

from graph_trust.errors import LockHeldError, StateStoreError
from graph_trust.graph.embedded import _proc_start_time
from graph_trust.sync.store.state import now_iso

log = logging.getLogger(__name__)


class SyncLock:
    def __init__(self, path: Path, what: str):
        self.path = path
        self.what = what
        self.fd: int | None = None
        self.took_over_pid: int | None = None

    def acquire(self) -> SyncLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise StateStoreError(f"cannot open lock file {self.path}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            who = f"pid {holder.get('pid')} on {holder.get('host')} since {holder.get('since')}" if holder else "another process"
            raise LockHeldError(f"another sync is running on {self.what} ({who}); wait for it to finish "
                                f"(lock {self.path})") from None
        previous = _read(fd)
        if previous.get("pid") and previous.get("active"):
            self.took_over_pid = int(previous["pid"])
            log.warning("took over the sync lock of %s left by dead process %s", self.what, self.took_over_pid)
        _write(fd, {"pid": os.getpid(), "start": _proc_start_time(os.getpid()), "host": socket.gethostname(),
                    "since": now_iso(), "active": True})
        self.fd = fd
        return self

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            _write(self.fd, {"active": False})
        finally:
            os.close(self.fd)  # drops the flock
            self.fd = None

    def __enter__(self) -> SyncLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read(fd: int) -> dict:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, 4096)
        return json.loads(data.decode() or "{}")
    except (OSError, ValueError):
        return {}


def _write(fd: int, data: dict) -> None:
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, json.dumps(data).encode())


def lock_path(state_dir: Path, graph_key: str) -> Path:
    return Path(state_dir) / "locks" / f"sync-{graph_key}.lock"


def sync_lock(state_dir: Path, graph_key: str, display: str) -> SyncLock:
    return SyncLock(lock_path(state_dir, graph_key), display)


def holder_gone(state_dir: Path, graph_key: str, pid: int | None = None) -> bool:
    """Whether the process of a run still marked running on ``graph_key`` is gone: the lock was
    released (a run finishes before its lock is), or the process (``pid``, else the lock's
    holder) no longer runs on this host (a pid reused since by another process, told by its start
    time, counts as gone). Read without taking the lock, so a sync starting meanwhile is never in
    the way; False when it cannot tell (no lock file, another host)."""
    try:
        holder = json.loads(lock_path(state_dir, graph_key).read_bytes().decode() or "{}")
    except (OSError, ValueError):
        return False
    if not isinstance(holder, dict) or not holder:
        return False
    if not holder.get("active"):
        return True
    if holder.get("host") != socket.gethostname():
        return False
    pid = pid or holder.get("pid")
    if not isinstance(pid, int):
        return False
    if pid == holder.get("pid") and holder.get("start"):
        return _proc_start_time(pid) != holder["start"]
    return _proc_start_time(pid) is None
