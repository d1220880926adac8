"""SIGTERM (a scheduler's timeout, ``kill``) stops a command like Ctrl-C: clean-up runs, so the
embedded FalkorDB a command started is stopped, and the exit code says it was terminated."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from cli_helpers import clean_env
from proc import alive, children, read_proc, sigint_as_ctrl_c
from proc import sigint_ignored as ignored


@pytest.mark.parametrize("sigint_ignored", [False, True], ids=["sigint-default", "sigint-ignored"])
def test_sigterm_stops_the_command_and_the_embedded_server_it_started(sigint_ignored):
    """Also when SIGINT is ignored, as for a job a non-interactive shell started with ``&``."""
    env = clean_env()
    # eval --bundled builds a temporary embedded FalkorDB per draw: a command that holds a server
    proc = subprocess.Popen([sys.executable, "-m", "graph_trust", "eval", "--bundled", "--draws", "3",
                             "--rank", "trust"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=ignored if sigint_ignored else sigint_as_ctrl_c)
    try:
        deadline, server = time.monotonic() + 120, None
        while server is None and time.monotonic() < deadline and proc.poll() is None:
            server = next((c for c in children(proc.pid)
                           if "redis-server" in read_proc(f"/proc/{c}/cmdline")), None)
            time.sleep(0.2)
        assert server is not None, "the eval never started its embedded server"
        time.sleep(1.0)  # let it get going
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    assert "terminated" in err and "Traceback" not in err, err
    deadline = time.monotonic() + 30
    while alive(server) and time.monotonic() < deadline:
        time.sleep(0.2)
    outlived = alive(server)
    if outlived:
        os.kill(server, signal.SIGKILL)  # leave nothing running, then fail
    assert not outlived, f"the embedded server outlived the command: {err}"
