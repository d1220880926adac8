"""The trust search's candidates and order are a function of the graph's content and the query.

The same facts and entities (same uuids, texts, embeddings, trust) are written into two
FalkorDB graphs in two different orders and histories: one initialised first and then filled
one item at a time (the store takes every item in as Graphiti writes it), the other filled in
another order with some facts and entities first written with other words and rewritten
(FalkorDB's fulltext index keeps the replaced entries in its statistics) and initialised after.
At the shipped defaults both give the same results, facts and entities, item for item and score
for score, and trust written on facts and entities no query matches (as a sync writes it)
changes nothing; no index is rebuilt.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from uuid import UUID

import numpy as np
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from test_index_recall import ops_facts

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.graph import schema
from graph_trust.search import trust_search as gt
from graph_trust.search.cosine import CosineStage

EMB = HashingEmbedder()
T0 = datetime(2025, 3, 1, tzinfo=UTC)
FACTS = ops_facts(120, seed=7) + ops_facts(30, seed=7)[:10]  # ten exact duplicates: equal scores
UNRELATED = ["zebra quokka marmot", "quokka marmot wombat", "wombat zebra okapi"]  # no query shares a word
WORDS = sorted({w for f in FACTS for w in f.replace(",", " ").split() if len(w) > 2})
counter = iter(range(10**6))


def content():
    """(nodes, edges) of the shared content: fixed uuids, texts, embeddings, trust and times.
    Entities are named like the facts' services, with one of the facts as summary (many of them
    share words, and so BM25 scores); the last one is unrelated to every query."""
    texts = FACTS + UNRELATED
    vectors = EMB.embed(texts)
    rng = random.Random(1)
    nodes = [(str(UUID(int=i + 1)), rng.choice(WORDS), rng.choice(FACTS)) for i in range(29)]
    nodes.append((str(UUID(int=30)), "okapi", UNRELATED[0]))
    edges = []
    for i, (text, v) in enumerate(zip(texts, vectors, strict=True)):
        a, b = rng.sample(nodes, 2)
        edges.append({"uuid": str(UUID(int=10_000 + i)), "source": a[0], "target": b[0], "fact": text,
                      "v": v.tolist(), "created_at": T0 + timedelta(minutes=i),
                      "trust": None if text in UNRELATED or i % 3 else round(0.5 + (i % 5) / 10, 2)})
    return nodes, edges, vectors


NODES, EDGES, VECTORS = content()


def edge(e: dict, group: str, fact: str | None = None) -> EntityEdge:
    attrs = {} if e["trust"] is None else {"trust_score": e["trust"]}
    return EntityEdge(uuid=e["uuid"], source_node_uuid=e["source"], target_node_uuid=e["target"], name="STATES",
                      fact=fact or e["fact"], group_id=group, episodes=[], created_at=e["created_at"], valid_at=T0,
                      fact_embedding=e["v"], attributes=attrs)


def node(n: tuple, group: str, summary: str | None = None, trust: float | None = None) -> EntityNode:
    u, name, text = n
    return EntityNode(uuid=u, name=name, group_id=group, labels=["Entity"], summary=summary or text, created_at=T0,
                      name_embedding=EMB.embed([name])[0].tolist(),
                      attributes={} if trust is None else {"trust_score": trust})


async def write(driver, group: str, order: list[int], rewrite: set[int], node_order: list[int]) -> None:
    for i in node_order:
        if i in rewrite:  # first with other words, as for facts below
            await node(NODES[i], group, summary=f"{NODES[i][2]} billing backup owner").save(driver)
        await node(NODES[i], group).save(driver)
    for i in order:
        if i in rewrite:  # first with other words (FalkorDB's fulltext keeps the replaced entry)
            await edge(EDGES[i], group, fact=f"{EDGES[i]['fact']} billing backup owner").save(driver)
        await edge(EDGES[i], group).save(driver)


def answer(results) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """The facts and the entities found, each with its score."""
    return ([(e.uuid, round(s, 12)) for e, s in zip(results.edges, results.edge_reranker_scores, strict=True)],
            [(n.uuid, round(s, 12)) for n, s in zip(results.nodes, results.node_reranker_scores, strict=True)])


@hsettings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
           phases=[Phase.explicit, Phase.generate])  # each example writes two graphs: report, do not shrink
@given(seed=st.integers(0, 2**31), picks=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
                                                   min_size=6, max_size=6))
async def test_same_content_two_write_orders_same_results(graph, settings, unique, seed, picks):
    n = next(counter)
    first, second = f"a{n}_{unique}", f"b{n}_{unique}"
    r = random.Random(seed)
    order_a = list(range(len(EDGES)))
    r.shuffle(order_a)
    order_b = list(range(len(EDGES)))
    r.shuffle(order_b)
    rewrite = set(r.sample(range(len(EDGES)), 20))
    nodes_a, nodes_b = r.sample(range(len(NODES)), len(NODES)), r.sample(range(len(NODES)), len(NODES))
    da, db = graph.for_group(first).driver, graph.for_group(second).driver
    await schema.init_graph(settings, [first])  # initialised empty: the store takes each item in as written
    await write(da, first, order_a, set(), nodes_a)
    await write(db, second, order_b, rewrite, nodes_b)
    await schema.init_graph(settings, [second])  # initialised after its history
    config = gt.EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(deep=True)
    config.node_config = gt.NODE_HYBRID_SEARCH_RRF_TRUST.node_config.model_copy(deep=True)
    config.cosine = CosineStage.for_settings(settings)
    ga, gb = make_graphiti(da, embedder=EMB), make_graphiti(db, embedder=EMB)
    queries = [" ".join(p) for p in picks]
    before = []
    for q in queries:
        a = await gt.trust_search(ga, q, config=config, group_ids=[first])
        b = await gt.trust_search(gb, q, config=config, group_ids=[second])
        assert {(c["kind"], c["stage"]) for c in a.cosine_stages + b.cosine_stages} == {("edge", "store"),
                                                                                      ("node", "store")}
        assert answer(a) == answer(b), q
        before.append(answer(a))
    # trust written on facts and an entity no query matches, as sync writes it (re-saved with the new property)
    for e in EDGES:
        if e["fact"] in UNRELATED:
            await edge({**e, "trust": 1.0}, second).save(db)
    await node(NODES[-1], second, trust=1.0).save(db)
    for q, was in zip(queries, before, strict=True):
        assert answer(await gt.trust_search(gb, q, config=config, group_ids=[second])) == was, q
    assert any(facts for facts, _ in before) and any(nodes for _, nodes in before)  # the queries found something
    assert len(VECTORS) == len(EDGES) and np.isfinite(VECTORS).all()
