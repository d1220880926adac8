"""Synthetic operations-domain graphs for benchmarks.

Deterministic for a seed: entity names, predicates and fact texts are drawn from a fixed
vocabulary, embeddings come from :class:`graph_trust.clients.hashing.HashingEmbedder` (or, in ``build_fast``, any
embedder: :class:`ClusteredEmbedder` makes dense clustered ones). ``build`` saves
them through graphiti-core's bulk API; ``build_fast`` writes the same graph (same uuids, texts,
embeddings and trust scores) with ``UNWIND`` statements shaped like Graphiti's save queries
(``cypher/bench_create_search_*``), several times faster at 100k edges and more.
"""

from __future__ import annotations

import hashlib
import random
import re
from datetime import UTC, datetime
from uuid import NAMESPACE_URL, uuid5

import numpy as np
from graphiti_core.edges import EntityEdge
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.nodes import EntityNode
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

from graph_trust.clients.factory import BUILTIN_EMBEDDERS, embedder_named
from graph_trust.graph.backends.falkordb import automatic_forks_paused

SERVICES = ["billing", "auth", "payments", "search", "ledger", "gateway", "reports", "notify", "catalog", "orders",
            "inventory", "shipping", "identity", "metrics", "logs", "backup", "scheduler", "cache", "queue", "mail"]
KINDS = ["db", "api", "service", "worker", "cron", "proxy", "store", "job"]
PREDICATES = {
    "RUNS_ON": "{s} runs on {o}",
    "LISTENS_ON": "{s} listens on port {o}",
    "OWNED_BY": "{s} is owned by {o}",
    "DEPENDS_ON": "{s} depends on {o} for requests",
    "BACKUP_AT": "the nightly backup of {s} runs at {o}",
    "DEPLOYED_IN": "{s} is deployed in {o}",
}
OBJECTS = {
    "RUNS_ON": [f"host-{i:03d}" for i in range(200)],
    "LISTENS_ON": [str(p) for p in range(8000, 8400)],
    "OWNED_BY": [f"team-{w}" for w in ["data", "pay", "core", "infra", "sre", "web", "mobile", "growth"]],
    "DEPENDS_ON": None,  # another entity
    "BACKUP_AT": [f"{h:02d}:00 UTC" for h in range(24)],
    "DEPLOYED_IN": ["eu-west-1", "us-east-1", "ap-south-1", "eu-central-1"],
}


_WORDS = re.compile(r"\w+")
def make_embedder(name: str = "hashing"):  # noqa: ANN201 - an EmbedderClient with the numpy ``embed``
    """The embedder a synthetic graph and its queries are embedded with (``hashing`` or ``wordllama``)."""
    return embedder_named(name)


def add_embedder_option(ap) -> None:  # noqa: ANN001 - an argparse parser
    """``--embedder hashing|wordllama`` on a benchmark's command line."""
    ap.add_argument("--embedder", choices=BUILTIN_EMBEDDERS, default="hashing",
                    help="what embeds the graph and the queries: hashing (lexical) or wordllama (semantic, dense; "
                         "graph-trust[wordllama])")


def _uuid(*parts: object) -> str:
    return str(uuid5(NAMESPACE_URL, "/".join(map(str, parts))))


def synth_facts(n_edges: int, seed: int = 7) -> list[tuple[str, str, str, str]]:
    """(subject, predicate, object, fact) tuples."""
    rng = random.Random(seed)
    names = [f"{s}-{k}-{i}" for i in range(max(1, n_edges // (len(SERVICES) * len(KINDS) * 4) + 1))
             for s in SERVICES for k in KINDS]
    out = []
    for _ in range(n_edges):
        s = rng.choice(names)
        p = rng.choice(list(PREDICATES))
        o = rng.choice(names) if OBJECTS[p] is None else rng.choice(OBJECTS[p])
        out.append((s, p, o, PREDICATES[p].format(s=s, o=o)))
    return out


async def build(driver, embedder, n_edges: int, group_id: str, *, seed: int = 7, trust_fraction: float = 0.3,
                batch: int = 2000) -> list[str]:
    """Save ``n_edges`` synthetic facts (trust on ``trust_fraction`` of them); return edge uuids."""
    rng = random.Random(seed + 1)
    facts = synth_facts(n_edges, seed)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    names = _names(facts)
    vecs = await embedder.create_batch(names)
    nodes = {n: EntityNode(uuid=_uuid(group_id, "n", n), name=n, group_id=group_id, labels=["Entity"],
                           summary="", created_at=now, name_embedding=v) for n, v in zip(names, vecs, strict=True)}
    fvecs = await embedder.create_batch([f[3] for f in facts])
    edges = []
    for i, ((s, p, o, fact), v) in enumerate(zip(facts, fvecs, strict=True)):
        attrs = {"trust_score": rng.choice([1.0, 0.6, 0.25])} if rng.random() < trust_fraction else {}
        edges.append(EntityEdge(uuid=_uuid(group_id, "e", i), source_node_uuid=nodes[s].uuid,
                                target_node_uuid=nodes[o].uuid, name=p, fact=fact, group_id=group_id,
                                episodes=[], created_at=now, valid_at=now, fact_embedding=v, attributes=attrs))
    node_list = list(nodes.values())
    for i in range(0, len(node_list), batch):
        await add_nodes_and_edges_bulk(driver, [], [], node_list[i : i + batch], [], embedder)
    for i in range(0, len(edges), batch):
        await add_nodes_and_edges_bulk(driver, [], [], [], edges[i : i + batch], embedder)
    return [e.uuid for e in edges]


def _names(facts: list[tuple[str, str, str, str]]) -> list[str]:
    return sorted({x for f in facts for x in (f[0], f[2])})


class FloatList:
    """A list of floats as a FalkorDB query parameter, its text made at once: falkordb-py writes
    a parameter it does not know by ``str()``, a list element by element in Python (most of a
    bench graph's build). The text is the one falkordb-py writes for ``floats`` (each ``repr``,
    joined by commas), so the server gets the same query."""

    def __init__(self, floats: list[float]):
        self.text = "[" + ",".join(map(repr, floats)) + "]"

    def __str__(self) -> str:
        return self.text


def vector_param(conn, v: np.ndarray):  # noqa: ANN001, ANN201
    """An embedding as ``conn``'s backend takes it fastest: FalkorDB :class:`FloatList`, else a list."""
    return FloatList(v.tolist()) if conn.dialect == "falkordb" else v.tolist()


async def build_fast(conn, embedder, n_edges: int, *, seed: int = 7, trust_fraction: float = 0.3,
                     batch: int = 2000) -> list[str]:
    """``build``'s graph in ``conn``'s group, written with ``UNWIND`` statements; return edge
    uuids. On graph-trust's embedded FalkorDB its automatic append-only-file rewrites wait
    until the end (each one forks and writes the whole graph again: dozens while a large graph
    loads)."""
    redis = conn.driver.client.connection if conn.dialect == "falkordb" else None
    async with automatic_forks_paused(redis, pause=conn.address.kind == "embedded"):
        return await _write_fast(conn, embedder, n_edges, seed=seed, trust_fraction=trust_fraction, batch=batch)


async def _write_fast(conn, embedder, n_edges: int, *, seed: int, trust_fraction: float,  # noqa: ANN001
                      batch: int) -> list[str]:
    group_id = conn.database
    rng = random.Random(seed + 1)
    facts = synth_facts(n_edges, seed)
    now = datetime(2026, 1, 1, tzinfo=UTC).isoformat()
    names = _names(facts)
    for i in range(0, len(names), batch):
        part = names[i : i + batch]
        await conn.write("bench_create_search_entities", nodes=[
            {"uuid": _uuid(group_id, "n", n), "name": n, "group_id": group_id, "summary": "", "created_at": now,
             "name_embedding": vector_param(conn, v)} for n, v in zip(part, await embed_texts(embedder, part),
                                                                       strict=True)])
    uuids = []
    for i in range(0, len(facts), batch):
        part = facts[i : i + batch]
        edges = []
        vectors = await embed_texts(embedder, [f[3] for f in part])
        for j, ((s, p, o, fact), v) in enumerate(zip(part, vectors, strict=True)):
            trust = rng.choice([1.0, 0.6, 0.25]) if rng.random() < trust_fraction else None
            edges.append({"uuid": _uuid(group_id, "e", i + j), "source_uuid": _uuid(group_id, "n", s),
                          "target_uuid": _uuid(group_id, "n", o), "name": p, "fact": fact, "group_id": group_id,
                          "created_at": now, "fact_embedding": vector_param(conn, v), "trust_score": trust})
        await conn.write("bench_create_search_edges", edges=edges)
        uuids += [e["uuid"] for e in edges]
    return uuids


async def add_edges(conn, embedder, n: int, *, seed: int = 99) -> int:  # noqa: ANN001
    """``n`` more facts between entities the graph holds, created now (as Graphiti writes new
    edges after a store was built); how many were written."""
    group_id = conn.database
    known = {r["uuid"] for r in await conn.query("node_uuids_all")}
    facts = [f for f in synth_facts(4 * n, seed) if _uuid(group_id, "n", f[0]) in known
             and _uuid(group_id, "n", f[2]) in known][:n]
    now = datetime.now(UTC).isoformat()
    vectors = await embed_texts(embedder, [f[3] for f in facts])
    edges = [{"uuid": _uuid(group_id, "added", seed, i), "source_uuid": _uuid(group_id, "n", s),
              "target_uuid": _uuid(group_id, "n", o), "name": p, "fact": fact, "group_id": group_id,
              "created_at": now, "fact_embedding": v.tolist(), "trust_score": None}
             for i, ((s, p, o, fact), v) in enumerate(zip(facts, vectors, strict=True))]
    for i in range(0, len(edges), 2000):
        await conn.write("bench_create_search_edges", edges=edges[i:i + 2000])
    return len(edges)


def synth_queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    templates = ["when does the backup of {s} run", "which port does {s} listen on", "who owns {s}",
                 "where is {s} deployed", "what does {s} depend on", "{s} host"]
    return [rng.choice(templates).format(s=f"{rng.choice(SERVICES)} {rng.choice(KINDS)}") for _ in range(n)]


class ClusteredEmbedder(EmbedderClient):
    """Dense synthetic embeddings with topic structure, for benchmarks (``--embedder clustered``).

    A text's vector is the mean of its words' random unit vectors (each seeded by BLAKE2b of the
    word; as averaging embedders
    such as WordLlama build theirs) plus a random direction of its own (the sum of four of
    ``PROTOTYPES`` fixed random vectors, chosen and signed by BLAKE2b of the text), weighted
    ``noise``, normalised: facts sharing words (a service, a relation) cluster, and distinct texts
    differ in every coordinate, so unlike :class:`~graph_trust.clients.hashing.HashingEmbedder`'s sparse
    vectors two different texts never tie exactly (identical texts do, as with any embedder).
    Deterministic. It has graphiti-core's ``create`` / ``create_batch`` too.
    """

    PROTOTYPES = 4096

    def __init__(self, dim: int = 256, noise: float = 0.5, seed: int = 29):
        self.dim, self.noise = dim, noise
        rng = np.random.default_rng(seed)
        self._proto = rng.standard_normal((self.PROTOTYPES, dim)).astype(np.float32)
        self._vocab: dict[str, int] = {}
        self._table = np.zeros((0, dim), dtype=np.float32)

    def _ids(self, words: list[str]) -> list[int]:
        new = [w for w in dict.fromkeys(words) if w not in self._vocab]
        if new:
            rows = np.stack([np.random.default_rng(list(hashlib.blake2b(w.encode(), digest_size=16).digest()))
                             .standard_normal(self.dim) for w in new]).astype(np.float32)
            self._table = np.vstack([self._table, rows / np.linalg.norm(rows, axis=1, keepdims=True)])
            for w in new:
                self._vocab[w] = len(self._vocab)
        return [self._vocab[w] for w in words]

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for lo in range(0, len(texts), 2048):
            out[lo : lo + 2048] = self._chunk(texts[lo : lo + 2048])
        return out

    def _chunk(self, texts: list[str]) -> np.ndarray:
        words = [_WORDS.findall(t.casefold()) for t in texts]
        ids = np.array(self._ids([x for ws in words for x in ws]), dtype=np.int64)
        rows = np.repeat(np.arange(len(texts)), [len(w) for w in words])
        vocab = len(self._vocab)
        counts = np.bincount(rows * vocab + ids, minlength=len(texts) * vocab).reshape(len(texts), vocab)
        out = counts.astype(np.float32) @ self._table
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        has = norms[:, 0] > 0
        out = np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)
        pick = np.frombuffer(b"".join(hashlib.blake2b(t.encode(), digest_size=8).digest() for t in texts),
                             dtype="<u2").reshape(-1, 4).astype(np.int64)
        signs = np.where(pick & 1, 1.0, -1.0).astype(np.float32)
        noise = np.einsum("nk,nkd->nd", signs, self._proto[pick % self.PROTOTYPES])
        out[has] += self.noise * noise[has] / np.linalg.norm(noise[has], axis=1, keepdims=True)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)

    async def create(self, input_data) -> list[float]:  # noqa: ANN001 - graphiti-core's signature
        text = input_data[0] if isinstance(input_data, list) else input_data
        return self.embed([text])[0].astype(np.float64).tolist()

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return self.embed(input_data_list).astype(np.float64).tolist()


async def embed_texts(embedder, texts: list[str]) -> np.ndarray:  # noqa: ANN001
    """``texts`` embedded by a benchmark embedder (``embed``) or any graphiti-core EmbedderClient."""
    if hasattr(embedder, "embed"):
        return np.asarray(embedder.embed(texts), dtype=np.float32)
    return np.asarray(await embedder.create_batch(texts), dtype=np.float32)
