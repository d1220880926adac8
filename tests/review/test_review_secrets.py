"""A review DB's password never shows: generated PostgreSQL connection strings (URLs with the
password in the user info or as ``?password=``, raw or percent-encoded, key=value strings quoted
or not, malformed hosts) holding generated passwords (every special character) are given to the
CLI (in process, and a few in a subprocess with ``--debug``), the review page and sync; no output,
page, JSON, traceback or state store holds the password or any piece of it that could name it.

Every password is ``prefix + marker + suffix``: the marker is 8 random letters and digits between
a ``Q`` and a ``7``, the rest any characters; a password split at any special character leaves the marker in one piece,
so a marker in the output is a leak of (part of) the password.
"""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import string
from urllib.parse import quote

import pytest
from cli_helpers import run_cli
from conftest import new_pg_database
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from sync_fixtures import FACTS, build, row

from graph_trust import api
from graph_trust.cli.main import main
from graph_trust.config import load_settings
from graph_trust.errors import ConfigError, GraphTrustError
from graph_trust.review.db import display_location, parse_location
from graph_trust.sync.review_db import insert_rows

SPECIALS = " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~é€\t"
# (framed by a capital and a digit: random letters alone may spell a word the output holds anyway)
MARKER = st.text(alphabet=string.ascii_letters + string.digits, min_size=8, max_size=8).map(lambda m: f"Q{m}7")
NOISE = st.text(alphabet=SPECIALS + "ab", min_size=0, max_size=6)
HOSTS = ["127.0.0.1:1", "[::1]:1", "localhost:1", "[::1", "[::1]x:5", "h:1:2", "db.example.:notaport"]


@st.composite
def passwords(draw) -> tuple[str, str]:
    marker = draw(MARKER)
    return draw(NOISE) + marker + draw(NOISE), marker


def _kv_quoted(v: str) -> str:
    return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"


@st.composite
def addresses(draw, socket_dir: str) -> tuple[str, str, str]:
    """(connection string, password, marker): the server's socket (a real connection: its
    authentication is trust, so any password gets in) or a host nothing listens on, or a malformed one."""
    pw, marker = draw(passwords())
    host = draw(st.sampled_from(["socket", *HOSTS]))
    enc = quote(pw, safe="")
    form = draw(st.sampled_from(["userinfo", "userinfo-raw", "query", "query-raw", "kv", "kv-raw"]))
    db = "secrets"
    if form.startswith("kv"):
        where = f"host={socket_dir}" if host == "socket" else "host=" + host.split(":")[0] + " port=1"
        value = _kv_quoted(pw) if form == "kv" else pw
        return f"{where} user=postgres password={value} dbname={db}", pw, marker
    netloc_host, query = ("", f"host={quote(socket_dir, safe='/')}") if host == "socket" else (host, "")
    if form.startswith("userinfo"):
        secret = enc if form == "userinfo" else pw
        url = f"postgresql://postgres:{secret}@{netloc_host}/{db}"
    else:
        url = f"postgresql://postgres@{netloc_host}/{db}"
        query = "&".join(q for q in (query, f"password={enc if form == 'query' else pw}") if q)
    return url + (f"?{query}" if query else ""), pw, marker


def _clean(text: str, pw: str, marker: str) -> bool:
    return pw not in text and marker not in text


def _cli(*args: str) -> tuple[int, str]:
    """The CLI's entry point in this process: (exit code, stdout + stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue() + err.getvalue()


@pytest.fixture
def pg_socket(pg_server) -> str:
    """The session server's socket directory; its database ``secrets`` is a review DB (so the
    connections that get in run the commands and pages through, not only their errors)."""
    if not _has_db(pg_server, "secrets"):
        api.init_review_db(new_pg_database(pg_server, "secrets"))
    return pg_server.get_uri().split("host=", 1)[1]


def _has_db(pg_server, name: str) -> bool:
    import psycopg

    with psycopg.connect(pg_server.get_uri(), autocommit=True) as con:
        return bool(con.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchall())


def test_the_one_rendering_names_user_host_port_and_database_only():
    cases = {
        "postgresql://u:secret@h:5/db": "postgresql://u:***@h:5/db",
        "postgresql://u@h/db?password=s3cret&sslmode=require&application_name=x": "postgresql://u:***@h/db",
        "host=db.example port=5433 user=alice password='a b' dbname=review": "postgresql://alice:***@db.example:5433/review",
        "postgresql://postgres@/review?host=/run/postgresql": "postgresql://postgres@/review?host=/run/postgresql",
        "postgresql://u@[::1]:5/db": "postgresql://u@[::1]:5/db",
        "review.sqlite3": "review.sqlite3",
    }
    for raw, shown in cases.items():
        assert parse_location(raw).display == shown == display_location(raw)
        assert "secret" not in repr(parse_location(raw))
    for bad in ("postgresql://u:p@ss@h/db", "postgresql://u:p/ss@h/db", "postgresql://u:p%ss@h/db",
                "postgresql://u@[::1/db", "host=h password=se cret dbname=d", "host=h password=a b=c",
                'postgresql://postgres:]/\t^"%Q00017@/db'):  # (libpq quotes a piece that holds a quote)
        with pytest.raises(ConfigError) as exc:
            parse_location(bad)
        for piece in ("ss@h", "ss@", "p%ss", "/ss", "[::1/db", "cret", "b=c", "Q00017", bad):
            assert piece not in str(exc.value), (bad, str(exc.value))
        assert display_location(bad) == "(a bad address)"


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_command_shows_the_password(pg_socket, tmp_path, monkeypatch, data):
    url, pw, marker = data.draw(addresses(pg_socket))
    monkeypatch.chdir(tmp_path)
    for var in ("GRAPH_TRUST_CONFIG", "GRAPH_TRUST_REVIEW_DB", "GRAPH_TRUST_GRAPH", "NEO4J_URI"):
        monkeypatch.delenv(var, raising=False)
    runs = [
        ("review", "init", "--review-db", url),
        ("review", "init", url, "--json"),
        ("review", "history", "--review-db", url, "--json", "--debug"),
        ("review", "log", "--review-db", url),
        ("review", "copy", url, str(tmp_path / "copy.sqlite3"), "--json"),
        ("review", "copy", str(tmp_path / "nothing.sqlite3"), url, "--debug"),
        ("sync", "--review-db", url, "--graph", "falkordb://127.0.0.1:1", "--json", "--debug"),
    ]
    for args in runs:
        code, out = _cli(*args)
        assert _clean(out, pw, marker), (args, out)
    # the environment and the config file are sources too
    monkeypatch.setenv("GRAPH_TRUST_REVIEW_DB", url)
    code, out = _cli("review", "history", "--debug")
    assert _clean(out, pw, marker), out
    monkeypatch.delenv("GRAPH_TRUST_REVIEW_DB")
    (tmp_path / "graph-trust.yaml").write_text(json.dumps({"review": {"url": url}}))
    code, out = _cli("review", "history", "--json")
    assert _clean(out, pw, marker), out
    (tmp_path / "graph-trust.yaml").unlink()
    # the library's errors say the same
    try:
        api.review_history(load_settings(environ={}), review_db=url)
    except GraphTrustError as exc:
        assert _clean(str(exc), pw, marker)


NASTY = ["p@ss/w%rd#1?Zq8Xw2Lm0P", "a'b\\c d=e Zq8Xw2Lm0P", "[::1] Zq8Xw2Lm0P @host:5/db?x=y"]


COMMANDS = [("review", "init", "--debug"), ("review", "queue", "--debug", "--json"), ("sync", "--debug")]


def test_a_subprocess_with_debug_shows_no_password(tmp_path):
    forms = (lambda pw: f"postgresql://alice:{pw}@127.0.0.1:1/review",
             lambda pw: f"postgresql://alice@127.0.0.1:1/review?password={pw}",
             lambda pw: f"postgresql://alice:{quote(pw, safe='')}@127.0.0.1:1/review",
             lambda pw: f"host=127.0.0.1 port=1 user=alice password={_kv_quoted(pw)} dbname=review",
             lambda pw: f"host=[::1 password={pw} dbname=review")
    for i, form in enumerate(forms):  # each form through one command (by flag or by environment), in turn
        pw = NASTY[i % len(NASTY)]
        url, args = form(pw), COMMANDS[i % len(COMMANDS)]
        r = run_cli(*args, *(("--review-db", url) if i % 2 else ()), env={"GRAPH_TRUST_REVIEW_DB": url}, cwd=tmp_path)
        assert r.code == 2 and r.err.strip().splitlines()[-1].startswith("error: "), (args, r.err)
        assert _clean(r.out + r.err, pw, "Zq8Xw2Lm0P"), (url, args, r.err)


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_page_shows_no_password(pg_socket, settings, data):
    url, pw, marker = data.draw(addresses(pg_socket))
    settings.review.page.reviewer = "bob"
    app = api.review_page_app(settings, review_db=url)  # (it opens the graph in its own event loop)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        for path in ("/", "/fact/x", "/history"):
            page = c.get(path).text
            assert _clean(page, pw, marker), (path, page)


async def test_the_state_store_and_runs_hold_no_password(pg_server, settings, graph, unique, tmp_path):
    base = new_pg_database(pg_server, f"s_{unique}").split("?")[0].rsplit("/", 1)[1]
    sock = pg_server.get_uri().split("host=", 1)[1]
    group = f"g_{unique}"
    uuids = await build(graph, group, FACTS[:2])
    for pw in ("Zq8Xw2Lm0P@/#?%", "a'b Zq8Xw2Lm0P"):
        url = f"postgresql://postgres:{quote(pw, safe='')}@/{base}?host={quote(sock, safe='/')}"
        api.init_review_db(url)
        insert_rows(url, [row("c1", uuids[FACTS[0].fact], "promoted", group)])
        report = await api.sync(settings, review_db=url, graph=graph)
        assert report.status == "ok"
        code, out = _cli("runs", "--json", "--config", _config(tmp_path, settings))
        assert code == 0 and "Zq8Xw2Lm0P" not in out
        for f in settings.state_dir.rglob("*"):
            if f.is_file():
                assert b"Zq8Xw2Lm0P" not in f.read_bytes(), f
        with sqlite3.connect(settings.state_dir / "state.sqlite3") as con:
            dump = "\n".join(con.iterdump())
        assert "Zq8Xw2Lm0P" not in dump


def _config(tmp_path, settings) -> str:
    p = tmp_path / "cfg.yaml"
    p.write_text(json.dumps({"state_dir": str(settings.state_dir), "graph": {"uri": settings.graph.uri,
                                                                            "database": settings.graph.database}}))
    return str(p)
