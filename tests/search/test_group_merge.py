"""Several groups, one order: on FalkorDB each group is its own graph, and where every candidate
list carries its scores (the default profile over the exact vector store) the trust search
merges each method's lists by score before fusing them, as one database holding every group
would. So splitting the same facts over groups does not change the cosine ranking: a small
group's best fact is not worth a large group's best by its rank alone."""

from __future__ import annotations

import random

from graphiti_core.search.search_config import EdgeSearchMethod
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from test_write_order import EDGES, EMB, NODES, WORDS, answer, edge, node

from graph_trust.clients.offline import make_graphiti
from graph_trust.graph import schema
from graph_trust.search import trust_search as gt
from graph_trust.search.cosine import CosineStage

counter = iter(range(10**6))


async def _fill(graph, settings, layout: dict[str, list[int]]) -> None:
    for group, items in layout.items():
        driver = graph.for_group(group).driver
        for n in NODES:
            await node(n, group).save(driver)
        for i in items:
            await edge(EDGES[i], group).save(driver)
    await schema.init_graph(settings, list(layout))


@hsettings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
           phases=[Phase.explicit, Phase.generate])  # each example writes three graphs: report, do not shrink
@given(seed=st.integers(0, 2**31), share=st.floats(0.05, 0.5),
       picks=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), min_size=5, max_size=5))
async def test_splitting_facts_over_groups_keeps_the_cosine_order(graph, settings, unique, seed, share, picks):
    n = next(counter)
    whole, small, large = f"w{n}_{unique}", f"s{n}_{unique}", f"l{n}_{unique}"
    r = random.Random(seed)
    idx = list(range(len(EDGES)))
    r.shuffle(idx)
    cut = max(1, int(len(idx) * share))
    await _fill(graph, settings, {whole: idx, small: idx[:cut], large: idx[cut:]})
    config = gt.EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(deep=True)
    config.cosine = CosineStage.for_settings(settings)
    config.edge_config.search_methods = [EdgeSearchMethod.cosine_similarity]
    config.node_config = None
    g = make_graphiti(graph.for_group(whole).driver, embedder=EMB)
    for q in (" ".join(p) for p in picks):
        one = await gt.trust_search(g, q, config=config, group_ids=[whole])
        split = await gt.trust_search(g, q, config=config, group_ids=[small, large])
        assert {c["stage"] for c in split.cosine_stages} == {"store"}
        assert answer(split) == answer(one), q


async def test_hybrid_lists_are_merged_by_score_before_fusion(graph, settings, unique):
    """With BM25 and cosine, the pool over two groups is RRF over each method's list merged over
    both groups: every explained rank is a place in that one list (no two facts share one)."""
    small, large = f"hs_{unique}", f"hl_{unique}"
    idx = list(range(len(EDGES)))
    random.Random(3).shuffle(idx)
    await _fill(graph, settings, {small: idx[:12], large: idx[12:]})
    config = gt.EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(deep=True)
    config.cosine = CosineStage.for_settings(settings)
    config.node_config = None
    g = make_graphiti(graph.for_group(large).driver, embedder=EMB)
    query = EDGES[idx[0]]["fact"]  # a fact of the small group, asked word for word: first in its group
    got = await gt.trust_search(g, query, config=config, group_ids=[small, large], trust_weight=0.0)
    ranks = {e.uuid: (x.bm25_rank, x.cosine_rank) for e, x in zip(got.edges, got.edge_explanations, strict=True)}
    assert {e.group_id for e in got.edges} == {small, large}
    for m in (0, 1):
        places = [r[m] for r in ranks.values() if r[m]]
        assert len(places) == len(set(places)), places
    assert got.edges[0].uuid == EDGES[idx[0]]["uuid"]
