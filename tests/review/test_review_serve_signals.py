"""``graph-trust review serve`` stops the same way whenever the signal comes: Ctrl-C exits 130 and
SIGTERM 143, after a graceful shutdown once the server has started, whether the signal arrives
while it starts up or while it serves (uvicorn's own signal handlers, which exit 0, are not used)."""

from __future__ import annotations

import random
import signal
import socket
import time

import pytest
from bolt_server import free_port
from serve_process import serve, stop, wait_for_line, wait_until_up

from graph_trust import api

STARTING = "review page on http://"  # logged just before the server starts


def _start(tmp_path, embedded_path, name: str, *, sigint_ignored: bool = False):
    review = tmp_path / f"{name}.sqlite3"
    if not review.exists():
        api.init_review_db(review)
    port, log = free_port(), tmp_path / f"{name}.log"
    proc = serve(["--review-db", str(review), "--graph", f"embedded:{embedded_path}"], port, log,
                 sigint_ignored=sigint_ignored)
    return proc, port, log


def _port_is_free(port: int) -> bool:
    """Nothing listens on ``port`` any more (SO_REUSEADDR: the closed connections' TIME_WAIT does
    not count, a listener does)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            s.listen()
        except OSError:
            return False
    return True


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_to_a_serving_page_shuts_it_down_gracefully(falkor_server, embedded_path, tmp_path, sig, code):
    proc, port, log = _start(tmp_path, embedded_path, "serving")
    wait_until_up(proc, f"http://127.0.0.1:{port}/", log)
    assert stop(proc, sig) == code
    out = log.read_text()
    assert "Application shutdown complete" in out and "Traceback" not in out
    assert out.strip().splitlines()[-1] == ("aborted" if code == 130 else "terminated")
    assert _port_is_free(port)


def test_ctrl_c_while_the_page_starts_exits_130(falkor_server, embedded_path, tmp_path):
    """From the moment the CLI is about to start the server until it answers, at random delays."""
    rng = random.Random(27)
    for i, delay in enumerate([0.0, *(rng.uniform(0, 0.5) for _ in range(2))]):
        proc, port, log = _start(tmp_path, embedded_path, f"starting-{i}")
        wait_for_line(proc, log, STARTING)
        time.sleep(delay)
        assert stop(proc, signal.SIGINT) == 130, log.read_text()
        out = log.read_text()
        assert "Traceback" not in out and out.strip().splitlines()[-1] == "aborted"
        assert _port_is_free(port)


def test_the_server_leaves_the_signal_handlers_alone():
    """uvicorn's own handlers (graceful exit with 0, then re-raising the signal) would race the
    CLI's: the server the page runs on installs none."""
    import uvicorn

    from graph_trust.review.web.app import _server

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with _server(uvicorn.Config(lambda *_: None)).capture_signals():
        assert {s: signal.getsignal(s) for s in before} == before


def test_started_with_sigint_ignored_it_keeps_serving_and_sigterm_stops_it(falkor_server, embedded_path, tmp_path):
    """A background job of a non-interactive shell (``graph-trust review serve &`` in a script)
    inherits an ignored SIGINT: the page honours that and goes on serving; SIGTERM stops it."""
    proc, port, log = _start(tmp_path, embedded_path, "background", sigint_ignored=True)
    url = f"http://127.0.0.1:{port}/"
    wait_until_up(proc, url, log)
    proc.send_signal(signal.SIGINT)
    time.sleep(1)
    assert proc.poll() is None
    wait_until_up(proc, url, log)  # still answering
    assert stop(proc, signal.SIGTERM) == 143
    out = log.read_text()
    assert "Application shutdown complete" in out and out.strip().splitlines()[-1] == "terminated"
    assert _port_is_free(port)
