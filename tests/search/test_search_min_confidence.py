"""``search --min-confidence`` (``search.min_confidence``) on the embedded graph and a real
review DB: over randomized review DBs (which edges the review DB knows, how many candidates
cite one edge, verifications and votes that move the scores) and thresholds, the kept facts
are exactly the unfiltered results whose confidence (the highest of the candidates citing the
edge, as an independent full-DB scoring gives it) reaches the threshold, in the same order."""

from __future__ import annotations

import json
import random
import sqlite3

import pytest
from cli_helpers import Result, run_cli
from test_policy_graph import FACTS, QUERY, _save

from graph_trust.api import VOTES, confidence_store, init_review_db, search, search_confident
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.evidence import edge_uuid_of
from graph_trust.sync.review_db import insert_rows

KEYS = [k for k, *_ in FACTS]


def _review_db(path, uuids: dict[str, str], rng: random.Random) -> None:
    """A review DB citing a random subset of the edges (some by two candidates), plus rows
    whose evidence the mapping must skip, and random verifications and votes."""
    init_review_db(path)
    rows = []
    for key in rng.sample(KEYS, rng.randint(1, len(KEYS))):
        for n in range(rng.choice([1, 1, 2])):
            rows.append({"id": f"{key}-{n}", "subject": f"s-{key}-{n}", "predicate": "p", "object": "o",
                         "status": rng.choice(["promoted", "corroborated", "candidate"]),
                         "evidence_refs_json": json.dumps([{"evidence_id": uuids[key]}, {"evidence_id": "x"}]),
                         "updated_at": "2026-01-01T00:00:00Z"})
    rows += [{"id": "bad-json", "status": "promoted", "evidence_refs_json": "{not json",
              "updated_at": "2026-01-01T00:00:00Z"},
             {"id": "second-only", "status": "promoted", "updated_at": "2026-01-01T00:00:00Z",
              "evidence_refs_json": json.dumps([{"evidence_id": "y"}, {"evidence_id": uuids[KEYS[0]]}])}]
    insert_rows(path, rows)
    con = sqlite3.connect(path)
    with con:
        for r in rows:
            for _ in range(rng.randint(0, 2)):
                con.execute("INSERT INTO fact_verifications (fact_id, verifier_id, verification_type, verified_at) "
                            "VALUES (?, ?, ?, '2026-06-01T00:00:00Z')",
                            (r["id"], f"v{rng.randint(0, 3)}", rng.choice(["confirmed", "outdated", "incorrect"])))
            for a in range(rng.randint(0, 3)):
                con.execute("INSERT INTO fact_votes (fact_id, agent_id, vote, confidence, voted_at) "
                            "VALUES (?, ?, ?, ?, '2026-06-01T00:00:00Z')",
                            (r["id"], f"a{a}", rng.choice(list(VOTES)), rng.random()))
    con.close()


def _expected(settings, path) -> dict[str, float]:
    """Edge uuid -> highest confidence of the candidates citing it, scoring the whole DB."""
    with confidence_store(settings, path) as store:
        ids, _, scores = store.scores()
        score = dict(zip(ids, scores, strict=True))
    con = sqlite3.connect(path)
    try:
        out: dict[str, float] = {}
        for cid, ev in con.execute("SELECT id, evidence_refs_json FROM candidates"):
            uuid, reason = edge_uuid_of(ev)
            if reason is None:
                out[uuid] = max(out.get(uuid, 0.0), float(score[cid]))
        return out
    finally:
        con.close()


@pytest.fixture
async def facts(graph, unique):
    group = f"g_{unique}"
    return group, await _save(graph.for_group(group).driver, group)


async def test_kept_facts_are_exactly_those_at_or_above_the_threshold(settings, facts, tmp_path):
    group, uuids = facts
    plain = await search(settings, QUERY, limit=20, groups=[group])
    order = [e.uuid for e in plain.edges]
    assert len(order) == len(KEYS)
    for seed in range(6):
        rng = random.Random(seed)
        path = tmp_path / f"review-{seed}.sqlite3"
        _review_db(path, uuids, rng)
        expected = _expected(settings, path)
        cuts = sorted(expected.values())
        # just below and above a fact's score (the scores drift with the clock between the two
        # readings by far less than 1e-5: freshness decays over days)
        near = [c + d for c in rng.sample(cuts, min(2, len(cuts))) for d in (-1e-5, 1e-5)]
        for x in [0.0, 1.0, rng.random(), *[min(1.0, max(0.0, v)) for v in near]]:
            s = settings.model_copy(update={"search": settings.search.model_copy(update={"min_confidence": x})})
            s = s.model_copy(update={"review": s.review.model_copy(update={"path": path})})
            got, conf = await search_confident(s, QUERY, limit=20, groups=[group])
            want = [u for u in order if u in expected and expected[u] >= x]
            assert [e.uuid for e in got.edges] == want, (seed, x)
            assert [e.uuid for e in got.edge_explanations] == want
            assert [e.rank for e in got.edge_explanations] == list(range(1, len(want) + 1))
            assert conf == pytest.approx({u: expected[u] for u in want}, abs=1e-6)
    # no threshold: nothing read, nothing dropped
    got, conf = await search_confident(settings, QUERY, limit=20, groups=[group])
    assert conf is None and [e.uuid for e in got.edges] == order


async def test_one_search_opens_the_review_db_once(settings, facts, tmp_path, monkeypatch):
    """The threshold's review DB is opened once per search (before it: a missing one fails
    first), and a search without a threshold opens none."""
    group, uuids = facts
    path = tmp_path / "review.sqlite3"
    _review_db(path, uuids, random.Random(3))
    opened: list = []
    real_open = ConfidenceStore.open.__func__

    def counting_open(cls, *args, **kwargs):  # the real open, counted
        opened.append(args[0])
        return real_open(cls, *args, **kwargs)

    monkeypatch.setattr(ConfidenceStore, "open", classmethod(counting_open))
    s = settings.model_copy(update={"search": settings.search.model_copy(update={"min_confidence": 0.0}),
                                    "review": settings.review.model_copy(update={"path": path})})
    got, conf = await search_confident(s, QUERY, limit=20, groups=[group])
    assert len(opened) == 1 and conf and set(conf) == {e.uuid for e in got.edges}
    opened.clear()
    await search_confident(settings, QUERY, limit=20, groups=[group])
    assert opened == []


@pytest.fixture
def cli(settings, tmp_path):
    """`graph-trust search QUERY ARGS` as a real process on the test's graph."""

    def run(*args: str) -> Result:
        return run_cli("search", QUERY, "--graph", settings.graph.uri, *args,
                       env={"GRAPH_TRUST_STATE_DIR": str(settings.state_dir)}, cwd=tmp_path)

    return run


async def test_cli_min_confidence_json_explain_and_bad_values(settings, facts, tmp_path, cli):
    group, uuids = facts
    path = tmp_path / "review.sqlite3"
    _review_db(path, uuids, random.Random(7))
    expected = _expected(settings, path)
    x = sorted(expected.values())[len(expected) // 2] - 1e-5
    r = cli("--group", group, "--limit", "20", "--min-confidence", str(x), "--review-db", str(path), "--json")
    assert r.code == 0, r.err
    out = r.json()
    assert out["min_confidence"] == x
    assert {h["uuid"] for h in out["results"]} == {u for u, c in expected.items() if c >= x and u in uuids.values()}
    assert all(h["confidence"] == pytest.approx(expected[h["uuid"]], abs=1e-6) for h in out["results"])
    r = cli("--group", group, "--limit", "20", "--min-confidence", str(x), "--review-db", str(path), "--explain")
    assert r.code == 0 and "confidence" in r.out.splitlines()[0]
    r = cli("--group", group, "--explain")  # no threshold: no confidence column, no review DB needed
    assert r.code == 0 and "confidence" not in r.out.splitlines()[0]
    for bad, needle in [("1.5", "--min-confidence"), ("nan", "min_confidence"), ("high", "--min-confidence")]:
        r = cli("--group", group, "--min-confidence", bad, "--review-db", str(path))
        assert r.code == 2 and needle in r.err, (bad, r.err)
    r = cli("--nodes", "--min-confidence", "0.5", "--review-db", str(path))
    assert r.code == 2 and "--nodes" in r.err
    r = cli("--min-confidence", "0.5", "--review-db", str(tmp_path / "missing.sqlite3"))
    assert r.code == 2 and "missing.sqlite3" in r.err
