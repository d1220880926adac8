"""Vector indexes over Bolt, through graphiti-core's Neo4jDriver: ArcadeDB in CI (it has no Neo4j
vector index DDL, so init reports them unsupported and the index stage falls back to Graphiti's
scan), real Neo4j 5 with GRAPH_TRUST_TEST_NEO4J_URI (init creates both indexes and the index
stage answers)."""

from __future__ import annotations

import pytest
from builders import build_graph
from graphiti_core.search import search_utils as su
from graphiti_core.search.search_filters import SearchFilters
from test_trust_search import FACTS, QUERIES

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.graph import schema
from graph_trust.graph.connection import open_graph
from graph_trust.search.cosine import CosineStage, cosine_candidates

pytestmark = pytest.mark.bolt
EMB = HashingEmbedder()


async def test_vector_indexes_over_bolt(bolt, bolt_settings, unique):
    group = f"v{unique}"
    bolt_settings = bolt_settings.model_copy(update={  # the indexes: init creates them beside the store when asked
        "vector_index": bolt_settings.vector_index.model_copy(update={"enabled": True})})
    async with open_graph(bolt_settings) as g:
        await g.settle()
        await build_graph(g.driver, EMB, FACTS, group, indices=False, vector_procedure=not bolt.arcadedb)
    full = await schema.init_graph(bolt_settings)
    report = full["vector_indexes"]
    kinds = next(iter(report.values()))
    if bolt.arcadedb:
        assert kinds == {"edge": {"status": "unsupported", "dimension": None},
                         "node": {"status": "unsupported", "dimension": None}}
        assert not any(r["measured"] for kinds in full["recall"].values() for r in kinds.values())  # nothing to measure
    else:
        assert {v["status"] for v in kinds.values()} <= {"created", "exists"}
        assert kinds["edge"]["dimension"] == EMB.dim
        edge = next(iter(full["recall"].values()))["edge"]  # measured: the check's k ladder over Bolt
        assert edge["measurement"]["ladder"] and 0.0 <= edge["measurement"]["ladder"][-1]["recall"] <= 1.0
    async with open_graph(bolt_settings) as g:
        for query in QUERIES:
            vec = await EMB.create(input_data=[query])
            for kind, scan_fn in (("edge", lambda v: su.edge_similarity_search(g.driver, v, None, None,
                                                                                  SearchFilters(), [group], 5, 0.0)),
                                  ("node", lambda v: su.node_similarity_search(g.driver, v, SearchFilters(),
                                                                                  [group], 5, 0.0))):
                got = await cosine_candidates(kind, g.driver, vec, SearchFilters(), [group], 5, 0.0,
                                              CosineStage(mode="index"))
                scan = await scan_fn(vec)
                assert got.stage == ("scan" if bolt.arcadedb else "index")
                assert [x.uuid for x in got] == [x.uuid for x in scan]
