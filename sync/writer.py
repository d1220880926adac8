"""Journaled batch writes: every batch is journaled before it is written.

For each batch: (1) the previous and new values of every element are inserted in
``sync_journal`` as ``pending`` and committed; (2) the batch is written to the graph in one
statement per kind of change (one atomic query on FalkorDB, one managed transaction on
Neo4j); (3) in one state-store transaction the journal rows become ``applied`` (or ``void``
for elements the graph does not have), the shadow copy is updated and the entities to
re-aggregate are recorded. A crash between (1) and (3) leaves ``pending`` rows: the next run
or rollback (holding the lock) reads those elements back and marks each row ``applied`` or
``void`` by what the graph holds (:func:`recover`). So an applied change is always journaled,
and a rerun converges because it compares desired state with what the graph holds.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from graph_trust.graph.temporal import from_json, to_json
from graph_trust.sync.aggregate import same_score
from graph_trust.sync.graphstate import bucket_range, owned, upsert_shadow
from graph_trust.sync.store.named import run, run_many
from graph_trust.sync.store.state import EDGE_PROPS, ENTITY_PROPS, StateStore

_EMPTY_ENTITY = dict.fromkeys(ENTITY_PROPS)


@dataclass
class Change:
    """One element's change: ``old`` and ``new`` hold every owned property (None = absent)."""

    uuid: str
    old: dict[str, Any]
    new: dict[str, Any]
    endpoints: tuple[str | None, str | None] = (None, None)


@dataclass
class BatchResult:
    applied: list[Change] = field(default_factory=list)
    missing: list[Change] = field(default_factory=list)


def props_equal(a: dict[str, Any], b: dict[str, Any], props: tuple[str, ...]) -> bool:
    for p in props:
        x, y = a.get(p), b.get(p)
        if p == "trust_score":
            if not same_score(x, y):
                return False
        elif (None if x is None else str(x)) != (None if y is None else str(y)):
            return False
    return True


_ENCODER = json.JSONEncoder(sort_keys=True)  # json.dumps(..., sort_keys=True), built once
_JSON_CACHE: dict[tuple, str] = {}


def journal_json(values: dict[str, Any]) -> str:
    """``json.dumps(values, sort_keys=True)``. A batch repeats a handful of distinct value sets
    (every new value shares the run id and time), so their text is memoized (bounded), keyed
    by the items and the value types (1 and 1.0 never share an entry; float zeros, where 0.0
    and -0.0 would, and unhashable values are not memoized)."""
    vals = tuple(values.values())
    if 0.0 in vals:
        return _ENCODER.encode(values)
    key = (tuple(values), vals, tuple(map(type, vals)))
    try:
        text = _JSON_CACHE.get(key)
    except TypeError:  # a list or dict value
        return _ENCODER.encode(values)
    if text is None:
        if len(_JSON_CACHE) >= 1024:
            _JSON_CACHE.clear()
        text = _JSON_CACHE[key] = _ENCODER.encode(values)
    return text


_ABSENT = journal_json(dict.fromkeys(EDGE_PROPS))  # the journal's "no trust properties"


def edge_values(row: dict[str, Any]) -> dict[str, Any]:
    return {p: (float(row[p]) if p == "trust_score" and row.get(p) is not None else row.get(p)) for p in EDGE_PROPS}


def entity_values(row: dict[str, Any]) -> dict[str, Any]:
    return {p: (float(row[p]) if p == "trust_score" and row.get(p) is not None else row.get(p)) for p in ENTITY_PROPS}


def _sets_and_clears(changes: list[Change], props: tuple[str, ...]) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows to set (``{uuid, <every prop>}``) and uuids to clear. New values that are all absent
    clear the element; others are set, a None removing its property (so a rollback restores owned
    properties an element held without a trust_score)."""
    sets, clears = [], []
    for c in changes:
        if any(v is not None for v in c.new.values()):
            sets.append({"uuid": c.uuid, **dict.fromkeys(props), **c.new})
        else:
            clears.append(c.uuid)
    return sets, clears


WRITE_OUTCOME_WAIT_S = 30.0


async def finished_first(work: Awaitable[Any], timeout: float | None = None) -> Any:
    """Await ``work`` (a coroutine, task or future already on its way); if the caller is cancelled
    meanwhile (Ctrl-C), let ``work`` finish first (at most ``timeout`` seconds; None: no limit),
    then let the cancellation go on."""
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await asyncio.wait({task}, timeout=timeout)
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: the cancellation is what the caller sees
        raise


async def landed(write: Awaitable[Any]) -> Any:
    """A graph write, awaited with :func:`finished_first`. The server applies a statement it has
    received whether or not the client still waits for the reply: cancelled mid-flight, a batch
    could otherwise land *after* the failure handling had read it back and marked its journal
    rows ``void``."""
    return await finished_first(write, WRITE_OUTCOME_WAIT_S)


async def write_edges(graph_conn: Any, changes: list[Change]) -> set[str]:
    """Write edge changes; return the uuids the graph has (matched)."""
    return await write_edge_rows(graph_conn, *_sets_and_clears(changes, EDGE_PROPS))


async def write_edge_rows(graph_conn: Any, sets: list[dict[str, Any]], clears: list[str]) -> set[str]:
    """Set the rows of ``sets`` (``{uuid, <every EDGE_PROPS>}``), clear the edges of ``clears``;
    return the uuids the graph has (matched). A row without a trust_score (a labels-only edge, or
    what an edge held without one, restored) goes through ``edge_labels_set``, which removes every
    owned property before it sets the row's."""
    uuids = [row["uuid"] for row in sets] + clears
    matched = 0
    scored = [row for row in sets if row.get("trust_score") is not None]
    unscored = [row for row in sets if row.get("trust_score") is None]
    # see cypher/edge_trust_set.* and edge_labels_set.*: the dialects take different shapes
    for statement, rows in (("edge_trust_set", scored), ("edge_labels_set", unscored)):
        if rows:
            matched += int((await graph_conn.write(statement, **graph_conn.backend.bulk_params(rows)))[0]["matched"])
    if clears:
        matched += int((await graph_conn.write("edge_trust_clear", uuids=clears))[0]["matched"])
    if matched == len(uuids):
        return set(uuids)
    # some uuid is missing (or, with duplicate edge uuids, matched twice): ask which exist
    rows = await graph_conn.query("edge_uuids_exist", uuids=uuids)
    return {r["uuid"] for r in rows}


# The guard's restores (sync/guard.py): journal kind and properties; values as temporal.to_json.
VALIDITY_KIND = "validity"
VALIDITY = ("invalid_at", "expired_at")


async def read_validity(graph_conn: Any, uuids: list[str]) -> list[Change]:
    """The edges' current ``invalid_at`` / ``expired_at`` as journal values (in ``Change.old``;
    uuids the graph lacks: none)."""
    return [Change(r["uuid"], {p: to_json(r.get(p)) for p in VALIDITY}, {},
                   (r.get("source_uuid"), r.get("target_uuid")))
            for r in await graph_conn.query("edge_validity_read", uuids=uuids)]


async def write_validity(graph_conn: Any, changes: list[Change]) -> set[str]:
    """Write each change's new ``invalid_at`` / ``expired_at`` (journal values, written back as the
    type they were read as; None removes the property); return the uuids the graph has."""
    rows = [{"uuid": c.uuid, **{p: from_json(c.new.get(p)) for p in VALIDITY}} for c in changes]
    matched = int((await graph_conn.write("edge_validity_set", **graph_conn.backend.bulk_params(rows)))[0]["matched"])
    if matched == len(rows):
        return {c.uuid for c in changes}
    return {r["uuid"] for r in await graph_conn.query("edge_uuids_exist", uuids=[c.uuid for c in changes])}


async def write_entities(graph_conn: Any, changes: list[Change]) -> set[str]:
    sets, clears = _sets_and_clears(changes, ENTITY_PROPS)
    if sets:
        await graph_conn.write("entity_trust_set", rows=sets)
    if clears:
        await graph_conn.write("entity_trust_clear", uuids=clears)
    return {c.uuid for c in changes}  # entities come from a read in the same run


class JournaledWriter:
    """Writes batches of one run, journaling each before it is written."""

    def __init__(self, store: StateStore, run_id: str, graph_key: str):
        self.store = store
        self.run_id = run_id
        self.graph_key = graph_key
        self.batches = 0
        self._deferred: list[Callable[[Any], None]] = []  # settles waiting for the next transaction

    @contextmanager
    def _tx(self):
        """A state-store transaction that first applies the deferred settles."""
        with self.store.tx() as c:
            for apply in self._deferred:
                apply(c)
            self._deferred.clear()
            yield c

    def flush(self) -> None:
        """Commit the deferred settles now (end of a phase, or after a failure)."""
        if self._deferred:
            with self._tx():
                pass

    def _journal(self, graph: str, kind: str, changes: list[Change]) -> int:
        self.batches += 1
        with self._tx() as c:
            insert_journal(c, self.run_id, self.batches, self.graph_key, graph, kind, changes, "pending")
        return self.batches

    def _settle(self, c, batch: int, voided: list[str]) -> None:
        """The batch's rows become ``applied``, those of ``voided`` (not in the graph) ``void``."""
        run(c, "settle_batch", {"run_id": self.run_id, "batch": batch})
        run_many(c, "void_in_batch", [(self.run_id, batch, u) for u in voided])

    def begin_edges(self, graph: str, changes: list[Change]) -> int:
        """Step 1: journal the batch as pending (committed before any write); returns its number."""
        return self._journal(graph, "edge", changes)

    def finish_edges(self, graph: str, batch: int, changes: list[Change], matched: set[str], *,
                     mark_dirty: bool, defer: bool = False) -> BatchResult:
        """Step 3: after the write, settle the journal, update the shadow, list entities to re-aggregate.

        With ``defer``, this state-store work joins the next transaction of this writer (the next
        batch's journal, or :meth:`flush`), saving a commit per batch; until then the rows stay
        ``pending``, which :func:`recover` settles by reading the graph if the run dies first.
        """
        res = BatchResult([c for c in changes if c.uuid in matched], [c for c in changes if c.uuid not in matched])

        def apply(c) -> None:
            self._settle(c, batch, [ch.uuid for ch in res.missing])
            shadow_written(c, self.graph_key, graph, res.applied)
            if mark_dirty:
                mark_entities_dirty(c, self.graph_key, graph,
                                    [u for ch in res.applied for u in ch.endpoints if u is not None])

        self._deferred.append(apply)
        if not defer:
            self.flush()
        return res

    async def edges(self, graph_conn: Any, graph: str, changes: list[Change], *, mark_dirty: bool) -> BatchResult:
        """Journal, write and settle one batch of edge changes."""
        batch = self.begin_edges(graph, changes)
        matched = await landed(write_edges(graph_conn, changes))
        return self.finish_edges(graph, batch, changes, matched, mark_dirty=mark_dirty)

    async def validity(self, graph_conn: Any, graph: str, changes: list[Change]) -> BatchResult:
        """Journal, write and settle one batch of the guard's validity changes (kind ``validity``)."""
        batch = self._journal(graph, VALIDITY_KIND, changes)
        matched = await landed(write_validity(graph_conn, changes))
        res = BatchResult([c for c in changes if c.uuid in matched], [c for c in changes if c.uuid not in matched])
        with self._tx() as c:
            self._settle(c, batch, [ch.uuid for ch in res.missing])
        return res

    def begin_work_edges(self, graph: str, lo: int, hi: int, now: str) -> int:
        """Step 1 for rows ``lo..hi`` (rowids, one graph) of ``temp.work`` (a ``--full`` run): SQLite
        journals them itself, the previous values from the shadow (just rebuilt from the graph) or
        ``temp.foreign_props``, the new ones from the row and the run (no per-row Python)."""
        self.batches += 1
        with self._tx() as c:
            run(c, "create_foreign_props")
            run(c, "journal_work", {"run": self.run_id, "batch": self.batches, "graph_key": self.graph_key, "now": now,
                                      "absent": _ABSENT, "lo": lo, "hi": hi})
        return self.batches

    def finish_work_edges(self, graph: str, batch: int, lo: int, hi: int, missing: list[str], now: str) -> None:
        """Step 3 for :meth:`begin_work_edges`, deferred like ``finish_edges(defer=True)``: settle
        the journal and have the shadow follow the rows written (``missing`` ones: not in the graph)."""
        params = {"graph_key": self.graph_key, "graph": graph, "run": self.run_id, "now": now, "lo": lo, "hi": hi,
                  "missing": json.dumps(missing)}

        def apply(c) -> None:
            self._settle(c, batch, missing)
            run(c, "shadow_from_work", params)
            run(c, "shadow_cleared_from_work", params)

        self._deferred.append(apply)

    async def entities(self, graph_conn: Any, graph: str, changes: list[Change], done: list[str]) -> None:
        """Write entity changes and take ``done`` (all entities of the batch) off the dirty list."""
        batch = self._journal(graph, "entity", changes) if changes else None
        if changes:
            await landed(write_entities(graph_conn, changes))
        with self._tx() as c:
            if batch is not None:
                self._settle(c, batch, [])
            run_many(c, "undirty_entity", [(self.graph_key, graph, u) for u in done])

    def mark_range(self, graph: str, bucket: str, old: dict[str, dict]) -> tuple[str, int, dict[str, dict]]:
        """``--full`` aggregation of one uuid range, step 1: journal the range's trusted entities
        (``old``, from :func:`read_range`) as one pending ``entity_range`` marker, committed before
        :func:`write_range` may start. That statement sets every entity with a trusted edge whose
        value changes and returns each entity it visited with its previous values; entities that
        had trust and were not visited have no trusted edge left and are cleared. Then
        :meth:`finish_range` records the changes; :func:`recover` settles a marker left pending by
        comparing the range with the values it recorded. Returns ``(bucket, batch, old)``."""
        return bucket, self._journal(graph, "entity_range", [Change(bucket, old, {})]), old

    def finish_range(self, graph: str, begun: tuple[str, int, dict[str, dict]], written: list[Change]) -> int:
        """After :func:`write_range`: the changes become ``applied`` rows, the marker is voided."""
        bucket, batch, _ = begun
        lo, hi = bucket_range(bucket)
        with self._tx() as c:
            run(c, "void_batch", {"run_id": self.run_id, "batch": batch})
            insert_journal(c, self.run_id, batch, self.graph_key, graph, "entity", written, "applied")
            run(c, "undirty_range", {"graph_key": self.graph_key, "graph": graph, "lo": lo, "hi": hi})
        return len(written)


async def read_range(graph_conn: Any, bucket: str) -> dict[str, dict]:
    """The trusted entities of one uuid range: what its re-aggregation may replace."""
    lo, hi = bucket_range(bucket)
    return {r["uuid"]: entity_values(r) for r in await graph_conn.query("entities_with_trust_in_range", lo=lo, hi=hi)}


async def write_range(graph_conn: Any, bucket: str, method: str, run_id: str, old: dict[str, dict]) -> list[Change]:
    """Aggregate one range in the graph and clear its stale entities; returns the changes made."""
    lo, hi = bucket_range(bucket)
    rows = await graph_conn.write(f"entity_trust_aggregate_{method}", lo=lo, hi=hi, run_id=run_id)
    changes = [Change(r["uuid"], {"trust_score": r["old_score"], "trust_run_id": r["old_run_id"]},
                      {"trust_score": r["trust_score"], "trust_run_id": run_id}) for r in rows if r["changed"]]
    visited = {r["uuid"] for r in rows}
    stale = [Change(u, before, dict(_EMPTY_ENTITY)) for u, before in old.items() if u not in visited]
    if stale:
        await graph_conn.write("entity_trust_clear", uuids=[c.uuid for c in stale])
    return changes + stale


def insert_journal(c, run_id: str, batch: int, graph_key: str, graph: str, kind: str, changes: list[Change],
                   state: str) -> None:
    run_many(c, "add_journal", [(run_id, batch, graph_key, graph, kind, ch.uuid, journal_json(ch.old), journal_json(ch.new), state)
         for ch in changes])


_SHADOW_TEXT = {str, type(None)}


def shadow_written(c, graph_key: str, graph: str, applied: list[Change]) -> None:
    """The shadow follows the values just written (as ``upsert_shadow`` records them)."""
    rows, drops = [], []
    for ch in applied:
        if not owned(ch.new):
            drops.append((graph_key, graph, ch.uuid))
            continue
        score, *rest = map(ch.new.get, EDGE_PROPS)
        if not set(map(type, rest)) <= _SHADOW_TEXT:
            rest = [v if v is None or type(v) is str else str(v) for v in rest]
        rows.append((graph_key, graph, ch.uuid, None if score is None else float(score), *rest, *ch.endpoints))
    run_many(c, "upsert_shadow", rows)
    run_many(c, "drop_shadow_edge", drops)


def mark_entities_dirty(c, graph_key: str, graph: str, uuids: list[str]) -> None:
    run_many(c, "mark_dirty", [(graph_key, graph, u) for u in uuids])


async def recover(store: StateStore, graphs: Any, graph_key: str) -> int:
    """Settle ``pending`` journal rows left by dead runs of this graph (caller holds the lock).

    Each pending element is read back: if the graph holds the new values the row becomes
    ``applied`` (and the shadow follows), otherwise ``void``. Returns rows settled.
    """
    rows = store.rows("pending_rows", graph_key=graph_key)
    by_key: dict[tuple[str, str], list[tuple[int, str, dict]]] = {}
    for row in map(PendingRow._make, rows):
        if row.kind == "entity_range":
            await _recover_range(store, graphs(row.graph), graph_key, row)
            continue
        by_key.setdefault((row.graph, row.kind), []).append((row.seq, row.uuid, json.loads(row.new_json)))
    for (graph, kind), items in by_key.items():
        graph_conn = graphs(graph)
        for i in range(0, len(items), 1000):
            chunk = items[i:i + 1000]
            uuids = [u for _, u, _ in chunk]
            if kind == VALIDITY_KIND:  # the guard's restores: settled by what the edges hold now
                current = {c.uuid: c.old for c in await read_validity(graph_conn, uuids)}
                with store.tx() as c:
                    for seq, uuid, new in chunk:
                        ok = uuid in current and current[uuid] == {p: new.get(p) for p in VALIDITY}
                        run(c, "settle_row", {"state": "applied" if ok else "void", "seq": seq})
                continue
            if kind == "edge":
                current = {r["uuid"]: r for r in await graph_conn.query("edge_trust_read", uuids=uuids)}
                props = EDGE_PROPS
            else:
                current = {r["uuid"]: r for r in await graph_conn.query("entity_trust_inputs", uuids=uuids)}
                props = ENTITY_PROPS
            with store.tx() as c:
                for seq, uuid, new in chunk:
                    cur = current.get(uuid)
                    ok = cur is not None and props_equal(cur, new, props)
                    run(c, "settle_row", {"state": "applied" if ok else "void", "seq": seq})
                    if kind == "edge" and cur is not None:
                        upsert_shadow(c, graph_key, graph, [cur])
                        mark_entities_dirty(c, graph_key, graph,
                                            [u for u in (cur.get("source_uuid"), cur.get("target_uuid")) if u])
    return len(rows)


class PendingRow(NamedTuple):
    """A ``pending`` journal row, as :func:`recover` reads it (an ``entity_range`` marker's
    ``uuid`` is its bucket, its ``old_json`` the range's values before the write)."""

    seq: int
    run_id: str
    batch: int
    graph: str
    kind: str
    uuid: str
    old_json: str
    new_json: str


async def _recover_range(store: StateStore, graph_conn: Any, graph_key: str, row: PendingRow) -> None:
    """Settle a pending ``entity_range`` marker: journal what differs from the values it recorded."""
    old: dict[str, dict] = json.loads(row.old_json)
    lo, hi = bucket_range(row.uuid)
    cur = {r["uuid"]: entity_values(r) for r in await graph_conn.query("entities_with_trust_in_range", lo=lo, hi=hi)}
    changes = [Change(u, old.get(u, dict(_EMPTY_ENTITY)), cur.get(u, dict(_EMPTY_ENTITY)))
               for u in sorted(set(old) | set(cur))
               if not props_equal(old.get(u, _EMPTY_ENTITY), cur.get(u, _EMPTY_ENTITY), ENTITY_PROPS)]
    with store.tx() as c:
        run(c, "settle_row", {"state": "void", "seq": row.seq})
        insert_journal(c, row.run_id, row.batch, graph_key, row.graph, "entity", changes, "applied")


__all__ = ["VALIDITY", "VALIDITY_KIND", "BatchResult", "Change", "JournaledWriter", "edge_values", "entity_values",
           "finished_first", "journal_json", "landed", "props_equal", "read_range", "read_validity", "recover", "write_edge_rows",
           "write_edges", "write_entities", "write_range", "write_validity"]
