"""The review side compares slots as search does (:func:`graph_trust.search.slots.slot_key`: one
subject, one relation however its name is written): a fact's competitors on the review page are
the other edges of its slot, and the queue's exposure counts a subject's slots the same way."""

from __future__ import annotations

from builders import Fact
from hypothesis import given
from hypothesis import strategies as st
from sync_fixtures import build

from graph_trust import api
from graph_trust.config import ReviewQueueSettings
from graph_trust.review.rules import QueueInputs, SlotEdge, exposure

FACTS = [
    Fact("billing-db", "RUNS_ON", "db-host-1", "billing-db runs on db-host-1"),
    Fact("billing-db", "runs on", "db-host-2", "billing-db runs on db-host-2 since the move"),
    Fact("billing-db", "Runs-On", "db-host-3", "billing-db ran on db-host-3 last year"),
    Fact("billing-db", "OWNED_BY", "team-data", "billing-db is owned by team-data"),
    Fact("auth-service", "RUNS_ON", "db-host-1", "auth-service runs on db-host-1"),
]


async def test_a_facts_competitors_are_the_edges_of_its_slot_however_the_relation_is_written(graph, settings,
                                                                                           tmp_path, unique):
    group = f"g_{unique}"
    uuids = await build(graph, group, FACTS)
    settings.review.url = str(tmp_path / "review.sqlite3")
    api.init_review_db(settings.review.url)
    for i, own in enumerate(FACTS[:3]):
        view = await api.review_fact(settings, uuids[own.fact], graph=graph)
        assert {c["uuid"] for c in view["competitors"]} == {uuids[f.fact] for j, f in enumerate(FACTS[:3]) if j != i}
    owner = await api.review_fact(settings, uuids[FACTS[3].fact], graph=graph)
    assert owner["competitors"] == []  # another relation of the subject: no competitor


SPELLINGS = st.sampled_from(["RUNS_ON", "runs on", "Runs-On", " runs_on ", "OWNED_BY", "owned by", "DEPENDS_ON"])


@given(st.lists(st.tuples(st.sampled_from(["s1", "s2", "s3"]), SPELLINGS), min_size=1, max_size=12))
def test_the_queue_counts_a_subjects_slots_by_the_slot_key(edges):
    inp = QueueInputs(slots=[SlotEdge(f"e{i}", "g", s, p, f"o{i}", f"o{i}", f"fact {i}", True)
                             for i, (s, p) in enumerate(edges)])
    model = exposure(inp, ReviewQueueSettings())
    for subject in {s for s, _ in edges}:
        relations = {"_".join(p.replace("-", " ").replace("_", " ").split()).upper() for s, p in edges if s == subject}
        assert len(model.subject_slots[subject]) == len(relations)
