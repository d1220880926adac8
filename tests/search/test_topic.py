"""The topic guard (search.topic_guard): trust lifts only facts that state the identifiers the
query names. The matcher over generated identifiers and texts; the guard's whole promise over
random pools (an off-topic fact's trust changes nothing: not its boost, its relation bonus or
its group's order); and on a real graph, through the CLI."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from builders import Fact, build_graph
from cli_helpers import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.config import RankingSettings
from graph_trust.search.topic import identifiers, missing_identifiers
from graph_trust.search.trust_search import EDGE_HYBRID_SEARCH_RRF_TRUST, _Pool, _rank

# identifiers as ops graphs spell them: INC-3090, db-host-1, 10.0.0.5, api/v2, 8443
PART = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=6)
NUM = st.integers(0, 99999).map(str)
IDENT = st.builds(lambda parts, seps: "".join(p + s for p, s in zip(parts, seps + [""], strict=False)),
                  st.lists(st.one_of(PART, NUM), min_size=1, max_size=4),
                  st.lists(st.sampled_from("-./"), min_size=3, max_size=3)
                  ).filter(lambda t: re.search(r"\d", t) is not None and re.fullmatch(r"[A-Za-z0-9][\w./-]*", t)
                           and not re.search(r"[./-]{2}|[./-]$", t))
WORDS = st.lists(st.sampled_from(["the", "root", "cause", "of", "was", "a", "leak", "runs", "on", "port"]),
                 max_size=5).map(" ".join)


def test_identifiers_are_the_tokens_with_a_digit():
    assert identifiers("why did INC-3090 happen") == ["inc-3090"]
    assert identifiers("RTO of config-etcd") == []  # no digit: a name, paraphrased as often as not
    assert identifiers("host 10.0.0.5, api/v2 and port 8443. Again 8443?") == ["10.0.0.5", "api/v2", "8443"]
    assert identifiers("") == [] and identifiers("on-call this week") == []


@given(IDENT, WORDS, WORDS, st.sampled_from(["", ".", ",", "'s", ":80", ")", "!"]), st.booleans())
@settings(max_examples=300)
def test_a_text_states_an_identifier_as_a_whole_token_in_any_case(ident, before, after, tail, upper):
    shown = ident.upper() if upper else ident.lower()
    assert identifiers(f"{before} {ident} {after}") == [ident.lower()]
    text = f"{before} ({shown}{tail} {after}"
    assert missing_identifiers(ident, [text, "nothing here"]) == [None, ident.lower()]


@given(IDENT, st.sampled_from(["x", "7", "-a", "-9", "/b", ".5"]), st.sampled_from(["X", "3", "a-", "9.", "b/"]))
@settings(max_examples=300)
def test_a_longer_token_does_not_state_it(ident, suffix, prefix):
    texts = [f"about {ident} only", f"about {ident}{suffix} only", f"about {prefix}{ident} only"]
    assert missing_identifiers(ident, texts) == [None, ident.lower(), ident.lower()]


@given(st.lists(IDENT, min_size=1, max_size=3, unique_by=str.lower), st.lists(st.lists(st.booleans(), min_size=3,
       max_size=3), min_size=1, max_size=8))
def test_the_guard_applies_only_when_some_text_states_every_identifier(idents, masks):
    query = "what about " + " and ".join(idents)
    texts = [" ".join(i for i, keep in zip(idents, mask, strict=False) if keep) or "none" for mask in masks]
    states_all = [all(mask[: len(idents)]) for mask in masks]
    got = missing_identifiers(query, texts)
    if not any(states_all):
        assert got is None
    else:
        assert [m is None for m in got] == states_all
        for m, mask in zip(got, masks, strict=False):
            if m is not None:  # the first identifier (in query order) the text lacks
                assert m == idents[mask.index(False)].lower()


# --- the guard's promise over random pools -------------------------------------------------

BASE = datetime(2026, 1, 1, tzinfo=UTC)
QUERY = "why did INC-3090 happen"


@st.composite
def pools(draw):
    """A random edge pool: facts on or off the query's topic, trust, statuses, competitor groups,
    valid_at, past invalid_at, and the BM25/cosine lists that rank them."""
    n = draw(st.integers(2, 40))
    items = []
    for i in range(n):
        on = draw(st.booleans())
        subject = draw(st.integers(0, 4))
        items.append(SimpleNamespace(
            uuid=f"e{i}", name=draw(st.sampled_from(["CAUSED_BY", "IMPACT"])),
            source_node_uuid=f"s{subject}", target_node_uuid=f"t{draw(st.integers(0, 3))}",
            fact=f"The root cause of {'INC-3090' if on else 'INC-3055'} was thing {i}.",
            attributes={k: v for k, v in (("trust_score", draw(st.one_of(st.none(), st.floats(0, 1)))),
                                          ("trust_status", draw(st.sampled_from([None, "promoted", "rejected",
                                                                                 "expired"])))) if v is not None},
            valid_at=BASE + timedelta(days=draw(st.integers(0, 300))), created_at=BASE,
            invalid_at=BASE if draw(st.integers(0, 9)) == 0 else None, expired_at=None))
    if all("INC-3055" in x.fact for x in items):
        items[0].fact = "INC-3090 was caused by a leak."
    bm25 = draw(st.permutations(items))[: draw(st.integers(0, n))]
    cosine = draw(st.permutations(items))[: draw(st.integers(1 if not bm25 else 0, n))]
    return items, bm25, cosine


def _ranked(items, bm25, cosine, config):
    pool = _Pool.from_lists(["bm25", "cosine"], [list(bm25), list(cosine)], config.rank_const)
    weight = RankingSettings().trust_weight if config.trust_weight is None else config.trust_weight
    found, scores, expl = _rank(pool, "edge", weight, config, True, None, QUERY)
    return [x.uuid for x in found], scores, expl


@given(pools(), st.sampled_from(["best", "sum"]), st.floats(0.0, 0.5), st.sampled_from([0.0, 0.5]))
@settings(max_examples=200, deadline=None)
def test_an_off_topic_facts_trust_changes_nothing(drawn, mode, relation_weight, min_boost_trust):
    items, bm25, cosine = drawn
    config = EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(update={
        "limit": 50, "relation_mode": mode, "relation_weight": relation_weight, "min_boost_trust": min_boost_trust})
    order, scores, expl = _ranked(items, bm25, cosine, config)
    applies = any("INC-3090" in x.fact for x in [*bm25, *cosine])  # some candidate states it
    for e in expl:
        if "INC-3055" in e.text and applies:
            assert e.missing_identifier == "inc-3090" and e.boost == 0.0 and e.relation_bonus == 0.0
        else:
            assert e.missing_identifier is None
    for x in items:  # the same pool with every off-topic fact's trust taken away
        if "INC-3055" in x.fact and applies:
            x.attributes = {k: v for k, v in x.attributes.items() if k != "trust_score"}
    order2, scores2, _ = _ranked(items, bm25, cosine, config)
    assert order2 == order and scores2 == scores


@given(pools())
@settings(max_examples=50, deadline=None)
def test_with_the_guard_off_nothing_is_withheld(drawn):
    items, bm25, cosine = drawn
    config = EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(update={"limit": 50, "topic_guard": False})
    _, _, expl = _ranked(items, bm25, cosine, config)
    assert all(e.missing_identifier is None for e in expl)


def test_a_promoted_fact_about_another_incident_keeps_its_place_behind_a_tie():
    """The bundled set's "why did INC-3090 happen": an unreviewed fact about INC-3090 and a
    promoted one about INC-3055 tie on fused score (BM25 1st and 3rd, cosine 3rd and 1st)."""
    asked = SimpleNamespace(uuid="asked", name="IMPACT", source_node_uuid="s1", target_node_uuid="t1",
                            fact="INC-3090 degraded checkout for 21 minutes.", attributes={},
                            valid_at=BASE, created_at=BASE, invalid_at=None, expired_at=None)
    other = SimpleNamespace(uuid="other", name="CAUSED_BY", source_node_uuid="s2", target_node_uuid="t2",
                            fact="The root cause of INC-3055 was a schema migration.",
                            attributes={"trust_score": 1.0, "trust_status": "promoted"},
                            valid_at=BASE, created_at=BASE, invalid_at=None, expired_at=None)
    filler = SimpleNamespace(uuid="filler", name="X", source_node_uuid="s3", target_node_uuid="t3",
                             fact="Something else.", attributes={}, valid_at=BASE, created_at=BASE,
                             invalid_at=None, expired_at=None)
    on = EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(update={"limit": 10})
    order, scores, expl = _ranked([asked, other, filler], [asked, filler, other], [other, filler, asked], on)
    assert order == ["asked", "other", "filler"] and scores[0] == scores[1]
    assert expl[1].missing_identifier == "inc-3090" and expl[1].boost == 0.0
    off = on.model_copy(update={"topic_guard": False})
    order, scores, _ = _ranked([asked, other, filler], [asked, filler, other], [other, filler, asked], off)
    assert order == ["other", "asked", "filler"] and math.isclose(scores[0] - scores[1], RankingSettings().trust_weight * 2 / 3)  # supported: 2 / (worst rank 3)


INCIDENTS = [
    Fact("INC-3090", "IMPACT", "checkout", "INC-3090 degraded checkout and login for 21 minutes."),
    Fact("INC-3055", "CAUSED_BY", "migration", "The root cause of INC-3055 was a schema migration.", trust=1.0),
    Fact("INC-3012", "CAUSED_BY", "flag", "The root cause of INC-3012 was a bad feature-flag rollout.", trust=0.6),
    Fact("billing-db", "RUNS_ON", "db-host-1", "billing-db runs on db-host-1."),
]


async def test_cli_explain_and_json_say_which_identifier_a_trusted_fact_lacks(graph, settings, unique, tmp_path):
    group = f"g_{unique}"
    uuids = await build_graph(graph.for_group(group).driver, HashingEmbedder(), INCIDENTS, group)
    args = ("search", "why did INC-3090 happen", "--graph", settings.graph.uri, "--group", group)
    env = {"GRAPH_TRUST_STATE_DIR": str(settings.state_dir)}
    r = run_cli(*args, "--json", env=env, cwd=tmp_path)
    assert r.code == 0, r.err
    by = {h["uuid"]: h for h in r.json()["results"]}
    other = by[uuids["The root cause of INC-3055 was a schema migration."]]
    asked = by[uuids["INC-3090 degraded checkout and login for 21 minutes."]]
    assert other["missing_identifier"] == "inc-3090" and other["boost"] == 0.0 and other["trust_score"] == 1.0
    assert asked["missing_identifier"] is None and asked["rank"] == 1
    r = run_cli(*args, "--explain", env=env, cwd=tmp_path)
    assert r.code == 0, r.err
    line = next(ln for ln in r.out.splitlines() if ln.lstrip().startswith(str(other["rank"]) + " "))
    assert "0 (lacks inc-3090)" in line
    (tmp_path / "off.yaml").write_text("search:\n  topic_guard: false\n")
    r = run_cli(*args, "--json", "--config", str(tmp_path / "off.yaml"), env=env, cwd=tmp_path)
    assert r.code == 0, r.err
    assert all(h["missing_identifier"] is None for h in r.json()["results"])
