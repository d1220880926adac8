"""Randomized migrations (``migration_fixture.generate``: random names, predicates, rewordings,
reversals, drops, near-duplicates, two groups): relink never writes a wrong link and recovers
the resolvable candidates. The matching core runs in memory for many seeds; a few seeds run
the whole command on the embedded FalkorDB."""

from __future__ import annotations

import asyncio
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from migration_fixture import GROUPS, KINDS, Plan, generate, per_class  # noqa: E402

from graph_trust.clients.hashing import HashingEmbedder  # noqa: E402
from graph_trust.sync.relink import match_all, relink  # noqa: E402
from graph_trust.sync.relink.matching import EdgeIndex, Matcher, RelinkCandidate, fact_key, settle_claims  # noqa: E402

EMB = HashingEmbedder()


def relink_in_memory(plan: Plan, *, cosine: bool = True) -> dict[str, str]:
    """What relink writes for ``plan`` (candidate id -> edge id), with the edges' fact text as
    their uuid: the same prepare / decide / settle steps as the command, no graph."""
    indexes = {}
    for g in GROUPS:
        ix = EdgeIndex(g)
        facts = plan.facts[g]
        vecs = EMB.embed([f.fact for f in facts])
        for f, v in zip(facts, vecs, strict=True):
            ix.add(f"{g}:{f.fact}", f.predicate, f.fact, f.subject, f.object, embedding=v)
        indexes[g] = ix.freeze()
    cands = [RelinkCandidate(f"c{k}", c.subject, c.predicate, c.object, c.fact, c.group)
             for k, c in enumerate(plan.cases)]
    held: dict[str, list[tuple[str, str]]] = {}
    for k, (g, cand, edge) in enumerate(plan.current):
        c = RelinkCandidate(f"h{k}", cand.subject, cand.predicate, cand.object, cand.fact, g)
        held.setdefault(f"{g}:{edge.fact}", []).append((c.id, fact_key(c)))

    async def embed(texts):
        return EMB.embed(texts) if cosine else None

    async def vectors(gid, uuids):
        return {}  # the indexes hold them

    results = asyncio.run(match_all(Matcher(indexes), cands, embed=embed if cosine else None,
                                    embeddings_for=vectors if cosine else None))
    settled = settle_claims(list(zip(cands, results, strict=True)), held)
    return {c.id: r.edge.uuid for c, r in zip(cands, settled, strict=True) if r.written}


def score(plan: Plan, written: dict[str, str]) -> dict[str, dict]:
    cases = {f"c{k}": c for k, c in enumerate(plan.cases)}
    expected = {cid: (f"{c.group}:{c.expect.fact}" if c.expect else None) for cid, c in cases.items()}
    return per_class(cases, expected, written)


def _check(table: dict[str, dict], min_recall: float) -> None:
    wrong = {k: v["wrong_writes"] for k, v in table.items() if v["wrong_writes"]}
    assert not wrong, f"wrong writes: {table}"
    resolvable = sum(v["resolvable"] for v in table.values())
    correct = sum(v["correct"] for v in table.values())
    assert correct >= min_recall * resolvable, table


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), synthetic=st.booleans(), cosine=st.booleans())
def test_random_migrations_never_write_a_wrong_link(seed, synthetic, cosine):
    """No wrong link on any plan. One plan has about 35 resolvable candidates, so its recall
    varies with the draw (over 800 plans: mean 0.983, 1st percentile 0.927, minimum 0.897); the
    floor here is the per-plan tail, the aggregate is held to more below."""
    plan = generate(seed, per_class=8, synthetic=synthetic)
    table = score(plan, relink_in_memory(plan, cosine=cosine))
    assert set(table) == set(KINDS)
    _check(table, 0.85)


def test_random_migrations_recover_nearly_every_resolvable_candidate_in_aggregate():
    resolvable = correct = 0
    for seed in random.Random(7).sample(range(10**6), 30):
        plan = generate(seed, per_class=8, synthetic=seed % 2 == 0)
        table = score(plan, relink_in_memory(plan, cosine=seed % 3 != 0))
        _check(table, 0.85)
        resolvable += sum(v["resolvable"] for v in table.values())
        correct += sum(v["correct"] for v in table.values())
    assert correct >= 0.97 * resolvable, (correct, resolvable)


def test_fixed_fixture_per_class_in_memory():
    plan = generate(15, 32)
    table = score(plan, relink_in_memory(plan))
    for kind, row in table.items():
        assert row["candidates"] >= 30, (kind, row)
        assert row["wrong_writes"] == 0, (kind, row)
        if row["resolvable"]:
            assert row["correct"] >= 0.95 * row["resolvable"], (kind, row)


@pytest.mark.parametrize("seed", random.Random(2026).sample(range(10**6), 3))
async def test_random_migrations_on_the_graph_never_write_a_wrong_link(graph, settings, tmp_path, unique, seed):
    """The whole command (graph reads, embedding check, review-DB writes) on random migrations."""
    from migration_fixture import build_migration, evidence_column, written_ids

    m = await build_migration(graph, EMB, tmp_path, f"r{unique}", plan=generate(seed, 6, synthetic=seed % 2 == 0))
    before = evidence_column(m.review_db)
    await relink(settings, review_db=str(m.review_db), conn=graph)
    table = per_class(m.cases, m.expected, written_ids(before, evidence_column(m.review_db)))
    _check(table, 0.9)
