"""``graph-trust relink``: point orphaned candidates back at edges after a migration.

After a re-extraction or a backend change the review DB's ``evidence_refs_json[0].evidence_id``
values name edges that no longer exist. :func:`relink`:

1. reads the review DB's candidates (malformed evidence is quarantined, as in sync);
2. finds the *orphaned* ones: evidence uuid not on any ``RELATES_TO`` edge of the candidate's
   group (one indexed look-up per uuid, ``cypher/edge_uuids_exist``; no scan if none are);
3. reads the groups' edges with endpoint names in pages (``cypher/relink_edges_page``) into
   :class:`~graph_trust.sync.matching.EdgeIndex` es and matches each orphan
   (:mod:`graph_trust.sync.matching`), direction included: exact subject+predicate(+object),
   else the edges from the subject to the object (predicate renamed), else fact similarity
   (BM25 + cosine) among edges whose source and target plausibly match, with threshold and
   margin; then :func:`~graph_trust.sync.matching.settle_claims` makes edges that another
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
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graph_trust.config import Settings
from graph_trust.errors import InputError
from graph_trust.graph.connection import use_graph
from graph_trust.sync import relink_store
from graph_trust.sync.state import new_run_id
from graph_trust.sync.relink_store import relinked_evidence_json  # re-exported; lives with the writes
from graph_trust.sync.matching import (EdgeIndex, Matcher, MatchResult, Prepared, RelinkCandidate, fact_key,
                                       settle_claims)

log = logging.getLogger(__name__)

__all__ = ["EmbeddingCheck", "RelinkReport", "fetch_embeddings", "match_all", "orphaned_ids", "read_edge_indexes",
           "relink", "relinked_evidence_json", "rollback_relink"]

PAGE_SIZE = 20000  # rows per edge page: fewer keyset sorts, ~20 MB of rows in flight
EXISTS_BATCH = 5000
CHUNK = 1000  # candidates matched per embedding fetch
PROBE_SAMPLE = 16  # stored facts embedded again per group to check the embedder
PROBE_MIN_COSINE = 0.98  # a re-embedded fact this close to its stored vector: the same embedder


# --- report ------------------------------------------------------------------------------


@dataclass
class RelinkReport:
    """What :func:`relink` did; :meth:`to_dict` is the stable ``--json`` output."""

    run_id: str | None
    dry_run: bool
    candidates_read: int = 0
    orphaned: int = 0
    edges_read: int = 0
    vectors_fetched: int = 0
    relinked_exact: list[dict] = field(default_factory=list)
    relinked_endpoints: list[dict] = field(default_factory=list)
    relinked_similar: list[dict] = field(default_factory=list)
    ambiguous: list[dict] = field(default_factory=list)
    unmatched: list[dict] = field(default_factory=list)
    quarantined: list[dict] = field(default_factory=list)
    conflicts: list[dict] = field(default_factory=list)
    similarity: dict[str, dict] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    phases_s: dict[str, float] = field(default_factory=dict)
    written: int = 0
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "dry_run": self.dry_run,
            "candidates_read": self.candidates_read,
            "orphaned": self.orphaned,
            "edges_read": self.edges_read,
            "vectors_fetched": self.vectors_fetched,
            "relinked_exact": self.relinked_exact,
            "relinked_endpoints": self.relinked_endpoints,
            "relinked_similar": self.relinked_similar,
            "ambiguous": self.ambiguous,
            "unmatched": self.unmatched,
            "quarantined": self.quarantined,
            "conflicts": self.conflicts,
            "similarity": self.similarity,
            "written": self.written,
            "warnings": self.warnings,
            "duration_s": round(self.duration_s, 3),
            "phases_s": {k: round(v, 3) for k, v in self.phases_s.items()},
        }

    def add(self, cand: RelinkCandidate, old_id: str, result: MatchResult) -> None:
        entry: dict[str, Any] = {
            "id": cand.id,
            "group_id": cand.group_id,
            "old_evidence_id": old_id,
            "reason": result.reason,
        }
        if result.edge is not None:
            entry["new_evidence_id"] = result.edge.uuid
            entry["score"] = round(float(result.edge.score or 0.0), 4)
        if result.outcome != "exact" or len(result.top) > 1:
            entry["top"] = [t.as_dict() for t in result.top]
        bucket = {
            "exact": self.relinked_exact,
            "endpoints": self.relinked_endpoints,
            "similar": self.relinked_similar,
            "ambiguous": self.ambiguous,
            "unmatched": self.unmatched,
        }[result.outcome]
        bucket.append(entry)


# --- graph reading -----------------------------------------------------------------------


async def orphaned_ids(conn: Any, uuids: list[str]) -> set[str]:
    """The uuids in ``uuids`` that no ``RELATES_TO`` edge of ``conn``'s graph carries."""
    present: set[str] = set()
    unique = sorted(set(uuids))
    for k in range(0, len(unique), EXISTS_BATCH):
        rows = await conn.query("edge_uuids_exist", uuids=unique[k : k + EXISTS_BATCH])
        present.update(r["uuid"] for r in rows)
    return set(unique) - present


async def read_edge_indexes(
    conn: Any,
    group_ids: list[str] | None,
    *,
    key: str | None | Callable[[dict], str | None] = None,
    page_size: int = PAGE_SIZE,
) -> tuple[dict[str | None, EdgeIndex], int]:
    """Scan ``RELATES_TO`` edges (of ``group_ids``, or all) in uuid pages into one
    :class:`EdgeIndex` per key: ``key`` is a fixed key (FalkorDB: one graph per group) or a
    function of the row (Neo4j: the row's ``group_id``). Returns (indexes, edges read)."""
    indexes: dict[str | None, EdgeIndex] = {}
    after, total = "", 0
    while True:
        rows = await conn.query("relink_edges_page", after=after, group_ids=group_ids, limit=page_size)
        for r in rows:
            k = key(r) if callable(key) else key
            ix = indexes.get(k)
            if ix is None:
                ix = indexes[k] = EdgeIndex(k)
            ix.add(r["uuid"], r["name"], r["fact"], r["source_name"], r["target_name"])
        total += len(rows)
        if len(rows) < page_size:
            break
        after = rows[-1]["uuid"]
    for ix in indexes.values():
        ix.freeze()
    return indexes, total


async def fetch_embeddings(conn: Any, uuids: list[str]) -> dict[str, np.ndarray]:
    """``uuid -> fact_embedding`` for the edges that have one."""
    out: dict[str, np.ndarray] = {}
    for k in range(0, len(uuids), EXISTS_BATCH):
        for r in await conn.query("relink_edge_embeddings", uuids=uuids[k : k + EXISTS_BATCH]):
            emb = r.get("embedding")
            if emb is not None and len(emb):
                out[r["uuid"]] = np.asarray(emb, dtype=np.float32)
    return out


def graphiti_text(fact: str | None) -> str:
    """A fact as graphiti-core embeds it (``EntityEdge.generate_embedding``: newlines to spaces)."""
    return (fact or "").replace("\n", " ")


class EmbeddingCheck:
    """Per group: may the configured embedder's vectors be compared with the stored ones?

    Vectors from different embedders are not comparable (another model, another dimension, or
    the same dimension and unrelated axes). The check embeds up to ``PROBE_SAMPLE`` of the
    group's stored facts again (spread over the group) and compares with their stored
    ``fact_embedding``: every one must have the same dimension and cosine >= ``PROBE_MIN_COSINE``.
    The verdicts are kept in ``results`` (the report's ``similarity``).
    """

    def __init__(self, embed: Callable[[list[str]], Any], embedder_name: str,
                 conn_for: Callable[[str | None], Any], indexes: dict[str | None, EdgeIndex]) -> None:
        self.embed = embed
        self.embedder_name = embedder_name
        self.conn_for = conn_for
        self.indexes = indexes
        self.results: dict[str | None, dict[str, Any]] = {}

    async def __call__(self, group_id: str | None) -> bool:
        if group_id not in self.results:
            self.results[group_id] = {"embedder": self.embedder_name, **await self._check(self.indexes[group_id])}
        return self.results[group_id]["method"] == "bm25+cosine"

    async def _check(self, ix: EdgeIndex) -> dict[str, Any]:
        with_fact = [i for i, f in enumerate(ix.facts) if f.strip()]
        picks = with_fact[:: max(1, len(with_fact) // PROBE_SAMPLE)][:PROBE_SAMPLE]
        stored = await fetch_embeddings(self.conn_for(ix.group_id), [ix.uuids[i] for i in picks])
        picks = [i for i in picks if ix.uuids[i] in stored]
        if not picks:
            return _lexical("the group's edges have no stored fact_embedding")
        try:
            fresh = await self.embed([graphiti_text(ix.facts[i]) for i in picks])
        except Exception as exc:  # a remote model may fail in any way: fall back, say why
            return _lexical(f"the configured embedder failed: {type(exc).__name__}: {exc}")
        worst = 1.0
        for i, vec in zip(picks, fresh, strict=True):
            a, b = stored[ix.uuids[i]], np.asarray(vec, dtype=np.float32)
            if a.shape != b.shape:
                return _lexical(f"stored fact embeddings have {a.size} dimensions, the configured embedder "
                                f"makes {b.size}: the graph was embedded by another model")
            norm = float(np.linalg.norm(a) * np.linalg.norm(b))
            worst = min(worst, float(a @ b) / norm if norm > 0 else 0.0)
        if worst < PROBE_MIN_COSINE:
            return _lexical(f"the configured embedder does not reproduce the stored fact embeddings (lowest "
                            f"cosine {worst:.3f} over {len(picks)} sampled facts, {PROBE_MIN_COSINE} needed): "
                            "the graph was embedded by another model", checked=len(picks))
        return {"method": "bm25+cosine", "checked": len(picks), "min_cosine": round(worst, 4), "reason": None}


def _lexical(reason: str, checked: int = 0) -> dict[str, Any]:
    return {"method": "bm25", "checked": checked, "min_cosine": None, "reason": reason}


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
        from graph_trust.service import make_embedder  # the factory search uses

        embedder = make_embedder(settings)
        embedder_name = f"search.embedder {settings.search.embedder!r} ({type(embedder).__name__})"
    else:
        embedder_name = type(embedder).__name__
    with contextlib.closing(relink_store.open_review_db(settings, review_db)) as db:
        if not dry_run:
            relink_store.check_writable(db)
        report = RelinkReport(run_id=None, dry_run=dry_run)
        args = (db, report, group, min_sim, marg, embedder, embedder_name, progress)
        async with use_graph(settings, conn) as g:
            matched = await _match_orphans(g, *args)
        t = time.monotonic()
        _record_and_write(settings, db, report, matched)
        report.phases_s["write"] = time.monotonic() - t
    report.duration_s = time.monotonic() - started
    log.debug("relink %s phases %s", report.run_id, report.phases_s)
    return report


async def _match_orphans(conn, db, report, group, min_sim, marg, embedder, embedder_name, progress
                         ) -> list[tuple[RelinkCandidate, str, MatchResult]]:
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
    matcher = Matcher(indexes, min_similarity=min_sim, margin=marg)

    async def embed(texts: list[str]):
        return await embedder.create_batch(texts)

    def conn_for(gid: str | None):
        return conn.for_group(gid) if per_group else conn

    async def embeddings_for(gid: str | None, uuids: list[str]):
        return await fetch_embeddings(conn_for(gid), uuids)

    check = EmbeddingCheck(embed, embedder_name, conn_for, indexes)

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
    from graph_trust.sync.state import StateStore

    run_id = report.run_id = new_run_id("relink")  # `graph-trust rollback` routes relink-... ids to relink
    changes = [(c.id, ev, r.edge.uuid) for c, ev, r in matched if r.written]
    if changes and not report.dry_run:
        report.written, report.conflicts = relink_store.apply_relinks(db, run_id, changes, report_counts(report), settings)
    else:
        with relink_store.JournalStore(settings) as store:
            store.record(run_id, db, report_counts(report))
    if report.quarantined:
        store = StateStore.for_settings(settings)
        try:
            store.add_quarantine(run_id, [(q["id"], q["reason"]) for q in report.quarantined])
        finally:
            store.close()


def report_counts(report: RelinkReport) -> dict[str, Any]:
    """The counts a relink run records in the state store."""
    return {
        "dry_run": report.dry_run,
        "candidates_read": report.candidates_read,
        "orphaned": report.orphaned,
        "relinked_exact": len(report.relinked_exact),
        "relinked_endpoints": len(report.relinked_endpoints),
        "relinked_similar": len(report.relinked_similar),
        "ambiguous": len(report.ambiguous),
        "unmatched": len(report.unmatched),
        "quarantined": len(report.quarantined),
    }


def rollback_relink(settings: Settings, run_id: str, *, force: bool = False) -> dict[str, Any]:
    """Restore the evidence JSON a relink run replaced, byte for byte (``graph-trust rollback``
    hands ``relink-...`` run ids to :func:`graph_trust.sync.relink_store.rollback`)."""
    return relink_store.rollback(settings, run_id, force=force)
