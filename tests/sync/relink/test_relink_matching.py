"""Pure matching core of relink: normalization, BM25 index, exact/similar/ambiguous rules."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.sync.relink import matching
from graph_trust.sync.relink.matching import (
    EdgeIndex,
    Matcher,
    RelinkCandidate,
    fact_key,
    name_key,
    normalize_name,
    settle_claims,
    tokenize,
)
from graph_trust.sync.relink.text_index import BM25Index

# --- normalization -----------------------------------------------------------------------


def test_normalize_name_folds_case_width_punctuation_and_spaces():
    assert normalize_name("  ACME,  Corp. ") == "acme corp"
    assert normalize_name("Ａｃｍｅ\u00a0Corp") == "acme corp"  # NFKC: fullwidth letters, nbsp
    assert normalize_name("WORKS_AT") == "works at"
    assert name_key("Acme Corp") == name_key("AcmeCorp") == name_key("acme-corp") == name_key("ACME_corp") == "acmecorp"
    assert name_key("billing-db") == name_key("Billing DB") == name_key("billing - db.") == "billingdb"
    assert name_key("Straße") == name_key("STRASSE")  # casefold, not lower
    assert normalize_name(None) == "" and tokenize("") == []


words = st.text(alphabet="abcxyzABCXYZéÉßÅåøØ0123456789", min_size=1, max_size=8)


@given(st.lists(words, min_size=1, max_size=5), st.sampled_from([" ", "  ", "\t", "_", "-", ". "]))
def test_key_ignores_case_and_separators(parts, sep):
    a = " ".join(parts)
    b = sep.join(p.upper() for p in parts)
    assert name_key(a) == name_key(b)
    assert normalize_name(normalize_name(a)) == normalize_name(a)


# --- BM25 index --------------------------------------------------------------------------

CORPUS = [
    "alice works at acme corp",
    "bob works at globex",
    "alice lives in paris",
    "acme corp is based in berlin berlin",
    "carol manages bob at globex",
    "",
]


def _reference_bm25(query, docs, k1=1.5, b=0.75):
    """Straightforward Okapi BM25 with Lucene IDF, one document at a time."""
    toks = [d.split() for d in docs]
    n = len(toks)
    avgdl = sum(len(t) for t in toks) / n
    out = []
    for d in toks:
        s = 0.0
        for q in set(query):
            df = sum(q in t for t in toks)
            tf = d.count(q)
            if tf:
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                s += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / avgdl))
        out.append(s)
    return np.array(out)


def _index(docs):
    ix = BM25Index()
    for d in docs:
        ix.add(d.split())
    return ix.freeze()


def test_bm25_matches_reference_formula_restricted_and_full():
    ix = _index(CORPUS)
    q = ["alice", "acme", "berlin", "unknownword"]
    ref = _reference_bm25(q, CORPUS)
    np.testing.assert_allclose(ix.score_all(q), ref, rtol=1e-5)
    subset = np.array([3, 0, 5])
    np.testing.assert_allclose(ix.score(q, subset), ref[subset], rtol=1e-5)
    assert ix.score(q, np.array([], dtype=np.int64)).size == 0


def test_bm25_ranks_like_rank_bm25():
    from rank_bm25 import BM25Okapi

    docs = [d.split() for d in CORPUS[:5]]
    q = ["alice", "works", "acme"]
    theirs = BM25Okapi(docs).get_scores(q)
    ours = _index(CORPUS[:5]).score_all(q)
    assert np.argmax(theirs) == np.argmax(ours) == 0


def test_bm25_normalized_is_one_for_a_full_match_and_lower_for_partial():
    ix = _index(CORPUS)
    full = ix.normalized("bob works at globex".split(), np.array([1]))[0]
    part = ix.normalized("bob works at initech".split(), np.array([1]))[0]
    assert 0.9 <= full <= 1.0
    assert part < full - 0.2
    assert ix.normalized([], np.array([0, 1])).tolist() == [0.0, 0.0]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from("abcdefg"), max_size=6), min_size=1, max_size=12),
    st.lists(st.sampled_from("abcdefgh"), max_size=4),
    st.data(),
)
def test_bm25_restricted_scores_equal_full_scores(docs, query, data):
    ix = BM25Index()
    for d in docs:
        ix.add(d)
    ix.freeze()
    subset = np.array(data.draw(st.lists(st.integers(0, len(docs) - 1), max_size=len(docs))), dtype=np.int64)
    np.testing.assert_allclose(ix.score(query, subset), ix.score_all(query)[subset], rtol=1e-5, atol=1e-6)
    norm = ix.normalized(query, subset)
    assert ((norm >= 0) & (norm <= 1)).all()


# --- matching ----------------------------------------------------------------------------

EMB = HashingEmbedder()


def _group(group_id, edges):
    ix = EdgeIndex(group_id)
    for uuid, src, name, tgt, fact in edges:
        ix.add(uuid, name, fact, src, tgt, embedding=EMB.embed([fact])[0])
    return ix.freeze()


G1 = [
    ("e1", "Alice Smith", "WORKS_AT", "Acme Corp", "Alice Smith works at Acme Corp as an engineer"),
    ("e2", "Alice Smith", "LIVES_IN", "Paris", "Alice Smith lives in Paris"),
    ("e3", "Bob", "WORKS_AT", "Globex", "Bob works at Globex"),
    ("e4", "Bob", "WORKS_AT", "Globex", "Bob works at Globex since 2020"),  # near-duplicate
    ("e5", "Carol", "MANAGES", "Bob", "Carol manages Bob in the sales team"),
    ("e6", "Dave", "KNOWS", "Erin", "Dave knows Erin from university"),
    ("e7", "Dave", "KNOWS", "Erin", "Dave knows Erin from university"),  # exact duplicate
    ("e8", "Acme Corp", "HEADQUARTERED_IN", "Berlin", "Acme Corp is headquartered in Berlin"),
    ("e9", "Acme Corp", "HAS_OFFICE_IN", "Berlin", "Acme Corp has an office in Berlin"),
]


def _matcher(**kw):
    return Matcher({"g1": _group("g1", G1), "g2": _group("g2", [("x1", "Alice Smith", "WORKS_AT", "Initech", "Alice Smith works at Initech")])}, **kw)


def _cand(subject, predicate, obj, fact, group="g1", cid="c"):
    return RelinkCandidate(cid, subject, predicate, obj, fact, group)


def _match(m, cand):
    return m.match(cand, EMB.embed([cand.fact or ""])[0])


def test_exact_match_with_changed_case_spacing_and_predicate_style():
    m = _matcher()
    r = _match(m, _cand("ALICE  smith", "works at", "acme-corp", "old wording"))
    assert (r.outcome, r.edge.uuid, r.edge.score) == ("exact", "e1", 1.0)
    r = _match(m, _cand("alice smith", "lives_in", None, None))  # no object, no fact: (s, p) is unique
    assert (r.outcome, r.edge.uuid) == ("exact", "e2")


def test_exact_match_stays_in_the_candidates_group():
    m = _matcher()
    assert _match(m, _cand("Alice Smith", "WORKS_AT", "Initech", "x", group="g1")).outcome != "exact"
    r = _match(m, _cand("Alice Smith", "WORKS_AT", "Initech", "x", group="g2"))
    assert (r.outcome, r.edge.uuid, r.edge.group_id) == ("exact", "x1", "g2")
    # a candidate without a group searches every group
    r = _match(m, _cand("Alice Smith", "WORKS_AT", "Initech", "x", group=None))
    assert (r.outcome, r.edge.uuid) == ("exact", "x1")


def test_exact_near_duplicates_are_told_apart_by_fact_or_reported_ambiguous():
    m = _matcher()
    r = _match(m, _cand("Bob", "WORKS_AT", "Globex", "Bob has worked at Globex since 2020"))
    assert (r.outcome, r.edge.uuid) == ("exact", "e4")
    assert "2 edges share it" in r.reason
    r = _match(m, _cand("Dave", "KNOWS", "Erin", "Dave knows Erin from university"))
    assert r.outcome == "ambiguous" and r.edge is None
    assert {t.uuid for t in r.top} == {"e6", "e7"} and "margin" in r.reason
    r = _match(m, _cand("Dave", "KNOWS", "Erin", None))
    assert r.outcome == "ambiguous" and "no fact" in r.reason


def test_renamed_predicate_matches_the_one_edge_from_subject_to_object():
    m = _matcher()
    r = _match(m, _cand("alice smith", "EMPLOYED_BY", "ACME-Corp", "Alice Smith is employed by Acme Corp as engineer"))
    assert (r.outcome, r.edge.uuid) == ("endpoints", "e1") and r.written and not r.sole
    # the endpoints decide, not the words: the fact text of e3 does not pull it elsewhere
    r = _match(m, _cand("Carol", "SUPERVISES", "Bob", "Bob works at Globex"))
    assert (r.outcome, r.edge.uuid) == ("endpoints", "e5")


def test_an_edge_the_other_way_is_never_a_match():
    m = _matcher()
    # e5 is Carol -> Bob; same words, opposite direction
    for pred in ("MANAGES", "MANAGED_BY"):
        r = _match(m, _cand("Bob", pred, "Carol", "Carol manages Bob in the sales team"))
        assert r.outcome == "unmatched" and r.edge is None and "other way" in r.reason
    r = _match(m, _cand("Berlin", "HOSTS", "Acme Corp", "Acme Corp is headquartered in Berlin"))
    assert r.outcome == "unmatched"


def test_several_edges_between_the_endpoints_are_decided_by_similarity():
    m = _matcher()
    r = _match(m, _cand("Acme Corp", "BASED_IN", "Berlin", "Acme Corp is headquartered in Berlin"))
    assert (r.outcome, r.edge.uuid) == ("endpoints", "e8") and len(r.top) == 2
    # a third, different fact between the same two: below min_similarity, not written
    r = _match(m, _cand("Acme Corp", "SUED", "Berlin", "Acme Corp sued the city over taxes"))
    assert r.outcome == "unmatched" and "min_similarity" in r.reason


def test_similar_for_a_name_changed_beyond_spelling():
    m = _matcher()
    r = _match(m, _cand("Smith", "RESIDES_IN", "Paris", "Alice Smith lives in Paris"))
    assert (r.outcome, r.edge.uuid) == ("similar", "e2")
    assert r.edge.bm25 is not None and r.edge.cosine is not None


def test_similar_ambiguous_within_margin_is_not_written():
    m = _matcher(margin=0.5)
    r = _match(m, _cand("Acme Corp", "LOCATED_IN", "Berlin", "Acme Corp is in Berlin"))
    assert r.outcome == "ambiguous" and not r.written
    assert [t.uuid for t in r.top] and set(t.uuid for t in r.top) == {"e8", "e9"}
    assert r.top[0].score >= r.top[1].score


def test_threshold_and_bm25_only_without_embeddings():
    m = _matcher(min_similarity=0.99)
    r = m.match(_cand("Alice Smith", "RESIDES", None, "Alice resides somewhere in France"))
    assert r.outcome == "unmatched" and "bm25 only" in r.reason
    assert r.top and r.top[0].cosine is None


def test_bad_candidates_and_empty_graph_are_unmatched_with_reasons():
    m = _matcher()
    assert "no subject" in _match(m, _cand("", "WORKS_AT", "Acme", "fact")).reason
    r = _match(m, _cand("Alice Smith", "LIKES", "Jazz", None))
    assert r.outcome == "unmatched" and "no fact" in r.reason
    r = _match(m, _cand("Zed", "KNOWS", "Yan", "Zed knows Yan"))
    assert r.outcome == "unmatched" and "plausibly named" in r.reason
    empty = Matcher({"g1": EdgeIndex("g1").freeze()})
    r = empty.match(_cand("Alice Smith", "WORKS_AT", "Acme Corp", "Alice works at Acme"))
    assert r.outcome == "unmatched" and "no RELATES_TO edges" in r.reason
    r = _match(m, _cand("Alice Smith", "WORKS_AT", "Acme Corp", "f", group="nope"))
    assert r.outcome == "unmatched"


def test_hub_pool_is_capped_by_bm25():
    edges = [(f"h{i}", "User", "MENTIONED", f"Topic {i}", f"User mentioned topic number {i}") for i in range(50)]
    edges.append(("target", "User", "LIKES", "Topic 7", "User really likes green tea"))
    m = Matcher({"g": _group("g", edges)}, pool_cap=5)
    prep = m.prepare(_cand("user", "ENJOYS", None, "the user likes green tea", group="g"))
    assert prep.mode == "similar" and sum(p.size for _, p in prep.pools) == 5
    r = m.decide(prep, EMB.embed(["the user likes green tea"])[0])
    assert (r.outcome, r.edge.uuid) == ("similar", "target")


def test_embeddings_of_another_dimension_fall_back_to_bm25():
    m = _matcher()
    other = HashingEmbedder(dim=64)
    cand = _cand("alice smith", "EMPLOYED_BY", None, "Alice Smith works at Acme Corp as an engineer")
    r = m.match(cand, other.embed([cand.fact])[0])
    assert r.outcome == "similar" and r.edge.cosine is None and "bm25 only" in r.reason


# --- across candidates -------------------------------------------------------------------


def test_an_edge_held_or_taken_by_a_different_fact_is_ambiguous():
    m = _matcher()
    renamed = _cand("Carol", "SUPERVISES", "Bob", "Carol supervises Bob", cid="r")
    exact = _cand("Carol", "MANAGES", "Bob", "Carol manages Bob", cid="x")
    pairs = [(c, _match(m, c)) for c in (renamed, exact)]
    settled = settle_claims(pairs)
    assert settled[1].outcome == "exact"  # a sole exact match keeps its edge
    assert settled[0].outcome == "ambiguous" and "x" in settled[0].reason
    # held by a candidate whose evidence already names it
    alone = settle_claims([pairs[0]], {"e5": [("h", fact_key(exact))]})
    assert alone[0].outcome == "ambiguous" and "h" in alone[0].reason
    # the same fact twice (duplicate candidates) may share the edge
    twin = _cand("CAROL", "SUPERVISES", "bob", "Carol supervises Bob.", cid="t")
    both = settle_claims([pairs[0], (twin, _match(m, twin))], {"e5": [("h", fact_key(renamed))]})
    assert [r.outcome for r in both] == ["endpoints", "endpoints"]


def test_unknown_names_match_known_ones_only_by_containment():
    edges = [
        ("n1", "auth-service", "RUNS", "weekly backup job", "auth-service runs the weekly backup job on Sundays"),
        ("n2", "auth-service", "DEPENDS_ON", "Redis Cache", "auth-service depends on Redis Cache for sessions"),
    ]
    m = Matcher({"g": _group("g", edges)})
    # shares words with "weekly backup job" but is another entity: a dropped fact, not written
    r = _match(m, _cand("auth-service", "RUNS", "nightly backup job", "auth-service runs the nightly backup job on Sundays", group="g"))
    assert r.outcome == "unmatched" and r.edge is None
    # "Redis" is contained in "Redis Cache": plausibly the same entity, decided by the fact
    r = _match(m, _cand("Auth Service", "NEEDS", "Redis", "auth-service depends on Redis for sessions", group="g"))
    assert (r.outcome, r.edge.uuid) == ("similar", "n2")


def test_the_issue_example_renamed_predicate_and_a_dropped_reversed_pair():
    edges = [
        ("p", "Billing DB", "SERVES_ON_PORT", "port 5432", "Billing DB accepts connections on port 5432"),
        ("d", "auth-service", "DEPENDS_ON", "redis-cache", "auth-service depends on redis-cache"),  # kept
    ]  # "redis-cache depends on auth-service" was dropped by the re-extraction
    m = Matcher({"g": _group("g", edges)})
    r = _match(m, _cand("billing-db", "LISTENS_ON", "Port 5432", "billing-db listens on port 5432", group="g"))
    assert (r.outcome, r.edge.uuid) == ("endpoints", "p")
    r = _match(m, _cand("Auth Service", "DEPENDS_ON", "Redis Cache", "auth-service depends on redis-cache", group="g"))
    assert (r.outcome, r.edge.uuid) == ("exact", "d")
    r = _match(m, _cand("redis-cache", "DEPENDS_ON", "auth-service", "redis-cache depends on auth-service", group="g"))
    assert r.outcome == "unmatched" and r.edge is None


@settings(max_examples=60, deadline=None)
@given(word=st.sampled_from(sorted(matching._CONNECTIVES)), years=st.lists(st.integers(1990, 2030), min_size=2,
                                                                            max_size=2, unique=True))
def test_sharing_only_a_connective_is_no_evidence_of_the_same_relation(word, years):
    """Two edges join the pair (a renamed relation and another one); the candidate shares nothing
    with either but a connective (and a differing number) with the wrong one: never written there."""
    ix = _group("g", [("right", "Wyndal Narhix", "ESTABLISHED", "Yorrenrix", "Yorrenrix was established by Wyndal Narhix"),
                      ("wrong", "Wyndal Narhix", "WORKS_AT", "Yorrenrix", f"Wyndal Narhix works at Yorrenrix {word} {years[0]}")])
    r = _match(Matcher({"g": ix}), _cand("Wyndal Narhix", "FOUNDED", "Yorrenrix",
                                         f"Wyndal Narhix founded Yorrenrix {word} {years[1]}", group="g"))
    assert not (r.written and r.edge.uuid == "wrong"), r


def test_a_sole_edge_one_way_is_not_taken_when_the_pair_is_also_joined_the_other_way():
    """The relation was renamed: the one edge from subject to object would be the match, unless edges
    join the two the other way too (then the renamed fact may be one of those): a miss, not a guess."""
    ix = _group("g", [("ab", "Ann", "WORKS_WITH", "Ben", "Ann works with Ben"),
                      ("ba", "Ben", "MENTORS", "Ann", "Ben mentors Ann")])
    r = _match(Matcher({"g": ix}), _cand("Ann", "MENTORED_BY", "Ben", "Ann is mentored by Ben", group="g"))
    assert r.outcome == "ambiguous" and not r.written and "other way" in r.reason
    alone = _group("g", [("ab", "Ann", "WORKS_WITH", "Ben", "Ann works with Ben")])
    r = _match(Matcher({"g": alone}), _cand("Ann", "COLLABORATES_WITH", "Ben", "Ann collaborates with Ben", group="g"))
    assert (r.outcome, r.edge.uuid) == ("endpoints", "ab")
