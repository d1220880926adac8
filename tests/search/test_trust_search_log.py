"""trust_search feeds the retrieval log: given a log (an argument, or logging_to for a block) it
counts what it returned, at the rank it returned it; without one it records nothing; api's
record_returned and flush_log write the configured review DB's log."""

from __future__ import annotations

import asyncio
import random

import pytest
from builders import Fact, build_graph

from graph_trust import api
from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.review.db import ReviewConn
from graph_trust.review.log import RetrievalLog
from graph_trust.search import trust_search as gt

FACTS = [Fact("billing-db", "BACKUP_AT", "02:00 UTC", "The nightly backup of billing-db runs at 02:00 UTC"),
         Fact("billing-db", "OWNED_BY", "team-data", "billing-db is owned by team-data"),
         Fact("auth-service", "LISTENS_ON", "8443", "auth-service listens on port 8443 with TLS"),
         Fact("payments-api", "DEPENDS_ON", "auth-service", "payments-api calls auth-service to check tokens")]


def logged(review) -> dict[tuple[str, int], int]:
    with ReviewConn.open(review) as conn:
        return {(u, r): h for u, r, h in conn.query("SELECT edge_uuid, rank, sum(hits) FROM retrieval_log "
                                                    "GROUP BY edge_uuid, rank")}


@pytest.fixture
async def world(graph, unique, tmp_path):
    embedder = HashingEmbedder()
    group = f"g_{unique}"
    await build_graph(graph.for_group(group).driver, embedder, FACTS, group)
    review = tmp_path / "review.sqlite3"
    api.init_review_db(review)
    return make_graphiti(graph.for_group(group).driver, embedder=embedder), group, review


async def test_trust_search_records_what_it_returned(world):
    graphiti, group, review = world
    log = RetrievalLog(review, background=False)
    res = await gt.trust_search(graphiti, "billing-db backup", group_ids=[group], log=log)
    assert res.edges
    assert logged(review) == {}  # counted in memory: nothing written before a flush
    assert log.flush() == len(res.edges)
    assert logged(review) == {(e.uuid, r): 1 for r, e in enumerate(res.edges, start=1)}
    # without a log nothing is recorded
    await gt.trust_search(graphiti, "billing-db backup", group_ids=[group])
    assert log.flush() == 0
    # logging_to: every search of the block, and only inside it; closing writes what is pending
    with gt.logging_to(RetrievalLog(review, background=False)) as block:
        a = await gt.trust_search(graphiti, "auth-service port", group_ids=[group])
        b = await gt.trust_search(graphiti, "who owns billing-db", group_ids=[group])
    await gt.trust_search(graphiti, "payments-api", group_ids=[group])
    block.close()
    expect = {(e.uuid, r): 1 for r, e in enumerate(res.edges, start=1)}
    for run in (a, b):
        for r, e in enumerate(run.edges, start=1):
            expect[(e.uuid, r)] = expect.get((e.uuid, r), 0) + 1
    assert logged(review) == expect


@pytest.mark.parametrize("seed", range(4))
async def test_concurrent_searches_each_count_once_in_their_own_log(world, seed):
    graphiti, group, review = world
    rng = random.Random(seed)
    queries = [rng.choice(["billing-db backup", "auth-service port", "owner", "tokens", "nightly"])
               for _ in range(rng.randint(1, 6))]
    log = RetrievalLog(review, background=False)
    if seed % 2:
        results = await asyncio.gather(*[gt.trust_search(graphiti, q, group_ids=[group], log=log) for q in queries])
    else:
        with gt.logging_to(log):
            results = await asyncio.gather(*[gt.trust_search(graphiti, q, group_ids=[group]) for q in queries])
    log.close()
    expect: dict[tuple[str, int], int] = {}
    for res in results:
        for r, e in enumerate(res.edges, start=1):
            expect[(e.uuid, r)] = expect.get((e.uuid, r), 0) + 1
    assert logged(review) == expect


def test_record_returned_and_flush_log(settings, tmp_path):
    review = tmp_path / "review.sqlite3"
    api.init_review_db(review)
    settings.review.url = str(review)
    settings.review.log = True
    settings.review.log_flush_s = 3600  # only flush_log writes here
    api.record_returned(settings, "search", [("e1", "g"), ("e2", "g")], query="q")
    assert api.flush_log(settings) == 2
    assert logged(review) == {("e1", 1): 1, ("e2", 2): 1}
    assert api.flush_log(settings) == 0  # nothing pending
    settings.review.log = False
    assert api.flush_log(settings) == 0
