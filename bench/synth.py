"""Synthetic operations-domain graphs for benchmarks.

Deterministic for a seed: entity names, predicates and fact texts are drawn from a fixed
vocabulary, embeddings come from the embedder handed in: :func:`make_embedder` names the two a
benchmark offers (``--embedder``, :func:`add_embedder_option`): ``hashing``
(:class:`graph_trust.clients.hashing.HashingEmbedder`, lexical, sparse-ish vectors) and ``wordllama``
(semantic, dense vectors that cluster like a real model's: the dense case). ``build`` saves
them through graphiti-core's bulk API; ``build_fast`` writes the same graph (same uuids, texts,
embeddings and trust scores) with ``UNWIND`` statements shaped like Graphiti's save queries
(``cypher/bench_create_search_*``), several times faster at 100k edges and more.
"""

from __future__ import annotations

import random
from datetime import datetime, timezone
from uuid import NAMESPACE_URL, uuid5

from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

from graph_trust.clients.factory import BUILTIN_EMBEDDERS, embedder_named

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
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
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


async def build_fast(conn, embedder, n_edges: int, *, seed: int = 7, trust_fraction: float = 0.3,
                     batch: int = 2000) -> list[str]:
    """``build``'s graph in ``conn``'s group, written with ``UNWIND`` statements; return edge uuids."""
    group_id = conn.database
    rng = random.Random(seed + 1)
    facts = synth_facts(n_edges, seed)
    now = datetime(2026, 1, 1, tzinfo=timezone.utc).isoformat()
    names = _names(facts)
    for i in range(0, len(names), batch):
        part = names[i : i + batch]
        await conn.write("bench_create_search_entities", nodes=[
            {"uuid": _uuid(group_id, "n", n), "name": n, "group_id": group_id, "summary": "", "created_at": now,
             "name_embedding": v.tolist()} for n, v in zip(part, embedder.embed(part), strict=True)])
    uuids = []
    for i in range(0, len(facts), batch):
        part = facts[i : i + batch]
        edges = []
        for j, ((s, p, o, fact), v) in enumerate(zip(part, embedder.embed([f[3] for f in part]), strict=True)):
            trust = rng.choice([1.0, 0.6, 0.25]) if rng.random() < trust_fraction else None
            edges.append({"uuid": _uuid(group_id, "e", i + j), "source_uuid": _uuid(group_id, "n", s),
                          "target_uuid": _uuid(group_id, "n", o), "name": p, "fact": fact, "group_id": group_id,
                          "created_at": now, "fact_embedding": v.tolist(), "trust_score": trust})
        await conn.write("bench_create_search_edges", edges=edges)
        uuids += [e["uuid"] for e in edges]
    return uuids


def synth_queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    templates = ["when does the backup of {s} run", "which port does {s} listen on", "who owns {s}",
                 "where is {s} deployed", "what does {s} depend on", "{s} host"]
    return [rng.choice(templates).format(s=f"{rng.choice(SERVICES)} {rng.choice(KINDS)}") for _ in range(n)]
