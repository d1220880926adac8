"""Vector indexes and the index-backed cosine stage, on a real embedded FalkorDB.

Graphs are generated (random unit vectors, edge types, validity windows, several groups) and
saved through graphiti-core's own bulk path and ``save()``; the index stage is compared with
graphiti-core's exact scan under random filters.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from uuid import uuid4

import numpy as np
import pytest
from builders import copy_recipe
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from graphiti_core.search import search_utils as su
from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

from graph_trust.errors import InputError
from graph_trust.graph import schema
from graph_trust.graph import vector_index as vi
from graph_trust.search import ranked
from graph_trust.search import trust_search as gt
from graph_trust.search.cosine import CosineStage, cosine_candidates, forget


@pytest.fixture
def settings(settings):
    """These tests are about the HNSW indexes, which init creates beside the store only when asked."""
    return settings.model_copy(update={"vector_index": settings.vector_index.model_copy(update={"enabled": True})})

DIM = 16
TYPES = ["RUNS_ON", "OWNED_BY", "DEPENDS_ON", "RARE"]  # RARE: ~3% of edges, so filters remove most
T0 = datetime(2024, 1, 1, tzinfo=UTC)
INDEX = CosineStage(mode="index")


def unit(rng: np.random.Generator, dim: int = DIM) -> list[float]:
    v = rng.normal(size=dim)
    return (v / np.linalg.norm(v)).tolist()


async def generate(driver, group: str, seed: int, n_nodes: int = 40, n_edges: int = 400, dim: int = DIM):
    """A random graph saved by graphiti-core's bulk path; returns (nodes, edges)."""
    rng = np.random.default_rng(seed)
    r = random.Random(seed)
    nodes = [EntityNode(uuid=str(uuid4()), name=f"n{i}", group_id=group, labels=["Entity"], summary="",
                        created_at=T0, name_embedding=unit(rng, dim)) for i in range(n_nodes)]
    edges = []
    for i in range(n_edges):
        s, t = r.sample(nodes, 2)
        valid = T0 + timedelta(days=r.randrange(0, 900))
        edges.append(EntityEdge(uuid=str(uuid4()), source_node_uuid=s.uuid, target_node_uuid=t.uuid,
                                name="RARE" if r.random() < 0.03 else r.choice(TYPES[:3]), fact=f"fact {i}",
                                group_id=group, episodes=[], created_at=T0, valid_at=valid,
                                invalid_at=valid + timedelta(days=r.randrange(1, 400)) if r.random() < 0.3 else None,
                                fact_embedding=unit(rng, dim)))
    await add_nodes_and_edges_bulk(driver, [], [], nodes, [], None)
    await add_nodes_and_edges_bulk(driver, [], [], [], edges, None)
    return nodes, edges


def random_filter(r: random.Random) -> tuple[SearchFilters, float]:
    """A random SearchFilters (edge types, validity window, both, none) and sim_min_score."""
    f = SearchFilters()
    pick = r.randrange(4)
    if pick in (1, 3):
        f.edge_types = r.choice([["RARE"], ["RUNS_ON"], ["OWNED_BY", "RARE"]])
    if pick in (2, 3):
        lo = T0 + timedelta(days=r.randrange(0, 700))
        f.valid_at = [[DateFilter(date=lo, comparison_operator=ComparisonOperator.greater_than_equal),
                       DateFilter(date=lo + timedelta(days=r.randrange(30, 200)),
                                  comparison_operator=ComparisonOperator.less_than)]]
    return f, r.choice([0.0, 0.5, 0.6, 0.7])


@pytest.fixture
async def indexed(graph, settings, unique):
    """A generated graph in group g_<unique> with its vector indexes created by init."""
    group = f"g_{unique}"
    driver = graph.for_group(group).driver
    nodes, edges = await generate(driver, group, seed=int(unique[:6], 16))
    report = await schema.init_graph(settings, [group])
    forget(driver)
    return driver, group, nodes, edges, report


async def test_init_creates_vector_indexes_once(indexed, settings):
    driver, group, _, edges, report = indexed
    m, ef_construction = vi.params_for(len(edges), settings.vector_index)  # 400 edges: the small graphs' row
    assert (m, ef_construction) == vi.SIZE_PARAMS[0][1:]
    created = {"status": "created", "dimension": DIM, "M": m, "efConstruction": ef_construction}
    assert report["vector_indexes"][group] == {"edge": created, "node": created}
    again = await schema.init_graph(settings, [group])
    assert again["vector_indexes"][group] == {"edge": {"status": "exists", "dimension": DIM},
                                              "node": {"status": "exists", "dimension": DIM}}
    present = await vi.existing(driver)
    assert present["edge"]["similarityFunction"] == "cosine"
    assert present["edge"]["M"] == m and present["edge"]["efConstruction"] == ef_construction
    assert present["edge"]["efRuntime"] == settings.vector_index.ef_runtime
    assert present["edge"]["ready"] and present["node"]["ready"]  # init returns once both are filled


def test_an_index_still_being_filled_is_not_ready():
    """FalkorDB fills a new index in the background and answers from what it holds so far: the
    search stage must not use it (nor count it as present) until it is OPERATIONAL."""
    def row(status):
        return {"label": "RELATES_TO", "types": {"fact_embedding": ["VECTOR"]}, "entitytype": "RELATIONSHIP",
                "options": {"fact_embedding": {"dimension": 16, "similarityFunction": "cosine"}}, "status": status}
    assert vi.parse_existing([row("UNDER CONSTRUCTION")], "falkordb")["edge"]["ready"] is False
    assert vi.parse_existing([row("OPERATIONAL")], "falkordb")["edge"]["ready"] is True


async def test_graph_without_embeddings_gets_no_index(graph, settings, unique):
    report = await schema.init_graph(settings, [f"g_{unique}"])
    assert report["vector_indexes"][settings.graph.database]["edge"]["status"] == "no embeddings"


async def test_mixed_dimensions_are_an_error_naming_them(graph, settings, unique):
    group = f"g_{unique}"
    driver = graph.for_group(group).driver
    await generate(driver, group, seed=1, n_nodes=10, n_edges=30, dim=DIM)
    await generate(driver, group, seed=2, n_nodes=10, n_edges=5, dim=8)
    with pytest.raises(InputError, match=r"mixed dimensions: 16 \(\d+ items\), 8 \(\d+ items\)"):
        await schema.init_graph(settings, [group])
    assert "edge" not in (await vi.existing(driver) or {})  # nothing half-made for the edges


async def exact_answer(driver, edges, group, vec, f: SearchFilters, min_score: float, limit: int):
    """The exact top ``limit`` (score, uuid), computed in Python from the edges as stored (read back
    through graphiti-core) and the filters as documented: type in edge_types, each validity
    condition of the window, score above min_score."""
    emb = {e.uuid: e.fact_embedding for e in edges}
    stored = await EntityEdge.get_by_group_ids(driver, [group])
    out = []
    for e in stored:
        score = (1.0 + float(np.dot(emb[e.uuid], vec))) / 2.0
        if score <= min_score or (f.edge_types and e.name not in f.edge_types):
            continue
        if f.valid_at and not (f.valid_at[0][0].date <= e.valid_at < f.valid_at[0][1].date):
            continue
        out.append((score, e.uuid))
    return sorted(out, reverse=True)[:limit]


async def test_index_stage_equals_scan_under_random_filters(indexed):
    """Recall of the index stage against the exact answer, with random group, type, validity and
    min-score filters and limits; never fewer results. Where filters leave fewer than the limit
    the stage is graphiti-core's scan itself. Without a validity window the index stage also
    equals that scan; with one it is stricter than the scan on FalkorDB, whose range index on
    RELATES_TO.valid_at lets edges past a window's upper bound through (graphiti-core's scan
    uses that index; the index stage filters its candidates without it)."""
    driver, group, nodes, edges, _ = indexed
    r = random.Random(5)
    rng = np.random.default_rng(5)
    hits = total = 0
    stages = []
    for _ in range(40):
        vec = unit(rng)
        f, min_score = random_filter(r)
        limit = r.choice([1, 5, 10, 20])
        got = await cosine_candidates("edge", driver, vec, f, [group], limit, min_score, INDEX)
        stages.append(got.stage)
        scan = await su.edge_similarity_search(driver, vec, None, None, f, [group], limit, min_score)
        if got.stage == "scan":
            assert [e.uuid for e in got] == [e.uuid for e in scan]
            continue
        exact = await exact_answer(driver, edges, group, vec, f, min_score, limit)
        assert len(got) == len(exact) == limit
        if not f.valid_at:
            assert len(scan) == len(got)
        scores = {u: s for s, u in await exact_answer(driver, edges, group, vec, f, min_score, len(edges))}
        hits += sum(1 for e in got if scores.get(e.uuid, -1.0) >= exact[-1][0] - 1e-5)
        total += len(exact)
    assert total > 100
    assert hits / total >= 0.98
    assert stages.count("index") >= 10  # the scan only where filters leave fewer than limit


async def test_filters_honoured(indexed):
    """Every edge the index stage returns passes the group, edge-type, validity and score filters
    (the validity window by the values stored in the graph)."""
    driver, group, _, edges, _ = indexed
    by_uuid = {e.uuid: e for e in edges}
    r = random.Random(9)
    rng = np.random.default_rng(9)
    for _ in range(30):
        vec = unit(rng)
        f, min_score = random_filter(r)
        got = await cosine_candidates("edge", driver, vec, f, [group], 10, min_score, INDEX)
        allowed = {u for _, u in await exact_answer(driver, edges, group, vec, f, min_score, len(edges))}
        for e in got:
            src = by_uuid[e.uuid]
            assert (1 + float(np.dot(src.fact_embedding, vec))) / 2 > min_score - 1e-6
            assert e.group_id == group
            if f.edge_types:
                assert e.name in f.edge_types
            if got.stage == "index":
                assert e.uuid in allowed
    other = await cosine_candidates("edge", driver, unit(rng), SearchFilters(), ["another-group"], 10, 0.0, INDEX)
    assert list(other) == []


async def test_entity_index_stage_equals_scan(indexed):
    driver, group, nodes, _, _ = indexed
    rng = np.random.default_rng(3)
    used_index = 0
    for min_score in (0.0, 0.6):
        for limit in (1, 5, 10):
            vec = unit(rng)
            scan = await su.node_similarity_search(driver, vec, SearchFilters(), [group], limit, min_score)
            got = await cosine_candidates("node", driver, vec, SearchFilters(), [group], limit, min_score, INDEX)
            # Fewer entities than limit above min_score: the stage falls back to the scan.
            if len(scan) < limit:
                assert got.stage == "scan"
            used_index += got.stage == "index"
            assert [n.uuid for n in got] == [n.uuid for n in scan]
            assert [n.name for n in got] == [n.name for n in scan]
    assert used_index >= 3


async def test_fallback_to_scan_when_index_missing(graph, unique):
    group = f"g_{unique}"
    driver = graph.for_group(group).driver
    await generate(driver, group, seed=4, n_nodes=10, n_edges=60)
    vec = unit(np.random.default_rng(1))
    scan = await su.edge_similarity_search(driver, vec, None, None, SearchFilters(), [group], 10, 0.0)
    got = await cosine_candidates("edge", driver, vec, SearchFilters(), [group], 10, 0.0, INDEX)
    assert got.stage == "scan"
    assert [e.uuid for e in got] == [e.uuid for e in scan]


async def test_edges_saved_later_are_found_without_rebuild(indexed):
    """Edges saved after the index exists, by EntityEdge.save() and by the bulk path, are found."""
    driver, group, nodes, _, _ = indexed
    rng = np.random.default_rng(11)
    for how in ("save", "bulk"):
        vec = unit(rng)
        e = EntityEdge(uuid=str(uuid4()), source_node_uuid=nodes[0].uuid, target_node_uuid=nodes[1].uuid,
                       name="NEW", fact=f"new {how}", group_id=group, episodes=[], created_at=T0, valid_at=T0,
                       fact_embedding=vec)
        if how == "save":
            await e.save(driver)
        else:
            await add_nodes_and_edges_bulk(driver, [], [], [], [e], None)
        got = await cosine_candidates("edge", driver, vec, SearchFilters(), [group], 5, 0.0, INDEX)
        assert got.stage == "index"
        assert got[0].uuid == e.uuid
        typed = await cosine_candidates("edge", driver, vec, SearchFilters(edge_types=["NEW"]), [group], 5, 0.0,
                                        INDEX)
        assert e.uuid in {x.uuid for x in typed}


async def test_trust_search_scan_is_graphiti_and_index_says_so(indexed):
    """With scan, trust_search (``reference``) at weight 0 returns Graphiti's search_'s items and
    scores, equal scores by uuid; with index, explanations name the stage that found each cosine
    candidate."""
    from graph_trust.clients.hashing import HashingEmbedder
    from graph_trust.clients.offline import make_graphiti

    driver, group, *_ = indexed
    graphiti = make_graphiti(driver, embedder=HashingEmbedder(dim=DIM))
    vec = unit(np.random.default_rng(2))
    for mode, stage in (("scan", "scan"), ("index", "index")):
        cfg = copy_recipe(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, 10).model_copy(update={"profile": "reference"})  # the additive formula alone
        cfg.cosine = CosineStage(mode=mode)
        res = await gt.trust_search(graphiti, "fact 3", config=cfg, group_ids=[group], trust_weight=0.0,
                                    query_vector=vec)
        cos = [x for x in res.edge_explanations if x.cosine_rank]
        assert cos and all(x.cosine_stage == stage for x in cos)
        if mode == "scan":
            from graphiti_core.search import search_config_recipes as recipes

            vanilla = await gt.gsearch.search(graphiti.clients, "fact 3", [group],
                                              copy_recipe(recipes.EDGE_HYBRID_SEARCH_RRF, 10), SearchFilters(),
                                              query_vector=vec)
            # reference at weight 0: search_'s scores, and its items with equal scores by uuid (the
            # documented key; which of the items tied at the cut make it is the key's choice too)
            ours = list(zip(res.edge_reranker_scores, [e.uuid for e in res.edges], strict=True))
            theirs = list(zip(vanilla.edge_reranker_scores, [e.uuid for e in vanilla.edges], strict=True))
            assert [t[0] for t in ours] == [t[0] for t in theirs] and ours == sorted(ours, key=lambda t: (-t[0], t[1]))
            cut = ours[-1][0] if len(ours) == 10 else -1.0
            assert {t for t in ours if t[0] > cut} == {t for t in theirs if t[0] > cut}


async def test_auto_uses_the_index_only_when_large_enough_and_measured(indexed, settings):
    """auto: the scan below min_size, the index above it once init measured its recall; without
    a recall store to read (a bare CosineStage) it never uses the index. (Without the exact
    vector store: auto prefers it wherever it is built.)"""
    driver, group, *_ = indexed
    vec = unit(np.random.default_rng(8))
    measured = CosineStage.for_settings(settings).model_copy(update={"store_dir": None})
    small = await cosine_candidates("edge", driver, vec, SearchFilters(), [group], 5, 0.0,
                                    measured.model_copy(update={"min_size": 10_000}))
    big = await cosine_candidates("edge", driver, vec, SearchFilters(), [group], 5, 0.0,
                                  measured.model_copy(update={"min_size": 100}))
    bare = await cosine_candidates("edge", driver, vec, SearchFilters(), [group], 5, 0.0,
                                   CosineStage(mode="auto", min_size=100))
    assert (small.stage, big.stage, bare.stage) == ("scan", "index", "scan")
    assert "below search.cosine_index_min_size (10,000)" in small.reason
    assert big.reason.startswith("recall@10 1.000 >= 0.98 at k 80")  # the k measured for search.limit 10
    assert "no recall store" in bare.reason
    assert [e.uuid for e in small] == [e.uuid for e in big] == [e.uuid for e in bare]


def test_settings_select_the_stage_and_bad_values_name_their_key():
    from graph_trust.config import load_settings
    from graph_trust.errors import ConfigError

    s = load_settings(overrides={"search.cosine": "scan", "search.cosine_index_min_size": 7,
                                 "search.cosine_oversample": 2.5, "vector_index.min_recall": 0.9,
                                 "vector_index.max_ef": 300}, environ={})
    got = ranked.search_config(s).cosine
    assert (got.mode, got.min_size, got.oversample, got.min_recall, got.max_k) == ("scan", 7, 2.5, 0.9, 300)
    assert got.recall_store == str((s.state_dir / "state.sqlite3").resolve())
    assert load_settings(environ={}).search.cosine == "auto"  # the default
    for key, bad in (("search.cosine", "fast"), ("vector_index.m", 1), ("vector_index.dimension", 0),
                     ("vector_index.min_recall", 1.5), ("vector_index.max_ef", 0), ("vector_index.recheck_share", 0)):
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            load_settings(overrides={key: bad}, environ={})
