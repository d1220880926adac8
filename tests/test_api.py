"""``graph_trust.api``, the library entry point: every command searches with the embedder
``search.embedder`` configures, and the names that moved out of ``service``/``pipeline`` still
import (the same objects)."""

from __future__ import annotations

import pytest

from graph_trust import api
from graph_trust.access import TrustContext
from graph_trust.graph.connection import open_graph
from graph_trust.embedder import HashingEmbedder, make_embedder
from graph_trust.errors import ConfigError
from graph_trust.sample import demo_group, demo_queries, load_sample
from recording_embedder import RecordingEmbedder


SPEC = "recording_embedder:RecordingEmbedder"


def test_make_embedder_builds_the_configured_one(settings):
    assert type(make_embedder(settings)) is HashingEmbedder
    settings.search.embedder = SPEC
    assert type(make_embedder(settings)) is RecordingEmbedder
    for bad in ("nocolon", "no_such_module_here:x", "graph_trust.embedder:no_such_factory", ":x", "m:"):
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
        await run(query + " ")  # a fresh request (the policy cache is keyed by the query)
        assert query + " " in RecordingEmbedder.seen


def test_moved_names_still_import_and_are_the_same_objects():
    from graph_trust import pipeline, ranked_search, service, session
    from graph_trust import embedder as embedder_module

    assert service.make_embedder is embedder_module.make_embedder
    assert service.open_graphiti is session.open_graphiti
    assert service.resolve_groups is session.resolve_groups and service.existing_groups is session.existing_groups
    assert service.search is ranked_search.search  # (api.search wraps it: the retrieval log counts what it returns)
    assert service.search_config is ranked_search.search_config is api.search_config
    assert service.composite_rank is ranked_search.composite_rank is api.composite_rank
    assert pipeline.search_config_for is ranked_search.search_config_for
    assert pipeline.max_fused_for is ranked_search.max_fused_for
    assert api.build_context is pipeline.build_context  # (api.context wraps context_for_settings: the retrieval log)


def test_the_api_names_every_command():
    """Each CLI command has its function (the CLI reference lists the commands)."""
    for name in ("search", "composite_rank", "context", "get_context", "build_context", "init", "sync", "verify",
                 "runs", "rollback", "prune", "relink", "init_review_db", "confidence_store", "audit_events",
                 "calibrate", "demo", "evaluate_bundled", "evaluate_judged", "serve_mcp"):
        assert callable(getattr(api, name)), name
        assert name in api.__all__
