"""Adding a rule is one module and one line in ``ORDER``: a rule written in a module of its own (a
temporary file, imported like any module, nothing else edited), put in ``ORDER``, runs in the real
search on a real graph. It reads the pool facts it declares and computes the rest of its input
from the pool's items and the settings; its score term reaches the scores and the explanations.
And the pipeline computes the facts the rules of ``ORDER`` declare, and no others.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from builders import Fact, build_graph, copy_recipe
from paths import REPO

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.search import fusion, rules
from graph_trust.search import trust_search as gt
from graph_trust.search.pool_facts import FACTS as POOL_FACTS
from graph_trust.search.pool_facts import PoolFacts
from graph_trust.search.rules.base import RuleParams, reads

# The rule: an edge whose ``pinned`` property is true (a property no other code knows) gets PIN
# added to its score, unless it carries negative evidence (a fact it declares it reads).
RULE = '''
"""Pinned facts score PIN more, unless they carry negative evidence."""

from dataclasses import replace

import numpy as np

from graph_trust.search.rules.base import reads

PIN = 10.0  # more than any fused score and boost: a pinned fact goes first


@reads("neg")
def apply(state, params):
    items = state.facts.items
    pinned = np.fromiter(((x.attributes or {}).get("pinned") is True for x in items), dtype=bool, count=len(items))
    if state.neg is not None:
        pinned &= ~state.neg
    return replace(state, terms=(*state.terms, np.where(pinned, PIN, 0.0)))
'''

FACTS = [
    Fact("billing-db", "BACKUP_AT", "03:00 UTC", "The billing-db backup job runs at 03:00 UTC every night", trust=1.0),
    Fact("billing-db", "RUNS_ON", "db-host-1", "billing-db runs on db-host-1", trust=0.6),
    Fact("billing-db", "OWNED_BY", "team-data", "billing-db is owned by team-data"),
    Fact("cron-host", "RUNS", "backup job", "cron-host runs the backup job for billing-db nightly"),
    Fact("log-shipper", "SHIPS", "backup logs", "log-shipper ships backup logs of billing-db",
         properties={"pinned": True}),
    Fact("archive", "KEEPS", "backup copies", "archive keeps old backup copies of billing-db",
         properties={"pinned": True, "trust_status": "rejected"}),
]
PINNED, REJECTED = FACTS[4].fact, FACTS[5].fact
QUERY = "billing-db backup"


def _rule_module(tmp_path, monkeypatch):
    (tmp_path / "pinned_rule.py").write_text(RULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module("pinned_rule")


def _with_rule(monkeypatch, name, rule, before="sort"):
    """ORDER with ``rule`` added before ``before``: the one line a new rule adds."""
    order = {}
    for key, value in rules.ORDER.items():
        if key == before:
            order[name] = rule
        order[key] = value
    monkeypatch.setattr(rules, "ORDER", order)


@pytest.fixture
async def pgraph(graph, unique):
    embedder = HashingEmbedder()
    group = f"g_{unique}"
    await build_graph(graph.for_group(group).driver, embedder, FACTS, group)
    return make_graphiti(graph.for_group(group).driver, embedder=embedder), group


async def test_a_rule_in_a_new_module_and_one_line_of_order_runs_in_the_search(pgraph, tmp_path, monkeypatch):
    graphiti, group = pgraph
    recipe = copy_recipe(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, 10)
    before = await gt.trust_search(graphiti, QUERY, config=recipe, group_ids=[group])
    texts = [e.text for e in before.edge_explanations]
    assert PINNED in texts and REJECTED in texts and texts[0] != PINNED  # relevance alone does not put it first

    module = _rule_module(tmp_path, monkeypatch)
    _with_rule(monkeypatch, "pinned", module.apply)
    after = await gt.trust_search(graphiti, QUERY, config=recipe, group_ids=[group])
    by_text = {e.text: e for e in after.edge_explanations}
    top = after.edge_explanations[0]
    assert top.text == PINNED and top.rank == 1
    assert top.final == pytest.approx(top.fused + top.boost + top.relation_bonus + module.PIN)
    assert after.edge_reranker_scores[0] == top.final
    # the fact the rule declared it reads: negative evidence is not lifted
    rejected, was = by_text[REJECTED], before.edge_explanations[texts.index(REJECTED)]
    assert rejected.negative == "rejected" and rejected.final == was.final
    # everything else ranks as before, one place down
    others = [e.text for e in after.edge_explanations if e.text != PINNED]
    assert others == [t for t in texts if t != PINNED]

    monkeypatch.undo()  # ORDER as shipped: the rule is gone again
    again = await gt.trust_search(graphiti, QUERY, config=recipe, group_ids=[group])
    assert [e.text for e in again.edge_explanations] == texts


class _Edge:
    """An edge as the pool facts read it."""

    def __init__(self, i: int, status: str | None = None):
        self.uuid, self.fact, self.name = f"u{i}", f"fact {i}", "RUNS_ON"
        self.source_node_uuid, self.target_node_uuid = f"s{i % 2}", f"t{i}"
        self.attributes = {"trust_status": status} if status else {}
        self.invalid_at = self.expired_at = self.valid_at = self.created_at = None


def test_the_pipeline_computes_the_facts_order_declares_and_no_others(tmp_path, monkeypatch):
    items = [_Edge(0), _Edge(1, "rejected"), _Edge(2)]
    pool = fusion.fuse([[x.uuid for x in items]], ["bm25"])
    trust = np.full(3, np.nan)
    shipped = PoolFacts(items, "edge")
    state = rules.start(pool, trust, shipped)
    assert state.neg.tolist() == [False, True, False] and state.groups[0] == state.groups[2]
    assert state.stamps is not None and state.eligible is not None  # (default settings: trust_recency)

    module = _rule_module(tmp_path, monkeypatch)
    monkeypatch.setattr(rules, "ORDER", {"pinned": module.apply})
    facts = PoolFacts(items, "edge")
    alone = rules.start(pool, trust, facts)
    computed = {name for name in POOL_FACTS if name in vars(facts)}
    assert computed == {"neg", "negative", "invalidated"}  # neg, and what it is computed from
    assert alone.neg.tolist() == [False, True, False] and alone.groups is None and alone.stamps is None
    assert rules.run(alone, RuleParams()).terms[0].tolist() == [0.0, 0.0, 0.0]  # nothing pinned here


def test_a_rule_names_only_facts_that_exist():
    with pytest.raises(ValueError, match=r"^unknown pool facts \['stamp'\] \(known: negative, neg, "):
        reads("neg", "stamp")
    with pytest.raises(TypeError, match=r"^unknown pool facts \['competitors'\]"):
        PoolFacts.given(competitors=[None])
    with pytest.raises(KeyError, match="unknown pool fact 'items'"):
        PoolFacts.given().get("items")


def test_the_rules_parameters_are_made_from_the_settings_in_one_place():
    """``RuleParams.of``: no module of the library builds them field by field (the settings are
    translated once, not once per caller)."""
    makers = sorted(str(p.relative_to(REPO)) for p in (REPO / "graph_trust").rglob("*.py")
                    if "RuleParams(" in p.read_text(encoding="utf-8"))
    assert makers == []
    assert "RuleParams.of(" in (REPO / "graph_trust" / "search" / "trust_search.py").read_text(encoding="utf-8")
