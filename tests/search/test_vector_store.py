"""The exact vector store and its cosine stage, on a real embedded FalkorDB.

Graphs are generated (random unit vectors, edge types, validity windows) and saved through
graphiti-core; the store stage is compared with an exact answer computed from the stored
vectors under random filters, queries of every kind (stored, perturbed, midpoints) and limits,
and kept fresh against graphiti-core's own writes (save, delete, re-save) made after the store
was built, including while searches run.
"""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from uuid import uuid4

import numpy as np
import pytest
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from graphiti_core.search.search_filters import SearchFilters
from hypothesis import given
from hypothesis import settings as settings_h
from hypothesis import strategies as st
from test_vector_index import T0, indexed, random_filter, unit  # noqa: F401 - indexed: a fixture

from graph_trust.graph import text_index
from graph_trust.graph import vector_store as vs
from graph_trust.graph.connection import open_graph
from graph_trust.search.bm25 import bm25_candidates
from graph_trust.search.cosine import CosineStage, cosine_candidates, store_view


def passes(edge: EntityEdge, f: SearchFilters) -> bool:
    """graphiti-core's filters as the generated graphs use them (edge types, a valid_at window)."""
    if f.edge_types is not None and edge.name not in f.edge_types:
        return False
    for window in f.valid_at or []:
        lo, hi = window[0].date, window[1].date
        if not (edge.valid_at is not None and lo <= edge.valid_at < hi):
            return False
    return True


def exact(edges: dict[str, EntityEdge], q: np.ndarray, f: SearchFilters, limit: int, min_score: float
          ) -> list[tuple[float, str]]:
    """The exact top ``limit`` (Graphiti's score, uuid) over ``edges``, equal scores by uuid."""
    qn = q / np.linalg.norm(q)
    out = []
    for e in edges.values():
        v = np.asarray(e.fact_embedding, dtype=np.float64)
        s = (1.0 + float(v @ qn) / float(np.linalg.norm(v))) / 2.0
        if s > min_score and passes(e, f):
            out.append((s, e.uuid))
    return sorted(out, key=lambda t: (-t[0], t[1]))[:limit]


def same_by_score(got: list[str], want: list[tuple[float, str]], score: dict[str, float]) -> None:
    """``got`` is ``want`` compared by score (float32 noise allowed), in order."""
    assert len(got) == len(want)
    np.testing.assert_allclose([score[u] for u in got], [s for s, _ in want], atol=1e-6)


def queries(rng: np.random.Generator, edges: list[EntityEdge], n: int) -> list[tuple[str, np.ndarray]]:
    """Stored, perturbed and midpoint queries drawn from the graph's own embeddings."""
    out = []
    for i in range(n):
        a, b = (np.asarray(edges[j].fact_embedding) for j in rng.integers(0, len(edges), 2))
        kind = ("stored", "perturbed", "between")[i % 3]
        if kind == "perturbed":
            noise = rng.normal(size=a.shape)
            a = a + 0.3 * noise / np.linalg.norm(noise)
        elif kind == "between":
            a = a + b
        out.append((kind, a / np.linalg.norm(a)))
    return out


@pytest.fixture
async def stored(indexed, settings):
    """A generated graph in group g_<unique> with its store built by init."""
    driver, group, nodes, edges, report = indexed
    return driver, group, nodes, {e.uuid: e for e in edges}, report, CosineStage.for_settings(settings)


async def test_init_builds_the_store(stored, settings):
    driver, group, nodes, edges, report, stage = stored
    assert report["vector_stores"][group] == {"edge": {"status": "built", "items": len(edges)},
                                              "node": {"status": "built", "items": len(nodes)}}
    async with open_graph(settings) as conn:
        again = await vs.ensure(conn.for_group(group), settings)
    assert again["edge"]["status"] == "current"


async def test_store_stage_is_the_exact_top_k(stored):
    """Every sampled query kind, random filters, sim_min_score and limits: the store's candidates
    are the exact top k by Graphiti's score, equal scores by uuid."""
    driver, group, _, edges, _, stage = stored
    rng = np.random.default_rng(5)
    r = random.Random(5)
    for _kind, q in queries(rng, list(edges.values()), 24):
        f, min_score = random_filter(r)
        limit = r.choice([1, 5, 10, 20])
        got = await cosine_candidates("edge", driver, q.tolist(), f, [group], limit, min_score, stage)
        assert got.stage == "store", got.reason
        want = exact(edges, q, f, limit, min_score)
        scores = dict((u, s) for s, u in exact(edges, q, SearchFilters(), len(edges), -1.0))
        same_by_score([x.uuid for x in got], want, scores)


async def test_equal_scores_are_ordered_by_uuid(stored):
    """Edges with one embedding tie exactly: the store stage orders them by uuid, whatever order
    they were written in."""
    driver, group, nodes, _, _, stage = stored
    vec = unit(np.random.default_rng(99))
    twins = [EntityEdge(uuid=str(uuid4()), source_node_uuid=nodes[0].uuid, target_node_uuid=nodes[1].uuid,
                        name="TWIN", fact=f"twin {i}", group_id=group, episodes=[], created_at=T0, valid_at=T0,
                        fact_embedding=vec) for i in range(12)]
    for e in random.Random(3).sample(twins, len(twins)):
        await e.save(driver)
    got = await cosine_candidates("edge", driver, vec, SearchFilters(), [group], 8, 0.0, stage)
    assert got.stage == "store"
    assert [x.uuid for x in got] == sorted(e.uuid for e in twins)[:8]


async def test_graphiti_writes_after_the_build_are_seen(stored, settings):
    """New edges (now, and with an old created_at), deleted and re-embedded ones, written by
    graphiti-core after the store was built: the next search sees each change."""
    driver, group, nodes, edges, _, stage = stored
    rng = np.random.default_rng(8)

    def edge(vec: list[float], created: datetime) -> EntityEdge:
        return EntityEdge(uuid=str(uuid4()), source_node_uuid=nodes[2].uuid, target_node_uuid=nodes[3].uuid,
                          name="NEW", fact="new", group_id=group, episodes=[], created_at=created, valid_at=T0,
                          fact_embedding=vec)

    for created in (datetime.now(UTC), T0 - timedelta(days=400)):  # the watermark, then the count
        e = edge(unit(rng), created)
        await e.save(driver)
        got = await cosine_candidates("edge", driver, e.fact_embedding, SearchFilters(), [group], 3, 0.0, stage)
        assert got.stage == "store" and got[0].uuid == e.uuid
        edges[e.uuid] = e
    victim = next(iter(edges.values()))
    await victim.delete(driver)
    del edges[victim.uuid]
    got = await cosine_candidates("edge", driver, victim.fact_embedding, SearchFilters(), [group], 10, 0.0, stage)
    assert victim.uuid not in {x.uuid for x in got}
    same_by_score([x.uuid for x in got], exact(edges, np.asarray(victim.fact_embedding), SearchFilters(), 10, 0.0),
                  {u: s for s, u in exact(edges, np.asarray(victim.fact_embedding), SearchFilters(), 10**6, -1)})
    moved = next(iter(edges.values()))  # re-embedded: scored by its new vector wherever it is a candidate
    q = np.asarray(moved.fact_embedding)
    moved.fact_embedding = unit(rng)
    await moved.save(driver)
    got = await cosine_candidates("edge", driver, q.tolist(), SearchFilters(), [group], 10, 0.0, stage)
    scores = {u: s for s, u in exact(edges, q, SearchFilters(), 10**6, -1)}
    want = exact(edges, q, SearchFilters(), 10, 0.0)
    same_by_score([x.uuid for x in got], want, scores)
    # found by its new embedding once the store is rebuilt (index rebuild; sync when counts moved)
    async with open_graph(settings) as conn:
        assert (await vs.ensure(conn.for_group(group), settings, force=True))["edge"]["status"] == "built"
    got = await cosine_candidates("edge", driver, moved.fact_embedding, SearchFilters(), [group], 1, 0.0, stage)
    assert [x.uuid for x in got] == [moved.uuid]


def okapi(docs: dict[str, list[str]], terms: list[str]) -> dict[str, float]:
    """BM25 of every document matching a term, document by document: Lucene's idf, k1 1.2, b 0.75."""
    n, avgdl = len(docs), sum(map(len, docs.values())) / max(1, len(docs))
    out: dict[str, float] = {}
    for term in dict.fromkeys(terms):
        df = sum(1 for d in docs.values() if term in d)
        idf = float(np.log(1 + (n - df + 0.5) / (df + 0.5)))
        for u, d in docs.items():
            tf = d.count(term)
            if tf:
                out[u] = out.get(u, 0.0) + idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(d) / avgdl))
    return out


WORDS = ["billing", "ledger", "backup", "owner", "nightly", "replica", "gateway", "runs", "hosts", "team"]


async def test_entity_bm25_is_okapi_over_names_and_summaries_and_fresh(stored, settings):
    """Entities' BM25 from the store: Okapi BM25 over each entity's name and summary, equal scores
    by uuid, over the entities built into the store and those graphiti-core saved or deleted
    since; the group filter holds."""
    driver, group, nodes, _, _, stage = stored
    r = random.Random(4)

    def entity(i: int) -> EntityNode:
        return EntityNode(uuid=str(uuid4()), name=f"{r.choice(WORDS)}-{i}", group_id=group, labels=["Entity"],
                          summary=" ".join(r.choices(WORDS, k=r.randrange(0, 8))), created_at=T0,
                          name_embedding=unit(np.random.default_rng(i)))

    for e in [entity(i) for i in range(60)]:
        await e.save(driver)
    async with open_graph(settings) as conn:  # these 60 in the built postings, the rest taken in at search
        assert (await vs.ensure(conn.for_group(group), settings, force=True))["node"]["status"] == "built"
    later = [entity(100 + i) for i in range(15)]
    for e in later:
        await e.save(driver)
    await nodes[0].delete(driver)
    view = store_view(stage, driver, "node")
    for _ in range(25):
        query = " ".join(r.sample(WORDS, r.randrange(1, 4)))
        limit = r.choice([1, 5, 10, 40])
        got = await bm25_candidates("node", driver, view, query, SearchFilters(), [group], limit)
        stored_nodes = await EntityNode.get_by_group_ids(driver, [group])
        want = okapi({n.uuid: text_index.tokens(f"{n.name} {n.summary}") for n in stored_nodes},
                     text_index.tokens(query))
        best = sorted(want.items(), key=lambda t: (-t[1], t[0]))[:limit]
        assert len(got) == len(best), query
        np.testing.assert_allclose([want[n.uuid] for n in got], [s for _, s in best], rtol=1e-9)
        assert nodes[0].uuid not in {n.uuid for n in got}
    found = await bm25_candidates("node", driver, view, later[-1].name, SearchFilters(), [group], 5)
    assert later[-1].uuid in {n.uuid for n in found}  # saved after the build: found at the next search
    assert await bm25_candidates("node", driver, view, "billing", SearchFilters(), ["another-group"], 5) == []


async def test_fresh_while_graphiti_writes(stored):
    """A writer saving, deleting and re-saving edges through graphiti-core while searches run:
    no search returns an edge deleted before it started, and once the writer stops the next
    search is the exact top k of what the graph holds."""
    driver, group, nodes, edges, _, stage = stored
    rng = np.random.default_rng(21)
    deleted: set[str] = set()
    stop = asyncio.Event()

    async def writer() -> None:
        r = random.Random(21)
        for i in range(60):
            what = r.random()
            if what < 0.5:
                e = EntityEdge(uuid=str(uuid4()), source_node_uuid=nodes[i % 10].uuid,
                               target_node_uuid=nodes[10 + i % 10].uuid, name="W", fact=f"w{i}", group_id=group,
                               episodes=[], created_at=datetime.now(UTC), valid_at=T0,
                               fact_embedding=unit(rng))
                await e.save(driver)
                edges[e.uuid] = e
            elif what < 0.8:
                victim = edges.pop(r.choice(sorted(edges)))
                await victim.delete(driver)
                deleted.add(victim.uuid)
            else:  # re-saved as Graphiti does when an episode repeats a fact (same embedding)
                e = edges[r.choice(sorted(edges))]
                e.fact = f"{e.fact}, again in w{i}"
                await e.save(driver)
            await asyncio.sleep(0)
        stop.set()

    async def searcher() -> int:
        n = 0
        while not stop.is_set():
            gone = set(deleted)
            q = unit(rng)
            got = await cosine_candidates("edge", driver, q, SearchFilters(), [group], 10, 0.0, stage)
            assert got.stage == "store"
            assert not gone & {x.uuid for x in got}
            n += 1
        return n

    _, searches = await asyncio.gather(writer(), searcher())
    assert searches > 0
    for q in (unit(rng) for _ in range(5)):
        got = await cosine_candidates("edge", driver, q, SearchFilters(), [group], 10, 0.0, stage)
        same_by_score([x.uuid for x in got], exact(edges, np.asarray(q), SearchFilters(), 10, 0.0),
                      {u: s for s, u in exact(edges, np.asarray(q), SearchFilters(), 10**6, -1)})



@settings_h(max_examples=60, deadline=None)
@given(st.integers(1, 400), st.integers(1, 24), st.integers(1, 60), st.integers(0, 2**32 - 1), st.booleans())
def test_numpy_and_faiss_find_the_same_top_k(n, dim, k, seed, dup):
    """The two scans behind the store (FAISS's flat search where installed, else NumPy) return
    the same top k by score, duplicates (exact ties) included."""
    rng = np.random.default_rng(seed)
    m = vs.unit_rows(rng.normal(size=(n, dim)).astype(np.float32))
    if dup:
        m[n // 2:] = m[0]
    q = vs.unit_rows(rng.normal(size=(1, dim)).astype(np.float32))[0]
    k = min(k, n)
    with_faiss = vs._knn(m, q, k)
    saved, vs.faiss = vs.faiss, None
    try:
        with_numpy = vs._knn(m, q, k)
    finally:
        vs.faiss = saved
    np.testing.assert_allclose(np.sort(with_faiss[1]), np.sort(with_numpy[1]), atol=1e-5)
    np.testing.assert_allclose(m[with_numpy[0]] @ q, with_numpy[1], atol=1e-5)
    assert len(with_faiss[0]) == len(with_numpy[0]) == k
