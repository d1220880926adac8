"""``Backend.rebuild_indexes``: FalkorDB's graph comes back with every edge and its indexes built
afresh (fulltext search finds the same edges), and a rebuild interrupted between its
steps is repaired by the next one, never losing the graph."""

from __future__ import annotations

import numpy as np
from graphiti_core.search.search_utils import edge_fulltext_search
from graphiti_core.search.search_filters import SearchFilters

from graph_trust.graph.backends.falkordb import REBUILD_SUFFIX
from test_index_recall import DIM, ops_facts, save

FACTS = ops_facts(80, seed=5)


async def _fulltext(driver, group):
    return sorted(e.uuid for e in await edge_fulltext_search(driver, "billing backup owner", SearchFilters(), [group], 200))


async def _saved(graph, group):
    """The group's connection, with FACTS saved in it, and what fulltext search finds there."""
    conn = graph.for_group(group)
    await save(conn.driver, group, np.random.default_rng(0).normal(size=(len(FACTS), DIM)), facts=FACTS)
    return conn, await _fulltext(conn.driver, group)


async def test_rebuild_keeps_every_edge_and_the_search(graph, unique):
    group = f"rb_{unique}"
    conn, before = await _saved(graph, group)
    assert before
    assert await conn.backend.rebuild_indexes(conn) is True
    assert await _fulltext(conn.driver, group) == before
    assert f"{group}{REBUILD_SUFFIX}" not in await conn.graph_names()


async def test_an_interrupted_rebuild_is_repaired(graph, unique):
    group = f"rb_{unique}"
    conn, before = await _saved(graph, group)
    redis = conn.driver.client.connection
    spare = f"{group}{REBUILD_SUFFIX}"
    await redis.execute_command("GRAPH.COPY", group, spare)  # interrupted after its first two steps
    await redis.execute_command("GRAPH.DELETE", group)
    assert group not in await conn.graph_names()
    await conn.backend.rebuild_indexes(conn)
    names = await conn.graph_names()
    assert group in names and spare not in names
    assert await _fulltext(conn.driver, group) == before
