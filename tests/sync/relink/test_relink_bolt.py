"""relink over the Neo4j wire protocol (ArcadeDB in CI; real Neo4j with GRAPH_TRUST_TEST_NEO4J_URI):
the neo4j dialect of relink's Cypher, one database holding every group, rollback."""

from __future__ import annotations

import pytest
from migration_fixture import (  # noqa: E402
    build_graph_without_vector_procedure,
    build_migration,
    evidence_column,
    generate,
    per_class,
    written_ids,
)

from graph_trust.clients.hashing import HashingEmbedder  # noqa: E402
from graph_trust.graph.connection import open_graph  # noqa: E402
from graph_trust.sync.relink import relink, rollback_relink  # noqa: E402

pytestmark = pytest.mark.bolt
EMB = HashingEmbedder()


async def test_migration_relinks_over_bolt_and_rolls_back(bolt_settings, tmp_path, unique):
    async with open_graph(bolt_settings) as g:
        assert g.dialect == "neo4j"
        m = await build_migration(g, EMB, tmp_path, f"b{unique}", builder=build_graph_without_vector_procedure,
                                  plan=generate(4, 6))
        before = evidence_column(m.review_db)
        report = await relink(bolt_settings, review_db=str(m.review_db), conn=g, embedder=EMB)
    table = per_class(m.cases, m.expected, written_ids(before, evidence_column(m.review_db)))
    assert sum(r["wrong_writes"] for r in table.values()) == 0, table
    resolvable = sum(r["resolvable"] for r in table.values())
    assert sum(r["correct"] for r in table.values()) >= 0.9 * resolvable, table
    assert report.orphaned == len(m.cases) and report.vectors_fetched > 0  # cosine used over Bolt too
    assert {v["method"] for v in report.similarity.values()} == {"bm25+cosine"}
    assert rollback_relink(bolt_settings, report.run_id)["restored"] == report.written
    assert evidence_column(m.review_db) == before
