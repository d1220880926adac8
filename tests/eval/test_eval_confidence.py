"""The confidence ranking of `graph-trust eval` and the bundled set's confidence records.

- the records a draw generates: deterministic per seed, independent of the review decisions,
  distributed as graph_trust.eval.draws' tables say (over many seeds), and as the docs state;
  loaded into a real review DB, they give right facts more confidence than wrong ones;
- on a real embedded FalkorDB: where the records contradict the review status, the confidence
  ranking orders competitors by them while the trust ranking cannot, and the trust it ranks by
  is what a real sync in ``sync.trust_mode: confidence`` writes;
- the report carries the ranking (JSON, text), and bad input is one clear error.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from datetime import datetime, timedelta

import pytest
from cli_helpers import run_cli
from paths import REPO

from graph_trust.config import load_settings
from graph_trust.errors import ReviewDBError
from graph_trust.eval import draws as dr
from graph_trust.eval.dataset import JudgedSet, bundled

DOCS = REPO / "docs" / "evaluation.md"


@pytest.fixture(scope="module")
def data():
    return bundled()


@pytest.fixture(scope="module")
def pairs(data):
    return dr.contested_pairs(data.judged.queries, data.judged.qrels)


def _records(data, pairs, seed, noise=0.0, coverage=dr.DEFAULT_COVERAGE):
    rows = dr.draw_review(data.graph, data.verdicts, seed=seed, coverage=coverage, noise=0.0)
    return rows, dr.draw_confidence(data.graph, data.verdicts, rows, pairs, seed=seed, noise=noise)


def _verdict_of(data, rows):
    by_id = {r["id"]: json.loads(r["evidence_refs_json"])[0]["evidence_id"] for r in rows}
    return {fid: data.verdicts[uuid] for fid, uuid in by_id.items()}


def test_records_are_deterministic_per_seed_and_leave_the_review_draw_alone(data, pairs):
    rows_a, rec_a = _records(data, pairs, 7, noise=0.05)
    rows_b, rec_b = _records(data, pairs, 7, noise=0.05)
    assert rec_a == rec_b and rows_a == rows_b
    assert _records(data, pairs, 8, noise=0.05)[1] != rec_a
    # the decisions do not depend on whether records are drawn (separate random streams)
    assert rows_a == dr.draw_review(data.graph, data.verdicts, seed=7, noise=0.0)
    ids = {r["id"] for r in rows_a}
    for table in ("fact_sources", "fact_verifications", "fact_usage_outcomes", "fact_votes"):
        assert {r["fact_id"] for r in rec_a[table]} <= ids
    assert {r["fact_id"] for r in rec_a["fact_sources"]} == ids  # every fact has its source
    for c in rec_a["fact_contradictions"]:
        assert {c["fact_a_id"], c["fact_b_id"]} <= ids and c["fact_a_id"] < c["fact_b_id"]


def _share(counter: Counter, key: str) -> float:
    return counter[key] / max(1, sum(counter.values()))


def test_record_distribution_matches_the_tables_over_many_seeds(data, pairs):
    authors, stypes, verdicts_by, outcomes, votes = (Counter(), {}, {}, {}, {})
    contradictions = Counter()
    as_of = datetime.fromisoformat(data.graph["as_of"])
    created = {e["uuid"]: datetime.fromisoformat(e["created_at"]) for e in data.graph["edges"]}
    group = {e["uuid"]: e["group_id"] for e in data.graph["edges"]}
    index = {e["uuid"]: i for i, e in enumerate(data.graph["edges"])}
    for seed in range(40):
        rows, rec = _records(data, pairs, seed, coverage=0.6)
        verdict = _verdict_of(data, rows)
        edge_of = {r["id"]: json.loads(r["evidence_refs_json"])[0]["evidence_id"] for r in rows}
        author = {s["fact_id"]: s["agent_id"] for s in rec["fact_sources"]}
        for s in rec["fact_sources"]:
            v = verdict[s["fact_id"]]
            authors[(v, dr.AGENTS[s["agent_id"]][2])] += 1
            stypes.setdefault(v, Counter())[s["source_type"]] += 1
            assert s["category"] == dr.CATEGORY_BY_GROUP[group[edge_of[s["fact_id"]]]]
            assert s["created_at"].startswith(data.graph["edges"][index[edge_of[s["fact_id"]]]]["created_at"][:10])
        for x in rec["fact_verifications"]:
            assert x["verifier_id"] != author[x["fact_id"]]
            t = datetime.fromisoformat(x["verified_at"].replace("Z", "+00:00"))
            assert max(created[edge_of[x["fact_id"]]], as_of - timedelta(days=180)) <= t <= as_of
            who = x["verifier_id"]
            kind = dr.RELIABLE if who == dr.SYSTEM_VERIFIER else dr.AGENTS[who][2]
            verdicts_by.setdefault((verdict[x["fact_id"]], kind), Counter())[x["verification_type"]] += 1
        for u in rec["fact_usage_outcomes"]:
            t = datetime.fromisoformat(u["tracked_at"].replace("Z", "+00:00"))
            assert as_of - timedelta(days=dr.USE_DAYS) <= t <= as_of
            outcomes.setdefault(verdict[u["fact_id"]], Counter())[u["outcome"]] += 1
        for x in rec["fact_votes"]:
            assert x["agent_id"] != author[x["fact_id"]] and dr.VOTE_CONFIDENCE[0] <= x["confidence"] <= 1
            votes.setdefault((verdict[x["fact_id"]], dr.AGENTS[x["agent_id"]][2]), Counter())[x["vote"]] += 1
        right = {r for _, r, _ in pairs}
        for c in rec["fact_contradictions"]:
            contradictions["recorded"] += 1
            if c.get("resolved_at"):
                contradictions["resolved"] += 1
                contradictions["right_wins"] += edge_of[c["resolution_winner"]] in right
    tol = 0.05
    for v, p in dr.AUTHOR_RELIABLE.items():
        n = authors[(v, dr.RELIABLE)] + authors[(v, dr.UNRELIABLE)]
        assert abs(authors[(v, dr.RELIABLE)] / n - p) < tol + (0.1 if n < 300 else 0), v
    for v, table in dr.SOURCE_TYPE.items():
        for t, p in table:
            assert abs(_share(stypes[v], t) - p) < tol + (0.1 if v == "wrong" else 0), (v, t)
    for v, table in dr.VERDICT_BY.items():
        for t, p in table:
            assert abs(_share(verdicts_by[(v, dr.RELIABLE)], t) - p) < tol + (0.1 if v == "wrong" else 0), (v, t)
    for t, p in dr.UNRELIABLE_VERDICT:
        merged = sum((c for (_, k), c in verdicts_by.items() if k == dr.UNRELIABLE), Counter())
        assert abs(_share(merged, t) - p) < tol
    for v, table in dr.OUTCOME_BY.items():
        for t, p in table:
            assert abs(_share(outcomes[v], t) - p) < tol, (v, t)
    for v, table in dr.VOTE_BY.items():
        for t, p in table:
            assert abs(_share(votes[(v, dr.RELIABLE)], t) - p) < tol + (0.1 if v == "wrong" else 0), (v, t)
    assert abs(contradictions["resolved"] / contradictions["recorded"] - dr.CONTRADICTION_RESOLVED) < 0.1
    assert abs(contradictions["right_wins"] / contradictions["resolved"] - dr.RIGHT_WINS) < 0.1


def test_noise_flips_the_records(data, pairs):
    """Noise consumes the same random numbers at every level, so noise 1 is noise 0 with every
    verification, use, vote and resolution flipped, and noise 0.2 flips about a fifth of them."""
    _, clean = _records(data, pairs, 3, noise=0.0)
    _, flipped = _records(data, pairs, 3, noise=1.0)
    _, some = _records(data, pairs, 3, noise=0.2)
    for table, key in (("fact_verifications", "verification_type"), ("fact_usage_outcomes", "outcome"),
                       ("fact_votes", "vote")):
        assert [dr.FLIPPED[r[key]] for r in clean[table]] == [r[key] for r in flipped[table]], table
        changed = sum(a[key] != b[key] for a, b in zip(clean[table], some[table], strict=True))
        movable = sum(dr.FLIPPED[a[key]] != a[key] for a in clean[table])
        assert 0.1 < changed / movable < 0.3, table
    resolved = [(a, b) for a, b in zip(clean["fact_contradictions"], flipped["fact_contradictions"], strict=True)
                if a.get("resolved_at")]
    assert resolved and all(a["resolution_winner"] == b["resolution_loser"] for a, b in resolved)


def test_the_docs_state_the_distribution():
    text = DOCS.read_text()
    section = text[text.index("### Confidence records"):]
    section = section[: section.index("\n## ", 1) if "\n## " in section else len(section)]
    pct = lambda p: f"{round(p * 100)}%"  # noqa: E731
    for v, p in dr.AUTHOR_RELIABLE.items():
        assert f"| {v} | {pct(p)} |" in section.replace("`", ""), v
    for v, table in dr.OUTCOME_BY.items():
        assert ", ".join(f"{t} {pct(p)}" for t, p in table) in section, v
    for v, table in dr.VERDICT_BY.items():
        assert ", ".join(f"{t} {pct(p)}" for t, p in table) in section, v
    for v, table in dr.VOTE_BY.items():
        assert ", ".join(f"{t} {pct(p)}" for t, p in table) in section, v
    for t, p in dr.UNRELIABLE_VERDICT + dr.UNRELIABLE_VOTE:
        assert f"{t} {pct(p)}" in section
    for n in (dr.CONTRADICTION_RECORDED, dr.CONTRADICTION_RESOLVED, dr.RIGHT_WINS, dr.SYSTEM_SHARE):
        assert pct(n) in section
    assert re.search(r"0 to 12 uses", section) and re.search(r"0 to 4 votes", section)


def _review_db(tmp_path, rows, records):
    from graph_trust.sync.confidence.schema import init_confidence_tables
    from graph_trust.sync.review_db import init_review_db, insert_records, insert_rows

    db = init_review_db(tmp_path / "review.sqlite3")
    insert_rows(db, rows)
    init_confidence_tables(db)
    insert_records(db, records)
    return db


def test_loaded_records_give_right_facts_more_confidence(tmp_path, data, pairs):
    """Over several draws, the mean confidence of correct facts is above that of wrong and
    outdated ones (the records carry signal), and every record loads into the documented tables."""
    from graph_trust.sync.confidence.store import ConfidenceStore

    settings = load_settings(environ={})
    as_of = datetime.fromisoformat(data.graph["as_of"])
    gaps = []
    for seed in range(3):
        rows, rec = _records(data, pairs, seed, noise=0.05)
        (tmp_path / str(seed)).mkdir()
        db = _review_db(tmp_path / str(seed), rows, rec)
        with ConfidenceStore.open(db, settings.review, settings.confidence, now=as_of, readonly=True) as cs:
            ids, _, scores = cs.scores()
        verdict = _verdict_of(data, rows)
        good = [s for i, s in zip(ids, scores, strict=True) if verdict[i] == "correct"]
        bad = [s for i, s in zip(ids, scores, strict=True) if verdict[i] != "correct"]
        gaps.append(sum(good) / len(good) - sum(bad) / len(bad))
    assert min(gaps) > 0.05, gaps


def test_insert_records_refuses_unknown_tables_and_columns_and_writes_nothing(tmp_path, data, pairs):
    import sqlite3

    from graph_trust.sync.review_db import insert_records

    rows, rec = _records(data, pairs, 1)
    db = _review_db(tmp_path, rows[:0], {})
    good = {"fact_votes": rec["fact_votes"][:3]}
    with pytest.raises(ReviewDBError, match="no table 'nosuch'"):
        insert_records(db, {**good, "nosuch": [{"a": 1}]})
    with pytest.raises(ReviewDBError, match="no column 'colour'"):
        insert_records(db, {**good, "fact_sources": [{"fact_id": "x", "colour": "red"}]})
    with pytest.raises(ReviewDBError, match="no table"):
        insert_records(db, {"candidates; DROP TABLE candidates": [{"id": "x"}]})
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM fact_votes").fetchone()[0] == 0  # one transaction: nothing kept
    assert insert_records(db, good) == {"fact_votes": 3}
    assert con.execute("SELECT count(*) FROM fact_votes").fetchone()[0] == 3
    con.close()


# --- on a real graph ---------------------------------------------------------------------------

def _same_slot_pairs(data, group):
    """(query, wrong uuid, right uuid) where the wrong and the right answer compete for one slot
    (same source entity and relation name) in ``group``."""
    edges = {e["uuid"]: e for e in data.graph["edges"]}
    out = []
    for q in data.judged.queries:
        if q.group != group:
            continue
        for w in q.wrong:
            for d, g in data.judged.qrels[q.id].items():
                if g == 2 and (edges[w]["source"], edges[w]["name"].upper()) == (edges[d]["source"],
                                                                                 edges[d]["name"].upper()):
                    out.append((q, w, d))
    return out


def test_confidence_ranking_follows_records_that_contradict_review_status(tmp_path, data):
    """Both answers of every same-slot contested query promoted (tiers cannot tell them apart),
    the records refuting the wrong one and confirming the right one: the confidence ranking puts
    the right answer above the wrong one wherever both are found, the trust ranking does not
    always; and the trust it ranks by is what a real confidence-mode sync writes."""
    from graph_trust import api
    from graph_trust.clients.hashing import HashingEmbedder
    from graph_trust.demo.sample import load_sample
    from graph_trust.eval.runner import methods_for, rank_queries
    from graph_trust.graph.connection import open_graph
    from graph_trust.sync.confidence.ops import confidence_mode_trust
    from graph_trust.sync.runner import run_sync

    found = _same_slot_pairs(data, "infra")
    assert len(found) >= 5
    edges = {e["uuid"]: e for e in data.graph["edges"]}
    rows, wrong_ids, right_ids = [], set(), set()
    for _, w, r in found:
        for uuid in (w, r):
            if f"c-{uuid}" not in {x["id"] for x in rows}:
                rows.append({"id": f"c-{uuid}", "predicate": edges[uuid]["name"], "fact": edges[uuid]["fact"],
                             "status": "promoted", "group_id": "infra", "updated_at": "2026-10-01T00:00:00+00:00",
                             "evidence_refs_json": json.dumps([{"evidence_id": uuid, "kind": "graphiti_edge"}])})
        wrong_ids.add(f"c-{w}")
        right_ids.add(f"c-{r}")
    assert not wrong_ids & right_ids
    at = "2026-10-20T00:00:00.000Z"
    records = {
        "fact_sources": [{"fact_id": x["id"], "agent_id": "author", "category": "infrastructure",
                          "created_at": "2026-09-01T00:00:00.000Z"} for x in rows],
        "fact_verifications": [{"fact_id": f, "verifier_id": v, "verified_at": at,
                                "verification_type": "incorrect" if f in wrong_ids else "confirmed"}
                               for f in wrong_ids | right_ids for v in ("ops-lead", "db-admin", "sre-oncall")],
        "fact_usage_outcomes": [{"fact_id": f, "agent_id": "bot", "action": "answered", "tracked_at": at,
                                 "outcome": "failure" if f in wrong_ids else "success"}
                                for f in wrong_ids | right_ids for _ in range(10)],
    }
    # both values of each slot are promoted, which would teach search that these relations hold
    # several values (graph_trust.search.slots): they hold one, as configured
    single = sorted({edges[w]["name"] for _, w, _ in found})
    settings = load_settings(overrides={"graph.uri": f"embedded:{tmp_path / 'g'}", "graph.database": None,
                                        "state_dir": str(tmp_path / "state"), "search.single_valued": single},
                             environ={})
    review = tmp_path / "review.sqlite3"
    queries = list(dict.fromkeys(q for q, _, _ in found))
    judged = JudgedSet(queries, {q.id: data.judged.qrels[q.id] for q in queries})
    methods = methods_for(["trust", "confidence"], None, settings)

    async def go():
        async with open_graph(settings) as conn:
            await load_sample(conn.driver, HashingEmbedder(), groups=["infra"], data=data.graph)
            await api.sync_review_rows(settings, rows, review, conn, records=records)
            trust_of = confidence_mode_trust(settings, review)
            ranked = await rank_queries(conn, settings, judged, methods, embedder=HashingEmbedder(),
                                        default_groups=["infra"], confidence_trust=trust_of)
            return ranked, trust_of(sorted(edges_used))

    async def confidence_sync():
        from graphiti_core.edges import EntityEdge

        conf = settings.model_copy(update={"sync": settings.sync.model_copy(update={"trust_mode": "confidence"})})
        async with open_graph(conf) as conn:
            await run_sync(conf, review_db=review, full=True, graph=conn)
            return {e.uuid: e.attributes.get("trust_score")
                    for e in await EntityEdge.get_by_uuids(conn.for_group("infra").driver, sorted(edges_used))}

    edges_used = {w for _, w, _ in found} | {r for _, _, r in found}
    ranked, expected = asyncio.run(go())
    # the same from the command line, on the user's graph (judged mode) with their review DB
    qf, rf = tmp_path / "q.jsonl", tmp_path / "qrels.txt"
    qf.write_text("".join(json.dumps({"id": q.id, "query": q.text, "group": q.group, "wrong": list(q.wrong)}) + "\n"
                          for q in queries))
    rf.write_text("".join(f"{q.id} 0 {d} {g}\n" for q in queries for d, g in judged.qrels[q.id].items()))
    cli = run_cli("eval", "--queries", str(qf), "--qrels", str(rf), "--graph", f"embedded:{tmp_path / 'g'}",
                  "--rank", "trust,confidence", "--review-db", str(review), "--json",
                  "--set", f"search.single_valued={json.dumps(single)}", cwd=tmp_path, timeout=300)
    assert cli.code == 0, cli.err
    by = {m["kind"]: m for m in cli.json()["methods"]}
    assert by["confidence"]["wrong_first"]["mean"] < by["trust"]["wrong_first"]["mean"]
    written = asyncio.run(confidence_sync())

    def order(name, q, w, r):
        got = ranked[name][q.id]
        return None if w not in got or r not in got else got.index(r) < got.index(w)

    trust_name = next(m.name for m in methods if m.kind == "trust")
    conf_results = [order("confidence", q, w, r) for q, w, r in found]
    trust_results = [order(trust_name, q, w, r) for q, w, r in found]
    assert sum(x is not None for x in conf_results) >= 3  # the pairs were found together
    assert all(x is not False for x in conf_results), conf_results  # right above wrong, always
    assert any(x is False for x in trust_results), trust_results  # tiers alone put a wrong one first
    assert ranked["confidence"] != ranked[trust_name]
    # the override is the trust a real sync in confidence mode writes (confidence_step rounding)
    assert set(expected) == edges_used
    for uuid in edges_used:
        assert written[uuid] == pytest.approx(expected[uuid], abs=2e-3), uuid
    assert max(expected[f[2:]] for f in wrong_ids) < min(expected[f[2:]] for f in right_ids)


# --- the report and bad input --------------------------------------------------------------------

@pytest.fixture(scope="module")
def quick_conf(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("evalconf")
    r = run_cli("eval", "--bundled", "--quick", "--draws", "1", "--rank", "trust,confidence",
                "--json", "--plot", "q.png", cwd=cwd, timeout=600)
    assert r.code == 0, r.err
    assert (cwd / "q.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # the chart is written with the ranking
    return r.json()


def test_report_json_carries_the_confidence_ranking(quick_conf):
    by = {m["name"]: m for m in quick_conf["methods"]}
    conf = by["confidence"]
    assert conf["kind"] == "confidence" and conf["weight"] == by[next(n for n in by if n.startswith("trust@"))]["weight"]
    for key in ("ndcg@10", "mrr@10", "p@5", "wrong_first"):
        assert 0 <= conf[key]["mean"] <= 1
    vs = conf["vs_vanilla"]
    assert {"ndcg@10_diff", "ci95", "wins", "losses", "ties", "clean_losses"} <= set(vs)
    assert vs["wins"] + vs["losses"] + vs["ties"] == quick_conf["queries"]
    assert all("confidence" in q["ndcg@10"] for q in quick_conf["per_query"])
    assert all("confidence" in c["ndcg@10"] for c in quick_conf["by_class"])
    recs = quick_conf["draws"][0]["confidence_records"]
    assert recs["fact_sources"] == quick_conf["draws"][0]["review_rows"] and recs["fact_verifications"] > 0


def test_judged_confidence_without_a_review_db_is_one_error(tmp_path):
    data = bundled()
    q = data.judged.queries[0]
    qf, rf = tmp_path / "q.jsonl", tmp_path / "qrels.txt"
    qf.write_text(json.dumps({"id": q.id, "query": q.text, "group": q.group}) + "\n")
    rf.write_text("".join(f"{q.id} 0 {d} {g}\n" for d, g in data.judged.qrels[q.id].items()))
    graph = f"embedded:{tmp_path / 'g'}"
    r = run_cli("eval", "--queries", str(qf), "--qrels", str(rf), "--graph", graph, "--rank", "confidence",
                cwd=tmp_path)
    assert r.code == 2 and "confidence ranking" in r.err and "no review DB given" in r.err
    assert len(r.err.strip().splitlines()) == 1
    (tmp_path / "bare.sqlite3").write_bytes(b"")
    from graph_trust.sync.review_db import init_review_db
    init_review_db(tmp_path / "bare.sqlite3")
    r = run_cli("eval", "--queries", str(qf), "--qrels", str(rf), "--graph", graph, "--rank", "confidence",
                "--review-db", str(tmp_path / "bare.sqlite3"), cwd=tmp_path)
    assert r.code == 2 and "lacks the confidence tables" in r.err and "review init" in r.err
    r = run_cli("eval", "--bundled", "--rank", "confidence", "--review-db", "x.sqlite3", cwd=tmp_path)
    assert r.code == 2 and "--review-db is for --queries" in r.err
    r = run_cli("eval", "--bundled", "--rank", "confidance", cwd=tmp_path)
    assert r.code == 2 and "unknown ranking 'confidance'" in r.err and "confidence" in r.err


def test_moved_names_keep_their_old_imports():
    """ReviewSync lives in review_hooks (demo and eval both use it); the demo's name still imports.
    The eval extra's check is a public function of metrics."""
    from graph_trust import api
    from graph_trust.demo import run as demo
    from graph_trust.eval import metrics
    from graph_trust.review import hooks as review_hooks

    assert demo.ReviewSync is review_hooks.ReviewSync
    assert metrics.ir_measures_module().__name__ == "ir_measures"
    api.check_eval_extra()
    assert not hasattr(metrics, "_ir_measures")


def test_the_recommendation_of_a_confidence_ranking_names_the_trust_mode():
    """When the confidence ranking is the one the data supports, the recommended settings
    switch sync to confidence mode (with the weight it was measured at)."""
    from graph_trust.eval.dataset import Query
    from graph_trust.eval.report import EvalReport
    from graph_trust.eval.runner import methods_for

    queries = [Query(f"q{i}", "x", wrong=("w",) if i % 2 else ()) for i in range(8)]
    judged = JudgedSet(queries, {q.id: {"r": 2, "w": 0, "o": 0} for q in queries})
    methods = methods_for(["trust", "confidence"], [0.05], load_settings(environ={}))
    worse = {q.id: ["o", "w", "r"] for q in queries}
    better = {q.id: ["r", "o", "w"] for q in queries}
    rankings = [{"vanilla": worse, "trust@0.05": worse, "confidence": better}]
    rep = EvalReport.build(mode="judged", graph="g", settings={}, rank_const=1.0, draws=[], judged=judged,
                           methods=methods, rankings=rankings).to_dict()
    assert rep["recommendation"]["method"] == "confidence"
    assert rep["recommendation"]["settings"] == {"search.trust_weight": 0.05, "sync.trust_mode": "confidence"}
    from graph_trust.cli.eval import render

    text = render(EvalReport.build(mode="judged", graph="g", settings={}, rank_const=1.0, draws=[], judged=judged,
                                   methods=methods, rankings=rankings))
    row = next(line for line in text.splitlines() if line.startswith("confidence "))
    assert "1.000" in row and "+" in row  # its nDCG@10 and its difference to vanilla
    assert "recommendation: confidence:" in text
