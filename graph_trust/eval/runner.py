"""Run the compared rankings over judged queries on one graph state.

Methods:

- ``vanilla``: graphiti-core's own ``Graphiti.search_`` with its ``EDGE_HYBRID_SEARCH_RRF``
  recipe (the baseline; unaffected by graph-trust's settings);
- ``trust@W``: :func:`graph_trust.search.trust_search.trust_search` with the configured recipe
  (:func:`graph_trust.search.ranked.search_config`) and ``trust_weight=W``;
- ``composite``: the composite rank (:func:`graph_trust.search.ranked.composite_rank`) over the
  trust search's pool at the configured settings;
- ``confidence``: the trust search at the configured weight, each fact ranked by the trust a sync
  in ``sync.trust_mode: confidence`` writes (``tier * (1 - w + w * confidence)``), read from the
  review DB's records (a :data:`graph_trust.review.hooks.ConfidenceTrust` handed in) instead of
  the stored ``trust_score``. Nothing is written, so it reads the same graph state as the others:
  a second sync would re-index the edges it writes and move FalkorDB's fulltext order.

Every method of one run reads the same graph state: the bundled mode syncs first, builds the
graph's exact vector stores (:func:`build_stores`) and ranks after. The trust search's
candidates and order are then a function of the graph's content and the query (its BM25 comes
from postings graph-trust keeps, not from FalkorDB's fulltext statistics, which keep the entries
a sync's writes replaced until a background collection). Graphiti's own order (vanilla) is
measured as a user has it, on the graph as the sync left it: no index is rebuilt. The sync is handed in (a :data:`graph_trust.review.hooks.ReviewSync`;
:mod:`graph_trust.api` passes the real job): the evaluation, beside search, does not import the
sync job.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF

from graph_trust.clients.factory import embedder_named, make_embedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.config import Settings, load_settings
from graph_trust.demo.sample import load_sample
from graph_trust.errors import InputError
from graph_trust.eval.dataset import JudgedSet, Query
from graph_trust.graph import vector_store
from graph_trust.graph.connection import open_graph
from graph_trust.review.hooks import ConfidenceTrust, ReviewSync
from graph_trust.search.ranked import composite_rank, search_config
from graph_trust.search.session import open_graphiti, resolve_groups
from graph_trust.search.trust_search import TrustOverride, trust_search

LIMIT = 10
STABLE_ATTEMPTS = 3
log = logging.getLogger(__name__)
RANK_KINDS = ("trust", "noreview", "composite", "confidence", "vanilla")
NO_REVIEW = "no review"  # the name of the noreview ranking: the defaults with no review evidence

Progress = Callable[[str, int, int | None], None]


@dataclass(frozen=True)
class Method:
    """One compared ranking: ``kind`` is vanilla, trust, noreview (the trust search's rules with no
    review evidence: no trust score, no review status; Graphiti's own invalidation stays),
    composite or confidence; trust and confidence have a weight;
    ``rank_const`` None means the configured ``search.rank_const``."""

    name: str
    kind: str
    weight: float | None = None
    rank_const: float | None = None

    def settings(self, base: Settings) -> Settings:
        """``base`` with this method's RRF constant (validated like the config file)."""
        if self.rank_const is None:
            return base
        s = base.model_copy(deep=True)
        s.search.rank_const = self.rank_const
        return s


def methods_for(ranks: list[str], weights: list[float] | None, settings: Settings,
                rank_consts: list[float] | None = None) -> list[Method]:
    """The methods to compare; vanilla is always measured (it is the baseline). Several
    ``rank_consts`` give each trust and composite ranking once per constant (``rc=60``)."""
    unknown = [r for r in ranks if r not in RANK_KINDS]
    if unknown:
        raise InputError(f"unknown ranking {unknown[0]!r}: choose from {', '.join(RANK_KINDS)}")
    bad = [c for c in rank_consts or [] if not c > 0]
    if bad:
        raise InputError(f"--rank-const: {bad[0]:g} must be greater than 0")
    consts: list[float | None] = list(dict.fromkeys(rank_consts)) if rank_consts else [None]
    out = [Method("vanilla", "vanilla")]
    for rc in consts:
        tag = f" rc={rc:g}" if rc is not None and len(consts) > 1 else ""
        if "trust" in ranks:
            ws = weights if weights else [settings.search.trust_weight]
            out += [Method(f"trust@{w:g}{tag}", "trust", w, rc) for w in dict.fromkeys(ws)]
        if "noreview" in ranks:
            out.append(Method(f"{NO_REVIEW}{tag}", "noreview", None, rc))
        if "composite" in ranks:
            out.append(Method(f"composite{tag}", "composite", None, rc))
        if "confidence" in ranks:
            out.append(Method(f"confidence{tag}", "confidence", settings.search.trust_weight, rc))
    return out


def no_trust(uuids: list[str]) -> dict[str, float | None]:
    """The trust override of the noreview ranking: no fact carries a trust score."""
    return dict.fromkeys(uuids)


def wants_confidence(methods: list[Method]) -> bool:
    """Whether a ranking reads the review DB's confidence records."""
    return any(m.kind == "confidence" for m in methods)


async def rank_queries(
    conn: Any,
    settings: Settings,
    judged: JudgedSet,
    methods: list[Method],
    *,
    embedder: Any,
    default_groups: list[str] | None,
    now: datetime | None = None,
    progress: Progress | None = None,
    confidence_trust: TrustOverride | None = None,
) -> dict[str, dict[str, list[str]]]:
    """``{method: {query_id: [fact uuid, best first]}}``, the top ``LIMIT`` of each;
    ``confidence_trust`` gives the confidence rankings' trust values."""
    if confidence_trust is None and wants_confidence(methods):
        raise InputError("the confidence ranking needs the review DB's confidence records")
    out: dict[str, dict[str, list[str]]] = {m.name: {} for m in methods}
    per_method = {m.name: m.settings(settings) for m in methods}
    trust_cfg = {m.name: search_config(per_method[m.name], limit=LIMIT) for m in methods}
    for m in methods:  # no review evidence: review statuses are not negative evidence
        if m.kind == "noreview":
            trust_cfg[m.name] = trust_cfg[m.name].model_copy(update={"negative_statuses": []})
    pool_cfg = {m.name: search_config(per_method[m.name], limit=LIMIT) for m in methods}
    vanilla_cfg = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
    vanilla_cfg.limit = LIMIT
    graphitis: dict[str | None, Any] = {}
    for q in judged.queries:
        group = _group_of(q, conn, default_groups)
        if group not in graphitis:
            handle = conn.for_group(group) if group else conn
            await handle.settle()  # a new FalkorDB group handle builds Graphiti's indexes first
            graphitis[group] = make_graphiti(handle.driver, embedder=embedder)
        graphiti = graphitis[group]
        group_ids = [group] if group else default_groups

        async def vanilla() -> list[str]:
            res = await graphiti.search_(q.text, config=vanilla_cfg, group_ids=group_ids)
            return [e.uuid for e in res.edges]

        async def rank_all() -> dict[str, list[str]]:
            ranked: dict[str, list[str]] = {}
            for m in methods:
                if m.kind == "vanilla":
                    continue
                if m.kind in ("trust", "confidence", "noreview"):
                    override = {"confidence": confidence_trust, "noreview": no_trust}.get(m.kind)
                    res = await trust_search(graphiti, q.text, config=trust_cfg[m.name], group_ids=group_ids,
                                             trust_weight=m.weight, trust_override=override)
                    ranked[m.name] = [e.uuid for e in res.edges]
                else:
                    res = await trust_search(graphiti, q.text, config=pool_cfg[m.name], group_ids=group_ids)
                    ranked[m.name] = [r.uuid for r in composite_rank(per_method[m.name], res, limit=LIMIT, now=now)]
            return ranked

        ranked = await rank_on_one_state(q.id, vanilla, rank_all)
        for m in methods:
            out[m.name][q.id] = ranked[m.name]  # vanilla's name is "vanilla"
        if progress:
            progress("ranking", 1, len(judged.queries))
    return out


MOVED = ("query %s: Graphiti's own search (vanilla) gave another order after this query's other rankings than "
         "before them: the graph changed while ranking (another process writing to it, or, on your own graph, "
         "FalkorDB's fulltext index still collecting the entries a recent write replaced), so the rankings would "
         "compare different graph states; ranking the query again (attempt %d of %d)")
STILL_MOVING = ("query %s: Graphiti's own search order still moved after %d attempts: this query's rankings were "
                "measured on slightly different graph states (is something writing to the graph?)")


async def rank_on_one_state(query_id: str, vanilla: Callable[[], Any], rank_all: Callable[[], Any]
                            ) -> dict[str, list[str]]:
    """``rank_all()`` with ``vanilla`` (Graphiti's own order) under key ``"vanilla"``, measured on one
    graph state: vanilla is asked before and after the others, and everything is ranked again
    (up to :data:`STABLE_ATTEMPTS` times, each time with a warning that says why) when it moved."""
    for attempt in range(1, STABLE_ATTEMPTS + 1):
        before = await vanilla()
        ranked = {"vanilla": before, **await rank_all()}
        if await vanilla() == before:
            return ranked
        if attempt < STABLE_ATTEMPTS:
            log.warning(MOVED, query_id, attempt + 1, STABLE_ATTEMPTS)
    log.warning(STILL_MOVING, query_id, STABLE_ATTEMPTS)
    return ranked


def _group_of(q: Query, conn: Any, default_groups: list[str] | None) -> str | None:
    """The one group (FalkorDB: graph) a query searches; Neo4j searches the groups in one database."""
    if q.group:
        return q.group
    if not conn.backend.graph_per_group:
        return None
    if default_groups and len(default_groups) == 1:
        return default_groups[0]
    raise InputError(f"query {q.id!r} has no 'group' and this FalkorDB graph holds several groups "
                     f"({', '.join(default_groups or [])}): give each query its group")


async def rank_configured(settings: Settings, judged: JudgedSet, methods: list[Method], *,
                          progress: Progress | None = None, confidence_trust: TrustOverride | None = None,
                          ) -> tuple[str, dict[str, dict[str, list[str]]]]:
    """Rank on the user's configured graph as it is (already synced): (graph display, rankings)."""
    async with open_graphiti(settings) as (conn, _):
        wanted = sorted({q.group for q in judged.queries if q.group})
        if wanted:
            await resolve_groups(conn, wanted)
        groups = await resolve_groups(conn, settings.search.group_ids or None)
        rankings = await rank_queries(conn, settings, judged, methods, embedder=make_embedder(settings),
                                      default_groups=groups, progress=progress, confidence_trust=confidence_trust)
        return conn.address.display, rankings


@dataclass
class DrawResult:
    """One draw of the bundled set: its seed, what sync did, and every method's rankings."""

    seed: int
    review_rows: int
    noisy_rows: int
    sync: dict[str, Any]
    rankings: dict[str, dict[str, list[str]]]


class DrawProgress:
    """One progress bar per draw (``progress`` with the draw's own phase name): a step for the
    load, one for the sync (and the index rebuild after it), one per ranked query."""

    def __init__(self, progress: Progress | None, label: str, queries: int) -> None:
        self.progress, self.label = progress, label
        self.total = 2 + queries
        self.pos = 0

    def step(self, n: int = 1) -> None:
        self.pos += n
        if self.progress:
            self.progress(self.label, n, self.total)

    def ranking(self, _phase: str, n: int, _total: int | None) -> None:
        self.step(n)


@asynccontextmanager
async def bundled_graph(settings: Settings, graph: dict[str, Any], embedder: str
                        ) -> AsyncIterator[tuple[Settings, Any, Path, Any]]:
    """A temporary embedded graph holding the bundled set embedded by ``embedder``:
    (settings pointing at it and a temporary state directory, its connection, the temporary
    directory, the embedder). ``settings`` supply everything else, so ``--set sync.tiers.*``
    reaches sync exactly as ``search.*`` reaches search."""
    with tempfile.TemporaryDirectory(prefix="graph-trust-eval-") as tmp:
        root = Path(tmp)
        s = settings.model_copy(update={"state_dir": root / "state"})
        s.graph = s.graph.model_copy(update={"uri": f"embedded:{root / 'graph'}", "database": None,
                                             "user": None, "password": None})
        s.search = s.search.model_copy(update={"embedder": embedder})
        vectors = embedder_named(embedder)
        async with open_graph(s) as conn:
            await load_sample(conn.driver, vectors, data=graph)
            yield s, conn, root, vectors


async def build_stores(conn: Any, s: Settings, graph: dict[str, Any]) -> None:
    """Build the exact vector store (vectors and BM25 postings) of every group of the bundled
    ``graph`` after its sync (:func:`graph_trust.graph.vector_store.ensure`): the trust search then
    ranks by the graph's content, whichever edges the sync wrote (module docstring)."""
    await conn.settle()  # graphiti-core's index builds on the group clones finish first
    handles = ([conn.for_group(g) for g in sorted(graph["groups"])] if conn.backend.graph_per_group else [conn])
    for handle in handles:
        await vector_store.ensure(handle, s)


async def rank_state(conn: Any, s: Settings, graph: dict[str, Any], judged: JudgedSet, methods: list[Method],
                     vectors: Any, *, bar: Any, confidence_trust: ConfidenceTrust | None = None,
                     review_db: Path | None = None) -> dict[str, dict[str, list[str]]]:
    """Rank ``judged`` with ``methods`` on ``conn``'s graph as it is (synced and rebuilt by the
    caller); ``bar``: a :class:`DrawProgress` or one with its ``ranking``."""
    now = datetime.fromisoformat(graph["as_of"]) if graph.get("as_of") else None
    override = (confidence_trust(s, review_db, now)
                if confidence_trust is not None and wants_confidence(methods) else None)
    return await rank_queries(conn, s, judged, methods, embedder=vectors, default_groups=list(graph["groups"]),
                              now=now, progress=bar.ranking, confidence_trust=override)


async def rank_bundled_draw(settings: Settings, graph: dict[str, Any], review_rows: list[dict[str, Any]],
                            judged: JudgedSet, methods: list[Method], *, seed: int, sync_rows: ReviewSync,
                            progress: Progress | None = None,
                            records: dict[str, list[dict[str, Any]]] | None = None,
                            confidence_trust: ConfidenceTrust | None = None,
                            embedder: str = "hashing", label: str | None = None) -> DrawResult:
    """Build a temporary embedded graph embedded by ``embedder`` (a built-in embedder's name),
    sync this draw's review DB onto it (``sync_rows``), build its exact vector stores, rank.

    ``settings`` supply everything but the graph, the state directory (both temporary) and
    ``search.embedder`` (``embedder``), so ``--set sync.tiers.*`` reaches sync exactly as
    ``search.*`` reaches search. ``records`` (the draw's confidence records) go into the same
    review DB; the confidence rankings rank by ``confidence_trust`` of it, as of the set's
    ``as_of``. ``progress`` gets one phase named ``label`` for the whole draw.
    """
    bar = DrawProgress(progress, label or f"draw seed {seed}", len(judged.queries))
    async with bundled_graph(settings, graph, embedder) as (s, conn, root, vectors):
        bar.step()
        report = await sync_rows(s, review_rows, root / "review.sqlite3", conn, records=records)
        await build_stores(conn, s, graph)
        bar.step()
        rankings = await rank_state(conn, s, graph, judged, methods, vectors, bar=bar,
                                    confidence_trust=confidence_trust, review_db=root / "review.sqlite3")
    return DrawResult(seed, len(review_rows), sum(1 for r in review_rows if r.get("noisy")),
                      {"edges_set": report.edges_set, "unmatched": report.unmatched_count,
                       "quarantined": report.quarantined_count}, rankings)


def settings_with(config_path: str | os.PathLike[str] | None, sets: dict[str, Any],
                  base: dict[str, Any] | None = None) -> Settings:
    """Settings from the config file and environment with ``--set`` keys applied, validated
    once (an unknown or bad key is a ConfigError naming it; ``key=null`` sets None)."""
    return load_settings(config_path, overrides=base, explicit=sets)
