"""The shipped evaluation set's integrity, the review-draw generator, and the judged-file
readers' errors (each names the file and line)."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import REPO

from graph_trust.errors import InputError
from graph_trust.eval.dataset import bundled, check_judged, load_judged, parse_qrels, parse_queries
from graph_trust.eval.draws import STATUS_BY_VERDICT, draw_review

DATA = REPO / "graph_trust" / "data" / "eval"


@pytest.fixture(scope="module")
def data():
    return bundled()


def test_counts_and_groups(data):
    edges = data.graph["edges"]
    assert len(edges) >= 300
    groups = collections.Counter(e["group_id"] for e in edges)
    assert set(groups) == set(data.graph["groups"]) and len(groups) == 2 and min(groups.values()) >= 100
    assert len(data.judged.queries) >= 50
    assert len({e["uuid"] for e in edges}) == len(edges)
    assert len({e["uuid"] for e in data.graph["entities"]}) == len(data.graph["entities"])


def test_every_judgment_names_a_fact_of_the_query_group(data):
    group_of = {e["uuid"]: e["group_id"] for e in data.graph["edges"]}
    for q in data.judged.queries:
        judged = data.judged.qrels[q.id]
        assert set(judged) <= set(group_of), q.id
        assert {group_of[u] for u in judged} == {q.group}, q.id
        assert 2 in judged.values(), f"{q.id} has no correct answer"
        assert set(q.wrong) <= {u for u, g in judged.items() if g == 0}


def test_every_edge_has_entities_and_a_verdict(data):
    ents = {e["uuid"] for e in data.graph["entities"]}
    for e in data.graph["edges"]:
        assert e["source"] in ents and e["target"] in ents
        assert data.verdicts[e["uuid"]] in STATUS_BY_VERDICT
    assert set(data.verdicts) == {e["uuid"] for e in data.graph["edges"]}


def test_classes_the_set_must_cover(data):
    classes = collections.Counter(c for q in data.judged.queries for c in q.classes)
    for c in ("clean", "superseded", "stale", "wrong_extraction", "paraphrase", "intrusion"):
        assert classes[c] >= 5, c
    by_id = {e["uuid"]: e for e in data.graph["edges"]}
    for q in data.judged.queries:
        assert q.contested == ("clean" not in q.classes)
        olds = [by_id[u] for u in q.wrong]
        if "superseded" in q.classes:
            assert olds and all(e.get("invalid_at") for e in olds)
        if "stale" in q.classes:
            assert olds and not any(e.get("invalid_at") for e in olds)
            rights = [by_id[u] for u, g in data.judged.qrels[q.id].items() if g == 2]
            assert max(e["valid_at"] for e in olds) < min(e["valid_at"] for e in rights)
        if "paraphrase" in q.classes:
            assert sum(g == 2 for g in data.judged.qrels[q.id].values()) >= 2
    # intrusions on clean queries: a trusted off-topic fact with no wrong answer around
    assert any("intrusion" in q.classes and not q.contested for q in data.judged.queries)


def test_shipped_review_is_draw_zero_and_has_the_mix(data):
    assert data.review == draw_review(data.graph, data.verdicts, seed=0)
    statuses = collections.Counter(r["status"] for r in data.review)
    assert set(statuses) == {"promoted", "corroborated", "candidate", "rejected", "expired"}
    assert 0.35 <= len(data.review) / len(data.graph["edges"]) <= 0.45


def test_generator_is_deterministic():
    """The committed files are what build_evalset.py writes."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_evalset", DATA / "build_evalset.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.build()
    assert out["graph"] == json.loads((DATA / "graph.json").read_text())
    assert out["verdicts"] == json.loads((DATA / "verdicts.json").read_text())
    assert [json.loads(line) for line in (DATA / "queries.jsonl").read_text().splitlines()] == out["queries"]


@settings(max_examples=25, deadline=None)
@given(coverage=st.floats(0.1, 0.9), noise=st.floats(0.0, 0.3), seed0=st.integers(0, 10_000))
def test_draws_hit_the_asked_coverage_and_noise(data, coverage, noise, seed0):
    n = len(data.graph["edges"])
    noisy = covered = 0
    draws = [draw_review(data.graph, data.verdicts, seed=seed0 + i, coverage=coverage, noise=noise) for i in range(8)]
    for rows in draws:
        assert len(rows) == round(coverage * n)
        assert len({r["evidence_refs_json"] for r in rows}) == len(rows)
        covered += len(rows)
        noisy += sum(r["noisy"] for r in rows)
    # 8 draws of ~40-400 reviewed facts: the noise share is within 4 binomial sigmas.
    sigma = (noise * (1 - noise) / covered) ** 0.5
    assert abs(noisy / covered - noise) <= 4 * sigma + 1e-9
    # different seeds cover different facts
    assert len({tuple(r["evidence_refs_json"] for r in rows) for rows in draws}) > 1 or coverage * n < 2


def test_noise_flips_decisions(data):
    by_id = {e["uuid"]: data.verdicts[e["uuid"]] for e in data.graph["edges"]}
    for rows in (draw_review(data.graph, data.verdicts, seed=s, noise=0.5) for s in range(3)):
        for r in rows:
            verdict = by_id[json.loads(r["evidence_refs_json"])[0]["evidence_id"]]
            positive = r["status"] in ("promoted", "corroborated")
            negative = r["status"] in ("rejected", "expired")
            if r["noisy"]:
                assert negative if verdict == "correct" else positive
            else:
                assert not (negative if verdict == "correct" else positive)


def test_draw_rejects_bad_levels(data):
    with pytest.raises(InputError, match="coverage"):
        draw_review(data.graph, data.verdicts, seed=0, coverage=1.5)
    with pytest.raises(InputError, match="noise"):
        draw_review(data.graph, data.verdicts, seed=0, noise=-0.1)


# --- reading the user's files ---------------------------------------------------------------

def write(tmp_path: Path, queries: str, qrels: str) -> tuple[Path, Path]:
    q, r = tmp_path / "q.jsonl", tmp_path / "qrels.txt"
    q.write_text(queries)
    r.write_text(qrels)
    return q, r


GOOD_Q = '{"id": "q1", "query": "which port", "wrong": ["w"]}\n\n{"id": "q2", "query": "who owns x"}\n'
GOOD_R = "q1 0 a 2\nq1 0 w 0\n# comment\nq2 0 b 1\n"


def test_reads_a_good_pair(tmp_path):
    j = load_judged(*write(tmp_path, GOOD_Q, GOOD_R))
    assert [q.id for q in j.queries] == ["q1", "q2"]
    assert j.qrels == {"q1": {"a": 2, "w": 0}, "q2": {"b": 1}}
    assert j.queries[0].contested and not j.queries[1].contested


@pytest.mark.parametrize("qrels, message", [
    ("q1 0 a 2\nq1 0 b\n", r"line 2: expected 'query_id iteration fact_id grade' \(4 fields\), got 3"),
    ("q1 0 a 2\nq2 0 b two\n", r"line 2: grade 'two' is not an integer"),
    ("q1 0 a 3\n", r"line 1: grade 3 must be 0, 1 or 2"),
    ("q1 0 a 2\nq1 0 a 1\n", r"line 2: fact a is judged twice"),
    ("q1 0 a 2\nq9 0 b 1\nq2 0 c 1\n", r"query id 'q9' is not in the queries file"),
    ("q1 0 a 2\n", r"query 'q2' has no judgments"),
    ("q1 0 a 2\nq1 0 w 1\nq2 0 b 1\n", r"fact w is listed as wrong but judged 1"),
])
def test_bad_qrels_are_named_with_their_line(tmp_path, qrels, message):
    q, r = write(tmp_path, GOOD_Q, qrels)
    with pytest.raises(InputError, match=message) as exc:
        load_judged(q, r)
    assert str(r) in str(exc.value)


@pytest.mark.parametrize("queries, message", [
    ('{"id": "q1", "query": "x"}\nnot json\n', r"line 2: not valid JSON"),
    ('["q1"]\n', r"line 1: expected a JSON object"),
    ('{"query": "x"}\n', r"line 1: 'id' must be"),
    ('{"id": "q 1", "query": "x"}\n', r"line 1: 'id' must be a non-empty string without spaces"),
    ('{"id": "q1", "query": "  "}\n', r"line 1: 'query' must be"),
    ('{"id": "q1", "query": "x"}\n{"id": "q1", "query": "y"}\n', r"line 2: duplicate query id 'q1'"),
    ('{"id": "q1", "query": "x", "wrong": "w"}\n', r"line 1: 'wrong' must be a list of strings"),
    ('{"id": "q1", "query": "x", "group": 3}\n', r"line 1: 'group' must be"),
    ("\n\n", r"no queries"),
])
def test_bad_queries_are_named_with_their_line(tmp_path, queries, message):
    q, r = write(tmp_path, queries, GOOD_R)
    with pytest.raises(InputError, match=message):
        load_judged(q, r)


def test_missing_files(tmp_path):
    q, r = write(tmp_path, GOOD_Q, GOOD_R)
    with pytest.raises(InputError, match="queries file .*nope.jsonl does not exist"):
        load_judged(tmp_path / "nope.jsonl", r)
    with pytest.raises(InputError, match="qrels file .*nope.txt does not exist"):
        load_judged(q, tmp_path / "nope.txt")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.text("abcdef0123456789-", min_size=1, max_size=8),
                          st.integers(0, 2)), min_size=1, max_size=30, unique_by=lambda t: (t[0], t[1])),
       st.randoms(use_true_random=False))
def test_qrels_round_trip(rows, rnd):
    """Any well-formed qrels text (any order, blank lines, extra spaces) reads back exactly."""
    lines = [f"{q} {rnd.choice(['0', 'Q0'])}  {d}\t{g}" for q, d, g in rows]
    rnd.shuffle(lines)
    text = "\n".join(line + ("\n" if rnd.random() < 0.2 else "") for line in lines)
    got = parse_qrels(text)
    assert got == {q: {d: g for qq, d, g in rows if qq == q} for q in {r[0] for r in rows}}
    queries = parse_queries("".join(json.dumps({"id": q, "query": f"about {q}"}) + "\n" for q in got))
    assert {q.id for q in check_judged(queries, got).queries} == set(got)
