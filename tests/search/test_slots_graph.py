"""Which relations hold one value, end to end on a real embedded FalkorDB: a generated graph mixing
single- and multi-valued relations, review decisions synced onto it, and trust search learning
from what sync wrote (the rule of graph_trust.search.slots, computed here the plain way), never
moving a fact of a multi-valued relation as a competitor, and learning again after the next sync
(the trust-state token changes)."""

from __future__ import annotations

import random

import pytest
from builders import Fact
from relation_rule import plain_rule
from sync_fixtures import build, review_db, row, set_rows

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.config import SyncSettings
from graph_trust.search import trust_search as gt
from graph_trust.search.slots import relation_key
from graph_trust.sync import run_sync

SUBJECTS = ["payments-api", "auth-service", "billing-db", "search-indexer"]
OBJECTS = ["app-01", "app-02", "app-03", "team-a", "team-b"]
RELATIONS = ["RUNS_ON", "OWNED_BY", "DEPENDS_ON", "LISTENS_ON"]
DECISIONS = ["promoted", "corroborated", "candidate", "rejected", None]


def _world(seed: int) -> tuple[list[Fact], dict[str, str | None]]:
    rnd = random.Random(seed)
    facts, status = [], {}
    for s in SUBJECTS:
        for rel in rnd.sample(RELATIONS, 3):
            for o in rnd.sample(OBJECTS, rnd.randint(1, 3)):
                text = f"{s} {rel.lower().replace('_', ' ')} {o}"
                facts.append(Fact(s, rel, o, text))
                status[text] = rnd.choice(DECISIONS)
    # one slot every world has: a schedule reviewers settled (one value verified, the other rejected)
    for o, st in (("02:00 UTC", "promoted"), ("03:00 UTC", "rejected")):
        facts.append(Fact("nightly-backup", "SCHEDULED_AT", o, f"the nightly backup runs at {o}"))
        status[facts[-1].fact] = st
    return facts, status


def _rule(facts: list[Fact], status: dict[str, str | None]) -> dict[str, str]:
    return plain_rule([(f.subject, f.predicate, f.object, status[f.fact]) for f in facts])


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_search_learns_from_synced_decisions_and_never_competes_multi_valued_facts(graph, settings, tmp_path,
                                                                                         unique, seed):
    group = f"g_{unique}"
    facts, status = _world(seed)
    uuids = await build(graph, group, facts)
    rows = [row(f"c{i}", uuids[f.fact], status[f.fact], group) for i, f in enumerate(facts) if status[f.fact]]
    db = review_db(tmp_path / "review.sqlite3", rows)
    s = settings.model_copy(update={"sync": SyncSettings()})
    await run_sync(s, review_db=db, graph=graph)
    driver = graph.for_group(group).driver
    embedder = HashingEmbedder()
    config = gt.EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(update={"limit": 50})

    async def search(query: str):
        return await gt.trust_search(driver, query, config, group_ids=[group], embedder=embedder)

    res = await search("payments-api auth-service runs on owned by depends on")
    expected = _rule(facts, status)
    assert {k: v.cardinality for k, v in res.relations.learned.items()} == expected
    rel_of = {uuids[f.fact]: f.predicate for f in facts}
    for query in ("which host does payments-api run on", "who owns billing-db", "auth-service depends on"):
        found = await search(query)
        verdicts = found.relation_verdicts()
        for e, x in zip(found.edges, found.edge_explanations, strict=True):
            holds = verdicts[relation_key(e.name)]["holds"]
            assert holds == expected.get(rel_of[e.uuid], "single")
            if x.moved_by == "competitors":
                assert holds == "single", (query, e.fact)
            if holds == "multi":
                assert x.relation_bonus == 0.0
    # the settled schedule holds one value; a reviewer promotes its rejected value too: after the
    # next sync search learns again without restarting, and one subject with two verified values
    # is too little to say the relation holds several (the default decides)
    assert expected["SCHEDULED_AT"] == "single"
    assert res.relations.learned["SCHEDULED_AT"].source == "review"
    idx = next(i for i, f in enumerate(facts) if f.object == "03:00 UTC")
    set_rows(db, "UPDATE candidates SET status = 'promoted', updated_at = '2030-01-01T00:00:00Z' WHERE id = ?",
             (f"c{idx}",))
    await run_sync(s, review_db=db, graph=graph)
    again = await search("payments-api auth-service runs on owned by depends on")
    learned = again.relations.learned["SCHEDULED_AT"]
    assert learned.cardinality == "single" and learned.source == "default"
    assert learned.reason.startswith("1 subject with several verified values, 0 with one ('nightly-backup' has 2")
