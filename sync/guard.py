"""The guard against Graphiti invalidating verified facts (``trusted_invalidated``).

Graphiti's LLM contradiction step sets ``invalid_at`` / ``expired_at`` on RELATES_TO edges it
believes a newer fact contradicts, and it invalidates correct facts as collateral damage (graphiti
issue 1728). An edge a reviewer promoted or corroborated (``guard.statuses``) that Graphiti has
invalidated is what the guard finds, set-wise:

1. the invalidated edges' uuids per graph into ``temp.guard_edges`` of the state store. ``verify``
   and ``sync --full`` read them all (one paged read, ``cypher/edges_invalidated_page``). A normal
   sync reads only what changed (:func:`track_invalidated`): the state store keeps the invalidated
   edges its last read found (``sync_guard_edges``) and the latest ``expired_at`` it saw; the
   graph's figures from the ``expired_at`` / ``invalid_at`` range indexes
   (``cypher/edges_invalidated_summary``: how many hold each, a sum naming which edges) are
   compared with the same figures of that record; when they differ, the edges expired since the
   latest ``expired_at`` are read (``cypher/edges_expired_since``, an index range), and when the
   figures still differ (an edge invalidated with an ``expired_at`` in the past, or made valid
   again by hand) every invalidated edge is read again;
2. one SQLite join with the review rows as sync reads them (``sync_candidates``; ``verify``: the
   review DB as it is), matched by graph and edge uuid;
3. for those found, their details (``cypher/edge_validity_read``) and the valid edges at their
   source entities (``cypher/valid_edges_at_entities``), one query each per thousand, and for each
   the newer edge that superseded it (:func:`superseder`).

``sync`` then records each as a contradiction left open for review in the review DB's
``fact_contradictions`` (once per edge and invalidation), and with ``guard.restore_trusted``
clears ``invalid_at`` and ``expired_at`` in journaled batches of kind ``validity`` (rollback
writes the values back, of the type they were read as: :mod:`graph_trust.graph.temporal`).
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from itertools import groupby
from typing import Any

from graph_trust.config import Settings
from graph_trust.errors import ReviewDBError
from graph_trust.graph.routing import Graphs
from graph_trust.graph.temporal import as_datetime, from_json, iso, to_json
from graph_trust.review.db import Location
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.report import GUARD_HINT, REPORT_LIMIT
from graph_trust.sync.writer import VALIDITY, Change, JournaledWriter, read_validity

CONTRADICTION_TYPE = "graphiti_invalidation"
PAGE = 20000  # uuids per page of the invalidated-edge read
_CHUNK = 1000  # uuids per read of details and of superseders

_TRUSTED = {"copy": "trusted_invalidated_in_copy", "review": "trusted_invalidated_in_review"}  # by ``rows``
_DETAILS = ("invalid_at", "expired_at", "source_uuid", "target_uuid", "group_id", "name", "fact")


def _new_guard_edges(store: Any) -> None:
    store.do("new_guard_edges")
    store.do("clear_guard_edges")


async def _every_invalidated(graph_conn: Any) -> list[dict[str, Any]]:
    """Every invalidated RELATES_TO edge of one graph (``edges_invalidated_page``, page by page)."""
    out: list[dict[str, Any]] = []
    after = ""
    while True:
        page = await graph_conn.query("edges_invalidated_page", after=after, limit=PAGE)
        out += page
        if len(page) < PAGE:
            return out
        after = page[-1]["uuid"]


class EarlyRead:
    """A ``--full`` run's read of every invalidated edge (the change check's figures, then every
    page), started while the run reads the review DB, when the graph has nothing else to do, and
    taken by :func:`track_invalidated` at the guard's step. The figures are read first, as there:
    what Graphiti invalidates after them shows as a difference at the next run."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled  # (a --full run's, with the guard on)
        self._task: asyncio.Future | None = None

    def start(self, graphs: Graphs, names: list[str]) -> None:
        """Start reading the graphs ``names`` (when enabled)."""
        if not self.enabled:
            return

        async def read() -> dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]:
            out = {}
            for graph in names:  # one graph after the other (one query at a time)
                if graphs.exists(graph):
                    conn = graphs(graph)
                    out[graph] = (await conn.query("edges_invalidated_summary"))[0], await _every_invalidated(conn)
            return out

        self._task = asyncio.ensure_future(read())

    async def take(self) -> dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]:
        """What was read, per graph (empty when nothing was started); a failed read raises here."""
        task, self._task = self._task, None
        return {} if task is None else await task

    async def cancel(self) -> None:
        """The run failed before its guard: the read in flight is stopped."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def read_invalidated(store: Any, graphs: Graphs, names: list[str]) -> int:
    """The uuids of every invalidated RELATES_TO edge of the graphs ``names`` into
    ``temp.guard_edges`` (graph, uuid); returns how many."""
    _new_guard_edges(store)
    n = 0
    for graph in sorted(names):
        if not graphs.exists(graph):  # a group with no graph holds nothing (and is never created)
            continue
        rows = await _every_invalidated(graphs(graph))
        store.do_many("note_guard_edge", [{"graph": graph, "uuid": e["uuid"]} for e in rows])
        n += len(rows)
    return n


def _figures(summary: dict[str, Any]) -> tuple[int, int, int]:
    """The change check's figures: edges holding expired_at, edges holding invalid_at, and the
    sum of the first's tags (``cypher/edges_invalidated_summary``)."""
    return int(summary["expired"] or 0), int(summary["invalid"] or 0), int(summary["tag_sum"] or 0)


def _known_figures(store: Any, graph_key: str, graph: str) -> tuple[int, int, int]:
    row = store.rows("guard_figures", graph_key=graph_key, graph=graph)[0]
    return int(row[0]), int(row[1]), int(row[2])


def _remember(store: Any, graph_key: str, graph: str, rows: list[dict[str, Any]]) -> None:
    store.do_many("remember_invalidated", [
        {"graph_key": graph_key, "graph": graph, "uuid": e["uuid"], "expired": int(e["expired"] or 0),
         "invalid": int(e["invalid"] or 0), "tag": int(e["tag"] or 0)} for e in rows])


async def track_invalidated(store: Any, graphs: Graphs, names: list[str], graph_key: str, *,
                            full: bool, early: EarlyRead | None = None) -> dict[str, str]:
    """Step 1 of a sync (module docstring): bring the state store's record of the invalidated
    edges of the graphs ``names`` up to date, reading only what changed unless ``full``, and copy
    it into ``temp.guard_edges``. Returns, per graph read, how: ``unchanged``, ``since`` (the
    edges expired since the last read) or ``full``. With ``full``, what ``early`` read already
    is taken as read now."""
    _new_guard_edges(store)
    how: dict[str, str] = {}
    read = await early.take() if early is not None and full else {}
    for graph in sorted(names):
        if not graphs.exists(graph):  # a group with no graph holds nothing (and is never created)
            with store.tx():
                store.do("forget_guard_graph", graph_key=graph_key, graph=graph)
                store.do("forget_guard_mark", graph_key=graph_key, graph=graph)
            continue
        graph_conn = graphs(graph)
        mark = store.rows("guard_mark", graph_key=graph_key, graph=graph)
        summary, every = read.get(graph) or ((await graph_conn.query("edges_invalidated_summary"))[0], None)
        want = _figures(summary)  # (the figures before the reads: a change after them shows next time)
        how[graph] = "full"
        if mark and not full:
            if _known_figures(store, graph_key, graph) == want:
                how[graph] = "unchanged"
            elif mark[0][0] is not None:
                since = await graph_conn.query("edges_expired_since", since=from_json(json.loads(mark[0][0])))
                with store.tx():
                    _remember(store, graph_key, graph, since)
                if _known_figures(store, graph_key, graph) == want:
                    how[graph] = "since"
        if every is None and how[graph] == "full":
            every = await _every_invalidated(graph_conn)
        latest = json.dumps(to_json(summary["latest"])) if summary["latest"] is not None else \
            (mark[0][0] if mark else None)
        with store.tx():
            if every is not None:
                store.do("forget_guard_graph", graph_key=graph_key, graph=graph)
                _remember(store, graph_key, graph, every)
            store.do("set_guard_mark", graph_key=graph_key, graph=graph, latest_json=latest)
        store.do("copy_guard_edges", graph_key=graph_key, graph=graph)
    return how


def forget_restored(store: Any, graph_key: str, items: list[dict[str, Any]]) -> None:
    """Take the edges :func:`restore` made valid again out of the state store's record of the
    invalidated ones (so the next run's change check finds the graph as recorded)."""
    with store.tx():
        store.do_many("forget_invalidated", [{"graph_key": graph_key, "graph": i["graph"],
                                                            "uuid": i["uuid"]} for i in items if i.get("restored")])


def trusted(store: Any, rows: str, source: str, statuses: list[str]) -> list[dict[str, Any]]:
    """The edges of ``temp.guard_edges`` that a usable review row in one of ``statuses`` points at,
    in (graph, uuid) order, with those rows' ids and statuses; the rows of ``rows``: ``copy`` (the
    state store's copy of the review DB, as sync reads it) or ``review`` (verify's read of it as it is)."""
    out: list[dict[str, Any]] = []
    for (graph, uuid), hits in groupby(store.rows(_TRUSTED[rows], source=source,
                                                  statuses=json.dumps(list(statuses))),
                                       key=lambda r: (r[0], r[1])):
        hits = list(hits)
        out.append({"graph": graph, "uuid": uuid, "candidate_ids": sorted(str(h[2]) for h in hits),
                    "statuses": sorted({h[3] for h in hits})})
    return out


async def read_details(graphs: Graphs, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items with their edge's times (journal values), endpoints, group, name and fact read
    now, one query per graph and thousand; an edge gone or valid again since is left out."""
    out = []
    for graph, group in _by_graph(items).items():
        for k in range(0, len(group), _CHUNK):
            chunk = group[k:k + _CHUNK]
            found = {r["uuid"]: r for r in await graphs(graph).query("edge_validity_read",
                                                                    uuids=[i["uuid"] for i in chunk])}
            for item in chunk:
                r = found.get(item["uuid"])
                if r is None or (r.get("invalid_at") is None and r.get("expired_at") is None):
                    continue
                item.update({p: r.get(p) for p in _DETAILS})
                item["invalid_at"], item["expired_at"] = to_json(r.get("invalid_at")), to_json(r.get("expired_at"))
                out.append(item)
    return out


def _by_graph(items: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    by: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by.setdefault(item["graph"], []).append(item)
    return by


def invalidated_at(item: dict[str, Any]) -> datetime | None:
    """When Graphiti invalidated the edge: ``invalid_at`` (the time the fact stopped holding, which
    Graphiti takes from the newer edge's ``valid_at``), else ``expired_at``."""
    return as_datetime(from_json(item["invalid_at"])) or as_datetime(from_json(item["expired_at"]))


def superseder(item: dict[str, Any], edges: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The newer edge that superseded the invalidated ``item``, among valid ``edges``, or None.

    A candidate is another edge that is valid (the caller passes only those), that either has the
    same source entity and the same relation name, or joins the same two entities (either
    direction), and whose ``valid_at`` is at or after the invalidation (:func:`invalidated_at`).
    Of several, the one valid first (the one that took over at the invalidation) wins; ties go to
    the same-source-and-name match, then the smaller uuid."""
    at = invalidated_at(item)
    if at is None:
        return None
    ends = {item["source_uuid"], item["target_uuid"]}
    best, best_key = None, None
    for e in edges:
        if e["uuid"] == item["uuid"]:
            continue
        same_relation = e.get("source_uuid") == item["source_uuid"] and e.get("name") == item["name"]
        if not same_relation and {e.get("source_uuid"), e.get("target_uuid")} != ends:
            continue
        valid = as_datetime(e.get("valid_at"))
        if valid is None or valid < at:
            continue
        key = (valid, not same_relation, e["uuid"])
        if best_key is None or key < best_key:
            best, best_key = e, key
    if best is None:
        return None
    return {"uuid": best["uuid"], "name": best.get("name"), "fact": best.get("fact"),
            "valid_at": iso(best.get("valid_at"))}


async def find_superseders(graphs: Graphs, items: list[dict[str, Any]]) -> None:
    """Set ``superseded_by`` on every item: one read of the valid edges at the items' source
    entities per graph and thousand entities."""
    for graph, group in _by_graph(items).items():
        sources = sorted({i["source_uuid"] for i in group if i["source_uuid"]})
        at_entity: dict[str, list[dict[str, Any]]] = {}
        for k in range(0, len(sources), _CHUNK):
            for e in await graphs(graph).query("valid_edges_at_entities", uuids=sources[k:k + _CHUNK]):
                for end in {e.get("source_uuid"), e.get("target_uuid")}:
                    at_entity.setdefault(end, []).append(e)
        for item in group:
            item["superseded_by"] = superseder(item, at_entity.get(item["source_uuid"], []))


def report_item(item: dict[str, Any]) -> dict[str, Any]:
    """An item as the reports show it (temporal values as ISO text)."""
    return {"graph": item["graph"], "group_id": item["group_id"], "uuid": item["uuid"], "name": item["name"],
            "fact": item["fact"], "candidate_ids": item["candidate_ids"], "statuses": item["statuses"],
            "invalid_at": iso(from_json(item["invalid_at"])), "expired_at": iso(from_json(item["expired_at"])),
            "superseded_by": item.get("superseded_by"), "restored": item.get("restored", False)}


async def find(store: Any, graphs: Graphs, names: list[str], rows: str, source: str,
               settings: Settings, *, read: bool = True) -> list[dict[str, Any]]:
    """Steps 1-3 of the module docstring: the trusted edges Graphiti invalidated, with their
    superseders (``rows``: see :func:`trusted`; ``read`` False: ``temp.guard_edges`` is filled
    already, by :func:`track_invalidated`)."""
    if read:
        await read_invalidated(store, graphs, names)
    items = await read_details(graphs, trusted(store, rows, source, settings.guard.statuses))
    await find_superseders(graphs, items)
    return items


async def guard_step(report: Any, settings: Settings, store: Any, graphs: Graphs, names: list[str],
                     writer: JournaledWriter, review: Any, source: str, graph_key: str, batch_size: int,
                     early: EarlyRead | None = None) -> None:
    """A sync run's guard (:mod:`~graph_trust.sync.runner`, step 5): the trusted edges Graphiti
    invalidated into ``report``, recorded for review and, with ``guard.restore_trusted``, restored
    (neither in a dry run); ``early``: a ``--full`` run's read, started at the run's start."""
    r = report
    await track_invalidated(store, graphs, names, graph_key, full=r.full, early=early)
    items = await find(store, graphs, names, "copy", source, settings, read=False)
    if items and not r.dry_run:
        r.contradictions_recorded, why = record(settings, review.location, items)
        if settings.guard.restore_trusted:
            r.trusted_restored = await restore(writer, graphs, items, batch_size)
            forget_restored(store, graph_key, items)
    else:
        why = None
    r.trusted_invalidated_count = len(items)
    r.trusted_invalidated = [report_item(i) for i in items[:REPORT_LIMIT]]
    restored = r.trusted_restored == len(items)
    r.guard_hint = "; ".join(filter(None, (None if not items or restored else GUARD_HINT.format(n=len(items)),
                                          why))) or None


def contradiction_key(item: dict[str, Any]) -> str:
    """The review DB's name for one invalidation of one edge (``fact_b_id`` of its record): a
    later invalidation of the same edge (other times) is another record, a rerun the same one."""
    return (f"graphiti-invalidation:{item['graph']}/{item['uuid']}:{iso(from_json(item['invalid_at'])) or ''}:"
            f"{iso(from_json(item['expired_at'])) or ''}")


def record(settings: Settings, review_path: Location, items: list[dict[str, Any]]) -> tuple[int, str | None]:
    """Record each item as a contradiction open for review (``fact_contradictions``), once per
    edge and invalidation; returns (records added, why none could be written or None)."""
    if not items:
        return 0, None
    rows = []
    for item in items:
        shown = report_item(item)
        detail = json.dumps({k: shown[k] for k in ("graph", "group_id", "uuid", "fact", "invalid_at", "expired_at",
                                                   "superseded_by")}, sort_keys=True)
        rows.append((item["candidate_ids"][0], contradiction_key(item), CONTRADICTION_TYPE, "medium", detail))
    try:
        with ConfidenceStore.open(review_path, settings.review, settings.confidence) as store:
            return store.flag_for_review(rows), None
    except ReviewDBError as exc:
        return 0, f"the contradictions were not recorded: {exc}"


async def restore(writer: JournaledWriter, graphs: Graphs, items: list[dict[str, Any]], batch_size: int) -> int:
    """Clear ``invalid_at`` and ``expired_at`` of the items' edges in journaled batches (the values
    read back just before each batch is journaled); returns edges restored. Marks items ``restored``."""
    n = 0
    for graph, group in _by_graph(items).items():
        graph_conn = graphs(graph)
        for k in range(0, len(group), batch_size):
            chunk = {i["uuid"]: i for i in group[k:k + batch_size]}
            changes = [Change(c.uuid, c.old, dict.fromkeys(VALIDITY), c.endpoints)
                       for c in await read_validity(graph_conn, list(chunk))
                       if any(v is not None for v in c.old.values())]
            if not changes:
                continue
            res = await writer.validity(graph_conn, graph, changes)
            for ch in res.applied:
                chunk[ch.uuid]["restored"] = True
            n += len(res.applied)
    return n


__all__ = ["CONTRADICTION_TYPE", "EarlyRead", "contradiction_key", "find", "find_superseders", "forget_restored", "guard_step",
           "invalidated_at", "read_details", "read_invalidated", "record", "report_item", "restore", "superseder",
           "track_invalidated", "trusted"]
