"""``Backend.rebuild_indexes``: FalkorDB's graph comes back with every edge and its indexes built
afresh (fulltext search finds the same edges), and a rebuild interrupted between its
steps is repaired by the next one, never losing the graph, and a copy waits for the server's
other child process (a copy beside one deadlocks FalkorDB)."""

from __future__ import annotations

import asyncio
import os
import signal

import numpy as np
import pytest
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.search.search_utils import edge_fulltext_search
from test_index_recall import DIM, ops_facts, save

from graph_trust.config import load_settings
from graph_trust.graph.backends.falkordb import (
    AUTO_FORKS,
    REBUILD_SUFFIX,
    automatic_forks_paused,
    child_processes,
    graph_copy,
)
from graph_trust.graph.connection import open_graph

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
    # interrupted after its first two steps; the copy as the rebuild sends it (the shared server may
    # be rewriting its append-only file after the load, and a bare copy beside that child hangs it)
    async with automatic_forks_paused(redis, pause=True):
        await graph_copy(redis, group, spare)
    await redis.execute_command("GRAPH.DELETE", group)
    assert group not in await conn.graph_names()
    await conn.backend.rebuild_indexes(conn)
    names = await conn.graph_names()
    assert group in names and spare not in names
    assert await _fulltext(conn.driver, group) == before


async def test_a_rebuild_waits_for_the_servers_child_process(tmp_path):
    """A copy while the server has another child process (here its append-only file being
    rewritten, slowed to last a few seconds) deadlocks FalkorDB's server: the rebuild waits for
    the child instead, and leaves the server's automatic forks as they were."""
    s = load_settings(environ={})
    s.graph = s.graph.model_copy(update={"uri": f"embedded:{tmp_path / 'graph'}"})
    async with open_graph(s) as root:
        group = "rb_child"
        conn, before = await _saved(root, group)
        redis = conn.driver.client.connection
        while await child_processes(redis):
            await asyncio.sleep(0.05)  # the rewrite the load started, if any, is done
        config = {k: (await redis.config_get(k))[k] for k in AUTO_FORKS}
        await redis.config_set("rdb-key-save-delay", 1_000_000)  # microseconds per key written by the child
        await redis.execute_command("BGREWRITEAOF")
        assert (await redis.info("persistence"))["aof_rewrite_in_progress"] == 1
        rebuild = asyncio.ensure_future(conn.backend.rebuild_indexes(conn))
        await asyncio.wait([rebuild], timeout=60)
        if not rebuild.done():  # deadlocked: stop the server, or nothing below would ever return
            os.kill(int((tmp_path / "graph" / "falkordb.pid").read_text()), signal.SIGKILL)
            pytest.fail("the rebuild hung the server: a copy was sent beside the rewrite's child process")
        assert rebuild.result() is True
        await redis.config_set("rdb-key-save-delay", 0)
        info = await redis.info("persistence")
        assert info["aof_last_bgrewrite_status"] == "ok" and info["aof_rewrites"] >= 1
        assert await _fulltext(conn.driver, group) == before
        assert {k: (await redis.config_get(k))[k] for k in AUTO_FORKS} == config
