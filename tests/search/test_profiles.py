"""``search.profile`` against Graphiti's own ``search_``, on a graph where trust, review statuses,
Graphiti's invalidation and competing facts are all present:

- ``graphiti`` is exactly ``search_`` (items, order, scores), whatever the trust;
- ``reference`` is ``search_`` at weight 0 and the additive formula ``rrf + trust_score * trust_weight`` above it;
- ``default`` moves an item away from Graphiti's order only with a reason its explanation
  names: a trust boost, a relation bonus, negative evidence or a rule that moved it.

And the declaration: every rule module is in :data:`graph_trust.search.rules.ORDER`, and every
profile ranks.
"""

from __future__ import annotations

import pkgutil
from datetime import UTC, datetime

import pytest
from builders import Fact, assert_same_up_to_tie_order, build_graph, copy_recipe, expected_boosted
from graphiti_core.search import search_config_recipes as recipes

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.config import PROFILES, RankingSettings, load_settings
from graph_trust.search import fusion, ranking, rules
from graph_trust.search import trust_search as gt
from graph_trust.search.ranked import search_config

PAST = datetime(2025, 6, 1, tzinfo=UTC)
FACTS = [
    Fact("billing-db", "BACKUP_AT", "02:00 UTC", "The nightly backup of billing-db runs at 02:00 UTC",
         properties={"trust_status": "rejected"}, trust=0.0),
    Fact("billing-db", "BACKUP_AT", "03:00 UTC", "The billing-db backup job runs at 03:00 UTC every night", trust=1.0,
         at=datetime(2026, 2, 1, tzinfo=UTC)),
    Fact("billing-db", "BACKUP_AT", "04:00 UTC", "billing-db backups ran at 04:00 UTC before the move",
         invalid_at=PAST),
    Fact("billing-db", "RUNS_ON", "db-host-1", "billing-db runs on db-host-1", trust=0.6),
    Fact("billing-db", "OWNED_BY", "team-data", "billing-db is owned by team-data"),
    Fact("auth-service", "LISTENS_ON", "8080", "auth-service listens on port 8080",
         properties={"trust_status": "expired"}, trust=0.0),
    Fact("auth-service", "LISTENS_ON", "8443", "auth-service listens on port 8443 with TLS", trust=1.0),
    Fact("payments-api", "OWNED_BY", "team-pay", "payments-api is owned by team-pay", trust=1.0),
    Fact("payments-api", "OWNED_BY", "team-core", "payments-api is owned by team-core", invalid_at=PAST, trust=1.0),
    Fact("cron-host", "RUNS", "backup job", "cron-host runs the backup job for billing-db nightly"),
    Fact("log-shipper", "RUNS_ON", "db-host-1", "log-shipper runs on db-host-1 and ships backup logs"),
    Fact("team-data", "ON_CALL", "alice", "alice is on call for team-data this week", trust=0.6),
]
QUERIES = ["billing-db backup", "auth-service port", "payments-api owner", "backup job host", "on call"]


@pytest.fixture
async def ograph(graph, unique):
    embedder = HashingEmbedder()
    group = f"g_{unique}"
    await build_graph(graph.for_group(group).driver, embedder, FACTS, group)
    return make_graphiti(graph.for_group(group).driver, embedder=embedder), group


def _profile(recipe, profile: str, limit: int):
    return copy_recipe(recipe, limit).model_copy(update={"profile": profile})


@pytest.mark.parametrize("query", QUERIES)
async def test_graphiti_profile_is_search_whatever_the_trust(ograph, query):
    graphiti, group = ograph
    for vanilla_recipe, trust_recipe in [(recipes.EDGE_HYBRID_SEARCH_RRF, gt.EDGE_HYBRID_SEARCH_RRF_TRUST),
                                         (recipes.NODE_HYBRID_SEARCH_RRF, gt.NODE_HYBRID_SEARCH_RRF_TRUST)]:
        for limit in (3, 10):
            vanilla = await graphiti.search_(query, config=copy_recipe(vanilla_recipe, limit), group_ids=[group])
            ours = await gt.trust_search(graphiti, query, config=_profile(trust_recipe, "graphiti", limit),
                                         group_ids=[group])
            assert [e.uuid for e in ours.edges] == [e.uuid for e in vanilla.edges]
            assert ours.edge_reranker_scores == vanilla.edge_reranker_scores
            assert [n.uuid for n in ours.nodes] == [n.uuid for n in vanilla.nodes]
            assert ours.node_reranker_scores == vanilla.node_reranker_scores


async def test_graphiti_profile_from_the_settings_is_search_(ograph):
    """The profile set in the configuration (not a recipe) gives the same: the settings path."""
    graphiti, group = ograph
    s = load_settings(overrides={"search.profile": "graphiti"}, environ={})
    assert s.search.trust_weight == 0.0 and s.search.competitors == "none" and not s.search.negative_statuses
    for query in QUERIES:
        vanilla = await graphiti.search_(query, config=copy_recipe(recipes.EDGE_HYBRID_SEARCH_RRF, 10),
                                         group_ids=[group])
        ours = await gt.trust_search(graphiti, query, config=search_config(s, limit=10), group_ids=[group])
        assert [e.uuid for e in ours.edges] == [e.uuid for e in vanilla.edges]
        assert ours.edge_reranker_scores == vanilla.edge_reranker_scores


@pytest.mark.parametrize("query", QUERIES)
async def test_reference_profile_is_search_at_weight_0_and_the_additive_formula_above(ograph, query):
    graphiti, group = ograph
    vanilla = await graphiti.search_(query, config=copy_recipe(recipes.EDGE_HYBRID_SEARCH_RRF, 10), group_ids=[group])
    at0 = await gt.trust_search(graphiti, query, config=_profile(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, "reference", 10),
                                group_ids=[group], trust_weight=0.0)
    assert_same_up_to_tie_order([e.uuid for e in at0.edges], at0.edge_reranker_scores,
                                [e.uuid for e in vanilla.edges], vanilla.edge_reranker_scores)
    pool = await gt.trust_search(graphiti, query, config=_profile(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, "reference", 100),
                                 group_ids=[group], trust_weight=0.0)
    w = 0.15
    boosted = await gt.trust_search(graphiti, query,
                                    config=_profile(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, "reference", 100),
                                    group_ids=[group], trust_weight=w)
    trust = {f.fact: (f.trust if f.invalid_at is None else None) or 0.0 for f in FACTS}
    for e in boosted.edge_explanations:
        assert e.final == pytest.approx(e.fused + trust[e.text] * w)
        assert e.moved_by is None and e.negative is None and e.relation_bonus == 0.0
    limit = min(5, len(pool.edges) - 1)
    try:
        _, order = expected_boosted(pool.edge_explanations, FACTS, w, limit)
    except AssertionError:  # ties in the expected order: nothing to compare beyond the scores
        return
    assert [e.uuid for e in boosted.edges[:limit]] == order


@pytest.mark.parametrize("query", QUERIES)
async def test_default_profile_moves_an_item_only_with_a_named_reason(ograph, query):
    graphiti, group = ograph
    vanilla = await graphiti.search_(query, config=copy_recipe(recipes.EDGE_HYBRID_SEARCH_RRF, 100),
                                     group_ids=[group])
    ours = await gt.trust_search(graphiti, query, config=copy_recipe(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, 100),
                                 group_ids=[group])
    assert {e.uuid for e in ours.edges} == {e.uuid for e in vanilla.edges}
    # Graphiti's order with equal scores in the documented order (by uuid)
    keyed = sorted(zip(vanilla.edge_reranker_scores, (e.uuid for e in vanilla.edges), strict=True),
                   key=lambda t: (-t[0], t[1]))
    graphiti_rank = {u: r for r, (_, u) in enumerate(keyed, start=1)}
    for e in ours.edge_explanations:
        reason = e.boost or e.relation_bonus or e.negative or e.moved_by
        if not reason:  # no rule touched it: only others' moves can have shifted it
            assert e.final == e.fused
        assert e.rank_without_boost == graphiti_rank[e.uuid]
    reasons = [e for e in ours.edge_explanations if e.boost or e.relation_bonus or e.negative or e.moved_by]
    if not reasons:
        assert [e.uuid for e in ours.edges] == [e.uuid for e in vanilla.edges]


def test_every_rule_module_is_declared_once():
    modules = {m.name for m in pkgutil.iter_modules(rules.__path__)} - {"base"}
    declared = {fn.__module__.rpartition(".")[2] for fn in rules.ORDER.values()}
    assert modules == declared
    assert len(set(rules.ORDER.values())) == len(rules.ORDER)


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_profile_ranks(profile):
    s = RankingSettings(profile=profile)
    for key, value in PROFILES[profile].items():
        assert getattr(s, key) == value
    pool = fusion.fuse([["a", "b", "c", "d"], ["c", "a", "d"]], ["bm25", "cosine"])
    ranked = ranking.rank_pool(pool, [None, 1.0, 0.0, 0.6], ranking.RuleParams.of(s, weight=s.trust_weight),
                               ranking.PoolFacts.given(negative=[None, None, "rejected", None],
                                                       groups=[("s", "R")] * 4))
    assert sorted(ranked.order.tolist()) == [0, 1, 2, 3]


def test_an_explicit_key_overrides_the_profile():
    s = load_settings(overrides={"search.profile": "reference", "search.competitors": "trust",
                                 "search.relation_weight": 0.2}, environ={})
    assert (s.search.competitors, s.search.relation_weight, s.search.boost_form) == ("trust", 0.2, "additive")
    recipe = gt.TrustSearchConfig(profile="graphiti", trust_weight=0.1)
    assert recipe.trust_weight == 0.1 and recipe.negative_statuses == []
    copied = gt.EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(update={"profile": "graphiti"})
    assert copied.trust_weight == 0.0 and copied.competitors == "none"
    assert gt.EDGE_HYBRID_SEARCH_RRF_TRUST.competitors == "trust_recency"  # the shared recipe is untouched
