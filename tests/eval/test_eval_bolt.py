"""Issue 14 item 5: the same candidate pools rank identically on the embedded FalkorDB and over
Bolt (ArcadeDB in CI; real Neo4j with GRAPH_TRUST_TEST_NEO4J_URI), and where the eval's
rankings differ, the candidate lists explain it.

The bundled set's ``infra`` group is loaded into both and the same review DB synced onto both
with the real sync job. Ranking runs in-process on what the backend returns: the candidate lists
(BM25, cosine) and each fact's properties (trust_score, valid_at, created_at, invalid_at, text,
and the source entity and relation name that make facts competitors).
So the test checks that

- every property the ranking reads comes back the same from both backends (ArcadeDB returns
  naive UTC datetimes: the same instants);
- the same pool ranks identically: FalkorDB's candidate pool, ranked by the composite rank with
  the facts as FalkorDB returns them and as the Bolt server returns them, gives one order;
- a small eval (the eval runner's rankings, 10 queries) agrees on every query whose candidate
  lists agree; the queries where it differs are queries whose lists differ. On ArcadeDB they
  differ on every query: its BM25 scoring is its own (not RediSearch's or Lucene's), and its
  ``vector.similarity.cosine`` returns the raw cosine in [-1, 1] where Neo4j returns
  ``(1 + cos) / 2`` in [0, 1], so Graphiti's ``sim_min_score`` of 0.6 keeps only cos > 0.6
  there instead of cos > 0.2 and its cosine lists are nearly empty.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from builders import _save

from graph_trust.eval.dataset import JudgedSet, bundled
from graph_trust.eval.runner import Method, rank_queries

pytestmark = pytest.mark.bolt
GROUP = "infra"
N_QUERIES = 10
METHODS = [Method("vanilla", "vanilla"), Method("trust@0", "trust", 0.0), Method("trust@0.15", "trust", 0.15),
           Method("trust@0.5", "trust", 0.5), Method("composite", "composite")]


async def _load_bolt(driver, graph, embedder, vector_procedure):
    """The group's entities and facts through graphiti-core's own save queries, one by one (ArcadeDB
    lacks Neo4j's vector procedure; see tests/builders.py)."""
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode

    ents = [e for e in graph["entities"] if e["group_id"] == GROUP]
    edges = [e for e in graph["edges"] if e["group_id"] == GROUP]
    vecs = await embedder.create_batch([e["name"] for e in ents] + [e["fact"] for e in edges])
    for e, v in zip(ents, vecs[: len(ents)], strict=True):
        await _save(EntityNode(uuid=e["uuid"], name=e["name"], group_id=GROUP, labels=e["labels"],
                               summary=e["summary"], created_at=datetime.fromisoformat(e["created_at"]),
                               name_embedding=v), driver, vector_procedure)
    for e, v in zip(edges, vecs[len(ents):], strict=True):
        await _save(EntityEdge(uuid=e["uuid"], source_node_uuid=e["source"], target_node_uuid=e["target"],
                               name=e["name"], fact=e["fact"], group_id=GROUP, episodes=[],
                               created_at=datetime.fromisoformat(e["created_at"]),
                               valid_at=datetime.fromisoformat(e["valid_at"]),
                               invalid_at=datetime.fromisoformat(e["invalid_at"]) if e.get("invalid_at") else None,
                               fact_embedding=v), driver, vector_procedure)


async def _candidates(driver, query, embedder):
    """(bm25 uuids, cosine uuids, {uuid: trust}) as graphiti-core's candidate searches return them."""
    from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF
    from graphiti_core.search.search_filters import SearchFilters
    from graphiti_core.search.search_utils import edge_fulltext_search, edge_similarity_search

    cfg = EDGE_HYBRID_SEARCH_RRF.edge_config
    vec = await embedder.create(input_data=[query])
    bm25 = await edge_fulltext_search(driver, query, SearchFilters(), [GROUP], 20)
    cos = await edge_similarity_search(driver, vec, None, None, SearchFilters(), [GROUP], 20, cfg.sim_min_score)
    trust = {e.uuid: e.attributes.get("trust_score") for e in [*bm25, *cos]}
    return [e.uuid for e in bm25], [e.uuid for e in cos], trust


def _instant(v):

    if v is None:
        return None
    return v if v.tzinfo else v.replace(tzinfo=UTC)


async def test_same_pools_rank_identically_on_falkordb_and_bolt(bolt, bolt_settings, settings, tmp_path):
    from graphiti_core.edges import EntityEdge

    from graph_trust.clients.hashing import HashingEmbedder
    from graph_trust.clients.offline import make_graphiti
    from graph_trust.context.agent import search_config_for
    from graph_trust.demo.sample import load_sample
    from graph_trust.eval.metrics import per_query
    from graph_trust.graph import schema
    from graph_trust.graph.connection import open_graph
    from graph_trust.search import ranked
    from graph_trust.search.trust_search import trust_search
    from graph_trust.sync.review_db import init_review_db, insert_rows
    from graph_trust.sync.runner import run_sync

    data = bundled()
    emb = HashingEmbedder()
    queries = [q for q in data.judged.queries if q.group == GROUP][:N_QUERIES]
    judged = JudgedSet(queries, {q.id: data.judged.qrels[q.id] for q in queries})
    uuids = [e["uuid"] for e in data.graph["edges"] if e["group_id"] == GROUP]
    review = init_review_db(tmp_path / "review.sqlite3")
    insert_rows(review, [r for r in data.review if r["group_id"] == GROUP])
    now = datetime.fromisoformat(data.graph["as_of"])
    falkor = settings.model_copy(update={"state_dir": tmp_path / "fstate"})
    falkor.graph = falkor.graph.model_copy(update={"uri": f"embedded:{tmp_path / 'g'}", "database": None})

    got = {}
    await schema.init_graph(bolt_settings)
    async with open_graph(falkor) as fconn, open_graph(bolt_settings) as bconn:
        await load_sample(fconn.driver, emb, groups=[GROUP], data=data.graph)
        await bconn.settle()
        await _load_bolt(bconn.driver, data.graph, emb, vector_procedure=not bolt.arcadedb)
        for name, conn, s in (("falkordb", fconn, falkor), ("bolt", bconn, bolt_settings)):
            report = await run_sync(s, review_db=review, full=True, graph=conn)
            await conn.settle()
            driver = conn.for_group(GROUP).driver if conn.dialect == "falkordb" else conn.driver
            rankings = await rank_queries(conn, s, judged, METHODS, embedder=emb, default_groups=[GROUP], now=now)
            cands = {q.id: await _candidates(driver, q.text, emb) for q in queries}
            items = {e.uuid: e for e in await EntityEdge.get_by_uuids(driver, uuids)}
            got[name] = (report, rankings, cands, items, driver)

        (f_rep, f_rank, f_cand, f_items, f_driver) = got["falkordb"]
        (b_rep, b_rank, b_cand, b_items, _) = got["bolt"]
        assert f_rep.edges_set == b_rep.edges_set > 0  # the same review decisions landed on both
        # 1. every property the ranking reads comes back the same
        assert set(f_items) == set(b_items) == set(uuids)
        for u in uuids:
            f, b = f_items[u], b_items[u]
            assert f.attributes.get("trust_score") == b.attributes.get("trust_score"), u
            assert f.fact == b.fact
            # the competitor key (source entity, relation name) groups facts the same way
            assert (f.source_node_uuid, f.name) == (b.source_node_uuid, b.name), u
            for attr in ("valid_at", "created_at", "invalid_at", "expired_at"):
                assert _instant(getattr(f, attr)) == _instant(getattr(b, attr)), (u, attr)
        # 2. the same pool ranks identically with either backend's facts
        graphiti = make_graphiti(f_driver, embedder=emb)
        for q in queries:
            res = await trust_search(graphiti, q.text, config=search_config_for(falkor), group_ids=[GROUP])
            swapped = res.model_copy(update={"edges": [b_items[e.uuid] for e in res.edges]})
            f_order = [r.uuid for r in ranked.composite_rank(falkor, res, limit=10, now=now)]
            b_order = [r.uuid for r in ranked.composite_rank(falkor, swapped, limit=10, now=now)]
            assert f_order == b_order and f_order, q.id

    # 3. the small eval agrees wherever the candidate lists agree
    explained = {q.id for q in queries if f_cand[q.id][:2] != b_cand[q.id][:2]}
    lines = []
    for m in METHODS:
        for q in queries:
            if f_rank[m.name][q.id] != b_rank[m.name][q.id]:
                assert q.id in explained, f"{q.id} {m.name}: same candidate lists, other order"
        f_nd = per_query(f_rank[m.name], judged)
        b_nd = per_query(b_rank[m.name], judged)
        mean = lambda d: sum(v["ndcg@10"] for v in d.values()) / len(d)  # noqa: E731
        lines.append(f"{m.name}: nDCG@10 falkordb {mean(f_nd):.3f} bolt {mean(b_nd):.3f}")
    cosine_empty = all(not b_cand[q.id][1] for q in queries)
    async with open_graph(bolt_settings) as bconn:
        orthogonal = (await bconn.driver.execute_query(
            "RETURN vector.similarity.cosine([1.0, 0.0], [0.0, 1.0]) AS s"))[0][0]["s"]
    if bolt.arcadedb:
        assert orthogonal == pytest.approx(0.0)  # raw cosine: the explanation above
    else:
        assert orthogonal == pytest.approx(0.5) and not cosine_empty  # Neo4j: (1 + cos) / 2
    detail = [f"{q.id}: bm25 same {f_cand[q.id][0] == b_cand[q.id][0]} ({len(f_cand[q.id][0])}/{len(b_cand[q.id][0])}), "
              f"cosine same {f_cand[q.id][1] == b_cand[q.id][1]} ({len(f_cand[q.id][1])}/{len(b_cand[q.id][1])})"
              for q in queries]
    print(f"candidate lists differ on {len(explained)} of {len(queries)} queries; cosine of orthogonal vectors "
          f"over Bolt: {orthogonal}\n" + "\n".join(detail + lines))
