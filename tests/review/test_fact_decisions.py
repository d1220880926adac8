"""A decision applies to the fact: an edge uuid or any candidate id citing it decides every row
citing that edge, and the edge's sensitivity and scope are the strictest of all its rows, so no
decision ever lowers who may not see a fact, also when it moves every row to a status whose tier
is null (the edge is then labels only). Property test over random review histories and tier maps
(real SQLite review DB, sync's own desired-state SQL), and the demo's own case on a real FalkorDB.
The same on a graph, through every stage of sync: tests/sync/test_sync_labels_only.py."""

from __future__ import annotations

import sqlite3

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from sync_fixtures import FACTS, build, edge_props, row

from graph_trust import api
from graph_trust.access.sensitivity import SCOPE_JOIN, SensitivityScale, scope_parts
from graph_trust.access.trust_context import TrustContext
from graph_trust.config import ReviewSettings
from graph_trust.review import decisions
from graph_trust.review.candidates import open_candidates
from graph_trust.search.records import MemoryRecord
from graph_trust.sync.desired import desired_of, load_tiers, parse_row
from graph_trust.sync.labels import joined_scope, strictest_sensitivity
from graph_trust.sync.policy import Policy
from graph_trust.sync.store.state import SCHEMA

TIERS = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": 0.0, "expired": 0.0}
SCALE = SensitivityScale.of(["public", "low", "medium", "high", "hyper"], {"internal": "low"})
POLICY = Policy(TIERS, SCALE)
EDGES = ["e1", "e2", "e3"]
ACTIONS = list(decisions.STATUS_OF)
LABELS = st.sampled_from([None, "", "public", "low", "internal", "Medium", " high ", "hyper", "secret"])
SCOPES = st.sampled_from([None, "", "org", "team-a", "team-b"])


def _level(label) -> int:  # an unknown label withholds from everyone: above every level
    return len(SCALE.levels) if label is not None and SCALE.level(label) < 0 else SCALE.level(label)


def _desired(url: str, policy: Policy = POLICY) -> dict[str, tuple]:
    """Sync's desired state of each edge from the review DB's rows (the same parse and SQL as sync)."""
    con = sqlite3.connect(":memory:")
    con.executescript(SCHEMA)
    load_tiers(con, policy)
    src = sqlite3.connect(url)
    rows = src.execute("SELECT id, status, evidence_refs_json, group_id, memory_type, sensitivity, scope "
                       "FROM candidates").fetchall()
    src.close()
    names = ("id", "status", "evidence_refs_json", "group_id", "memory_type", "sensitivity", "scope")
    con.executemany("INSERT INTO sync_candidates (source, id, graph, edge_uuid, status, memory_type, sensitivity, "
                    "scope, reason) VALUES ('s', ?, ?, ?, ?, ?, ?, ?, ?)",
                    [parse_row(dict(zip(names, r)), policy, lambda g: "g") for r in rows])
    out = {r[2]: r[3:] for r in desired_of(con, {"source": "s"})}
    con.close()
    return out


def _viewers(scope: str | None, callers: list[tuple[str, ...]]) -> set[tuple[str, ...]]:
    """The scoped callers (each a tuple of scopes) whose trust context admits ``scope``."""
    rec = MemoryRecord(uuid="x", kind="edge", text="t", group_id="g", scope=scope)
    return {c for c in callers if TrustContext("hyper", scopes=c).in_scope(rec)}


CALLERS = [(), ("org",), ("team-a",), ("team-b",), ("org", "team-a"), ("team-a", "team-b"), ("g",),
           ("org", "team-a", "team-b"), ("g", "org")]

@st.composite
def tier_maps(draw) -> dict[str, float | None]:
    """The shipped tiers' statuses with random scores, some null (unscored)."""
    tiers = {s: draw(st.sampled_from([None, 0.0, 0.25, 0.6, 1.0])) for s in TIERS}
    tiers[draw(st.sampled_from(list(TIERS)))] = None
    return tiers


history = st.lists(st.tuples(st.sampled_from(ACTIONS), st.integers(0, 11), st.booleans(), st.booleans()),
                   min_size=1, max_size=8)
review_rows = st.lists(st.tuples(st.sampled_from(EDGES), st.sampled_from(list(TIERS)), LABELS, SCOPES),
                       min_size=1, max_size=8)


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=review_rows, steps=history, tiers=st.one_of(st.just(TIERS), tier_maps()))
def test_no_decision_loosens_a_fact_and_trust_follows_all_its_rows(tmp_path_factory, rows, steps, tiers):
    url = str(tmp_path_factory.mktemp("h") / "review.sqlite3")
    api.init_review_db(url)
    from graph_trust.sync.review_db import insert_rows
    insert_rows(url, [row(f"c{i}", e, s, "g", sensitivity=lab, scope=sc) for i, (e, s, lab, sc) in enumerate(rows)])
    conn, cand = open_candidates(url, ReviewSettings())
    policy = Policy(tiers, SCALE)
    before = _desired(url, policy)
    try:
        for action, pick, by_edge, undo in steps:
            if undo:
                try:
                    decisions.undo(conn, cand, actor="carol", reason="undo")
                except Exception:  # nothing to undo: fine
                    pass
            else:
                i = pick % len(rows)
                target = rows[i][0] if by_edge else f"c{i}"
                batch = decisions.decide(conn, cand, action, [target], actor=f"r{pick}", reason="r", tiers=tiers)
                edge = rows[i][0]
                citing = sorted(f"c{j}" for j, r in enumerate(rows) if r[0] == edge)
                # every row citing the fact got the decision, and the batch names each of them
                assert sorted(d.candidate_id for d in batch.decisions) == citing
                st_now = dict(conn.query("SELECT id, status FROM candidates"))
                assert {st_now[c] for c in citing} == {decisions.STATUS_OF[action]}
            after = _desired(url, policy)
            st_now = dict(conn.query("SELECT id, status FROM candidates"))
            for e in {r[0] for r in rows}:
                cites = [r for r in rows if r[0] == e]
                statuses = [st_now[f"c{j}"] for j, r in enumerate(rows) if r[0] == e]
                scored = [tiers[s] for s in statuses if tiers[s] is not None]
                want_sens = strictest_sensitivity([r[2] for r in cites], SCALE)
                want_scope = joined_scope([r[3] for r in cites])
                # no row scores it and none labels it: nothing to write
                assert (e in after) == bool(scored or want_sens is not None or want_scope is not None)
                score, status, mt, sens, scope = after.get(e, (None, None, None, None, None))
                # the documented rule: the highest tier of all rows citing the edge (none scored: labels
                # only, no status nor memory_type); labels the strictest of all of them, whatever their status
                assert score == (max(scored) if scored else None)
                assert scored or (status, mt) == (None, None)
                assert sens == want_sens and scope == want_scope
                if e in before:  # no decision lowers the sensitivity or widens who may see it
                    b_sens, b_scope = before[e][3], before[e][4]
                    assert _level(sens) >= _level(b_sens) if b_sens is not None else True
                    assert _viewers(scope, CALLERS) <= _viewers(b_scope, CALLERS)
            before = {**before, **after}
    finally:
        conn.close()


def test_the_strictest_label_and_every_scope():
    assert strictest_sensitivity(["public", None, "internal", ""], SCALE) == "internal"
    assert strictest_sensitivity(["hyper", "secret"], SCALE) == "secret"  # unknown: withheld from everyone
    assert strictest_sensitivity([None, " "], SCALE) is None
    assert joined_scope(["team-b", None, "team-a", "team-b"]) == "team-a" + SCOPE_JOIN + "team-b"
    assert scope_parts("team-a & team-b") == ["team-a", "team-b"] and scope_parts(None) == [None]
    both = MemoryRecord(uuid="x", kind="edge", text="t", scope="team-a & team-b")
    assert not TrustContext("hyper", scopes=("team-a",)).in_scope(both)
    assert TrustContext("hyper", scopes=("team-b", "team-a")).in_scope(both) and TrustContext("hyper").in_scope(both)


async def test_rejecting_one_row_rejects_the_fact_and_keeps_its_labels(graph, settings, tmp_path, unique):
    """The demo's case: two rows cite one edge (one promoted, low, scope org; one a candidate,
    public, no scope). Rejecting the first by its candidate id rejects both, and the edge stays
    low and org: a rejection never makes a fact more visible."""
    group = f"g_{unique}"
    uuids = await build(graph, group)
    u = uuids[FACTS[0].fact]
    url = str(tmp_path / "review.sqlite3")
    api.init_review_db(url)
    from graph_trust.sync.review_db import insert_rows
    insert_rows(url, [row("cand-1", u, "promoted", group, sensitivity="low", scope="org"),
                      row("cand-2", u, "candidate", group, sensitivity="public")])
    settings.review.url = url
    settings.sync.tiers = dict(TIERS)  # the shipped tiers (the suite's settings leave rejected unscored)
    await api.sync(settings, graph=graph)
    props = (await edge_props(graph, group))[u]
    assert (props["trust_score"], props["sensitivity"], props["scope"]) == (1.0, "low", "org")
    out = await api.review_decide(settings, "reject", ["cand-1"], actor="bob", reason="moved", apply_sync=True,
                                  graph=graph)
    assert [(d["candidate_id"], d["previous_status"], d["new_status"]) for d in out["batch"]["decisions"]] == [
        ("cand-1", "promoted", "rejected"), ("cand-2", "candidate", "rejected")]
    props = (await edge_props(graph, group))[u]
    assert (props["trust_score"], props["trust_status"], props["sensitivity"], props["scope"]) == (
        0.0, "rejected", "low", "org")
    # by the edge uuid, the same fact: both rows promoted again, labels unchanged
    out = await api.review_decide(settings, "promote", [u], actor="alice", reason="back", apply_sync=True,
                                  graph=graph)
    assert {d["candidate_id"] for d in out["batch"]["decisions"]} == {"cand-1", "cand-2"}
    props = (await edge_props(graph, group))[u]
    assert (props["trust_score"], props["sensitivity"], props["scope"]) == (1.0, "low", "org")
