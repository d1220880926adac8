"""``sync.trust_mode: confidence`` end to end: a real embedded FalkorDB built through graphiti-core,
a real SQLite review DB with confidence records, the trust_score sync writes against the blend
computed in Python from ``ConfidenceStore``, change detection of confidence-only changes, the
boosted rank, tiers mode unchanged, and rollback."""

from __future__ import annotations

import random
import sqlite3

import pytest
import yaml
from builders import expected_boosted, reference_recipe
from cli_helpers import run_cli
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from sync_fixtures import FACTS, build, edge_props, review_db, row

from graph_trust import api
from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.config import load_settings
from graph_trust.errors import ReviewDBError
from graph_trust.search import trust_search as gt
from graph_trust.sync import rollback, run_sync, verify
from graph_trust.sync.confidence.schema import init_confidence_tables
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.confidence.trust import blended

STATUSES = ["promoted", "corroborated", "candidate", "rejected"]
# The confidence drifts with time (freshness): sync and the check below score a few seconds apart.
TOL = 1e-5


def confidence_settings(settings, weight: float = 0.5, step: float = 0.0):
    """Confidence mode; exact scores (step 0) unless ``step`` says otherwise."""
    return settings.model_copy(update={"sync": settings.sync.model_copy(
        update={"trust_mode": "confidence", "confidence_weight": weight, "confidence_step": step})})


def expected_scores(settings, db, rows, u_of) -> dict[str, float | None]:
    """{edge uuid: the trust_score confidence mode should write}: per edge the highest tier wins
    (as in tiers mode), its score blended with its own confidence (``ConfidenceStore.confidence``)."""
    tiers = settings.sync.tiers
    best: dict[str, tuple] = {}
    with ConfidenceStore.open(db, settings.review, settings.confidence) as cs:
        for r in rows:
            t = tiers[r["status"]]
            key = (t is None, -(t or 0), r["status"], r["id"])
            if r["uuid"] not in best or key < best[r["uuid"]][0]:
                best[r["uuid"]] = (key, t, cs.confidence(r["id"])["score"])
    w = settings.sync.confidence_weight
    return {u_of[k]: blended(t, c, w) for k, (_, t, c) in best.items()}


def add_verification(db, fact_id: str, verifier: str, kind: str = "confirmed") -> None:
    with ConfidenceStore.open(db, load_settings(environ={}).review, load_settings(environ={}).confidence) as cs:
        cs.verify(fact_id, kind, by=verifier)


@pytest.fixture
async def world(graph, settings, tmp_path, unique):
    group = f"g_{unique}"
    uuids = await build(graph, group)
    u = [uuids[f.fact] for f in FACTS]
    rows = [row("c1", u[0], "promoted", group), row("c2", u[1], "corroborated", group),
            row("c3", u[2], "candidate", group), row("c4", u[3], "rejected", group),
            row("c5", u[4], "promoted", group), row("c6", u[4], "candidate", group)]
    db = review_db(tmp_path / "review.sqlite3", rows)
    init_confidence_tables(db)
    return graph, confidence_settings(settings), db, group, u


def _rows_of(db) -> list[dict]:
    con = sqlite3.connect(db)
    out = [{"id": i, "status": s, "uuid": u} for i, s, u in con.execute(
        "SELECT id, status, json_extract(evidence_refs_json, '$[0].evidence_id') FROM candidates")]
    con.close()
    return out


async def test_confidence_mode_writes_the_blend_and_picks_up_confidence_only_changes(world):
    graph, settings, db, group, u = world
    first = await run_sync(settings, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    want = expected_scores(settings, db, _rows_of(db), {x: x for x in u})
    for uuid, score in want.items():
        assert props[uuid]["trust_score"] == pytest.approx(score, abs=TOL), uuid
    assert props[u[0]]["trust_score"] < 1.0  # an unverified promoted fact: its confidence takes some trust away
    assert props[u[3]]["trust_score"] is None  # rejected (null tier here): unscored stays unscored
    assert first.confidence_changed == 6
    assert (await verify(settings, review_db=db, graph=graph)).in_sync
    # a verification only: no candidate row changes, the next normal run writes the new blend
    before = props[u[0]]["trust_score"]
    add_verification(db, "c1", "bob")
    add_verification(db, "c1", "carol")
    second = await run_sync(settings, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    assert props[u[0]]["trust_score"] > before
    assert props[u[0]]["trust_score"] == pytest.approx(
        expected_scores(settings, db, _rows_of(db), {x: x for x in u})[u[0]], abs=TOL)
    assert props[u[0]]["trust_run_id"] == second.run_id and second.edges_set >= 1
    # journaled like every other value: rolling the run back restores what the first run wrote
    rb = await rollback(settings, second.run_id, graph=graph)
    assert rb.edges_restored >= 1
    assert (await edge_props(graph, group))[u[0]]["trust_score"] == before
    await run_sync(settings, review_db=db, graph=graph)  # (the rolled-back edges were touched: written again)
    props = await edge_props(graph, group)
    assert props[u[0]]["trust_score"] > before
    # a vote only (against c2), then a usage outcome only (c3)
    with ConfidenceStore.open(db, settings.review, settings.confidence) as cs:
        cs.vote("c2", "disagree", 1.0, by="dave")
    v2 = props[u[1]]["trust_score"]
    await run_sync(settings, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    assert props[u[1]]["trust_score"] < v2
    with ConfidenceStore.open(db, settings.review, settings.confidence) as cs:
        for _ in range(3):
            cs.record_usage("c3", "success", by="erin", action="deploy")
    v3 = props[u[2]]["trust_score"]
    await run_sync(settings, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    assert props[u[2]]["trust_score"] > v3
    want = expected_scores(settings, db, _rows_of(db), {x: x for x in u})
    for uuid, score in want.items():
        assert props[uuid]["trust_score"] == pytest.approx(score, abs=TOL), uuid


async def test_tiers_mode_is_unchanged_and_switching_modes_recomputes(world):
    graph, settings, db, group, u = world
    tiers = settings.model_copy(update={"sync": settings.sync.model_copy(update={"trust_mode": "tiers"})})
    add_verification(db, "c1", "bob")
    first = await run_sync(tiers, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    assert [props[x]["trust_score"] for x in u[:5]] == [1.0, 0.6, 0.25, None, 1.0]
    assert first.confidence_changed == 0
    await run_sync(settings, review_db=db, graph=graph)  # switched on: every edge's blend
    props = await edge_props(graph, group)
    assert 0.5 < props[u[0]]["trust_score"] < 1.0 and props[u[4]]["trust_score"] < 1.0
    back = await run_sync(tiers, review_db=db, graph=graph)  # switched off: the tiers again
    props = await edge_props(graph, group)
    assert [props[x]["trust_score"] for x in u[:5]] == [1.0, 0.6, 0.25, None, 1.0]
    assert back.edges_set == 4


async def test_confidence_mode_without_the_confidence_tables_is_one_clear_error(graph, settings, tmp_path, unique):
    group = f"g_{unique}"
    uuids = await build(graph, group)
    db = review_db(tmp_path / "plain.sqlite3", [row("c1", uuids[FACTS[0].fact], "promoted", group)])
    with pytest.raises(ReviewDBError, match="review init"):
        await run_sync(confidence_settings(settings), review_db=db, graph=graph)
    assert all(p["trust_score"] is None for p in (await edge_props(graph, group)).values())


def test_the_setting_is_validated():
    with pytest.raises(Exception, match="sync.trust_mode"):
        load_settings(overrides={"sync.trust_mode": "votes"}, environ={})
    with pytest.raises(Exception, match="sync.confidence_weight"):
        load_settings(overrides={"sync.confidence_weight": 1.5}, environ={})
    assert load_settings(environ={}).sync.trust_mode == "tiers"


def test_blend_never_boosts_and_keeps_unscored():
    rnd = random.Random(7)
    for _ in range(1000):
        t, c, w = rnd.random(), rnd.random(), rnd.uniform(0.01, 1)
        b = blended(t, c, w)
        assert (1 - w) * t - 1e-12 <= b <= t + 1e-12
        assert blended(t, 1.0, w) == pytest.approx(t)
    assert blended(0.0, 0.9, 0.5) == 0.0 and blended(None, 0.9, 0.5) is None
    assert blended(0.8, 0.3, 0.0) == 0.8


async def test_boosted_rank_follows_the_written_blend(graph, settings, tmp_path, unique):
    """After a verification, the edge's blended trust is as computed and trust_search ranks
    exactly as the hand-computed boost of the written scores says."""
    group = f"g_{unique}"
    uuids = await build(graph, group)
    rows = [row(f"c{i}", uuids[f.fact], "promoted" if i % 2 else "corroborated", group) for i, f in enumerate(FACTS)]
    db = review_db(tmp_path / "review.sqlite3", rows)
    init_confidence_tables(db)
    s = confidence_settings(settings, weight=0.8)
    add_verification(db, "c1", "bob")
    await run_sync(s, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    want = expected_scores(s, db, _rows_of(db), {x: x for x in uuids.values()})
    for uuid, score in want.items():
        assert props[uuid]["trust_score"] == pytest.approx(score, abs=TOL)
    embedder = HashingEmbedder()
    graphiti = make_graphiti(graph.for_group(group).driver, embedder=embedder)
    query, limit, w = "billing-db backup", 5, 0.5
    pool = await gt.trust_search(graphiti, query, config=reference_recipe(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, 100),
                                 group_ids=[group], trust_weight=0.0)
    facts = [type(f)(f.subject, f.predicate, f.object, f.fact, trust=props[uuids[f.fact]]["trust_score"])
             for f in FACTS]
    expected, order = expected_boosted(pool.edge_explanations, facts, w, min(limit, len(pool.edges) - 1))
    boosted = await gt.trust_search(graphiti, query, config=reference_recipe(gt.EDGE_HYBRID_SEARCH_RRF_TRUST,
                                                                             len(order)),
                                    group_ids=[group], trust_weight=w)
    assert [e.uuid for e in boosted.edges] == order
    assert boosted.edge_reranker_scores == pytest.approx([expected[x] for x in order])


@st.composite
def histories(draw):
    n = draw(st.integers(2, 8))
    facts = [{"status": draw(st.sampled_from(STATUSES)), "verifs": draw(st.lists(
        st.tuples(st.sampled_from(["v1", "v2", "v3"]), st.sampled_from(["confirmed", "still_valid", "outdated"])),
        max_size=3)), "votes": draw(st.lists(st.tuples(st.sampled_from(["a1", "a2"]),
                                                       st.sampled_from(["agree", "disagree"]),
                                                       st.floats(0, 1)), max_size=2)),
        "uses": draw(st.lists(st.sampled_from(["success", "failure", "partial"]), max_size=4))}
        for _ in range(n)]
    return facts, draw(st.floats(0.05, 1.0))


@pytest.fixture
async def built(graph, unique):
    group = f"g_{unique}"
    return graph, group, await build(graph, group)


@hsettings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=histories())
async def test_written_score_equals_the_python_blend_over_random_records(built, settings, tmp_path_factory, case):
    graph, group, uuids = built
    facts, weight = case
    edges = list(uuids.values())
    rows = [row(f"f{i}", edges[i % len(edges)], f["status"], group) for i, f in enumerate(facts)]
    db = review_db(tmp_path_factory.mktemp("h") / "review.sqlite3", rows)
    init_confidence_tables(db)
    s = confidence_settings(settings, weight)
    s = s.model_copy(update={"state_dir": tmp_path_factory.mktemp("state")})
    with ConfidenceStore.open(db, s.review, s.confidence) as cs:
        for i, f in enumerate(facts):
            for who, kind in f["verifs"]:
                cs.verify(f"f{i}", kind, by=who)
            for who, vote, conf in f["votes"]:
                cs.vote(f"f{i}", vote, conf, by=who)
            for outcome in f["uses"]:
                cs.record_usage(f"f{i}", outcome, by="u", action="act")
    await run_sync(s, review_db=db, graph=graph, full=True)
    props = await edge_props(graph, group)
    want = expected_scores(s, db, _rows_of(db), {x: x for x in edges})
    for uuid in edges:
        got, exp = props[uuid]["trust_score"], want.get(uuid)
        if exp is None:
            assert got is None
        else:
            assert got == pytest.approx(exp, abs=TOL)


async def test_confidence_behind_explains_the_written_score(world):
    from graph_trust import api

    graph, settings, db, group, u = world
    add_verification(db, "c5", "bob")
    await run_sync(settings, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    got = api.confidence_behind(settings, [u[0], u[3], u[4], "no-such-edge"], review_db=db)
    assert set(got) == {u[0], u[3], u[4]}  # c4 is rejected with a null tier here: still its edge's fact
    assert got[u[4]]["fact_id"] == "c5" and got[u[4]]["status"] == "promoted"  # the winner over c6 (candidate)
    with ConfidenceStore.open(db, settings.review, settings.confidence) as cs:
        for uuid in (u[0], u[4]):
            one = cs.confidence(got[uuid]["fact_id"])
            assert got[uuid]["confidence"] == pytest.approx(one["score"], abs=TOL)
            assert got[uuid]["factors"] == pytest.approx(one["factors"], abs=TOL)
            assert got[uuid]["trust_score"] == pytest.approx(props[uuid]["trust_score"], abs=TOL)
    assert got[u[3]]["trust_score"] is None and props[u[3]]["trust_score"] is None


async def test_negative_evidence_gets_no_boost(world):
    """With the default tiers (rejected 0.0: negative evidence) a rejected fact confirmed many
    times still writes 0.0; the promoted edge's blend stays at or under its tier."""
    graph, settings, db, group, u = world
    s = settings.model_copy(update={"sync": settings.sync.model_copy(
        update={"tiers": {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": 0.0, "expired": 0.0}})})
    for who in ("v1", "v2", "v3", "system_auto_verify"):
        add_verification(db, "c4", who)
        add_verification(db, "c1", who)
    await run_sync(s, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    assert props[u[3]]["trust_score"] == 0.0 and props[u[3]]["trust_status"] == "rejected"
    assert 0.5 < props[u[0]]["trust_score"] <= 1.0


async def test_confidence_step_rounds_and_spares_runs_close_together(world):
    """With ``sync.confidence_step`` the score blended is the confidence rounded to the step, and a
    run seconds later (freshness moved every score a little) writes nothing."""
    graph, settings, db, group, u = world
    s = confidence_settings(settings, step=0.01)
    await run_sync(s, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    with ConfidenceStore.open(db, s.review, s.confidence) as cs:
        c1 = cs.confidence("c1")["score"]
    assert props[u[0]]["trust_score"] == pytest.approx(blended(1.0, round(c1 / 0.01) * 0.01, 0.5), abs=1e-9) \
        or abs(c1 / 0.01 - round(c1 / 0.01) - 0.5) < 1e-3  # (unless on a rounding boundary)
    again = await run_sync(s, review_db=db, graph=graph)
    assert again.edges_set == 0 and again.confidence_changed <= 1
    add_verification(db, "c1", "bob")  # a real change still comes through
    third = await run_sync(s, review_db=db, graph=graph)
    assert third.confidence_changed >= 1 and (await edge_props(graph, group))[u[0]]["trust_score"] > \
        props[u[0]]["trust_score"]


async def test_search_explain_shows_the_confidence_behind_each_trust(world, embedded_path, tmp_path):
    """``graph-trust search --explain`` in confidence mode: per result, the fact its trust comes from
    and its factors, equal to the api's and to the score sync wrote; tiers mode shows none."""
    graph, settings, db, group, u = world
    add_verification(db, "c1", "bob")
    await run_sync(settings, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    cfg = tmp_path / "graph-trust.yaml"
    base = {"graph": {"uri": f"embedded:{embedded_path}", "database": settings.graph.database},
            "state_dir": str(settings.state_dir), "review": {"path": str(db)},
            "sync": {"tiers": settings.sync.tiers, "trust_mode": "confidence", "confidence_step": 0.0}}
    cfg.write_text(yaml.safe_dump(base))
    out = run_cli("search", FACTS[0].fact, "--group", group, "--explain", "--json", "--config", str(cfg))
    assert out.code == 0, out.err
    results = out.json()["results"]
    behind = {r["uuid"]: r["confidence_behind"] for r in results}
    assert behind[u[0]]["fact_id"] == "c1"
    want = api.confidence_behind(settings, [u[0]], review_db=db)[u[0]]
    assert behind[u[0]]["factors"] == pytest.approx(want["factors"], abs=TOL)
    assert behind[u[0]]["trust_score"] == pytest.approx(props[u[0]]["trust_score"], abs=TOL)
    text = run_cli("search", FACTS[0].fact, "--group", group, "--explain", "--config", str(cfg))
    assert text.code == 0 and "trust behind each result" in text.out and "c1" in text.out
    cfg.write_text(yaml.safe_dump({**base, "sync": {"tiers": settings.sync.tiers}}))
    plain = run_cli("search", FACTS[0].fact, "--group", group, "--explain", "--json", "--config", str(cfg))
    assert plain.code == 0 and all("confidence_behind" not in r for r in plain.json()["results"])
