"""``graph-trust relink``: point orphaned candidates back at edges after a migration.

After a re-extraction or a backend change the review DB's ``evidence_refs_json[0].evidence_id``
values name edges that no longer exist. :func:`relink`:

1. reads the review DB's candidates (malformed evidence is quarantined, as in sync);
2. finds the *orphaned* ones: evidence uuid not on any ``RELATES_TO`` edge of the candidate's
   group (one indexed look-up per uuid, ``cypher/edge_uuids_exist``; no scan if none are);
3. reads the groups' edges with endpoint names in pages (``cypher/relink_edges_page``) into
   :class:`~graph_trust.sync.relink.matching.EdgeIndex` es and matches each orphan
   (:mod:`graph_trust.sync.relink.matching`), direction included: exact subject+predicate(+object),
   else the edges from the subject to the object (predicate renamed), else fact similarity
   (BM25 + cosine) among edges whose source and target plausibly match, with threshold and
   margin; then :func:`~graph_trust.sync.relink.matching.settle_claims` makes edges that another
   candidate with a different fact holds or takes ambiguous;
4. **honest embeddings**: cosine is used only in a group whose stored ``fact_embedding`` s the
   configured embedder (``search.embedder``, the one search uses) reproduces: a sample of the
   group's facts is embedded again and must match its stored vectors (same dimension, cosine
   >= 0.98). Otherwise the group is matched by BM25 alone, and the report says so
   (``similarity``). Embeddings are fetched only for the edges that need scoring
   (``cypher/relink_edge_embeddings``);
5. unless ``dry_run``: rewrites element 0's ``evidence_id`` (the old one is appended to that
   element's ``previous_evidence_ids``; every other byte of the JSON stays as it was) in **one**
   review-DB transaction, journaled first in the state store so :func:`rollback_relink`
   restores the old JSON byte for byte.

Ambiguous and unmatched candidates are reported, never written.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from graph_trust.clients.factory import make_embedder
from graph_trust.config import Settings
from graph_trust.errors import InputError
from graph_trust.graph.connection import use_graph
from graph_trust.sync.relink import store as relink_store
from graph_trust.sync.relink.embedding_check import EmbeddingCheck, graphiti_text
from graph_trust.sync.relink.graph_read import fetch_embeddings, orphaned_ids, read_edge_indexes
from graph_trust.sync.relink.matching import (
    EdgeIndex,
    Matcher,
    MatchResult,
    Prepared,
    RelinkCandidate,
    fact_key,
    settle_claims,
)
from graph_trust.sync.relink.report import RelinkReport, report_counts
from graph_trust.sync.store.relink_journal import JournalStore
from graph_trust.sync.store.state import StateStore, new_run_id

log = logging.getLogger(__name__)

__all__ = ["MatchOptions", "match_all", "relink", "rollback_relink"]

CHUNK = 1000  # candidates matched per embedding fetch


# --- matching loop -----------------------------------------------------------------------


async def match_all(
    matcher: Matcher,
    orphans: list[RelinkCandidate],
    *,
    embed: Callable[[list[str]], Any] | None,
    embeddings_for: Callable[[str | None, list[str]], Any] | None,
    chunk: int = CHUNK,
    progress: Callable[[int], None] | None = None,
    fetched: Callable[[int], None] = lambda n: None,
    cosine_in: Callable[[str | None], Any] | None = None,
) -> list[MatchResult]:
    """Prepare, fetch the vectors a chunk needs, embed its facts, decide. ``cosine_in(group)``
    (awaitable) says whether a group's stored embeddings may be compared with ``embed``'s."""
    results: list[MatchResult] = []
    for k in range(0, len(orphans), chunk):
        part = orphans[k : k + chunk]
        preps: list[Prepared] = [matcher.prepare(c) for c in part]
        needy = []
        for p in preps:
            groups = {ix.group_id for ix, _ in p.needs_vectors()}
            if groups and (cosine_in is None or all([await cosine_in(g) for g in groups])):
                needy.append(p)
        vectors: dict[tuple[str | None, int], np.ndarray] = {}
        cand_vecs: dict[str, np.ndarray] = {}
        if needy and embed is not None and embeddings_for is not None:
            wanted: dict[str | None, dict[str, tuple[str | None, int]]] = {}
            for p in needy:
                for ix, pool in p.needs_vectors():
                    for i in pool:
                        wanted.setdefault(ix.group_id, {})[ix.uuids[int(i)]] = (ix.group_id, int(i))
            for gid, by_uuid in wanted.items():
                got = await embeddings_for(gid, list(by_uuid))
                fetched(len(got))
                for uuid, vec in got.items():
                    vectors[by_uuid[uuid]] = vec
            embedded = await embed([graphiti_text(p.candidate.fact) for p in needy])
            for p, v in zip(needy, embedded, strict=True):
                cand_vecs[p.candidate.id] = np.asarray(v, dtype=np.float32)
        for p in preps:
            results.append(matcher.decide(p, cand_vecs.get(p.candidate.id), vectors))
        if progress is not None:
            progress(len(part))
    return results


# --- the command -------------------------------------------------------------------------


async def relink(
    settings: Settings,
    *,
    review_db: str | None = None,
    dry_run: bool = False,
    min_similarity: float | None = None,
    margin: float | None = None,
    group: str | None = None,
    embedder: Any = None,
    conn: Any = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> RelinkReport:
    """Relink orphaned candidates (see module docstring); the Python equivalent of the CLI.

    ``embedder`` is a graphiti-core ``EmbedderClient`` (``create_batch``). Default: the one
    ``search.embedder`` configures (the factory search uses). Its vectors are compared only in
    groups whose stored embeddings it reproduces (:class:`EmbeddingCheck`). ``conn`` is an open
    graph connection (default: :func:`graph_trust.graph.connection.open_graph` on ``settings``).
    Every run (dry runs too) is recorded in the state store's ``relink_runs`` (listed by
    ``graph-trust runs``).
    """
    started = time.monotonic()
    min_sim = settings.relink.min_similarity if min_similarity is None else min_similarity
    marg = settings.relink.margin if margin is None else margin
    for name, v in (("min_similarity", min_sim), ("margin", marg)):
        if not 0.0 <= v <= 1.0:
            raise InputError(f"--{name.replace('_', '-')} must be between 0 and 1, got {v}")
    if embedder is None:
        embedder = make_embedder(settings)  # the factory search uses
        embedder_name = f"search.embedder {settings.search.embedder!r} ({type(embedder).__name__})"
    else:
        embedder_name = type(embedder).__name__
    with contextlib.closing(relink_store.open_review_db(settings, review_db)) as db:
        if not dry_run:
            relink_store.check_writable(db)
        report = RelinkReport(run_id=None, dry_run=dry_run)
        options = MatchOptions(group, min_sim, marg, embedder, embedder_name, progress)
        async with use_graph(settings, conn) as g:
            matched = await _match_orphans(g, db, report, options)
        t = time.monotonic()
        _record_and_write(settings, db, report, matched)
        report.phases_s["write"] = time.monotonic() - t
    report.duration_s = time.monotonic() - started
    log.debug("relink %s phases %s", report.run_id, report.phases_s)
    return report


@dataclass(frozen=True)
class MatchOptions:
    """The settings of one relink run's matching (validated by :func:`relink`)."""

    group: str | None
    min_similarity: float
    margin: float
    embedder: Any
    embedder_name: str
    progress: Callable[[str, int, int], None] | None = None


async def _match_orphans(conn: Any, db: Any, report: RelinkReport, options: MatchOptions
                         ) -> list[tuple[RelinkCandidate, str, MatchResult]]:
    group, embedder, progress = options.group, options.embedder, options.progress
    # 1. orphans, per group (FalkorDB: each group is its own graph), candidates streamed in batches
    t0 = time.monotonic()
    per_group = conn.backend.graph_per_group
    existing = set(await conn.graph_names()) if per_group else set()
    orphans: list[tuple[RelinkCandidate, str]] = []
    held: dict[str, list[tuple[str, str]]] = {}  # edge uuid -> (candidate, fact key) naming it now
    for cands, quarantined in relink_store.iter_candidates(db, group):
        report.candidates_read += len(cands) + len(quarantined)
        report.quarantined += quarantined
        by_group: dict[str | None, list[tuple[RelinkCandidate, str]]] = {}
        for c, ev in cands:
            by_group.setdefault(c.group_id, []).append((c, ev))
        for gid, items in by_group.items():
            g = conn.for_group(gid) if per_group else conn
            if per_group and g.database not in existing:
                missing = {ev for _, ev in items}
            else:
                missing = await orphaned_ids(g, [ev for _, ev in items])
            for c, ev in items:
                if ev in missing:
                    orphans.append((c, ev))
                else:
                    held.setdefault(ev, []).append((c.id, fact_key(c)))
    report.orphaned = len(orphans)
    report.phases_s["find_orphans"] = time.monotonic() - t0
    if not orphans:
        return []

    # 2. edges of the groups that have orphans
    t0 = time.monotonic()
    groups = sorted({c.group_id for c, _ in orphans}, key=lambda g: (g is None, g or ""))
    indexes: dict[str | None, EdgeIndex] = {}
    if per_group:
        for gid in groups:
            g = conn.for_group(gid)
            if g.database not in existing:
                continue
            part, n = await read_edge_indexes(g, None, key=gid)
            indexes.update(part)
            report.edges_read += n
    else:
        wanted = None if None in groups else [g for g in groups if g is not None]
        indexes, report.edges_read = await read_edge_indexes(conn, wanted, key=lambda r: r.get("group_id"))
    if report.edges_read == 0:
        report.warnings.append(
            "the graph has no RELATES_TO edges for the orphaned candidates' groups: every orphan is unmatched"
        )

    report.phases_s["read_edges"] = time.monotonic() - t0
    # 3. match
    t0 = time.monotonic()
    matcher = Matcher(indexes, min_similarity=options.min_similarity, margin=options.margin)

    async def embed(texts: list[str]):
        return await embedder.create_batch(texts)

    def conn_for(gid: str | None):
        return conn.for_group(gid) if per_group else conn

    async def embeddings_for(gid: str | None, uuids: list[str]):
        return await fetch_embeddings(conn_for(gid), uuids)

    check = EmbeddingCheck(embed, options.embedder_name, conn_for, indexes)

    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress("matching", done, len(orphans))

    def count(n: int) -> None:
        report.vectors_fetched += n

    results = await match_all(matcher, [c for c, _ in orphans], embed=embed, embeddings_for=embeddings_for,
                              progress=tick, fetched=count, cosine_in=check)
    results = settle_claims([(c, r) for (c, _), r in zip(orphans, results, strict=True)], held)
    for gid, verdict in check.results.items():
        report.similarity["" if gid is None else gid] = verdict
        if verdict["method"] == "bm25":
            report.warnings.append(f"group {gid!r}: fact similarity is lexical (BM25) only: {verdict['reason']}")
    report.phases_s["match"] = time.monotonic() - t0
    out = []
    for (c, ev), r in zip(orphans, results, strict=True):
        report.add(c, ev, r)
        out.append((c, ev, r))
    return out


def _record_and_write(settings: Settings, db: Any, report: RelinkReport, matched: list) -> None:
    """Record the run in ``relink_runs`` (dry runs too) and its quarantine in
    ``sync_quarantine``; write and journal unless dry run."""
    run_id = report.run_id = new_run_id("relink")  # `graph-trust rollback` routes relink-... ids to relink
    changes = [(c.id, ev, r.edge.uuid) for c, ev, r in matched if r.written]
    if changes and not report.dry_run:
        report.written, report.conflicts = relink_store.apply_relinks(db, run_id, changes, report_counts(report), settings)
    else:
        with JournalStore(settings) as store:
            store.record(run_id, db, report_counts(report))
    if report.quarantined:
        store = StateStore.for_settings(settings)
        try:
            store.add_quarantine(run_id, [(q["id"], q["reason"]) for q in report.quarantined])
        finally:
            store.close()



def rollback_relink(settings: Settings, run_id: str, *, force: bool = False) -> dict[str, Any]:
    """Restore the evidence JSON a relink run replaced, byte for byte (``graph-trust rollback``
    hands ``relink-...`` run ids here through the run-kind registry, :mod:`graph_trust.sync.runs.kinds`)."""
    return relink_store.rollback(settings, run_id, force=force)
