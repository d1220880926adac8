"""Relink's reads of the graph: which evidence uuids no edge carries, the groups' edges (in
uuid pages, into :class:`~graph_trust.sync.relink.matching.EdgeIndex` es), and stored fact
embeddings for the edges that need scoring."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from graph_trust.sync.relink.matching import EdgeIndex

PAGE_SIZE = 20000  # rows per edge page: fewer keyset sorts, ~20 MB of rows in flight
EXISTS_BATCH = 5000


async def orphaned_ids(conn: Any, uuids: list[str]) -> set[str]:
    """The uuids in ``uuids`` that no ``RELATES_TO`` edge of ``conn``'s graph carries."""
    present: set[str] = set()
    unique = sorted(set(uuids))
    for k in range(0, len(unique), EXISTS_BATCH):
        rows = await conn.query("edge_uuids_exist", uuids=unique[k : k + EXISTS_BATCH])
        present.update(r["uuid"] for r in rows)
    return set(unique) - present


async def read_edge_indexes(
    conn: Any,
    group_ids: list[str] | None,
    *,
    key: str | None | Callable[[dict], str | None] = None,
    page_size: int = PAGE_SIZE,
) -> tuple[dict[str | None, EdgeIndex], int]:
    """Scan ``RELATES_TO`` edges (of ``group_ids``, or all) in uuid pages into one
    :class:`EdgeIndex` per key: ``key`` is a fixed key (FalkorDB: one graph per group) or a
    function of the row (Neo4j: the row's ``group_id``). Returns (indexes, edges read)."""
    indexes: dict[str | None, EdgeIndex] = {}
    after, total = "", 0
    while True:
        rows = await conn.query("relink_edges_page", after=after, group_ids=group_ids, limit=page_size)
        for r in rows:
            k = key(r) if callable(key) else key
            ix = indexes.get(k)
            if ix is None:
                ix = indexes[k] = EdgeIndex(k)
            ix.add(r["uuid"], r["name"], r["fact"], r["source_name"], r["target_name"])
        total += len(rows)
        if len(rows) < page_size:
            break
        after = rows[-1]["uuid"]
    for ix in indexes.values():
        ix.freeze()
    return indexes, total


async def fetch_embeddings(conn: Any, uuids: list[str]) -> dict[str, np.ndarray]:
    """``uuid -> fact_embedding`` for the edges that have one."""
    out: dict[str, np.ndarray] = {}
    for k in range(0, len(uuids), EXISTS_BATCH):
        for r in await conn.query("relink_edge_embeddings", uuids=uuids[k : k + EXISTS_BATCH]):
            emb = r.get("embedding")
            if emb is not None and len(emb):
                out[r["uuid"]] = np.asarray(emb, dtype=np.float32)
    return out
