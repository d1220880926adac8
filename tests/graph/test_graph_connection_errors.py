"""A graph that cannot be reached is one line naming the cause and what to check, for Bolt
(``bolt://``, ``neo4j://`` and their TLS schemes) and FalkorDB (``falkordb://``) addresses: the
connection refused (a port nothing listens on), a host name that does not resolve (``.invalid``
never does), a failed TLS handshake (a TLS scheme against ArcadeDB's plain Bolt endpoint), a port
where something else hangs up at once, and a rejected password (ArcadeDB's Bolt endpoint; a FalkorDB started with ``requirepass``). Each is
produced for real here; none is mocked. No password ever appears in the line."""

from __future__ import annotations

import socket
import threading

import pytest
from bolt_server import free_port
from cli_helpers import run_cli
from test_cli_bad_input import SECRET, password_falkordb  # noqa: F401 - the fixture, used by name

from graph_trust.config import load_settings
from graph_trust.errors import GraphAuthError, GraphConnectionError
from graph_trust.graph.connection import open_graph

REFUSED = ("connection refused (nothing listens on that port)", "check the host and port, and that the server is running")
DNS = ("the host name does not resolve (DNS lookup failed)", "check the host name in the address")
TLS = ("the TLS handshake failed", "use bolt:// or neo4j:// for one without")
CLOSED = ("the server closed the connection", "check that the port is the graph server's")
AUTH = ("authentication failed for graph", "check the user and password", "graph.password", "NEO4J_PASSWORD")
WRONG = "Wr0ng-pw-4c1e9a"


async def _open(uri: str, tmp_path, **graph) -> BaseException:
    settings = load_settings(overrides={"graph.uri": uri, "state_dir": str(tmp_path / "state"), "graph.timeout_s": 5,
                                        **{f"graph.{k}": v for k, v in graph.items()}}, environ={})
    with pytest.raises(GraphConnectionError) as err:
        async with open_graph(settings):
            pass
    return err.value


def _says(err: BaseException, uri: str, parts: tuple[str, ...]) -> None:
    text = str(err)
    assert "\n" not in text and text.startswith(("cannot reach graph ", "authentication failed for graph ")), text
    assert uri.split("@")[-1].split("//")[-1] in text, text
    for part in parts:
        assert part in text, (part, text)
    assert WRONG not in text and SECRET not in text


@pytest.mark.parametrize("scheme", ["bolt", "neo4j", "falkordb"])
async def test_connection_refused(scheme, tmp_path):
    uri = f"{scheme}://127.0.0.1:{free_port()}"
    _says(await _open(uri, tmp_path), uri, REFUSED)


@pytest.mark.parametrize("uri", ["bolt://nonexistent.invalid:7687", "neo4j://nonexistent.invalid",
                                 "neo4j+s://nonexistent.invalid", "falkordb://nonexistent.invalid:6379"])
async def test_host_name_that_does_not_resolve(uri, tmp_path):
    _says(await _open(uri, tmp_path), uri, DNS)


@pytest.fixture
def hangs_up():
    """A port where something accepts connections and closes them at once (not a graph server)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:  # closed: the test is over
                return
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    yield srv.getsockname()[1]
    srv.close()


@pytest.mark.parametrize("scheme", ["bolt", "neo4j", "falkordb"])
async def test_a_port_that_is_not_the_graph_servers(scheme, hangs_up, tmp_path):
    uri = f"{scheme}://127.0.0.1:{hangs_up}"
    _says(await _open(uri, tmp_path), uri, CLOSED)


@pytest.mark.bolt
@pytest.mark.parametrize("scheme", ["bolt+s", "bolt+ssc", "neo4j+s"])
async def test_tls_scheme_against_a_server_without_tls(bolt_server, scheme, tmp_path):
    if not bolt_server.arcadedb:
        pytest.skip("the real Neo4j under test may well have TLS")
    uri = f"{scheme}://{bolt_server.uri.split('//')[1]}"
    _says(await _open(uri, tmp_path, user=bolt_server.user, password=bolt_server.password), uri, TLS)


@pytest.mark.bolt
async def test_wrong_password_over_bolt(bolt_server, tmp_path):
    """One failed login of the server's real user (ArcadeDB locks a user out after 5, Neo4j after 3)."""
    err = await _open(bolt_server.uri, tmp_path, user=bolt_server.user, password=WRONG,
                      database=bolt_server.database)
    assert isinstance(err, GraphAuthError)
    _says(err, bolt_server.uri, AUTH)


async def test_wrong_password_on_falkordb(password_falkordb, tmp_path):  # noqa: F811 - the imported fixture
    uri = f"falkordb://127.0.0.1:{password_falkordb}"
    err = await _open(uri, tmp_path, user="default", password=WRONG)
    assert isinstance(err, GraphAuthError)
    _says(err, uri, AUTH)


@pytest.mark.parametrize(("uri", "parts"), [
    ("bolt://127.0.0.1:{port}", REFUSED), ("falkordb://nonexistent.invalid:6379", DNS)])
def test_the_cli_says_it_in_one_line(uri, parts, tmp_path):
    uri = uri.format(port=free_port())
    r = run_cli("init", "--graph", uri, cwd=tmp_path)
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1, r.err
    assert r.err.startswith(f"error: cannot reach graph {uri}: ") and all(p in r.err for p in parts), r.err
