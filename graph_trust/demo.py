"""``graph-trust demo``: the whole loop on the embedded default.

Loads the bundled operations graph (idempotently), writes the bundled review DB under the
state directory, runs a sync over it, then runs the demo queries twice: Graphiti's vanilla
``search_`` (EDGE_HYBRID_SEARCH_RRF) and ``trust_search`` with explanations.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF

from graph_trust.config import Settings, state_path
from graph_trust.embedder import HashingEmbedder
from graph_trust.fusion import Explanation
from graph_trust.graphiti import trust_search
from graph_trust.offline import make_graphiti
from graph_trust.sample import LoadReport, demo_group, demo_queries, load_sample, sample_review_rows


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
    group: str
    review_db: str
    load: LoadReport
    sync: Any
    queries: list[DemoQuery] = field(default_factory=list)
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"graph": self.graph, "group": self.group, "review_db": self.review_db,
                "load": self.load.as_dict(), "sync": self.sync.to_dict(),
                "queries": [q.to_dict() for q in self.queries], "duration_s": round(self.duration_s, 3)}


def write_demo_review_db(settings: Settings) -> str:
    """The bundled review DB, rebuilt under the state directory (atomically replaced)."""
    from graph_trust.sync.review_db import init_review_db, insert_rows

    path = state_path(settings, "demo-review.sqlite3")
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    init_review_db(tmp)
    insert_rows(tmp, sample_review_rows())
    os.replace(tmp, path)
    return str(path)


async def run_demo(settings: Settings, *, limit: int = 5) -> DemoReport:
    """Load, sync, and compare vanilla and boosted ranks for the demo queries."""
    from graph_trust.graph.connection import open_graph
    from graph_trust.service import search_config
    from graph_trust.sync.runner import sync_demo

    start = time.perf_counter()
    review_db = write_demo_review_db(settings)
    embedder = HashingEmbedder()  # the sample is embedded with it, whatever search.embedder says
    group = demo_group()
    async with open_graph(settings) as conn:
        load = await load_sample(conn.driver, embedder)
        sync = await sync_demo(settings, review_db, graph=conn)
        graphiti = make_graphiti(conn.for_group(group).driver, embedder=embedder)
        report = DemoReport(conn.address.display, group, review_db, load, sync)
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
