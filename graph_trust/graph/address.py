"""Parse the one graph address used everywhere (``--graph``, ``graph.uri``, ``GRAPH_TRUST_GRAPH``).

* ``embedded:PATH`` — FalkorDB started by graph-trust on a unix socket, data under PATH.
* ``falkordb://[user:pass@]host:port`` — an external FalkorDB.
* ``bolt://``, ``neo4j://``, ``neo4j+s://`` (and ``+ssc``) — Neo4j through the official driver.

Which schemes exist is what the backends (:mod:`graph_trust.graph.backends`) declare.
Credentials are kept as :class:`pydantic.SecretStr` and never appear in ``repr`` or ``display``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pydantic import SecretStr

from graph_trust.errors import ConfigError
from graph_trust.graph import backends
from graph_trust.graph.backends import Backend


@dataclass(frozen=True)
class GraphAddress:
    """A parsed graph address. ``kind`` is 'embedded', 'falkordb' or 'neo4j' (a kind a backend serves)."""

    kind: str
    uri: str = ""  # the URI without credentials
    path: Path | None = None
    host: str | None = None
    port: int | None = None
    user: str | None = None
    password: SecretStr | None = field(default=None, repr=False)

    @property
    def backend(self) -> Backend:
        return backends.for_kind(self.kind)

    @property
    def dialect(self) -> str:
        return self.backend.dialect

    @property
    def display(self) -> str:
        """Safe to print: no credentials."""
        return self.backend.display(self)


def _examples() -> str:
    shown = [e for b in backends.BACKENDS for e in b.examples]
    return ", ".join(shown[:-1]) + " or " + shown[-1] if len(shown) > 1 else "".join(shown)


def parse_address(
    uri: str, user: str | None = None, password: SecretStr | str | None = None
) -> GraphAddress:
    """Parse ``uri``; ``user``/``password`` (config or env) fill in what the URI lacks."""
    if not uri or not uri.strip():
        raise ConfigError("config key graph.uri: empty graph address")
    uri = uri.strip()
    if isinstance(password, str):
        password = SecretStr(password)
    for b in backends.BACKENDS:
        if b.path_prefix and uri.startswith(b.path_prefix + ":"):
            path = uri[len(b.path_prefix) + 1 :]
            if not path:
                raise ConfigError(f"config key graph.uri: {b.path_prefix}: needs a path, "
                                  f"e.g. {b.path_prefix}:.graph-trust/graph")
            return GraphAddress(kind=b.path_prefix, path=Path(path).expanduser())
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"config key graph.uri: cannot parse graph address ({exc})") from None
    scheme = parts.scheme.lower()
    backend = backends.for_scheme(scheme)
    if backend is None:
        shown = scheme or uri.split(":", 1)[0]
        raise ConfigError(f"config key graph.uri: unknown graph address scheme {shown!r}; use {_examples()}")
    if not parts.hostname:
        raise ConfigError(f"config key graph.uri: {scheme}:// address needs a host")
    netloc = parts.hostname + (f":{port}" if port else "")
    return GraphAddress(
        kind=backend.url_kind,
        uri=f"{scheme}://{netloc}{parts.path or ''}",
        host=parts.hostname,
        port=port or backend.default_port,
        user=(unquote(parts.username) if parts.username else None) or user,
        password=(SecretStr(unquote(parts.password)) if parts.password else None) or password,
    )
