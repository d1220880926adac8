"""Bolt contract: every statement in ``cypher/`` (neo4j dialect), sent through graph-trust's own
``GraphConnection`` and the official neo4j driver, returns what Neo4j would.

ArcadeDB's Bolt endpoint in CI; real Neo4j when GRAPH_TRUST_TEST_NEO4J_URI is set. Each case
runs on a fresh database holding a small Graphiti-shaped graph (two groups, saved with
graphiti-core's own Neo4j save queries) and asserts the rows and the graph afterwards.
``test_every_cypher_file_has_a_contract_case`` fails when a new file in ``cypher/`` has no case.
"""

from __future__ import annotations

import collections
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import neo4j.exceptions
import pytest
from builders import Fact, build_graph, stable_uuid

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.config import VectorIndexSettings
from graph_trust.graph import queries, vector_index
from graph_trust.graph.connection import GraphConnection, open_graph
from graph_trust.graph.temporal import as_datetime, from_json, to_json

pytestmark = pytest.mark.bolt
EMB = HashingEmbedder()
NOW = "2026-02-01T00:00:00+00:00"
SYNC_PROPS = ("trust_score", "trust_status", "trust_run_id", "trust_updated_at", "memory_type", "sensitivity", "scope")

G1_FACTS = [
    Fact("billing-db", "RUNS_ON", "db-host-1", "billing-db runs on db-host-1"),
    Fact("billing-db", "OWNED_BY", "team-data", "billing-db is owned by team-data"),
    Fact("auth-service", "DEPENDS_ON", "billing-db", "auth-service reads billing-db for entitlements"),
    Fact("auth-service", "LISTENS_ON", "8443", "auth-service listens on port 8443 with TLS"),
    Fact("payments-api", "DEPENDS_ON", "auth-service", "payments-api calls auth-service to check tokens"),
    Fact("team-data", "ON_CALL", "alice", "alice is on call for team-data this week"),
]
G2_FACTS = [
    Fact("cron-host", "RUNS", "backup job", "cron-host runs the backup job nightly"),
    Fact("log-shipper", "RUNS_ON", "cron-host", "log-shipper runs on cron-host"),
]


@dataclass
class Ctx:
    g: GraphConnection
    groups: tuple[str, str]
    edges: dict[str, dict]  # uuid -> {fact, source, target, group, source_name, target_name}
    nodes: dict[str, dict]  # uuid -> {name, group}
    arcadedb: bool  # False: real Neo4j

    def e(self, i: int, group: int = 0) -> str:
        """The uuid of fact ``i`` of group 0 (G1_FACTS) or 1 (G2_FACTS)."""
        fact = (G1_FACTS, G2_FACTS)[group][i].fact
        return next(u for u, e in self.edges.items() if e["fact"] == fact)

    def n(self, name: str) -> str:
        return next(u for u, n in self.nodes.items() if n["name"] == name)

    async def rel(self, uuid: str) -> dict:
        """Every property of one edge except the embedding."""
        rows = await self.g.run_text("MATCH ()-[r:RELATES_TO]->() WHERE r.uuid = $u RETURN properties(r) AS p",
                                     {"u": uuid}, write=False)
        assert len(rows) == 1, rows
        return {k: v for k, v in rows[0]["p"].items() if k != "fact_embedding"}

    async def node(self, uuid: str) -> dict:
        rows = await self.g.run_text("MATCH (n:Entity) WHERE n.uuid = $u RETURN properties(n) AS p",
                                     {"u": uuid}, write=False)
        assert len(rows) == 1, rows
        return {k: v for k, v in rows[0]["p"].items() if k != "name_embedding"}

    async def set_trust(self, scores: dict[str, float], **extra) -> None:
        """Give edges trust through the product's own edge_trust_set."""
        rows = {u: {"trust_score": s, "trust_status": "verified", "trust_run_id": "r0", "trust_updated_at": NOW,
                    "memory_type": None, "sensitivity": None, "scope": None, **extra} for u, s in scores.items()}
        out = await self.g.write("edge_trust_set", uuids=list(rows), by_uuid=rows)
        assert out == [{"matched": len(rows)}]


CASES: dict[str, Callable[[Ctx], Awaitable[None]]] = {}


def case(*names: str):
    def register(fn):
        for name in names:
            CASES[name] = fn
        return fn
    return register


@pytest.fixture
async def ctx(bolt, bolt_settings, unique):
    async with open_graph(bolt_settings) as g:
        assert g.dialect == "neo4j"
        # graphiti-core's Neo4jDriver builds its indexes in the background once connected; write
        # the graph after that (once, without this, an Entity saved during ArcadeDB's index build
        # was then not found by uuid).
        await g.settle()
        groups = (f"a{unique}", f"b{unique}")
        edges, nodes = {}, {}
        for group, facts in zip(groups, (G1_FACTS, G2_FACTS), strict=True):
            uuids = await build_graph(g.driver, EMB, facts, group, indices=False, vector_procedure=not bolt.arcadedb)
            for f in facts:
                s, t = stable_uuid(group, "n", f.subject), stable_uuid(group, "n", f.object)
                nodes[s], nodes[t] = {"name": f.subject, "group": group}, {"name": f.object, "group": group}
                edges[uuids[f.fact]] = {"fact": f.fact, "source": s, "target": t, "group": group,
                                        "source_name": f.subject, "target_name": f.object, "name": f.predicate}
        yield Ctx(g, groups, edges, nodes, bolt.arcadedb)


# --- RELATES_TO writes ---------------------------------------------------------------------------

@case("edge_trust_set")
async def _edge_trust_set(c: Ctx):
    e1, e2, e3 = c.e(0), c.e(1), c.e(0, 1)
    rows = {
        e1: {"trust_score": 0.6, "trust_status": "verified", "trust_run_id": "r1", "trust_updated_at": NOW,
             "memory_type": None, "sensitivity": None, "scope": None},
        e2: {"trust_score": 1 / 3, "trust_status": "confidence", "trust_run_id": "r1", "trust_updated_at": NOW,
             "memory_type": "procedural", "sensitivity": "low", "scope": "team"},
        "no-such-edge": {"trust_score": 1.0, "trust_status": "verified", "trust_run_id": "r1",
                         "trust_updated_at": NOW, "memory_type": None, "sensitivity": None, "scope": None},
    }
    assert await c.g.write("edge_trust_set", uuids=list(rows), by_uuid=rows) == [{"matched": 2}]
    p1, p2 = await c.rel(e1), await c.rel(e2)
    assert {k: p1.get(k) for k in SYNC_PROPS} == rows[e1] and not {"memory_type", "scope"} & set(p1)
    assert p2["trust_score"] == 1 / 3 and isinstance(p2["trust_score"], float)  # bit-exact
    assert {k: p2[k] for k in SYNC_PROPS} == rows[e2]
    assert p2["fact"] == c.edges[e2]["fact"] and p2["group_id"] == c.groups[0]  # Graphiti's own props kept
    assert "trust_score" not in await c.rel(e3)
    # A null value removes the property; an integer stays an integer.
    again = {e2: rows[e2] | {"trust_score": 1, "memory_type": None, "scope": None}}
    assert await c.g.write("edge_trust_set", uuids=[e2], by_uuid=again) == [{"matched": 1}]
    p2 = await c.rel(e2)
    assert p2["trust_score"] == 1 and "memory_type" not in p2 and "scope" not in p2 and p2["sensitivity"] == "low"
    assert await c.g.write("edge_trust_set", uuids=[], by_uuid={}) == [{"matched": 0}]


@case("edge_trust_clear")
async def _edge_trust_clear(c: Ctx):
    e1, e2 = c.e(0), c.e(1)
    await c.set_trust({e1: 0.7, e2: 0.9}, memory_type="semantic", scope="ops")
    assert await c.g.write("edge_trust_clear", uuids=[e1, "no-such-edge"]) == [{"matched": 1}]
    p1 = await c.rel(e1)
    assert not set(SYNC_PROPS) & set(p1) and p1["fact"] == c.edges[e1]["fact"]
    assert (await c.rel(e2))["trust_score"] == 0.9
    assert await c.g.write("edge_trust_clear", uuids=[e1]) == [{"matched": 1}]  # clearing twice is harmless


@case("edge_labels_set")
async def _edge_labels_set(c: Ctx):
    """Every owned property removed, then the row's set but trust_score (a labels-only edge: its
    labels with the run that wrote them; a rollback of what an edge held without a score)."""
    e1, e2 = c.e(0), c.e(1)
    await c.set_trust({e1: 0.7, e2: 0.9}, memory_type="semantic", sensitivity="low", scope="ops")
    labels = dict.fromkeys(SYNC_PROPS[1:]) | {"trust_run_id": "r1", "trust_updated_at": NOW, "sensitivity": "high",
                                              "scope": "team-a & team-b"}
    rows = {e1: labels, "no-such-edge": labels}
    assert await c.g.write("edge_labels_set", uuids=list(rows), by_uuid=rows) == [{"matched": 1}]
    p1 = await c.rel(e1)
    assert {k: p1.get(k) for k in SYNC_PROPS} == dict.fromkeys(SYNC_PROPS) | labels
    assert set(SYNC_PROPS) & set(p1) == {"trust_run_id", "trust_updated_at", "sensitivity", "scope"}
    assert p1["fact"] == c.edges[e1]["fact"]
    assert (await c.rel(e2))["trust_score"] == 0.9
    status_only = {e1: dict.fromkeys(SYNC_PROPS[1:]) | {"trust_status": "manual"}}
    assert await c.g.write("edge_labels_set", uuids=[e1], by_uuid=status_only) == [{"matched": 1}]
    assert set(SYNC_PROPS) & set(await c.rel(e1)) == {"trust_status"}
    assert await c.g.write("edge_labels_set", uuids=[], by_uuid={}) == [{"matched": 0}]


# --- the trust-state marker -----------------------------------------------------------------------

@case("trust_state_bump", "trust_state_read")
async def _trust_state(c: Ctx):
    from graph_trust.graph import trust_state

    assert await c.g.query("trust_state_read", marker="trust") == []  # no write of trust state yet
    assert await trust_state.read_token(c.g) is None
    entities = (await c.g.query("entity_count"))[0]["n"]
    first = trust_state.bump_params()
    assert await c.g.write("trust_state_bump", **first) == [{"token": first["token"]}]
    assert await trust_state.read_token(c.g) == first["token"]
    # a write of trust state through the connection replaces the token; one marker node, no Entity
    await c.set_trust({c.e(0): 0.5})
    after = await trust_state.read_token(c.g)
    assert after not in (None, first["token"])
    rows = await c.g.run_text("MATCH (m:GraphTrustState) RETURN count(m) AS n", {}, write=False)
    assert rows == [{"n": 1}] and (await c.g.query("entity_count"))[0]["n"] == entities
    # a read is not a write: the token stays
    await c.g.query("edge_trust_read", uuids=[c.e(0)])
    assert await trust_state.read_token(c.g) == after


# --- RELATES_TO reads ----------------------------------------------------------------------------

@case("edge_trust_read")
async def _edge_trust_read(c: Ctx):
    e1, e2 = c.e(2), c.e(3)
    await c.set_trust({e1: 0.25}, sensitivity="high")
    rows = await c.g.query("edge_trust_read", uuids=[e1, e2, "no-such-edge"])
    by = {r["uuid"]: r for r in rows}
    assert sorted(by) == sorted([e1, e2])
    assert by[e1] == {"uuid": e1, "source_uuid": c.edges[e1]["source"], "target_uuid": c.edges[e1]["target"],
                      "trust_score": 0.25, "trust_status": "verified", "trust_run_id": "r0",
                      "trust_updated_at": NOW, "memory_type": None, "sensitivity": "high", "scope": None}
    assert by[e2]["trust_score"] is None and by[e2]["source_uuid"] == c.edges[e2]["source"]
    assert await c.g.query("edge_trust_read", uuids=[]) == []


@case("edge_uuids_exist")
async def _edge_uuids_exist(c: Ctx):
    e1, e2 = c.e(0), c.e(1, 1)
    rows = await c.g.query("edge_uuids_exist", uuids=[e1, e2, "no-such-edge", e1, c.n("billing-db")])
    assert sorted(r["uuid"] for r in rows) == sorted([e1, e2])  # distinct; node uuids are not edges
    assert await c.g.query("edge_uuids_exist", uuids=[]) == []


@case("edges_with_foreign_props")
async def _edges_with_foreign_props(c: Ctx):
    e1, e2, e3, e4 = c.e(0), c.e(1), c.e(2), c.e(3)
    assert await c.g.query("edges_with_foreign_props") == []
    await c.set_trust({e1: 0.5})  # trust_score present: not foreign
    await c.g.run_text("MATCH ()-[r:RELATES_TO]->() WHERE r.uuid = $u SET r.trust_status = 'manual', r.scope = 'x'",
                       {"u": e2}, write=True)
    labels_only = dict.fromkeys(SYNC_PROPS[1:]) | {"trust_run_id": "r1", "trust_updated_at": NOW, "scope": "y"}
    await c.g.write("edge_labels_set", uuids=[e4], by_uuid={e4: labels_only})  # a run id: sync's, not foreign
    await c.g.run_text("MATCH ()-[r:RELATES_TO]->() WHERE r.uuid = $u SET r.memory_type = 'episodic'",
                       {"u": e3}, write=True)
    rows = sorted(await c.g.query("edges_with_foreign_props"), key=lambda r: r["uuid"])
    expected = [
        {"uuid": e2, "trust_status": "manual", "trust_run_id": None, "trust_updated_at": None,
         "memory_type": None, "sensitivity": None, "scope": "x"},
        {"uuid": e3, "trust_status": None, "trust_run_id": None, "trust_updated_at": None,
         "memory_type": "episodic", "sensitivity": None, "scope": None},
    ]
    assert rows == sorted(expected, key=lambda r: r["uuid"])


@case("edges_with_trust")
async def _edges_with_trust(c: Ctx):
    ordered = sorted(c.edges)
    scores = {u: 0.1 * (i + 1) for i, u in enumerate(ordered) if i not in (3, 4)}  # one edge without trust
    await c.set_trust(scores)
    labels = dict.fromkeys(SYNC_PROPS[1:]) | {"trust_run_id": "r1", "sensitivity": "high"}  # one labels only: read too
    await c.g.write("edge_labels_set", uuids=[ordered[4]], by_uuid={ordered[4]: labels})
    await c.g.run_text("MATCH ()-[r:RELATES_TO]->() WHERE r.uuid = $u SET r.sensitivity = 'high', r.scope = 'x'",
                       {"u": ordered[3]}, write=True)  # labels set by hand, no run id: not sync's, not read
    lo, hi = ordered[1], ordered[-2]  # lo inclusive, hi exclusive
    rows = await c.g.query("edges_with_trust", lo=lo, hi=hi)
    expected = [u for u in ordered if lo <= u < hi and u != ordered[3]]
    assert sorted(r["uuid"] for r in rows) == expected and len(expected) == len(ordered) - 4
    labelled = next(r for r in rows if r["uuid"] == ordered[4])
    assert {p: labelled[p] for p in SYNC_PROPS} == dict.fromkeys(SYNC_PROPS) | labels
    for r in rows:
        if r["uuid"] == ordered[4]:
            continue
        assert r["trust_score"] == scores[r["uuid"]] and r["trust_status"] == "verified"
        assert (r["source_uuid"], r["target_uuid"]) == (c.edges[r["uuid"]]["source"], c.edges[r["uuid"]]["target"])
    assert len(await c.g.query("edges_with_trust", lo="", hi="~")) == len(scores) + 1


async def _trust_with_one_scope(c: Ctx) -> tuple[str, dict[str, float]]:
    """Trust on every edge but the last (memory_type 'semantic'), scope 'ops' on the first only.
    Returns (the first edge's uuid, scores)."""
    ordered = sorted(c.edges)
    scores = {u: round(0.05 + 0.1 * i, 2) for i, u in enumerate(ordered[:-1])}
    await c.set_trust(scores, memory_type="semantic")
    await c.g.run_text("MATCH ()-[r:RELATES_TO]->() WHERE r.uuid = $u SET r.scope = 'ops'", {"u": ordered[0]},
                       write=True)
    return ordered[0], scores


@case("edge_trust_checksums")
async def _edge_trust_checksums(c: Ctx):
    first, scores = await _trust_with_one_scope(c)
    await c.g.run_text("MATCH ()-[r:RELATES_TO]->() WHERE r.uuid = $u SET r.sensitivity = 'high'",
                       {"u": sorted(c.edges)[-1]}, write=True)  # labels set by hand, no run id: not counted
    expected = collections.defaultdict(lambda: [0, 0.0])
    for u, s in scores.items():
        b = expected[(u[:1], "verified", "semantic", None, "ops" if u == first else None)]
        b[0] += 1
        b[1] += s
    rows = await c.g.query("edge_trust_checksums", prefix=1)
    got = {(r["bucket"], r["trust_status"], r["memory_type"], r["sensitivity"], r["scope"]): [r["n"], r["score_sum"]]
           for r in rows}
    assert sorted(got, key=repr) == sorted(expected, key=repr)
    for key, (n, total) in expected.items():
        assert got[key][0] == n and got[key][1] == pytest.approx(total, abs=1e-12)


@case("edge_trust_totals")
async def _edge_trust_totals(c: Ctx):
    first, scores = await _trust_with_one_scope(c)
    last = sorted(c.edges)[-1]  # labels only (a run id): counted, with no score
    await c.g.write("edge_labels_set", uuids=[last],
                    by_uuid={last: dict.fromkeys(SYNC_PROPS[1:]) | {"trust_run_id": "r1", "scope": "x"}})
    rows = await c.g.query("edge_trust_totals")
    got = {(r["trust_status"], r["memory_type"], r["sensitivity"], r["scope"]): (r["n"], r["score_sum"]) for r in rows}
    rest = [s for u, s in scores.items() if u != first]
    assert got.keys() == {("verified", "semantic", None, "ops"), ("verified", "semantic", None, None),
                          (None, None, None, "x")}
    assert got[(None, None, None, "x")][0] == 1 and not got[(None, None, None, "x")][1]
    assert got[("verified", "semantic", None, "ops")] == (1, pytest.approx(scores[first], abs=1e-12))
    assert got[("verified", "semantic", None, None)] == (len(rest), pytest.approx(sum(rest), abs=1e-12))


# --- Entity reads and writes ---------------------------------------------------------------------

@case("entity_trust_set")
async def _entity_trust_set(c: Ctx):
    a, b = c.n("billing-db"), c.n("alice")
    rows = [{"uuid": a, "trust_score": 0.75, "trust_run_id": "r1"}, {"uuid": b, "trust_score": 1 / 7, "trust_run_id": "r1"},
            {"uuid": "no-such-node", "trust_score": 1.0, "trust_run_id": "r1"}]
    assert await c.g.write("entity_trust_set", rows=rows) == [{"matched": 2}]
    na, nb = await c.node(a), await c.node(b)
    assert (na["trust_score"], na["trust_run_id"], na["name"]) == (0.75, "r1", "billing-db")
    assert nb["trust_score"] == 1 / 7
    assert "trust_score" not in await c.node(c.n("8443"))


@case("entity_trust_clear")
async def _entity_trust_clear(c: Ctx):
    a, b = c.n("billing-db"), c.n("alice")
    await c.g.write("entity_trust_set", rows=[{"uuid": u, "trust_score": 0.5, "trust_run_id": "r1"} for u in (a, b)])
    assert await c.g.write("entity_trust_clear", uuids=[a, "no-such-node"]) == [{"matched": 1}]
    na = await c.node(a)
    assert "trust_score" not in na and "trust_run_id" not in na and na["name"] == "billing-db"
    assert (await c.node(b))["trust_score"] == 0.5


@case("entities_with_trust_in_range")
async def _entities_with_trust_in_range(c: Ctx):
    ordered = sorted(c.nodes)
    trusted = {u: 0.1 * (i + 1) for i, u in enumerate(ordered) if i % 2 == 0}
    await c.g.write("entity_trust_set", rows=[{"uuid": u, "trust_score": s, "trust_run_id": "r2"}
                                              for u, s in trusted.items()])
    lo, hi = ordered[1], ordered[-1]
    rows = await c.g.query("entities_with_trust_in_range", lo=lo, hi=hi)
    expected = [{"uuid": u, "trust_score": trusted[u], "trust_run_id": "r2"} for u in ordered if lo <= u < hi and u in trusted]
    assert sorted(rows, key=lambda r: r["uuid"]) == expected and expected


@case("entity_buckets")
async def _entity_buckets(c: Ctx):
    for prefix in (1, 2):
        rows = await c.g.query("entity_buckets", prefix=prefix)
        assert {r["bucket"]: r["n"] for r in rows} == dict(collections.Counter(u[:prefix] for u in c.nodes))


@case("entity_groups")
async def _entity_groups(c: Ctx):
    assert await c.g.query("entity_groups") == [{"group_id": g} for g in sorted(c.groups)]


@case("graph_has_entities")
async def _graph_has_entities(c: Ctx):
    assert await c.g.query("graph_has_entities") == [{"found": 1}]
    await c.g.run_text("MATCH (n:Entity) DETACH DELETE n", {}, write=True)
    assert await c.g.query("graph_has_entities") == []


@case("entity_trust_inputs")
async def _entity_trust_inputs(c: Ctx):
    db, auth, alice = c.n("billing-db"), c.n("auth-service"), c.n("alice")
    scores = {c.e(0): 0.2, c.e(1): 0.4, c.e(2): 0.8, c.e(5): 0.9}
    await c.set_trust(scores)
    await c.g.write("entity_trust_set", rows=[{"uuid": db, "trust_score": 0.3, "trust_run_id": "r9"}])
    rows = {r["uuid"]: r for r in await c.g.query("entity_trust_inputs", uuids=[db, auth, c.n("8443"), "no-such-node"])}
    assert sorted(rows) == sorted([db, auth, c.n("8443")])
    assert sorted(rows[db]["scores"]) == [0.2, 0.4, 0.8]  # edges 0, 1 (out) and 2 (in)
    assert (rows[db]["trust_score"], rows[db]["trust_run_id"]) == (0.3, "r9")
    assert rows[auth]["scores"] == [0.8] and rows[auth]["trust_score"] is None
    assert rows[c.n("8443")]["scores"] == []  # its one edge has no trust
    assert [r["scores"] for r in await c.g.query("entity_trust_inputs", uuids=[alice])] == [[0.9]]



def _expected_aggregate(c: Ctx, scores: dict[str, float], how: str) -> dict[str, float]:
    per_node = collections.defaultdict(list)
    for u, s in scores.items():
        per_node[c.edges[u]["source"]].append(s)
        per_node[c.edges[u]["target"]].append(s)
    out = {}
    for n, xs in per_node.items():
        if how == "max":
            out[n] = max(xs)
        elif how == "mean":
            out[n] = sum(xs) / len(xs)
        else:
            p = 1.0
            for x in xs:
                p *= 1.0 - x
            out[n] = 1.0 - p
    return out


def _aggregate_case(how: str) -> Callable[[Ctx], Awaitable[None]]:
    async def run(c: Ctx) -> None:
        await _aggregate(c, how)
    return run


async def _aggregate(c: Ctx, how: str):
    name = f"entity_trust_aggregate_{how}"
    scores = {c.e(0): 0.2, c.e(1): 0.4, c.e(2): 0.8, c.e(0, 1): 0.5}
    await c.set_trust(scores)
    expected = _expected_aggregate(c, scores, how)
    rows = await c.g.write(name, lo="", hi="~", run_id="r1")
    got = {r["uuid"]: r for r in rows}
    assert sorted(got) == sorted(expected), how  # only entities with a trusted edge
    for u, r in got.items():
        assert r["trust_score"] == pytest.approx(expected[u], abs=1e-12), (how, c.nodes[u]["name"])
        assert (r["changed"], r["old_score"], r["old_run_id"]) == (True, None, None)
        node = await c.node(u)
        assert node["trust_score"] == pytest.approx(expected[u], abs=1e-12) and node["trust_run_id"] == "r1"
    assert "trust_score" not in await c.node(c.n("alice"))
    # Unchanged inputs: nothing is rewritten; a range limits the work.
    again = {r["uuid"]: r for r in await c.g.write(name, lo="", hi="~", run_id="r2")}
    assert all(not r["changed"] and r["old_run_id"] == "r1" for r in again.values()) and sorted(again) == sorted(got)
    one = sorted(expected)[0]
    await c.set_trust({next(u for u in scores if one in (c.edges[u]["source"], c.edges[u]["target"])): 0.95})
    ranged = await c.g.write(name, lo=one, hi=one + "0", run_id="r3")
    assert [r["uuid"] for r in ranged] == [one] and ranged[0]["changed"] and ranged[0]["old_run_id"] == "r1"
    assert (await c.node(one))["trust_run_id"] == "r3"


for _how in ("max", "mean", "noisy_or"):
    CASES[f"entity_trust_aggregate_{_how}"] = _aggregate_case(_how)


# --- indexes -------------------------------------------------------------------------------------

@case("rel_uuid_index", "entity_uuid_index", "rel_expired_at_index", "rel_invalid_at_index", "index_names")
async def _indexes(c: Ctx):
    for _ in range(2):  # idempotent
        for stmt in ("rel_uuid_index", "entity_uuid_index", "rel_expired_at_index", "rel_invalid_at_index"):
            await c.g.write(stmt)
    rows = await c.g.query("index_names")
    assert rows and all(set(r) == {"name"} for r in rows)
    names = {r["name"] for r in rows}
    assert {"relation_uuid", "entity_uuid", "expired_at_edge_index", "invalid_at_edge_index"} <= names
    detail = await c.g.run_text("SHOW INDEXES YIELD name, labelsOrTypes, properties RETURN *", {}, write=False)
    by_name = {r["name"]: r for r in detail}
    assert (by_name["relation_uuid"]["labelsOrTypes"], by_name["relation_uuid"]["properties"]) == (["RELATES_TO"], ["uuid"])
    assert (by_name["entity_uuid"]["labelsOrTypes"], by_name["entity_uuid"]["properties"]) == (["Entity"], ["uuid"])
    for name, prop in (("expired_at_edge_index", "expired_at"), ("invalid_at_edge_index", "invalid_at")):
        assert (by_name[name]["labelsOrTypes"], by_name[name]["properties"]) == (["RELATES_TO"], [prop])


# --- the guard (sync/guard.py) -------------------------------------------------------------------

@case("edge_validity_set", "edge_validity_read", "edges_invalidated_page", "valid_edges_at_entities",
      "edges_invalidated_summary", "edges_expired_since")
async def _guard_statements(c: Ctx):
    e1, e2, e3 = c.e(0), c.e(1), c.e(2)  # billing-db RUNS_ON / OWNED_BY; auth-service DEPENDS_ON billing-db
    at = datetime(2026, 3, 1, tzinfo=UTC)
    for stmt in ("rel_expired_at_index", "rel_invalid_at_index"):
        await c.g.write(stmt)
    assert await c.g.query("edges_invalidated_summary") == [
        {"expired": 0, "tag_sum": 0, "latest": None, "invalid": 0}]
    rows = {e1: {"invalid_at": at, "expired_at": at + timedelta(hours=1)}, e2: {"invalid_at": None, "expired_at": at},
            "no-such-edge": {"invalid_at": at, "expired_at": at}}
    assert await c.g.write("edge_validity_set", uuids=list(rows), by_uuid=rows) == [{"matched": 2}]
    # the change check: two hold expired_at (the latest as stored), one invalid_at; the tags of the
    # first (on Neo4j their facts' lengths)
    [summary] = await c.g.query("edges_invalidated_summary")
    assert (summary["expired"], summary["invalid"]) == (2, 1)
    assert summary["tag_sum"] == len(c.edges[e1]["fact"]) + len(c.edges[e2]["fact"])
    assert as_datetime(summary["latest"]) == at + timedelta(hours=1)
    # the edges expired at or after a time, as the graph stored it (index range), with the same figures
    since = await c.g.query("edges_expired_since", since=summary["latest"])
    assert since == [{"uuid": e1, "expired": 1, "invalid": 1, "tag": len(c.edges[e1]["fact"])}]
    since = await c.g.query("edges_expired_since", since=at)
    assert sorted(r["uuid"] for r in since) == sorted([e1, e2])
    assert {r["uuid"]: r["invalid"] for r in since} == {e1: 1, e2: 0}
    read = {r["uuid"]: r for r in await c.g.query("edge_validity_read", uuids=[e1, e2, e3, "no-such-edge"])}
    assert sorted(read) == sorted([e1, e2, e3])
    assert as_datetime(read[e1]["invalid_at"]) == at and as_datetime(read[e1]["expired_at"]) == at + timedelta(hours=1)
    assert read[e2]["invalid_at"] is None and as_datetime(read[e2]["expired_at"]) == at
    assert read[e3]["invalid_at"] is None and read[e3]["expired_at"] is None
    assert (read[e1]["source_uuid"], read[e1]["target_uuid"]) == (c.edges[e1]["source"], c.edges[e1]["target"])
    assert (read[e1]["group_id"], read[e1]["name"], read[e1]["fact"]) == \
        (c.groups[0], c.edges[e1]["name"], c.edges[e1]["fact"])
    # keyset pages of the invalidated edges' uuids, in uuid order
    seen, after = [], ""
    while page := await c.g.query("edges_invalidated_page", after=after, limit=1):
        seen += page
        after = page[-1]["uuid"]
    assert seen == [{"uuid": u, "expired": 1, "invalid": int(u == e1), "tag": len(c.edges[u]["fact"])}
                    for u in sorted([e1, e2])]
    # the valid edges at billing-db, either direction: only auth-service DEPENDS_ON billing-db is left
    db = c.n("billing-db")
    valid = await c.g.query("valid_edges_at_entities", uuids=[db, "no-such-node"])
    assert [r["uuid"] for r in valid] == [e3]
    assert (valid[0]["source_uuid"], valid[0]["target_uuid"]) == (c.edges[e3]["source"], db)
    assert valid[0]["name"] == c.edges[e3]["name"] and as_datetime(valid[0]["valid_at"]) is not None
    # what a restore journals and a rollback writes back: the same values, of the same type
    journal = {u: {p: to_json(read[u][p]) for p in ("invalid_at", "expired_at")} for u in (e1, e2)}
    cleared = {u: {"invalid_at": None, "expired_at": None} for u in (e1, e2)}
    assert await c.g.write("edge_validity_set", uuids=[e1, e2], by_uuid=cleared) == [{"matched": 2}]
    assert not {"invalid_at", "expired_at"} & set(await c.rel(e1))
    assert await c.g.query("edges_invalidated_page", after="", limit=10) == []
    assert await c.g.query("edges_invalidated_summary") == [
        {"expired": 0, "tag_sum": 0, "latest": None, "invalid": 0}]
    back = {u: {p: from_json(v) for p, v in j.items()} for u, j in journal.items()}
    assert await c.g.write("edge_validity_set", uuids=[e1, e2], by_uuid=back) == [{"matched": 2}]
    again = {r["uuid"]: r for r in await c.g.query("edge_validity_read", uuids=[e1, e2])}
    for u in (e1, e2):
        for p in ("invalid_at", "expired_at"):
            assert again[u][p] == read[u][p] and type(again[u][p]) is type(read[u][p])


# --- review ---------------------------------------------------------------------------------------

@case("queue_edges_page")
async def _queue_edges_page(c: Ctx):
    """Every RELATES_TO edge in uuid order, a page at a time (other tests' edges may share the database)."""
    seen: list[dict] = []
    after = ""
    while page := await c.g.query("queue_edges_page", after=after, limit=7):
        assert len(page) <= 7 and all(r["uuid"] > after for r in page)
        seen += page
        after = page[-1]["uuid"]
    uuids = [r["uuid"] for r in seen]
    assert uuids == sorted(uuids) and len(set(uuids)) == len(uuids)
    rows = {r["uuid"]: r for r in seen}
    assert set(c.edges) <= set(rows)
    for u, e in c.edges.items():
        r = rows[u]
        assert (r["group_id"], r["subject_uuid"], r["predicate"], r["object_uuid"], r["object"], r["valid"]) == (
            e["group"], e["source"], e["name"], e["target"], e["target_name"], True)
        stored = await c.rel(u)
        assert as_datetime(r["created_at"]) == as_datetime(stored["created_at"]) is not None


@case("relation_values_reviewed")
async def _relation_values_reviewed(c: Ctx):
    """The edges whose trust_status is one of the given statuses, as slot rows."""
    e0, e1 = c.e(0), c.e(1)
    rows = {u: {"trust_score": s, "trust_status": st, "trust_run_id": "r1", "trust_updated_at": NOW,
                "memory_type": None, "sensitivity": None, "scope": None}
            for u, s, st in ((e0, 1.0, "promoted"), (e1, 0.0, "rejected"))}
    assert await c.g.write("edge_trust_set", uuids=list(rows), by_uuid=rows) == [{"matched": 2}]
    got = {r["subject"] + r["relation"] + r["object"]: r
           for r in await c.g.query("relation_values_reviewed", statuses=["promoted"])}
    e = c.edges[e0]
    r = got[e["source"] + e["name"] + e["target"]]
    assert (r["status"], r["subject_name"], r["object_name"]) == ("promoted", e["source_name"], e["target_name"])
    e = c.edges[e1]
    assert e["source"] + e["name"] + e["target"] not in got  # rejected: not asked for
    both = await c.g.query("relation_values_reviewed", statuses=["promoted", "rejected"])
    assert {"promoted", "rejected"} <= {r["status"] for r in both}


@case("edges_for_review", "subject_edges")
async def _review_reads(c: Ctx):
    e0, e1 = c.e(0), c.e(2)  # billing-db RUNS_ON db-host-1; auth-service DEPENDS_ON billing-db
    rows = {r["uuid"]: r for r in await c.g.query("edges_for_review", uuids=[e0, e1, "no-such-edge"])}
    assert sorted(rows) == sorted([e0, e1])
    for u in (e0, e1):
        e = c.edges[u]
        assert (rows[u]["subject"], rows[u]["predicate"], rows[u]["object"], rows[u]["fact"], rows[u]["group_id"]) == \
            (e["source_name"], e["name"], e["target_name"], e["fact"], e["group"])
    # every edge leaving auth-service (the subject of e1), whatever its relation
    rows = await c.g.query("subject_edges", uuids=[e1, "no-such-edge"])
    mine = {u for u, e in c.edges.items() if e["source"] == c.edges[e1]["source"]}
    assert {r["uuid"] for r in rows} == mine and e1 in mine
    r1 = next(r for r in rows if r["uuid"] == e1)
    assert (r1["subject_uuid"], r1["predicate"], r1["object"], r1["valid"]) == (
        c.edges[e1]["source"], "DEPENDS_ON", "billing-db", True)
    stored = await c.rel(e1)  # the competitor order's times, as the edge holds them
    assert as_datetime(r1["valid_at"]) == as_datetime(stored["valid_at"]) is not None
    assert as_datetime(r1["created_at"]) == as_datetime(stored["created_at"]) is not None
    other = c.e(4)  # payments-api DEPENDS_ON auth-service: another subject
    both = {r["uuid"] for r in await c.g.query("subject_edges", uuids=[e1, other])}
    assert both == mine | {u for u, e in c.edges.items() if e["source"] == c.edges[other]["source"]}
    rows = {r["uuid"]: r for r in await c.g.query("subject_edges", uuids=[e0])}
    assert set(rows) == {u for u, e in c.edges.items() if e["source"] == c.edges[e0]["source"]}


@case("edge_review_detail", "episodes_for_review")
async def _review_page_reads(c: Ctx):
    e0 = c.e(0)  # billing-db RUNS_ON db-host-1
    group = c.edges[e0]["group"]
    await c.g.run_text("CREATE (:Episodic {uuid: $u, group_id: $g, name: 'chat 1', source: 'message', "
                       "source_description: 'ops channel', content: $content, valid_at: $at, created_at: $at})",
                       {"u": "ep-1", "g": group, "content": "db moved <b>today</b>", "at": NOW}, write=True)
    await c.g.run_text("MATCH ()-[r:RELATES_TO]->() WHERE r.uuid = $e SET r.episodes = ['ep-1', 'ep-gone']",
                       {"e": e0}, write=True)
    rows = await c.g.query("edge_review_detail", uuids=[e0, "no-such-edge"])
    assert len(rows) == 1
    r, e = rows[0], c.edges[e0]
    assert (r["uuid"], r["group_id"], r["subject_uuid"], r["subject"], r["predicate"], r["object_uuid"], r["object"],
            r["fact"]) == (e0, group, e["source"], e["source_name"], e["name"], e["target"], e["target_name"], e["fact"])
    assert list(r["episodes"]) == ["ep-1", "ep-gone"] and as_datetime(r["valid_at"]) is not None
    assert r["invalid_at"] is None and r["expired_at"] is None and r["trust_score"] is None
    eps = await c.g.query("episodes_for_review", uuids=["ep-1", "ep-gone"])
    assert [(x["uuid"], x["group_id"], x["name"], x["source"], x["source_description"], x["content"]) for x in eps] == [
        ("ep-1", group, "chat 1", "message", "ops channel", "db moved <b>today</b>")]


# --- relink --------------------------------------------------------------------------------------

@case("relink_edges_page")
async def _relink_edges_page(c: Ctx):
    ordered = sorted(c.edges)
    seen, after = [], ""
    while True:
        page = await c.g.query("relink_edges_page", after=after, group_ids=None, limit=3)
        if not page:
            break
        assert len(page) <= 3
        seen += page
        after = page[-1]["uuid"]
    assert [r["uuid"] for r in seen] == ordered  # keyset paging in uuid order, nothing twice
    for r in seen:
        e = c.edges[r["uuid"]]
        assert r == {"uuid": r["uuid"], "group_id": e["group"], "name": e["name"], "fact": e["fact"],
                     "source_name": e["source_name"], "target_name": e["target_name"]}
    only_b = await c.g.query("relink_edges_page", after="", group_ids=[c.groups[1]], limit=100)
    assert [r["uuid"] for r in only_b] == sorted(u for u, e in c.edges.items() if e["group"] == c.groups[1])
    assert await c.g.query("relink_edges_page", after="", group_ids=[], limit=100) == []


@case("relink_edge_embeddings")
async def _relink_edge_embeddings(c: Ctx):
    e1, e2 = c.e(0), c.e(1, 1)
    rows = {r["uuid"]: r["embedding"] for r in await c.g.query("relink_edge_embeddings", uuids=[e1, e2, "nope"])}
    assert sorted(rows) == sorted([e1, e2])
    for u, emb in rows.items():
        want = (await EMB.create_batch([c.edges[u]["fact"]]))[0]
        # Neo4j's db.create.setRelationshipVectorProperty (Graphiti's save) stores 32-bit floats;
        # ArcadeDB (no such procedure: a plain list) keeps the 64-bit values exactly.
        assert list(emb) == (want if c.arcadedb else pytest.approx(want, rel=1e-6, abs=1e-7))


@case("edge_embedding_probe")
async def _edge_embedding_probe(c: Ctx):
    rows = await c.g.query("edge_embedding_probe", group_ids=None, limit=100)
    assert sorted(r["uuid"] for r in rows) == sorted(c.edges)
    for r in rows:
        assert r["fact"] == c.edges[r["uuid"]]["fact"]
        want = (await EMB.create_batch([r["fact"]]))[0]
        assert list(r["embedding"]) == (want if c.arcadedb else pytest.approx(want, rel=1e-6, abs=1e-7))
    only_b = await c.g.query("edge_embedding_probe", group_ids=[c.groups[1]], limit=100)
    assert sorted(r["uuid"] for r in only_b) == sorted(u for u, e in c.edges.items() if e["group"] == c.groups[1])
    assert len(await c.g.query("edge_embedding_probe", group_ids=None, limit=3)) == 3
    assert await c.g.query("edge_embedding_probe", group_ids=["no-such-group"], limit=10) == []


# --- benchmark fixtures --------------------------------------------------------------------------

@case("bench_create_entities", "bench_create_relates_to")
async def _bench_create(c: Ctx):
    group = "bench"
    created = datetime(2026, 1, 1, tzinfo=UTC)
    nodes = [{"uuid": f"bn-{i}", "name": f"bench node {i}", "group_id": group, "summary": f"s{i}",
              "created_at": created} for i in range(3)]
    await c.g.write("bench_create_entities", nodes=nodes)
    got = sorted([await c.node(n["uuid"]) for n in nodes], key=lambda p: p["uuid"])
    assert [(p["name"], p["group_id"], p["summary"], list(p["labels"])) for p in got] == \
        [(n["name"], group, n["summary"], ["Entity"]) for n in nodes]
    edges = [{"uuid": f"be-{i}", "source_uuid": f"bn-{i}", "target_uuid": f"bn-{i + 1}", "name": "NEXT",
              "fact": f"bench fact {i}", "group_id": group, "created_at": created,
              "fact_embedding": [0.1 * i, 1 / 3, -0.0]} for i in range(2)]
    await c.g.write("bench_create_relates_to", edges=edges)
    read = {r["uuid"]: r for r in await c.g.query("edge_trust_read", uuids=["be-0", "be-1"])}
    assert {u: (r["source_uuid"], r["target_uuid"]) for u, r in read.items()} == \
        {"be-0": ("bn-0", "bn-1"), "be-1": ("bn-1", "bn-2")}
    emb = {r["uuid"]: list(r["embedding"]) for r in await c.g.query("relink_edge_embeddings", uuids=["be-0", "be-1"])}
    assert emb == {"be-0": [0.0, 1 / 3, -0.0], "be-1": [0.1, 1 / 3, -0.0]}
    p = await c.rel("be-1")
    assert (p["name"], p["fact"], p["group_id"], list(p["episodes"])) == ("NEXT", "bench fact 1", group, [])
    # the sync benchmark creates edges without an embedding
    plain = [edges[0] | {"uuid": "be-plain", "fact_embedding": None}]
    await c.g.write("bench_create_relates_to", edges=plain)
    assert [r["embedding"] for r in await c.g.query("relink_edge_embeddings", uuids=["be-plain"])] in ([], [None])
    assert (await c.rel("be-plain"))["fact"] == "bench fact 0"


@case("bench_create_search_entities", "bench_create_search_edges", "vector_index_drop_edges",
      "vector_index_drop_nodes")
async def _bench_search_graph(c: Ctx):
    """The search benchmarks' graph builder (bench/synth.py): entities with a name embedding,
    edges with a fact embedding, valid_at = created_at and an optional trust_score; dropping the
    vector indexes (so a kept graph can be re-indexed) is harmless when there are none."""
    group = "bench-search"
    created = datetime(2026, 1, 1, tzinfo=UTC)
    nodes = [{"uuid": f"bs-{i}", "name": f"search node {i}", "group_id": group, "summary": f"s{i}",
              "created_at": created, "name_embedding": [0.5, -0.25, float(i)]} for i in range(3)]
    await c.g.write("bench_create_search_entities", nodes=nodes)
    got = sorted([await c.node(n["uuid"]) for n in nodes], key=lambda p: p["uuid"])
    assert [(p["name"], p["group_id"], list(p["labels"])) for p in got] == [(n["name"], group, ["Entity"]) for n in nodes]
    edges = [{"uuid": f"bse-{i}", "source_uuid": f"bs-{i}", "target_uuid": f"bs-{i + 1}", "name": "NEXT",
              "fact": f"search fact {i}", "group_id": group, "created_at": created,
              "fact_embedding": [0.25, 0.5, float(i)], "trust_score": [0.9, None][i]} for i in range(2)]
    await c.g.write("bench_create_search_edges", edges=edges)
    read = {r["uuid"]: r for r in await c.g.query("edge_trust_read", uuids=["bse-0", "bse-1"])}
    assert {u: (r["source_uuid"], r["target_uuid"]) for u, r in read.items()} == \
        {"bse-0": ("bs-0", "bs-1"), "bse-1": ("bs-1", "bs-2")}
    first, second = await c.rel("bse-0"), await c.rel("bse-1")
    assert (first["fact"], first["trust_score"], "trust_score" in second) == ("search fact 0", 0.9, False)
    emb = {r["uuid"]: list(r["embedding"]) for r in await c.g.query("relink_edge_embeddings", uuids=["bse-1"])}
    assert emb["bse-1"] == pytest.approx([0.25, 0.5, 1.0], rel=1e-6)
    for name in ("vector_index_drop_edges", "vector_index_drop_nodes"):
        assert await c.g.write(name) == []  # (none exists on ArcadeDB: IF EXISTS makes it a no-op)


@case("bench_reference_aggregate")
async def _bench_reference_aggregate(c: Ctx):
    # billing-db touches facts 0 and 1 (0.25 and 0.75): max 0.75; an entity with no trusted edge keeps none
    await c.set_trust({c.e(0): 0.25, c.e(1): 0.75})
    assert await c.g.write("bench_reference_aggregate") == []
    assert (await c.node(c.n("billing-db")))["trust_score"] == 0.75
    assert "trust_score" not in await c.node(c.n("auth-service"))


# --- vector indexes (graph_trust.graph.vector_index, graph_trust.search.cosine) -------------

@case("relates_to_count", "entity_count")
async def _counts(c: Ctx):
    # The database may hold other tests' graphs too: at least what this context built.
    assert (await c.g.query("relates_to_count"))[0]["n"] >= len(c.edges)
    assert (await c.g.query("entity_count"))[0]["n"] >= len(c.nodes)


@case("edge_vectors_in_range", "node_vectors_in_range", "edge_vectors_outside_ranges", "node_vectors_outside_ranges",
      "node_id_bound")
async def _vectors_in_range(c: Ctx):
    """A uuid range returns exactly the items whose uuid falls in [lo, hi), with their embeddings;
    the ranges of a full read plus the read of what they miss (uuids not starting with hex
    characters, none here) cover every item once, and the total says how many hold one."""
    for kind, items in (("edge", c.edges), ("node", c.nodes)):
        cut = sorted(items)[len(items) // 2]
        rows = await c.g.query(f"{kind}_vectors_in_range", lo="", hi=cut)
        low = {r["uuid"]: r["v"] for r in rows}
        assert set(items) & set(low) == {u for u in items if u < cut}
        assert all(len(v) == EMB.dim for v in low.values())
        assert all(r["name"] for r in rows)  # the store's BM25 terms: name and fact (edges) or summary (entities)
        target = vector_index.EDGES if kind == "edge" else vector_index.NODES
        seen = [u for uuids, _ in [b async for b in vector_index.iter_vectors(c.g, target)] for u in uuids]
        assert len(seen) == len(set(seen)) and set(items) <= set(seen)
        rest = (await c.g.query(f"{kind}_vectors_outside_ranges", width=1, hex=list(vector_index.HEX)))[0]
        assert [r for r in rest["rows"] if r is not None] == [] and rest["total"] == len(seen)
    assert (await c.g.query("node_id_bound"))[0]["n"] >= len(c.nodes) - 1  # (FalkorDB's read ranges end there)


@case("edge_fulltext_search")
async def _edge_fulltext_search(c: Ctx):
    """trust_search's BM25 stage for facts returns exactly graphiti-core's edge_fulltext_search
    (same facts, same order), group filter and all."""
    from graphiti_core.search import search_utils as su
    from graphiti_core.search.search_filters import SearchFilters

    from graph_trust.search.fulltext import edge_fulltext_candidates

    for query, groups, limit in (("billing-db", [c.groups[0]], 5), ("billing-db", None, 2), ("runs", list(c.groups), 10),
                                 ("auth-service port", [c.groups[1]], 5)):
        want = await su.edge_fulltext_search(c.g.driver, query, SearchFilters(), groups, limit)
        got = await edge_fulltext_candidates(c.g.driver, query, SearchFilters(), groups, limit)
        assert [e.uuid for e in got] == [e.uuid for e in want], (query, groups, limit)
    hits = await edge_fulltext_candidates(c.g.driver, "billing-db", SearchFilters(), [c.groups[0]], 10)
    assert c.e(0) in {e.uuid for e in hits} and {e.group_id for e in hits} == {c.groups[0]}


@case("edge_store_rescore", "node_store_rescore", "edge_store_fetch", "node_store_fetch", "edge_store_filter",
      "node_store_filter", "edge_created_since", "node_created_since", "edge_vectors_by_uuid", "node_vectors_by_uuid", "edge_uuids_all",
      "node_uuids_all")
async def _vector_store_statements(c: Ctx):
    """The exact vector store's statements: candidates by uuid scored by graphiti-core's cosine
    and filtered by its conditions (a missing uuid is no row), Graphiti's fields by uuid, what was
    created after a time, items' vectors (with group, time, name and fact or summary) by uuid, every uuid;
    which BM25 candidates still exist and pass the filters."""
    from graphiti_core.edges import get_entity_edge_from_record
    from graphiti_core.graph_queries import get_vector_cosine_func_query
    from graphiti_core.models.edges.edge_db_queries import get_entity_edge_return_query
    from graphiti_core.models.nodes.node_db_queries import get_entity_node_return_query

    p = c.g.driver.provider
    e1, e2 = c.e(0), c.e(1, 1)
    n1 = c.n("billing-db")
    vec = await EMB.create(input_data=[c.edges[e1]["fact"]])
    for kind, var, uuids in (("edge", "e", [e1, e2, "no-such"]), ("node", "n", [n1, "no-such"])):
        text = (queries.load(f"{kind}_store_rescore", "neo4j")
                .replace("/*score*/", get_vector_cosine_func_query(f"{var}.{'fact' if kind == 'edge' else 'name'}"
                                                                   "_embedding", "$search_vector", p))
                .replace("/*filters*/", f" AND {var}.group_id IN $group_ids"))
        rows = {r["uuid"]: r for r in await c.g.run_text(text, {"uuids": uuids, "search_vector": vec,
                                                                "group_ids": [c.groups[0]]}, write=False)}
        assert set(rows) == set(uuids) - {"no-such"}
        if kind == "edge":
            assert rows[e1]["passes"] and not rows[e2]["passes"]  # e2 is in the other group
            assert rows[e1]["score"] == pytest.approx(1.0, abs=1e-4) and rows[e1]["score"] > rows[e2]["score"]
    check = queries.load("edge_store_filter", "neo4j").replace("/*filters*/", " AND e.group_id IN $group_ids")
    rows = await c.g.run_text(check, {"uuids": [e1, e2, "no-such"], "group_ids": [c.groups[1]]}, write=False)
    assert {r["uuid"]: r["passes"] for r in rows} == {e1: False, e2: True}
    check = queries.load("node_store_filter", "neo4j").replace("/*filters*/", " AND n.group_id IN $group_ids")
    rows = await c.g.run_text(check, {"uuids": [n1, "no-such"], "group_ids": [c.groups[1]]}, write=False)
    assert {r["uuid"]: r["passes"] for r in rows} == {n1: False}  # n1 is in the first group
    fetched = await c.g.run_text(queries.load("edge_store_fetch", "neo4j").replace(
        "/*returns*/", get_entity_edge_return_query(p)), {"uuids": [e2, e1]}, write=False)
    assert {get_entity_edge_from_record(r, p).uuid for r in fetched} == {e1, e2}
    nodes = await c.g.run_text(queries.load("node_store_fetch", "neo4j").replace(
        "/*returns*/", get_entity_node_return_query(p)), {"uuids": [n1]}, write=False)
    assert [r["uuid"] for r in nodes] == [n1]
    since = datetime(2000, 1, 1, tzinfo=UTC)
    assert set(c.edges) <= {r["uuid"] for r in await c.g.query("edge_created_since", since=since)}
    assert set(c.nodes) <= {r["uuid"] for r in await c.g.query("node_created_since", since=since)}
    assert not {r["uuid"] for r in await c.g.query("edge_created_since", since=datetime(2100, 1, 1,
                                                                                        tzinfo=UTC))} & set(c.edges)
    by_uuid = await c.g.query("edge_vectors_by_uuid", uuids=[e1, "no-such"])
    assert [r["uuid"] for r in by_uuid] == [e1] and by_uuid[0]["fact"] == c.edges[e1]["fact"]
    assert by_uuid[0]["group_id"] == c.groups[0] and len(by_uuid[0]["v"]) == EMB.dim
    assert by_uuid[0]["created_at"] is not None and by_uuid[0]["name"] == "RUNS_ON"
    node_rows = await c.g.query("node_vectors_by_uuid", uuids=[n1])
    assert node_rows[0]["group_id"] == c.groups[0] and len(node_rows[0]["v"]) == EMB.dim
    assert node_rows[0]["name"] == "billing-db" and "summary" in node_rows[0]
    assert set(c.edges) <= {r["uuid"] for r in await c.g.query("edge_uuids_all")}
    assert set(c.nodes) <= {r["uuid"] for r in await c.g.query("node_uuids_all")}


VECTOR_STATEMENTS = ("vector_index_create_edges", "vector_index_create_nodes", "vector_indexes", "await_indexes",
                     "vector_query_edges", "vector_query_nodes", "edge_vector_search", "node_vector_search")


@case(*VECTOR_STATEMENTS)
async def _vector_statements(c: Ctx):
    """ArcadeDB has no Neo4j vector index: every statement is a server error there (init reports the
    indexes unsupported and search falls back to the scan: tests/search/test_vector_bolt.py). On Neo4j 5
    init creates both indexes, and the index answers a query with the edge whose fact it embeds."""
    if c.arcadedb:
        assert not await vector_index.existing(c.g.driver)  # none listed; creating one fails: unsupported
        for name in ("vector_index_create_edges", "vector_index_create_nodes"):
            with pytest.raises(neo4j.exceptions.Neo4jError):
                await c.g.run_text(queries.load(name, "neo4j"),
                                   {"dimension": EMB.dim, "m": 16, "ef_construction": 100, "ef_runtime": 10},
                                   write=True)
        return
    await vector_index.ensure(c.g, VectorIndexSettings())
    names = {r["name"] for r in await c.g.query("vector_indexes")}
    assert {"relates_to_fact_embedding", "entity_name_embedding"} <= names
    e1 = c.e(0)
    vec = (await EMB.create(input_data=[c.edges[e1]["fact"]]))
    hits = await c.g.query("vector_query_edges", k=5, search_vector=vec)
    assert hits and hits[0]["uuid"] == e1 and hits[0]["score"] == pytest.approx(1.0, abs=1e-4)


# --- the tests (after every case is registered) -------------------------------------------------

def test_every_cypher_file_has_a_contract_case():
    names = queries.names()
    assert sorted(set(names) - set(CASES)) == [], "cypher/ files without a Bolt contract case"
    assert sorted(set(CASES) - set(names)) == [], "contract cases for files that no longer exist"
    assert all(queries.load(n, "neo4j") for n in names)


@pytest.mark.parametrize("name", sorted(CASES))
async def test_cypher_contract(ctx, name):
    await CASES[name](ctx)


async def test_wrong_parameter_name_fails_loudly(ctx):
    """A misspelt parameter is the server's ParameterMissing error, never a silent no-op."""
    e1 = ctx.e(0)
    row = dict.fromkeys(SYNC_PROPS[1:]) | {"trust_score": 0.5}
    with pytest.raises(neo4j.exceptions.ClientError) as err:
        await ctx.g.write("edge_trust_set", uuids=[e1], by_uid={e1: row})
    assert err.value.code == "Neo.ClientError.Statement.ParameterMissing"
    with pytest.raises(neo4j.exceptions.ClientError) as err:
        await ctx.g.query("entities_with_trust_in_range", lo="", high="~")
    assert err.value.code == "Neo.ClientError.Statement.ParameterMissing"
    assert "trust_score" not in await ctx.rel(e1)
