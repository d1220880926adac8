"""trust_search's BM25 stage for facts returns exactly graphiti-core's ``edge_fulltext_search``
(same facts, same order), under random queries, filters, groups and limits, on a real FalkorDB."""

from __future__ import annotations

import random

from graphiti_core.search import search_utils as su
from test_index_recall import KINDS, SERVICES
from test_vector_index import generate, random_filter

from graph_trust.search.fulltext import edge_fulltext_candidates

WORDS = ["fact", "1", "2", "3", "12", "fact 3", "7 fact", "nothing", "fact fact 1", "0", "-", "fact AND 2"]


async def test_fulltext_stage_equals_graphitis_under_random_filters(graph, unique):
    group, other = f"g_{unique}", f"h_{unique}"
    driver = graph.for_group(group).driver
    await generate(driver, group, seed=21, n_edges=600)  # facts "fact <i>": many equal BM25 scores
    await driver.build_indices_and_constraints()
    await graph.for_group(group).settle()
    r = random.Random(3)
    compared = nonempty = 0
    for _ in range(60):
        q = r.choice(WORDS + [f"{r.choice(SERVICES)} {r.choice(KINDS)} fact {r.randrange(600)}"])
        f, _ = random_filter(r)
        groups = r.choice([[group], [group, other], None])
        limit = r.choice([1, 5, 20, 40])
        want = await su.edge_fulltext_search(driver, q, f, groups, limit)
        got = await edge_fulltext_candidates(driver, q, f, groups, limit)
        assert [e.uuid for e in got] == [e.uuid for e in want], (q, f, groups, limit)
        assert [e.fact for e in got] == [e.fact for e in want] and [e.valid_at for e in got] == [e.valid_at for e in want]
        compared += 1
        nonempty += bool(want)
    assert compared == 60 and nonempty >= 30
