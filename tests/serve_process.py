"""``graph-trust review serve`` as a real process for the tests that need one (signals, the
browser): started on a free 127.0.0.1 port with a clean environment, waited for until it answers."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from cli_helpers import clean_env
from proc import sigint_as_ctrl_c
from proc import sigint_ignored as ignored


def serve(args: list[str], port: int, log: Path, *, sigint_ignored: bool = False) -> subprocess.Popen:
    """``graph-trust review serve ARGS --port PORT``, its output in ``log``. SIGINT reaches it as
    it does from a terminal, even when the test suite itself was started with SIGINT ignored (a
    background job of a non-interactive shell), unless ``sigint_ignored``."""
    return subprocess.Popen([sys.executable, "-m", "graph_trust", "review", "serve", *args, "--port", str(port)],
                            env=clean_env(), stdout=log.open("w"), stderr=subprocess.STDOUT,
                            preexec_fn=ignored if sigint_ignored else sigint_as_ctrl_c)


def wait_until_up(proc: subprocess.Popen, url: str, log: Path, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            pytest.fail(f"graph-trust review serve exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    pytest.fail(f"graph-trust review serve did not answer within {timeout:g} s: {log.read_text()[-2000:]}")


def wait_for_line(proc: subprocess.Popen, log: Path, text: str, timeout: float = 60) -> None:
    """Until ``text`` is in the process's output."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if text in log.read_text():
            return
        if proc.poll() is not None:
            pytest.fail(f"graph-trust review serve exited with {proc.returncode}: {log.read_text()[-2000:]}")
        time.sleep(0.01)
    pytest.fail(f"graph-trust review serve did not print {text!r} within {timeout:g} s: {log.read_text()[-2000:]}")


def stop(proc: subprocess.Popen, sig: int, timeout: float = 30) -> int:
    """Send ``sig``, wait for the exit status (a process that outlives ``timeout`` is killed: -9)."""
    proc.send_signal(sig)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()
