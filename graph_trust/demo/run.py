"""``graph-trust demo``: the whole loop on the embedded default.

Loads the bundled operations graph (idempotently), writes the bundled review DB under the
state directory and syncs it onto the graph, then runs the demo queries twice: Graphiti's
vanilla ``search_`` (EDGE_HYBRID_SEARCH_RRF) and ``trust_search`` with explanations.

The sync is a piece the caller hands in (:data:`graph_trust.review.hooks.ReviewSync`; :func:`graph_trust.api.demo`
passes the real sync job), so this module, beside search, does not import the sync job.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF

from graph_trust.clients.factory import embedder_named
from graph_trust.clients.offline import make_graphiti
from graph_trust.clients.probe import mismatch
from graph_trust.config import Settings, state_path
from graph_trust.demo.sample import LoadReport, demo_group, demo_queries, load_sample, sample_review_rows
from graph_trust.errors import InputError
from graph_trust.graph import vector_store
from graph_trust.graph.connection import open_graph
from graph_trust.review.hooks import ReviewSync  # (it lived here: graph_trust.demo.run.ReviewSync still imports)
from graph_trust.search.ranked import search_config
from graph_trust.search.ranking import Explanation
from graph_trust.search.trust_search import trust_search


@dataclass
class DemoQuery:
    query: str
    vanilla: list[dict[str, Any]]  # uuid, text, score, trust_score (Graphiti's own order)
    boosted: list[Explanation]

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "vanilla": self.vanilla, "boosted": [e.to_dict() for e in self.boosted]}


@dataclass
class DemoReport:
    graph: str
    embedder: str
    group: str
    review_db: str
    load: LoadReport
    sync: Any
    queries: list[DemoQuery] = field(default_factory=list)
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"graph": self.graph, "embedder": self.embedder, "group": self.group, "review_db": self.review_db,
                "load": self.load.as_dict(), "sync": self.sync.to_dict(),
                "queries": [q.to_dict() for q in self.queries], "duration_s": round(self.duration_s, 3)}


async def run_demo(settings: Settings, *, sync_rows: ReviewSync, limit: int = 5,
                   embedder: str = "hashing") -> DemoReport:
    """Load the sample embedded by ``embedder`` (a built-in embedder's name, whatever
    ``search.embedder`` says), sync (through ``sync_rows``), and compare vanilla and boosted ranks
    for the demo queries. A graph that already holds the sample embedded by another embedder is an
    InputError naming both fixes, before anything is written."""
    start = time.perf_counter()
    review_db = state_path(settings, "demo-review.sqlite3")
    vectors = embedder_named(embedder)
    group = demo_group()
    async with open_graph(settings) as conn:
        group_driver = conn.for_group(group).driver
        found = await mismatch(group_driver, vectors, [group])
        if found is not None:
            other = f"run `graph-trust demo --embedder {found.built_by}`, or " if found.built_by else ""
            raise InputError(f"the demo graph {conn.address.display} holds the sample embedded by "
                             f"{repr(found.built_by) if found.built_by else 'another embedder'}, not {embedder!r}: "
                             f"{other}give {embedder!r} a graph of its own: graph-trust demo --embedder {embedder} "
                             f"--graph embedded:.graph-trust/{embedder}")
        load = await load_sample(conn.driver, vectors)
        sync = await sync_rows(settings, sample_review_rows(), review_db, conn)
        # The first run loads and writes trust, later ones find both there: the exact vector store
        # makes the trust search's order a function of the graph's content, whatever its history.
        await vector_store.ensure(conn.for_group(group), settings)
        graphiti = make_graphiti(group_driver, embedder=vectors)
        report = DemoReport(conn.address.display, embedder, group, str(review_db), load, sync)
        vanilla_cfg = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
        vanilla_cfg.limit = limit
        for q in demo_queries():
            vanilla = await graphiti.search_(q, config=vanilla_cfg, group_ids=[group])
            boosted = await trust_search(graphiti, q, config=search_config(settings, limit=limit), group_ids=[group])
            report.queries.append(DemoQuery(
                q,
                [{"uuid": e.uuid, "text": e.fact, "score": s, "trust_score": e.attributes.get("trust_score")}
                 for e, s in zip(vanilla.edges, vanilla.edge_reranker_scores, strict=True)],
                boosted.edge_explanations,
            ))
    report.duration_s = time.perf_counter() - start
    return report
