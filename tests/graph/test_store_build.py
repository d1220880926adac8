"""Building the exact vector store fast without changing what it holds, on a real embedded FalkorDB.

The store's build reads every stored embedding through the backend's ``vector_reads`` (FalkorDB:
a RESP3 connection whose vecf32 elements arrive as doubles) and hands the rows on while the next
range's read is under way. Generated graphs (random dimensions, values of every float32 magnitude
down to subnormals, signed zeros, items without an embedding or without text) are read both ways:
the rows equal falkordb-py's own parsing of the same statements bit for bit, and the store built
from them equals, array for array, the store written from falkordb-py's rows. The BM25 postings
are checked against their definition.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from collections import Counter
from contextlib import aclosing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import uuid4

import numpy as np
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk
from hypothesis import given
from hypothesis import settings as settings_h
from hypothesis import strategies as st

from graph_trust.graph import text_index
from graph_trust.graph import vector_index as vi
from graph_trust.graph import vector_store as vs

T0 = datetime(2024, 1, 1, tzinfo=UTC)
WORDS = ["billing", "runs", "running", "the", "db", "host-1", "on", "port", "8443", "ÉTÉ", "naïve", "a_b", ""]
FILES = ("uuids.npy", "vectors.npy", "terms.npy", "indptr.npy", "rows.npy", "tf.npy", "doclen.npy")


def awkward(rng: np.random.Generator, dim: int) -> list[float]:
    """A vector of float32 values of every kind: normal ones of any magnitude, subnormals, signed
    zeros, the largest finite, and random finite bit patterns."""
    kind = rng.integers(0, 5, size=dim)
    scale = 10.0 ** rng.uniform(-45, 38, size=dim)
    bits = rng.integers(0, 2**32, size=dim, dtype=np.uint64).astype(np.uint32).view(np.float32)
    v = np.where(kind == 0, rng.standard_normal(dim) * scale,
                 np.where(kind == 1, rng.choice([0.0, -0.0, 1.4e-45, -3.4028235e38, 1.1754944e-38], size=dim),
                          np.where(kind == 2, np.where(np.isfinite(bits), bits, 1.0), rng.standard_normal(dim))))
    return [float(np.float32(x)) for x in v]


def text(r: random.Random) -> str:
    return " ".join(r.choice(WORDS) for _ in range(r.randrange(0, 8)))


async def generate(conn, seed: int) -> tuple[int, int]:
    """A random graph in ``conn``'s group: Graphiti's bulk save, then some embeddings and texts
    removed (items Graphiti saved before it embedded them). Returns how many edges and entities
    hold an embedding."""
    rng, r = np.random.default_rng(seed), random.Random(seed)
    dim = r.choice([1, 3, 16, 257])
    group = conn.database
    nodes = [EntityNode(uuid=str(uuid4()), name=text(r), group_id=group, labels=["Entity"], summary=text(r),
                        created_at=T0 + timedelta(seconds=r.randrange(10**6)), name_embedding=awkward(rng, dim))
             for _ in range(r.randrange(2, 60))]
    edges = [EntityEdge(uuid=str(uuid4()), source_node_uuid=r.choice(nodes).uuid, target_node_uuid=r.choice(nodes).uuid,
                        name=r.choice(["RUNS_ON", "OWNED_BY", "X"]), fact=text(r), group_id=group, episodes=[],
                        created_at=T0 + timedelta(seconds=r.randrange(10**6)), valid_at=T0,
                        fact_embedding=awkward(rng, dim)) for _ in range(r.randrange(0, 300))]
    await add_nodes_and_edges_bulk(conn.driver, [], [], nodes, [], None)
    await add_nodes_and_edges_bulk(conn.driver, [], [], [], edges, None)
    embedded = []
    for items, match, prop, field in ((edges, "MATCH ()-[x:RELATES_TO]->()", "fact_embedding", "fact"),
                                      (nodes, "MATCH (x:Entity)", "name_embedding", "summary")):
        unembedded = {i.uuid for i in items if r.random() < 0.1}
        await conn.run_text(f"{match} WHERE x.uuid IN $u REMOVE x.{prop}", {"u": list(unembedded)}, write=True)
        await conn.run_text(f"{match} WHERE x.uuid IN $u REMOVE x.{field}",
                            {"u": [i.uuid for i in items if r.random() < 0.1]}, write=True)
        embedded.append(len(items) - len(unembedded))
    return embedded[0], embedded[1]


async def reference_rows(conn, target: vi.Target, batch: int):
    """The rows of the same range reads through falkordb-py's own parsing (``conn.query``)."""
    items = await vi.count(conn, target.kind)
    for lo, hi in await conn.backend.vector_read_ranges(conn, target.kind, items, batch):
        yield await conn.query(f"{target.kind}_vectors_in_range", lo=lo, hi=hi)


def bits(v) -> np.ndarray:
    return np.asarray(v, dtype=np.float32).view(np.uint32)


async def write(root: Path, kind: str, conn, batches) -> dict[str, np.ndarray]:
    meta = await vs.write_generation(root / kind, kind, batches, graph="g", database=conn.database,
                                     count=lambda: vi.count(conn, kind))
    arrays = {f: np.load(Path(meta["dir"]) / f) for f in FILES}
    arrays["meta"] = {k: v for k, v in meta.items() if k not in ("dir", "built_at", "seconds")}
    return arrays


def same_store(a: dict, b: dict) -> None:
    assert a["meta"] == b["meta"]
    for f in FILES:
        assert a[f].dtype == b[f].dtype and a[f].shape == b[f].shape, f
        assert np.array_equal(a[f].view(np.uint8), b[f].view(np.uint8)), f  # bit for bit (signed zeros too)


async def test_fast_reads_and_the_store_equal_falkordb_py_parsing(graph, unique):
    for n in range(5):
        conn = graph.for_group(f"g_{unique}_{n}")
        n_edges, n_nodes = await generate(conn, seed=int(unique[:6], 16) + n)
        batch = random.Random(n).choice([1, 7, 50, 4000])
        for target in vi.TARGETS:
            want = [r for rows in [b async for b in reference_rows(conn, target, batch)] for r in rows]
            got = [r for rows in [b async for b in vi.iter_rows(conn, target, batch=batch)] for r in rows]
            assert [r["uuid"] for r in got] == [r["uuid"] for r in want]
            assert len(got) == (n_edges if target is vi.EDGES else n_nodes)
            for g, w in zip(got, want, strict=True):
                assert {k: v for k, v in g.items() if k != "v"} == {k: v for k, v in w.items() if k != "v"}
                assert isinstance(g["v"], np.ndarray) and g["v"].dtype == np.float32
                assert np.array_equal(bits(g["v"]), bits(w["v"]))  # what the old build stored
            with tempfile.TemporaryDirectory() as tmp:
                old = await write(Path(tmp) / "old", target.kind, conn, reference_rows(conn, target, batch))
                new = await write(Path(tmp) / "new", target.kind, conn, vi.iter_rows(conn, target, batch=batch))
                built = await vs.build(conn, target.kind, Path(tmp) / "build")
            same_store(old, new)
            assert built["items"] == old["meta"]["items"]


async def test_a_read_stopped_early_leaves_nothing_running(graph, unique):
    conn = graph.for_group(f"g_{unique}")
    n_edges, _ = await generate(conn, seed=3)
    async with aclosing(vi.iter_rows(conn, vi.EDGES, batch=5)) as rows:
        async for first in rows:
            assert len(first) <= n_edges
            break
    assert asyncio.all_tasks() == {asyncio.current_task()}


@settings_h(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["run", "db", "host", "ünï", "8443", "a", "zz"]), max_size=9), max_size=40))
def test_postings_are_each_terms_rows_and_counts(docs):
    """terms.npy sorted; per term, the rows holding it in ascending order with its count there;
    each row's length."""
    with tempfile.TemporaryDirectory() as tmp:
        n_terms = text_index.write(Path(tmp), docs)
        p = text_index.Postings(Path(tmp))
        terms = sorted({t for d in docs for t in d})
        assert n_terms == len(terms) and p.terms.tolist() == terms
        for t in terms:
            rows, tf = p.postings(t, 0, len(docs))
            want = [(i, Counter(d)[t]) for i, d in enumerate(docs) if t in d]
            assert list(zip(rows.tolist(), tf.tolist(), strict=True)) == want
        assert p.doclen.tolist() == [len(d) for d in docs]
        assert p.indptr.dtype == np.int64 and p.rows.dtype == np.int32 and p.tf.dtype == np.int32
