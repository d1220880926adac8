"""The exact vector store over Bolt (graphiti-core's Neo4jDriver): ArcadeDB in CI, real Neo4j with
GRAPH_TRUST_TEST_NEO4J_URI. One database holds every group, so the store keeps each group's rows
apart; the stage equals Graphiti's scan by score and sees graphiti-core's later writes."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

import numpy as np
import pytest
from builders import _save, build_graph
from graphiti_core.edges import EntityEdge
from graphiti_core.search import search_utils as su
from graphiti_core.search.search_filters import SearchFilters
from test_trust_search import FACTS, QUERIES

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.graph import schema
from graph_trust.graph import vector_store as vs
from graph_trust.graph.connection import open_graph
from graph_trust.search.cosine import CosineStage, cosine_candidates

pytestmark = pytest.mark.bolt
EMB = HashingEmbedder()


async def test_store_stage_over_bolt(bolt, bolt_settings, unique):
    await schema.init_graph(bolt_settings)
    groups = [f"s{unique}", f"t{unique}"]
    async with open_graph(bolt_settings) as g:
        await g.settle()
        for group in groups:
            await build_graph(g.driver, EMB, FACTS, group, indices=False, vector_procedure=not bolt.arcadedb)
        built = await vs.ensure(g, bolt_settings, force=True)
        assert built["edge"]["items"] == 2 * len(FACTS) and built["edge"]["groups"] == sorted(groups)
        stage = CosineStage.for_settings(bolt_settings)
        driver = g.driver
        for query in QUERIES:
            vec = (await EMB.create(input_data=[query]))
            got = await cosine_candidates("edge", driver, vec, SearchFilters(), [groups[0]], 10, 0.0, stage)
            assert got.stage == "store", got.reason
            scan = await su.edge_similarity_search(driver, vec, None, None, SearchFilters(), [groups[0]], 10, 0.0)
            q = np.asarray(vec) / np.linalg.norm(vec)

            def score(e):  # noqa: ANN001, ANN202
                v = np.asarray(EMB.embed([e.fact])[0], dtype=np.float64)
                return (1 + float(v @ q) / np.linalg.norm(v)) / 2

            assert {e.group_id for e in got} <= {groups[0]}
            np.testing.assert_allclose([score(e) for e in got], [score(e) for e in scan], atol=1e-6)
            assert [e.uuid for e in got] == sorted((e.uuid for e in got), key=lambda u: (-round(
                score(next(x for x in got if x.uuid == u)), 9), u))
        src = next(iter(await su.edge_similarity_search(driver, vec, None, None, SearchFilters(), [groups[0]], 1,
                                                         0.0)))
        new = EntityEdge(uuid=str(uuid4()), source_node_uuid=src.source_node_uuid,
                         target_node_uuid=src.target_node_uuid, name="NEW", fact="a brand new fact about quokkas",
                         group_id=groups[0], episodes=[], created_at=datetime.now(UTC),
                         fact_embedding=(await EMB.create(input_data=["a brand new fact about quokkas"])))
        await _save(new, driver, vector_procedure=not bolt.arcadedb)
        got = await cosine_candidates("edge", driver, new.fact_embedding, SearchFilters(), [groups[0]], 3, 0.0, stage)
        assert got.stage == "store" and got[0].uuid == new.uuid
        await new.delete(driver)
        got = await cosine_candidates("edge", driver, new.fact_embedding, SearchFilters(), [groups[0]], 3, 0.0, stage)
        assert new.uuid not in {e.uuid for e in got}
