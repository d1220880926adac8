"""Judged sets in another vocabulary: the generator's ``library`` domain (build_evalset.build(...,
vocabulary_name="library")) at any seed is a complete judged set (every query has relevant facts,
judgments name facts of the query's group), shares no entity name, relation name, value or
question with the bundled ``ops`` domain, holds competing single-valued slots, multi-valued
relations and clean queries, is deterministic by seed, and heldout.py evaluates it as `graph-trust
eval --bundled` evaluates the shipped set."""

from __future__ import annotations

import collections
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import REPO

from graph_trust.data.eval import build_evalset, vocab_library
from graph_trust.data.eval.heldout import generated_set
from graph_trust.eval.dataset import bundled
from graph_trust.eval.draws import STATUS_BY_VERDICT

seeds = st.integers(min_value=0, max_value=2**32 - 1)


def _facts_by_slot(out: dict) -> dict[tuple[str, str], list[dict]]:
    by: dict[tuple[str, str], list[dict]] = collections.defaultdict(list)
    for e in out["graph"]["edges"]:
        by[(e["source"], e["name"])].append(e)
    return by


@settings(max_examples=15, deadline=None)
@given(seeds)
def test_every_library_set_is_a_complete_judged_set(seed):
    out = build_evalset.build(seed, vocabulary_name="library")
    edges = {e["uuid"]: e for e in out["graph"]["edges"]}
    entities = {e["uuid"] for e in out["graph"]["entities"]}
    assert all(e["source"] in entities and e["target"] in entities for e in edges.values())
    assert set(out["verdicts"]) == set(edges) and set(out["verdicts"].values()) <= set(STATUS_BY_VERDICT)
    qrels: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for qid, doc, grade in out["qrels"]:
        qrels[qid][doc] = grade
    assert len(out["queries"]) == len(qrels) == 60
    for q in out["queries"]:
        judged = qrels[q["id"]]
        right = [edges[u] for u, g in judged.items() if g == 2]
        assert right, f"{q['id']} has no relevant fact"
        assert {edges[u]["group_id"] for u in judged} == {q["group"]}
        assert all(out["verdicts"][e["uuid"]] == "correct" for e in right)
        assert set(q["wrong"]) <= {u for u, g in judged.items() if g == 0}
        # a wrong or outdated answer competes in the answer's own slot
        slot = {(e["source"], e["name"]) for e in right}
        assert len(slot) == 1 and all((edges[u]["source"], edges[u]["name"]) in slot for u in q["wrong"])
        assert ("clean" in q["classes"]) == (not q["wrong"])
    # what the bundled set has: clean queries, contested single-valued slots; and multi-valued
    # relations: a query whose slot holds two correct values, both judged relevant
    classes = collections.Counter(c for q in out["queries"] for c in q["classes"])
    assert classes["clean"] == 24 and min(classes[c] for c in ("superseded", "stale", "wrong_extraction")) == 12
    multi = {a["pred"] for a in vocab_library.ATTRS.values() if a.get("values", 1) > 1}
    values_of_answers = collections.defaultdict(set)
    for q in out["queries"]:
        for u, g in qrels[q["id"]].items():
            if g == 2:
                values_of_answers[(q["id"], edges[u]["name"])].add(edges[u]["target"])
    assert {rel for (_, rel), vals in values_of_answers.items() if len(vals) == 2} == multi
    assert all(len(vals) == 1 for (_, rel), vals in values_of_answers.items() if rel not in multi)


@settings(max_examples=10, deadline=None)
@given(seeds, seeds)
def test_library_and_ops_share_no_name_relation_value_or_question(seed_a, seed_b):
    lib = build_evalset.build(seed_a, vocabulary_name="library")
    shipped = bundled()
    for ops in (build_evalset.build(seed_b), {"graph": shipped.graph, "queries": [
            {"query": q.text} for q in shipped.judged.queries]}):
        names = [{e["name"].casefold() for e in o["graph"]["entities"]} for o in (lib, ops)]
        assert not names[0] & names[1]
        relations = [{e["name"] for e in o["graph"]["edges"]} for o in (lib, ops)]
        assert not relations[0] & relations[1]
        facts = [{e["fact"] for e in o["graph"]["edges"]} for o in (lib, ops)]
        assert not facts[0] & facts[1]
        questions = [{q["query"].casefold() for q in o["queries"]} for o in (lib, ops)]
        assert not questions[0] & questions[1]
    # the question wordings themselves (subject left out) differ too
    asks = [{t.replace("{s}", "").strip() for a in v.ATTRS.values() for t in a["ask"]}
            for v in (vocab_library, build_evalset)]
    assert not asks[0] & asks[1]


@settings(max_examples=8, deadline=None)
@given(seeds, st.sampled_from(build_evalset.VOCABULARIES))
def test_a_generated_set_is_a_function_of_its_seed(seed, vocabulary):
    a = build_evalset.build(seed, vocabulary_name=vocabulary)
    assert json.dumps(a, sort_keys=True) == json.dumps(build_evalset.build(seed, vocabulary_name=vocabulary),
                                                       sort_keys=True)
    other = build_evalset.build(seed + 1, vocabulary_name=vocabulary)
    assert [q["query"] for q in other["queries"]] != [q["query"] for q in a["queries"]]


def test_heldout_seeds_give_other_sets_and_unknown_vocabularies_are_refused():
    # the held-out sets are not the bundled set: the seed reaches the generator
    shipped = [q.text for q in bundled().judged.queries]
    for vocabulary in build_evalset.VOCABULARIES:
        held = generated_set(7, vocabulary)
        assert [q.text for q in held.judged.queries] != shipped
        assert len(held.review) > 0 and all(q.id in held.judged.qrels for q in held.judged.queries)
    with pytest.raises(ValueError, match="unknown vocabulary 'hr'"):
        build_evalset.build(1, vocabulary_name="hr")


def test_heldout_evaluates_a_library_set_like_the_bundled_one():
    r = subprocess.run([sys.executable, str(REPO / "graph_trust" / "data" / "eval" / "heldout.py"), "--vocabulary",
                        "library", "--seeds", "3", "--draws", "1", "--quick", "--rank", "trust"],
                       cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [ln.split("  ")[2] for ln in lines] == ["vanilla", "trust@0.05"]
    assert all(ln.startswith("library seed 3  hashing  ") and "nDCG@10 0." in ln for ln in lines)
