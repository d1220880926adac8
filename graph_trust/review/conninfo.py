"""PostgreSQL connection strings, read by libpq and shown without their secrets.

A review DB on PostgreSQL is named by a URL (``postgresql://user:pw@host:5432/db?sslmode=require``)
or a key=value string (``host=db.example dbname=review password='...'``), exactly as libpq takes
them. Both are parsed by libpq itself (psycopg's :func:`psycopg.conninfo.conninfo_to_dict`), never
by a pattern, and :func:`shown` is the one place that renders one for people: user, host(s),
port(s) and database, a password only as ``***``, nothing else (no query parameter, no option).

A string libpq would read differently than it looks (a password with an unencoded ``@``, ``/``
or ``%`` spills into the host, port or database name) is refused with a message that quotes no
part of it, and so is one libpq cannot parse: its error text quotes the string.

Every password seen (and the whole string) is also remembered for the process
(:func:`graph_trust.errors.scrub`): the CLI's error lines, its ``--debug`` tracebacks and its log
records pass through it, so a driver message that quotes a connection string cannot carry the
secret out either.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from graph_trust.errors import SECRET_MASK as MASK
from graph_trust.errors import ConfigError, scrub
from graph_trust.errors import remember_secret as remember

SECRET_KEYS = ("password", "sslpassword")
URL_PREFIXES = ("postgresql://", "postgres://")


@dataclass(frozen=True)
class PgAddress:
    """A parsed PostgreSQL connection string: ``params`` as libpq read them (secrets included,
    never shown: repr hides them) and ``display``, :func:`shown`'s rendering."""

    params: dict[str, str] = field(repr=False)
    display: str


def _conninfo() -> Any:
    try:
        from psycopg import conninfo
    except ImportError:
        raise ConfigError("a PostgreSQL review DB needs psycopg: pip install 'graph-trust[postgres]'") from None
    return conninfo


def looks_like_conninfo(text: str) -> bool:
    """Whether ``text`` is a libpq key=value connection string (its first word a libpq keyword)."""
    key, sep, _ = text.partition("=")
    if not sep or not key.strip().isidentifier():
        return False
    try:
        from psycopg import pq
    except ImportError:
        return key.strip() in ("host", "hostaddr", "port", "dbname", "user", "password", "service")
    return key.strip().encode() in {d.keyword for d in pq.Conninfo.get_defaults()}


def parse(text: str) -> PgAddress:
    """``text`` (a ``postgresql://`` URL or a key=value string) as libpq reads it; a ConfigError that
    quotes none of it when libpq cannot read it, or would read a part as something it is not."""
    try:
        params = _conninfo().conninfo_to_dict(text)
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - libpq's message quotes the string: only its gist is kept
        remember(text)  # (it may hold a password libpq could not find)
        raise ConfigError(f"review DB address is not a PostgreSQL connection string libpq can read "
                          f"({_gist(exc)}); {_HOW}") from None
    params = {k: str(v) for k, v in params.items() if v is not None}
    for k in SECRET_KEYS:
        if params.get(k):
            remember(params[k])
            remember(text)
    problem = _misread(params, url=text.lstrip().startswith(URL_PREFIXES))
    if problem:
        raise ConfigError(f"review DB address {_shown_safely(params)}: {problem}; {_HOW}")
    return PgAddress(params, shown(params))


_HOW = ("percent-encode @ : / ? # % and spaces in a URL's user name and password (or put the password in "
        "PGPASSWORD or ~/.pgpass), and quote values with spaces in key=value form")


def _gist(exc: Exception) -> str:
    """libpq's parse error up to the first thing it quotes (the string, or a piece of the password,
    which may itself hold quotes): nothing of the string is kept."""
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    head = text.split('"', 1)[0].rstrip(" :")
    return (head + (" …" if head != text else "")) or type(exc).__name__


def _is_host(h: str) -> bool:
    if h.startswith("/") or h.startswith("@"):  # a socket directory (@: Linux's abstract namespace)
        return h.startswith("/") and "@" not in h
    try:
        ipaddress.ip_address(h)
        return True
    except ValueError:
        pass
    labels = h.rstrip(".").split(".")
    return bool(h) and all(lab and lab.replace("-", "").replace("_", "").isalnum() and lab.isascii()
                           for lab in labels)


def _misread(params: dict[str, str], *, url: bool) -> str | None:
    """What libpq read as something it cannot be (a sign of an unencoded character), or None."""
    for key in ("host", "hostaddr"):
        if params.get(key) and not all(_is_host(h) for h in params[key].split(",") if h):
            return f"its {key} is not a host name, address or socket directory"
    if params.get("port") and not all(p.strip().isdigit() for p in params["port"].split(",") if p):
        return "its port is not a number"
    if url and any(ch in params.get("dbname", "") for ch in "@/"):
        return "its database name holds @ or /"
    return None


def _shown_safely(params: dict[str, str]) -> str:
    """The rendering of a misread address: the user only (its host, port and database may be
    pieces of the password)."""
    user = params.get("user")
    return f"postgresql://{quote(user, safe='') + '@' if user else ''}…"


def shown(params: dict[str, str]) -> str:
    """A connection's parameters for people: ``postgresql://user[:***]@host:port/dbname`` (a socket
    directory as ``?host=``, a service as ``?service=``); no other parameter, no secret."""
    user = quote(params.get("user", ""), safe="")
    secret = ":" + MASK if any(params.get(k) for k in SECRET_KEYS) else ""
    hosts = [h for h in params.get("host", params.get("hostaddr", "")).split(",")]
    ports = params.get("port", "").split(",")
    query = []
    netloc_hosts = []
    for i, h in enumerate(hosts):
        port = ports[i] if i < len(ports) else ports[-1]
        if h.startswith(("/", "@")):
            query.append(f"host={quote(h, safe='/@')}")
            if port:
                query.append(f"port={port}")
            continue
        shown_host = f"[{h}]" if ":" in h else h
        netloc_hosts.append(shown_host + (f":{port}" if port else ""))
    if params.get("service"):
        query.append(f"service={quote(params['service'], safe='')}")
    userinfo = f"{user}{secret}@" if user or secret else ""
    db = quote(params.get("dbname", ""), safe="")
    return f"postgresql://{userinfo}{','.join(netloc_hosts)}/{db}" + (f"?{'&'.join(query)}" if query else "")


__all__ = ["MASK", "PgAddress", "looks_like_conninfo", "parse", "scrub", "shown"]
