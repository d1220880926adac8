"""Writes by anyone else: the graphs' trust-state tokens as this review source's last run left them.

Every write of trust state gives the graph a fresh token (:mod:`graph_trust.graph.trust_state`).
A run records, per review source and graph, the token it left (``sync_tokens``); the next run of
that source reads the tokens first, and a graph whose token differs was written by someone else
meanwhile (another review DB's sync, the demo, a sync from another state directory, a rollback, a
relink). The run then compares every edge with its desired trust against a shadow rebuilt from a
full scan and re-aggregates every entity, so one normal run converges whatever was written.
A dry run, or a run that fails, records nothing: the next run compares everything again.
"""

from __future__ import annotations

from typing import Any

from graph_trust.graph.trust_state import read_token


async def read_tokens(graphs: Any, names: list[str]) -> dict[str, str | None]:
    """The token of each existing graph of ``names`` (None: no trust state written yet)."""
    return {name: await read_token(graphs(name)) for name in names if graphs.exists(name)}


async def written_elsewhere(store: Any, source: str, graphs: Any, names: list[str]) -> list[str]:
    """The graphs of ``names`` whose token is not the one this source's last run left (a graph
    with no trust state and none on record is not one of them)."""
    left = dict(store.rows("tokens_left", source=source))
    return sorted(name for name, token in (await read_tokens(graphs, names)).items() if token != left.get(name))


async def record(store: Any, source: str, graphs: Any, names: list[str]) -> None:
    """Record the tokens this source's run leaves on ``names`` (read after its last write)."""
    tokens = await read_tokens(graphs, names)
    with store.tx():
        for name, token in tokens.items():
            store.do("leave_token", source=source, graph=name, token=token)


__all__ = ["read_tokens", "record", "written_elsewhere"]
