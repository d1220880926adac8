"""Competing facts (one relation of one subject) on a real embedded FalkorDB, over random
histories: trust_search's defaults order each relation's statements by verified trust, then
the newer valid_at, and give each fact the relation bonus its best competitor's fused score
earns;
the reference settings leave Graphiti's order alone."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from builders import Fact, assert_weight_zero_is_search_, build_graph, copy_recipe

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.search import trust_search as gt

SUBJECTS = ["vault", "ledger-db", "edge-proxy", "search-api"]
RELATIONS = {"LISTENS_ON": "{s} listens on port {v}", "OWNED_BY": "{s} is owned by team {v}",
             "ON_CALL": "page {v} for {s} incidents", "RUNS_VERSION": "{s} runs version {v} in production"}
TRUST = [None, None, 0.25, 0.6, 1.0]


def history(seed: int) -> list[Fact]:
    """Random statements: each subject and relation stated 1 to 4 times, at random dates and
    trust (absent, candidate, corroborated, promoted)."""
    rng = random.Random(seed)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    facts = []
    for s in SUBJECTS:
        for rel, text in RELATIONS.items():
            for k in range(rng.randint(1, 4)):
                v = f"{rng.randint(1, 9999)}-{k}"
                facts.append(Fact(s, rel, v, text.format(s=s, v=v), trust=rng.choice(TRUST),
                                  at=start + timedelta(days=rng.randint(0, 900))))
    return facts


@pytest.mark.parametrize("seed", [0, 1, 2])
async def test_competitors_are_ordered_by_evidence_and_gather_relevance(graph, unique, seed):
    group = f"g_{unique}"
    facts = history(seed)
    emb = HashingEmbedder()
    driver = graph.for_group(group).driver
    uuids = await build_graph(driver, emb, facts, group)
    by_uuid = {uuids[f.fact]: f for f in facts}
    graphiti = make_graphiti(driver, embedder=emb)
    cfg = copy_recipe(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, 200)  # the whole pool comes back
    for query in ["vault port", "who owns ledger-db", "edge-proxy on call", "search-api version in production"]:
        res = await gt.trust_search(graphiti, query, config=cfg, group_ids=[group])
        ex = {e.uuid: e for e in res.edge_explanations}
        groups: dict[tuple[str, str], list[str]] = {}
        for e in res.edges:
            groups.setdefault((e.source_node_uuid, e.name), []).append(e.uuid)
        for members in groups.values():
            def evidence(u: str) -> tuple[float, datetime]:
                t = by_uuid[u].trust
                return (t if t is not None and t >= cfg.min_boost_trust else 0.0), by_uuid[u].at
            assert [evidence(u) for u in members] == sorted((evidence(u) for u in members), reverse=True)
            for u in members:
                # the share of the best other statement's fused score (relation_mode best)
                others = [ex[o].fused for o in members if o != u]
                want = cfg.relation_weight * max(others) if others else 0.0
                assert cfg.relation_mode == "best" and cfg.relation_cap is None
                assert ex[u].relation_bonus == pytest.approx(want)
        assert any(e.relation_bonus > 0 for e in res.edge_explanations)
    # the reference settings (competitors off, no relation bonus) are still Graphiti's search_
    await assert_weight_zero_is_search_(graphiti, "vault port", group)
