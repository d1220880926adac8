"""``graph_trust.api``, the library entry point: every command searches with the embedder
``search.embedder`` configures, and the names that moved out of ``service``/``pipeline`` still
import (the same objects)."""

from __future__ import annotations

import pytest
from recording_embedder import RecordingEmbedder

from graph_trust import api
from graph_trust.access.trust_context import TrustContext
from graph_trust.clients.factory import make_embedder
from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.demo.sample import demo_group, demo_queries, load_sample
from graph_trust.errors import ConfigError
from graph_trust.graph.connection import open_graph

SPEC = "recording_embedder:RecordingEmbedder"


def test_make_embedder_builds_the_configured_one(settings):
    assert type(make_embedder(settings)) is HashingEmbedder
    settings.search.embedder = SPEC
    assert type(make_embedder(settings)) is RecordingEmbedder
    for bad in ("nocolon", "no_such_module_here:x", "graph_trust.clients.hashing:no_such_factory", ":x", "m:"):
        settings.search.embedder = bad
        with pytest.raises(ConfigError, match="search.embedder"):
            make_embedder(settings)


async def test_search_and_context_embed_the_query_with_the_configured_embedder(settings):
    group = demo_group()
    async with open_graph(settings) as conn:
        await load_sample(conn.driver, HashingEmbedder(), groups=[group])
        await conn.for_group(group).settle()
    query = demo_queries()[0]
    baseline = await api.search(settings, query, groups=[group])

    settings.search.embedder = SPEC
    RecordingEmbedder.seen.clear()
    recorded = await api.search(settings, query, groups=[group])
    assert query in RecordingEmbedder.seen
    # same vectors as the graph was embedded with: the same answer
    assert [e.uuid for e in recorded.edges] == [e.uuid for e in baseline.edges] != []

    for run in (
        lambda q: api.context(settings, q, trust_context=TrustContext.unrestricted(), groups=[group]),
        lambda q: api.get_context(settings, q, trust_context=TrustContext.unrestricted(), groups=[group]),
    ):
        RecordingEmbedder.seen.clear()
        await run(query + "?")  # a fresh request (the policy cache is keyed by the query)
        assert query + "?" in RecordingEmbedder.seen


def test_the_api_names_every_command():
    """Each CLI command has its function (the CLI reference lists the commands)."""
    for name in ("search", "composite_rank", "context", "get_context", "build_context", "init", "sync", "verify",
                 "runs", "rollback", "prune", "relink", "init_review_db", "confidence_store", "audit_events",
                 "calibrate", "demo", "evaluate_bundled", "evaluate_judged", "serve_mcp"):
        assert callable(getattr(api, name)), name
        assert name in api.__all__
