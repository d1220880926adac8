"""Parse the one graph address used everywhere (``--graph``, ``graph.uri``, ``GRAPH_TRUST_GRAPH``).

* ``embedded:PATH`` — FalkorDB started by graph-trust on a unix socket, data under PATH.
* ``falkordb://[user:pass@]host:port`` — an external FalkorDB.
* ``bolt://``, ``neo4j://``, ``neo4j+s://`` (and ``+ssc``) — Neo4j through the official driver.

Credentials are kept as :class:`pydantic.SecretStr` and never appear in ``repr`` or ``display``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pydantic import SecretStr

from graph_trust.errors import ConfigError

NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


@dataclass(frozen=True)
class GraphAddress:
    """A parsed graph address. ``kind`` is 'embedded', 'falkordb' or 'neo4j'."""

    kind: str
    uri: str = ""  # for neo4j: the URI without credentials
    path: Path | None = None
    host: str | None = None
    port: int | None = None
    user: str | None = None
    password: SecretStr | None = field(default=None, repr=False)

    @property
    def dialect(self) -> str:
        return "neo4j" if self.kind == "neo4j" else "falkordb"

    @property
    def display(self) -> str:
        """Safe to print: no credentials."""
        if self.kind == "embedded":
            return f"embedded:{self.path}"
        if self.kind == "falkordb":
            return f"falkordb://{self.host}:{self.port}"
        return self.uri


def parse_address(
    uri: str, user: str | None = None, password: SecretStr | str | None = None
) -> GraphAddress:
    """Parse ``uri``; ``user``/``password`` (config or env) fill in what the URI lacks."""
    if not uri or not uri.strip():
        raise ConfigError("config key graph.uri: empty graph address")
    uri = uri.strip()
    if isinstance(password, str):
        password = SecretStr(password)
    if uri.startswith("embedded:"):
        path = uri[len("embedded:") :]
        if not path:
            raise ConfigError("config key graph.uri: embedded: needs a path, e.g. embedded:.graph-trust/graph")
        return GraphAddress(kind="embedded", path=Path(path).expanduser())
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"config key graph.uri: cannot parse graph address ({exc})") from None
    scheme = parts.scheme.lower()
    url_user = unquote(parts.username) if parts.username else None
    url_pass = SecretStr(unquote(parts.password)) if parts.password else None
    if scheme == "falkordb":
        if not parts.hostname:
            raise ConfigError("config key graph.uri: falkordb:// address needs a host")
        return GraphAddress(
            kind="falkordb",
            host=parts.hostname,
            port=port or 6379,
            user=url_user or user,
            password=url_pass or password,
        )
    if scheme in NEO4J_SCHEMES:
        if not parts.hostname:
            raise ConfigError(f"config key graph.uri: {scheme}:// address needs a host")
        netloc = parts.hostname + (f":{port}" if port else "")
        clean = f"{scheme}://{netloc}{parts.path or ''}"
        return GraphAddress(
            kind="neo4j",
            uri=clean,
            host=parts.hostname,
            port=port or 7687,
            user=url_user or user,
            password=url_pass or password,
        )
    shown = scheme or uri.split(":", 1)[0]
    raise ConfigError(
        f"config key graph.uri: unknown graph address scheme {shown!r}; use embedded:PATH, "
        "falkordb://host:port, bolt://host:port or neo4j://host:port"
    )
