"""The cosine stage chosen per graph by its vector index's measured recall (``search.cosine: auto``).

Pure rules (:func:`index_recall.choose`, the k ladder) are property-tested; the rest runs on the
session's embedded FalkorDB with generated graphs: near-duplicate clusters (an HNSW graph built
with few links on them cannot reach its own points: a graph that defeats the index), the same
clusters with a few more links (wider queries recover recall), random unit vectors, and a
tie-heavy graph of operations facts embedded by the hashing embedder (many exact ties,
ordered by uuid).
"""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime
from uuid import uuid4

import numpy as np
import pytest
from builders import assert_same_up_to_tie_order, copy_recipe
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from graphiti_core.search import search_utils as su
from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from graph_trust import api
from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.config import PROFILES, load_settings
from graph_trust.graph import index_recall as ir
from graph_trust.graph import vector_index as vi
from graph_trust.graph.recall_store import RecallStore, store_path
from graph_trust.search import trust_search as gt
from graph_trust.search.cosine import CosineStage, _search, cosine_candidates, forget
from graph_trust.search.ranked import search_config


@pytest.fixture
def settings(settings):
    """These tests are about the HNSW indexes, which init creates beside the store only when asked."""
    return settings.model_copy(update={"vector_index": settings.vector_index.model_copy(update={"enabled": True})})

T0 = datetime(2024, 1, 1, tzinfo=UTC)
DIM = 16


def keep_queries(db, calls) -> None:
    """Keep ``calls`` (seconds after 2026-01-01, interface, groups, query text) in the retrieval log
    of review DB ``db``, written by the product's own writer."""
    from graph_trust.review.log import RetrievalLog

    log = RetrievalLog(db, log_queries=True, background=False)
    start = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    for t, interface, groups, query in calls:
        log.record(interface, [], query=query, groups=groups, at=start + t)
    log.close()


def tuned(settings, **extra):
    """The test's settings (its graph, state directory) with ``extra`` dotted overrides; no exact
    vector store (these tests are about the HNSW index, which auto uses only without one)."""
    return load_settings(overrides={"graph.uri": settings.graph.uri, "graph.database": settings.graph.database,
                                    "state_dir": str(settings.state_dir), "sync.tiers": dict(settings.sync.tiers),
                                    "vector_index.store": False, **extra}, environ={})


async def save(driver, group: str, vectors: np.ndarray, *, facts: list[str] | None = None, seed: int = 0,
               n_nodes: int = 60) -> list[EntityEdge]:
    """Edges with ``vectors`` as fact embeddings (and ``facts`` as texts) between random entities,
    saved by graphiti-core's bulk path."""
    rng = random.Random(seed)
    nodes = [EntityNode(uuid=str(uuid4()), name=f"n{i}", group_id=group, labels=["Entity"], summary="",
                        created_at=T0, name_embedding=vectors[i % len(vectors)].tolist()) for i in range(n_nodes)]
    edges = [EntityEdge(uuid=str(uuid4()), source_node_uuid=a.uuid, target_node_uuid=b.uuid, name="R",
                        fact=(facts[i] if facts else f"fact {i}"), group_id=group, episodes=[], created_at=T0,
                        valid_at=T0, fact_embedding=v.tolist())
             for i, (v, (a, b)) in enumerate(zip(vectors, (rng.sample(nodes, 2) for _ in vectors), strict=False))]
    await add_nodes_and_edges_bulk(driver, [], [], nodes, [], None)
    await add_nodes_and_edges_bulk(driver, [], [], [], edges, None)
    return edges


def clusters(n: int, centers: int, spread: float, seed: int) -> np.ndarray:
    """``n`` unit vectors in ``centers`` tight clusters (near-duplicates within each)."""
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(centers, DIM))
    v = c[np.arange(n) % centers] / np.linalg.norm(c[np.arange(n) % centers], axis=1, keepdims=True)
    v = v + spread * rng.normal(size=v.shape)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


async def random_graph(driver, group: str, n: int, rng: np.random.Generator, seed: int = 0) -> list[EntityEdge]:
    """``n`` edges with random unit fact embeddings (no ties, an easy graph for the index)."""
    v = rng.normal(size=(n, DIM))
    return await save(driver, group, v / np.linalg.norm(v, axis=1, keepdims=True), seed=seed)


def exact_top(vectors: np.ndarray, uuids: list[str], q: np.ndarray, k: int) -> tuple[set[str], float]:
    sims = vectors @ (q / np.linalg.norm(q))
    order = np.argsort(-sims)
    return {uuids[i] for i in order[:k]}, float(sims[order[k - 1]])


# --- the rules ---------------------------------------------------------------------------------

MEASURED = st.fixed_dictionaries({
    "items": st.integers(0, 2_000_000),
    "options": st.fixed_dictionaries({"dimension": st.sampled_from([16, 256]), "M": st.sampled_from([16, 32]),
                                      "efConstruction": st.sampled_from([200, 400]), "efRuntime": st.just(1000)}),
    "ladder": st.lists(st.fixed_dictionaries({"k": st.integers(1, 4096), "recall": st.floats(0, 1)}),
                       min_size=1, max_size=6),
    "tie_share": st.floats(0, 1),
    "method": st.sampled_from([ir.METHOD, ir.METHOD, 1]),  # 1: an earlier check's (stale)
})


@hsettings(max_examples=300, deadline=None)
@given(mode=st.sampled_from(["scan", "index", "auto"]), items=st.integers(0, 2_000_000),
       present=st.one_of(st.none(), st.fixed_dictionaries({
           "ready": st.booleans(), "dimension": st.sampled_from([16, 256]), "M": st.sampled_from([16, 32]),
           "efConstruction": st.sampled_from([200, 400]), "efRuntime": st.just(1000)})),
       measurement=st.one_of(st.none(), MEASURED), min_size=st.integers(0, 100_000),
       min_recall=st.floats(0.5, 1.0), share=st.floats(0.01, 1.0), k0=st.integers(1, 200))
def test_choose_uses_the_index_only_where_measured_fresh_and_accurate(mode, items, present, measurement,
                                                                     min_size, min_recall, share, k0):
    c = ir.choose(mode=mode, kind="edge", items=items, present=present, measurement=measurement, min_size=min_size,
                  min_recall=min_recall, recheck_share=share, k0=k0)
    assert c.stage in ("index", "scan") and c.reason
    if c.stage == "scan":
        assert c.k is None
        return
    assert present is not None and present["ready"] and mode != "scan"
    assert c.k >= k0
    if mode == "auto":
        assert items >= min_size and measurement is not None
        assert ir.stale_reason(measurement, items, present, share, "edge") is None
        k = ir.k_for(measurement, min_recall)
        assert k is not None and c.k == max(k0, k)
        assert f"at k {k:,}" in c.reason


def test_choose_says_why_it_scans():
    ready = {"ready": True, "dimension": 16, "M": 16, "efConstruction": 200, "efRuntime": 1000}
    m = {"items": 1000, "options": dict(ready), "ladder": [{"k": 80, "recall": 0.9}, {"k": 2000, "recall": 0.97}],
         "tie_share": 0.0, "method": ir.METHOD}
    kw = {"mode": "auto", "kind": "edge", "min_size": 500, "min_recall": 0.98, "recheck_share": 0.2, "k0": 80}
    assert "no vector index" in ir.choose(items=1000, present=None, measurement=None, **kw).reason
    assert "being filled" in ir.choose(items=1000, present={**ready, "ready": False}, measurement=m, **kw).reason
    assert "below search.cosine_index_min_size (500)" in ir.choose(items=400, present=ready, measurement=m, **kw).reason
    assert "not measured" in ir.choose(items=1000, present=ready, measurement=None, **kw).reason
    assert "0.970 < vector_index.min_recall 0.98, even at k 2,000" in \
        ir.choose(items=1000, present=ready, measurement=m, **kw).reason
    assert "measured at 1,000 edges, the graph now holds 1,300" in \
        ir.choose(items=1300, present=ready, measurement=m, **kw).reason
    assert "another index" in ir.choose(items=1000, present={**ready, "M": 32}, measurement=m, **kw).reason
    assert "measured by an earlier version of the check" in \
        ir.choose(items=1000, present=ready, measurement={k: v for k, v in m.items() if k != "method"}, **kw).reason
    ok = {**m, "ladder": [{"k": 80, "recall": 0.99}], "tie_share": 0.7}
    assert ir.choose(items=1000, present=ready, measurement=ok, **kw).stage == "index"  # ties are no reason to scan
    assert ir.choose(items=1000, present=ready, measurement=None, **{**kw, "mode": "index"}).k == 80


UNIT = st.lists(st.floats(-1, 1), min_size=DIM, max_size=DIM).filter(lambda v: np.linalg.norm(v) > 0.1)


@given(a=UNIT, b=UNIT)
def test_between_is_the_unit_midpoint_equally_near_both(a, b):
    m = np.asarray(ir._between(a, b))
    assert abs(np.linalg.norm(m) - 1.0) < 1e-9
    ua, ub = np.asarray(a) / np.linalg.norm(a), np.asarray(b) / np.linalg.norm(b)
    if np.linalg.norm(ua + ub) > 1e-6:  # (opposite vectors have no midpoint: the first is kept)
        assert abs(float(m @ ua) - float(m @ ub)) < 1e-9 and float(m @ ua) >= min(1.0, float(ua @ ub)) - 1e-9


@given(k0=st.integers(1, 500), ef=st.one_of(st.none(), st.integers(1, 5000)), cap=st.integers(1, 4096))
def test_ladder_starts_at_the_stage_and_doubles_to_the_cap(k0, ef, cap):
    steps = ir.ladder(k0, ef, cap)
    assert steps[0] == k0 and steps == sorted(steps) and len(set(steps)) == len(steps)
    assert all(b <= max(2 * a, 2 * (ef or 0)) for a, b in zip(steps, steps[1:], strict=False))
    assert steps[-1] == max(k0, cap) or max(k0, ef or 0) >= cap


def test_recall_store_read_only_creates_nothing(tmp_path):
    path = tmp_path / "state" / "state.sqlite3"
    with RecallStore.open_read_only(path) as store:
        assert store.get("g", "db", "edge") is None
    assert not path.parent.exists()
    s = load_settings(overrides={"state_dir": str(tmp_path / "state")}, environ={})
    with RecallStore.open(s) as store:
        store.put("g", "db", "edge", {"items": 3})
    with RecallStore.open_read_only(store_path(s)) as store:
        assert store.get("g", "db", "edge") == {"items": 3} and store.get("g", "db", "node") is None


# --- measured on real graphs ----------------------------------------------------------------------

async def test_check_widens_k_until_the_target_holds(graph, settings, unique):
    """Near-duplicate clusters in an index built with few links: the stage's own k misses part of
    the exact top 10; the check widens k until recall@10 reaches the target, and search asks the
    index for that k and finds the exact answers."""
    group = f"g_{unique}"
    s = tuned(settings, **{"search.limit": 5, "search.cosine_index_min_size": 100, "vector_index.m": 4,
                           "vector_index.ef_construction": 16, "vector_index.ef_runtime": 4})
    driver = graph.for_group(group).driver
    vectors = clusters(2000, 20, 0.01, seed=1)
    edges = await save(driver, group, vectors)
    report = await api.init(s, [group])
    m = report["recall"][group]["edge"]["measurement"]
    steps = m["ladder"]
    # a third each: stored embeddings, perturbed ones, midpoints of two; a step's recall is its
    # hardest kind's
    assert m["sampled"] == {"stored": 34, "perturbed": 33, "between": 33, "given": 0} and m["method"] == ir.METHOD
    assert all(set(x["by_kind"]) == {"stored", "perturbed", "between"} for x in steps)
    assert all(x["recall"] == min(x["by_kind"].values()) for x in steps)
    assert steps[0]["k"] == 40 and steps[0]["recall"] < 0.98  # pool 10 x oversample 4
    assert len(steps) >= 2 and steps[-1]["recall"] >= 0.98 and all(s_["recall"] < 0.98 for s_ in steps[:-1])
    choice = report["recall"][group]["edge"]["choice"]
    assert choice == {"stage": "index", "k": steps[-1]["k"], "reason": choice["reason"]}
    # search at that k finds the exact top 10 of fresh queries (stored vectors perturbed)
    forget(driver)
    stage = CosineStage.for_settings(s)
    uuids = [e.uuid for e in edges]
    rng = np.random.default_rng(7)
    hits = total = 0
    for i in rng.choice(len(vectors), 30, replace=False):
        q = vectors[i] + 0.005 * rng.normal(size=DIM)
        got = await cosine_candidates("edge", driver, q.tolist(), SearchFilters(), [group], 10, -1.0, stage)
        assert got.stage == "index" and f"at k {steps[-1]['k']:,}" in got.reason
        want, _ = exact_top(vectors, uuids, q, 10)
        hits += len(want & {e.uuid for e in got})
        total += 10
    assert hits / total >= 0.95


async def test_graph_that_defeats_the_index_falls_back_to_scan(graph, settings, unique):
    """Near-duplicate clusters in an index built with two links per point: the HNSW graph falls
    apart, and no k reaches the target. The check says so, search scans by itself (exactly
    Graphiti's items and scores), and index status says why."""
    group = f"g_{unique}"
    s = tuned(settings, **{"search.cosine_index_min_size": 100, "vector_index.m": 2,
                           "vector_index.ef_construction": 4, "vector_index.ef_runtime": 2})
    driver = graph.for_group(group).driver
    vectors = clusters(2000, 20, 0.01, seed=2)
    await save(driver, group, vectors)
    await api.init(s, [group])
    status = (await api.index_status(s, [group]))["graphs"][group]["edge"]
    steps = status["measurement"]["ladder"]
    assert steps[-1]["k"] == s.vector_index.max_ef and max(x["recall"] for x in steps) < 0.9
    assert status["choice"]["stage"] == "scan"
    assert status["choice"]["reason"].startswith("recall@10 0.") and "< vector_index.min_recall 0.98, even at k 4,096" \
        in status["choice"]["reason"]
    forget(driver)
    graphiti = make_graphiti(driver, embedder=HashingEmbedder(dim=DIM))
    cfg = search_config(s, limit=10).model_copy(update=PROFILES["graphiti"])
    rng = np.random.default_rng(3)
    for i in rng.choice(len(vectors), 8, replace=False):
        q = (vectors[i] + 0.02 * rng.normal(size=DIM)).tolist()
        ours = await gt.trust_search(graphiti, "fact", config=cfg, group_ids=[group], trust_weight=0.0, query_vector=q)
        vanilla = await graphiti.search_("fact", config=copy_recipe(EDGE_HYBRID_SEARCH_RRF, 10), group_ids=[group],
                                         query_vector=q)
        assert ours.cosine_stages == [{"kind": "edge", "graph": group, "stage": "scan",
                                       "reason": status["choice"]["reason"]}]
        # Graphiti's items and scores; equal scores in the documented order (by uuid)
        assert_same_up_to_tie_order([e.uuid for e in ours.edges], ours.edge_reranker_scores,
                                    [e.uuid for e in vanilla.edges], vanilla.edge_reranker_scores)


SERVICES = ["billing", "auth", "payments", "search", "ledger", "gateway"]
KINDS = ["db", "api", "worker", "cron"]
TEMPLATES = ["{s} runs on host-{n:02d}", "{s} is owned by team-{t}", "the nightly backup of {s} runs at {h:02d}:00 UTC",
             "{s} is deployed in {r}", "{s} listens on port {p}"]


def ops_facts(n: int, seed: int) -> list[str]:
    """Operations facts over few words: the hashing embedder gives many of them equal cosines
    with a query (same words, other numbers), and some are exact duplicates."""
    rng = random.Random(seed)
    return [rng.choice(TEMPLATES).format(s=f"{rng.choice(SERVICES)}-{rng.choice(KINDS)}-{rng.randrange(40)}",
                                         n=rng.randrange(30), t=rng.choice("abcdef"), h=rng.randrange(24),
                                         r=rng.choice(["eu-west-1", "us-east-1"]), p=rng.randrange(8000, 8040))
            for _ in range(n)]


async def test_tie_heavy_graph_index_stage_orders_ties_by_uuid(graph, settings, unique):
    """On a graph full of exact cosine ties, the index stage never leaves a query to the scan
    because of them: its candidates come best first, equal scores by uuid (the documented key),
    and wherever the index found the exact candidates they are the exact vector store's answer,
    item for item, and so is trust_search's result (``reference`` at weight 0). The ties matter:
    Graphiti's scan orders some of them otherwise, and ``search.profile: graphiti`` still
    returns exactly ``search_`` (it scans)."""
    group = f"g_{unique}"
    s = tuned(settings, **{"search.cosine_index_min_size": 100, "vector_index.store": True,
                           "vector_index.enabled": True})
    emb = HashingEmbedder()
    driver = graph.for_group(group).driver
    facts = ops_facts(1500, seed=11)
    await save(driver, group, emb.embed(facts).astype(np.float64), facts=facts)
    report = await api.init(s, [group])
    assert report["recall"][group]["edge"]["measurement"]["tie_share"] > 0.2
    forget(driver)
    graphiti = make_graphiti(driver, embedder=emb)
    vanilla_cfg = copy_recipe(EDGE_HYBRID_SEARCH_RRF, 10)
    def profile(name: str, cosine: str = "auto"):  # noqa: ANN202
        return search_config(tuned(settings, **{"search.cosine_index_min_size": 100, "vector_index.store": True,
                                                 "search.profile": name, "search.cosine": cosine}), limit=10)

    by_index, by_store, graphiti_cfg = profile("reference", "index"), profile("reference", "store"), profile("graphiti")
    pool, min_score = 20, vanilla_cfg.edge_config.sim_min_score
    rng = random.Random(5)
    nrng = np.random.default_rng(5)
    # questions (their top candidates nearly always tie), and facts' own vectors slightly perturbed
    # (they tie where the graph holds the same fact twice)
    queries = [(q, await emb.create(input_data=[q])) for q in
               (f"{w} {rng.choice(SERVICES)} {rng.choice(KINDS)}" for w in
                ("who owns", "where is deployed", "backup of", "which port", "host of") for _ in range(4))]
    for i in rng.sample(range(len(facts)), 40):
        v = emb.embed([facts[i]])[0] + 0.02 * nrng.normal(size=emb.dim)
        queries.append((facts[i], (v / np.linalg.norm(v)).tolist()))
    found = tied = scan_order_differs = 0
    for q, vec in queries:
        got = await cosine_candidates("edge", driver, vec, SearchFilters(), [group], pool, min_score, by_index.cosine)
        assert got.stage == "index", got.reason  # never the scan because of ties
        raw, scores = await _search("edge", driver, vec, 4 * pool, SearchFilters(), [group], pool, min_score)
        assert [e.uuid for e in got] == [e.uuid for e in raw]
        keys = list(zip(scores, [e.uuid for e in raw], strict=True))
        assert all(a[0] > b[0] or (a[0] == b[0] and a[1] < b[1]) for a, b in zip(keys, keys[1:], strict=False)), q
        tied += len(set(scores)) < len(scores)
        exact = await cosine_candidates("edge", driver, vec, SearchFilters(), [group], pool, min_score, by_store.cosine)
        assert exact.stage == "store"
        wide, _ = await _search("edge", driver, vec, 4 * pool, SearchFilters(), [group], 4 * pool, min_score)
        if not {e.uuid for e in exact} <= {e.uuid for e in wide}:
            continue  # the index missed a candidate: its recall is measured elsewhere
        found += 1
        assert [e.uuid for e in got] == [e.uuid for e in exact], q
        ours = await gt.trust_search(graphiti, q, config=by_index, group_ids=[group], trust_weight=0.0,
                                     query_vector=vec)
        theirs = await gt.trust_search(graphiti, q, config=by_store, group_ids=[group], trust_weight=0.0,
                                       query_vector=vec)
        assert [c["stage"] for c in ours.cosine_stages] == ["index"]
        assert ([e.uuid for e in ours.edges], ours.edge_reranker_scores) == (
            [e.uuid for e in theirs.edges], theirs.edge_reranker_scores), q
        scan = await su.edge_similarity_search(driver, vec, None, None, SearchFilters(), [group], pool, min_score)
        scan_order_differs += [e.uuid for e in scan] != [e.uuid for e in got]
        vanilla = await graphiti.search_(q, config=vanilla_cfg, group_ids=[group], query_vector=vec)
        same = await gt.trust_search(graphiti, q, config=graphiti_cfg, group_ids=[group], query_vector=vec)
        assert [e.uuid for e in same.edges] == [e.uuid for e in vanilla.edges], q
        assert same.edge_reranker_scores == vanilla.edge_reranker_scores
    assert found >= 30 and tied >= 20, (found, tied)
    assert scan_order_differs >= 3  # the key decides where the scan's heap would have


async def test_stale_measurement_scans_until_checked_again(graph, settings, unique):
    group = f"g_{unique}"
    s = tuned(settings, **{"search.cosine_index_min_size": 100})
    driver = graph.for_group(group).driver
    rng = np.random.default_rng(4)
    await random_graph(driver, group, 400, rng)
    await api.init(s, [group])
    stage = CosineStage.for_settings(s)
    vec = rng.normal(size=DIM).tolist()
    assert (await cosine_candidates("edge", driver, vec, SearchFilters(), [group], 10, 0.0, stage)).stage == "index"
    await random_graph(driver, group, 200, rng, seed=1)
    forget(driver)
    stale = await cosine_candidates("edge", driver, vec, SearchFilters(), [group], 10, 0.0, stage)
    assert stale.stage == "scan"
    assert "measured at 400 edges, the graph now holds 600" in stale.reason
    out = await api.index_check(s, [group], stale_only=True)
    assert set(out["measured"][group]) == {"edge", "node"}  # 60 more entities too: both grew by more than 20%
    assert out["measured"][group]["edge"].startswith("recall was measured at 400 edges")
    forget(driver)
    assert (await cosine_candidates("edge", driver, vec, SearchFilters(), [group], 10, 0.0, stage)).stage == "index"
    again = await api.index_check(s, [group], stale_only=True)
    assert again["measured"] == {}


async def test_rebuild_recreates_for_the_size_while_searches_keep_working(graph, settings, unique):
    """index rebuild drops and recreates the index (here with M 8) and measures it; searches
    running meanwhile return the scan's candidates and say why, never a half-filled index's."""
    group = f"g_{unique}"
    s = tuned(settings, **{"search.cosine_index_min_size": 100})
    driver = graph.for_group(group).driver
    rng = np.random.default_rng(6)
    await random_graph(driver, group, 3000, rng)
    await api.init(s, [group])
    assert (await vi.existing(driver))["edge"]["M"] == 16
    rebuilt = asyncio.ensure_future(api.index_rebuild(tuned(s, **{"vector_index.m": 8}), [group], ["edge"]))
    stage = CosineStage.for_settings(s)
    seen = set()
    while True:
        done = rebuilt.done()
        forget(driver)
        vec = rng.normal(size=DIM).tolist()
        got = await cosine_candidates("edge", driver, vec, SearchFilters(), [group], 10, 0.6, stage)
        scan = await su.edge_similarity_search(driver, vec, None, None, SearchFilters(), [group], 10, 0.6)
        seen.add(got.stage if got.stage == "index" else got.reason)
        if got.stage == "scan":
            assert [e.uuid for e in got] == [e.uuid for e in scan]
            assert got.reason in ("no vector index (graph-trust init creates it)",
                                  "the vector index is still being filled", "recall not measured yet "
                                  "(graph-trust index check measures it)", "recall was measured on another index "
                                  "(rebuilt since): graph-trust index check (or the next sync) re-measures it")
        if done:
            break
        await asyncio.sleep(0.05)
    out = rebuilt.result()["graphs"][group]["edge"]
    assert out["dropped"] and out["status"] == "created" and out["M"] == 8
    assert out["status_after"]["measurement"]["options"]["M"] == 8
    assert (await vi.existing(driver))["edge"]["M"] == 8
    assert "index" in seen and len(seen) >= 2, seen  # searched before the rebuild was over, and after


async def test_sync_remeasures_after_writing_a_large_share(graph, settings, unique, tmp_path):
    """A sync that wrote more than vector_index.recheck_share of a graph's edges (each write
    re-adds the edge to the index) re-measures that graph's index; one that wrote nothing does not."""
    from sync_fixtures import review_db, row

    from graph_trust.review.schema import init_review_tables

    group = f"g_{unique}"
    s = tuned(settings, **{"search.cosine_index_min_size": 100, "review.log_queries": True,
                           "search.embedder": "test_index_recall:embedder16"})
    driver = graph.for_group(group).driver
    edges = await random_graph(driver, group, 400, np.random.default_rng(8))
    await api.init(s, [group])
    before = (await api.index_status(s, [group]))["graphs"][group]["edge"]["measurement"]["measured_at"]
    db = review_db(tmp_path / "review.sqlite3", [row(f"c{i}", e.uuid, "promoted", group)
                                                 for i, e in enumerate(edges[:150])])
    init_review_tables(db)  # the run's review DB keeps two queries: the re-measurement counts them
    keep_queries(db, [(1, "search", [group], q) for q in ("billing backup", "auth owner")])
    report = await api.sync(s, review_db=db)
    assert report.edges_set == 150
    assert report.vector_index[group]["edge"]["why"] == "150 written (more than 0.2 of 400)"
    assert report.vector_index[group]["edge"]["choice"]["stage"] == "index"
    after = (await api.index_status(s, [group]))["graphs"][group]["edge"]["measurement"]
    assert after["measured_at"] >= before and after["items"] == 400 and after["sampled"]["given"] == 2
    quiet = await api.sync(s, review_db=db)
    assert quiet.edges_set == 0 and quiet.vector_index == {} and quiet.vector_index_hint is None


@pytest.mark.parametrize("bad", [["nope"]])
async def test_unknown_group_is_one_clear_error(graph, settings, bad):
    from graph_trust.errors import InputError

    with pytest.raises(InputError, match="unknown group 'nope'"):
        await api.index_status(settings, bad)


@pytest.mark.parametrize("items", [100, 25_000])  # (as if the graph were larger: many small ranges)
async def test_every_stored_embedding_is_read_once(graph, unique, items):
    """The exact scan's read (FalkorDB: internal node id ranges, whatever the uuids look like:
    its range index answers some uuid bounds wrongly); every embedding once."""
    group = f"g_{unique}"
    driver = graph.for_group(group).driver
    edges = await random_graph(driver, group, 300, np.random.default_rng(9))
    odd = ["edge-1", "Z", "0", "0F-upper", "ffff", "0g-not-hex", "10"]
    nodes = [EntityNode(uuid=str(uuid4()), name=f"m{i}", group_id=group, labels=["Entity"], summary="",
                        created_at=T0, name_embedding=[1.0] * DIM) for i in range(2)]
    extra = [EntityEdge(uuid=u, source_node_uuid=nodes[0].uuid, target_node_uuid=nodes[1].uuid, name="R", fact=u,
                        group_id=group, episodes=[], created_at=T0, valid_at=T0, fact_embedding=[0.5] * DIM)
             for u in odd]
    await add_nodes_and_edges_bulk(driver, [], [], nodes, extra, None)
    g = graph.for_group(group)
    await g.settle()
    await vi.until_ready(g)  # graphiti-core's uuid index, created with the group's graph, filled
    got = [u for uuids, _ in [b async for b in vi.iter_vectors(g, vi.EDGES, items)] for u in uuids]
    assert sorted(got) == sorted([e.uuid for e in edges] + odd)


def embedder16():
    """search.embedder for the log test: the hashing embedder at the test graphs' dimension."""
    return HashingEmbedder(dim=DIM)


async def test_the_retrieval_logs_queries_are_measured_beside_the_sampled_ones(graph, settings, unique, tmp_path):
    """With review.log_queries, the check embeds the newest kept queries of calls that searched
    the group (or every group) and counts them as their own kind; other groups' queries and
    repeats are left out; without the setting, or with no such queries, none are used."""
    from graph_trust.review import log as retrieval_log
    from graph_trust.review.db import ReviewConn
    from graph_trust.review.schema import init_review_tables

    group, other = f"g_{unique}", f"o_{unique}"
    await random_graph(graph.for_group(group).driver, group, 400, np.random.default_rng(8))
    db = tmp_path / "review.sqlite3"
    ReviewConn.open(db, create=True).close()
    init_review_tables(db)
    keep_queries(db, [(1, "search", [group], "billing backup"), (2, "search", [group, other], "who owns auth"),
                      (3, "mcp", [group], "billing backup"),  # a repeat
                      (4, "search", [other], "other group only"), (5, "context", None, "every group")])
    with ReviewConn.open(db) as conn:
        assert retrieval_log.recent_queries(conn, group, 10) == ["every group", "billing backup", "who owns auth"]
        assert retrieval_log.recent_queries(conn, group, 2) == ["every group", "billing backup"]
        assert retrieval_log.recent_queries(conn, None, 10) == ["every group", "other group only", "billing backup",
                                                                "who owns auth"]
    base = {"search.cosine_index_min_size": 100, "review.path": str(db), "search.embedder": "test_index_recall:embedder16"}
    made = await api.init(tuned(settings, **base), [group])  # builds the index and measures it
    assert made["recall"][group]["edge"]["measurement"]["sampled"]["given"] == 0
    on = await api.index_check(tuned(settings, **base, **{"review.log_queries": True}), [group])
    m = on["graphs"][group]["edge"]["measurement"]
    assert m["sampled"] == {"stored": 34, "perturbed": 33, "between": 33, "given": 3}
    assert all("given" in step["by_kind"] and step["recall"] == min(step["by_kind"].values()) for step in m["ladder"])
    # once the log holds as many real queries as the midpoints would be, they replace them
    keep_queries(db, [(100 + i, "search", [group], f"query {i}") for i in range(40)])
    full = await api.index_check(tuned(settings, **base, **{"review.log_queries": True}), [group])
    m = full["graphs"][group]["edge"]["measurement"]
    assert m["sampled"] == {"stored": 34, "perturbed": 33, "between": 0, "given": 43}
    assert all(set(step["by_kind"]) == {"stored", "perturbed", "given"} for step in m["ladder"])
    missing = tuned(settings, **{**base, "review.path": str(tmp_path / "none.sqlite3"), "review.log_queries": True})
    assert (await api.index_check(missing, [group]))["graphs"][group]["edge"]["measurement"]["sampled"]["given"] == 0
