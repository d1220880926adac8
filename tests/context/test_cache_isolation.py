"""The retrieval policy's cache: entries and returned payloads share nothing mutable, a hit equals
a fresh computation, and the key covers everything that changes the answer, the graph's trust
state included (a sync that changes trust is never answered from before it)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from sync_fixtures import review_db, row
from test_policy_graph import QUERY, _save, facts  # noqa: F401 - facts: the shared fixture

from graph_trust import api
from graph_trust.access.trust_context import TrustContext
from graph_trust.config import PolicySettings, load_settings
from graph_trust.context.service import ContextService, request_key

NOW = datetime(2026, 3, 1, tzinfo=UTC)
MEDIUM = TrustContext("medium", True, "alice")
POLICY = {"min_score": 0.0, "max_tokens": 400}
# What a cache hit may differ in from the computation it stores: timing and the cache's own counters.
VOLATILE = ("query_time_ms", "cache_hit", "cache_hit_rate")


def _stable(payload) -> dict:
    d = payload.to_dict()
    for k in VOLATILE:
        d["metadata"].pop(k)
    return d


# One mutation of a returned payload: (target, operation, value).
mutations = st.lists(st.tuples(
    st.sampled_from(["filters", "config", "config_del", "scalar", "memories", "memories_pop", "memories_clear",
                     "metadata_swap"]),
    st.sampled_from(["top_k", "max_tokens", "min_score", "interleave", "denied", "included_results", "reason"]),
    st.one_of(st.integers(-5, 50), st.text(max_size=5), st.none())), min_size=1, max_size=8)


def _mutate(payload, ops) -> None:
    md = payload.metadata
    for target, key, value in ops:
        if target == "filters":
            md.applied_filters.append(str(value))
        elif target == "config":
            md.config[key] = value
        elif target == "config_del":
            md.config.pop(key, None)
        elif target == "scalar":
            setattr(md, key if hasattr(md, key) else "reason", value)
        elif target == "memories":
            payload.memories.append(payload.memories[0] if payload.memories else None)
        elif target == "memories_pop" and payload.memories:
            payload.memories.pop()
        elif target == "memories_clear":
            payload.memories.clear()
        elif target == "metadata_swap":
            payload.metadata = copy.copy(md)
            payload.metadata.applied_filters.clear()


@hsettings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=mutations, second=mutations)
async def test_mutating_returned_payloads_never_changes_a_later_hit(settings, graph, facts, first, second):
    group, _ = facts
    svc = ContextService()
    kw = dict(trust_context=MEDIUM, groups=[group], connection=graph, policy=POLICY, now=NOW)
    fresh = await ContextService().get_context(settings, QUERY, **kw)  # another service: computed afresh
    computed = await svc.get_context(settings, QUERY, **kw)  # computed and stored
    assert not computed.metadata.cache_hit and _stable(computed) == _stable(fresh)
    _mutate(computed, first)
    hit = await svc.get_context(settings, QUERY, **kw)
    assert hit.metadata.cache_hit and _stable(hit) == _stable(fresh)  # a hit equals a fresh computation
    _mutate(hit, second)
    again = await svc.get_context(settings, QUERY, **kw)
    assert again.metadata.cache_hit and _stable(again) == _stable(fresh)
    assert again.metadata is not hit.metadata and again.memories is not hit.memories


async def test_editing_a_payload_reaches_no_later_hit(settings, graph, facts):
    """The reported case: a caller edits applied_filters, config["max_tokens"] and config["top_k"]
    of its payload; later hits stayed edited."""
    group, _ = facts
    svc = ContextService()
    kw = dict(trust_context=MEDIUM, groups=[group], connection=graph, policy=POLICY, now=NOW)
    p = await svc.get_context(settings, QUERY, **kw)
    hit = await svc.get_context(settings, QUERY, **kw)
    for got in (p, hit):
        got.metadata.applied_filters.append("tampered")
        got.metadata.config["max_tokens"] = 1
        got.metadata.config["top_k"] = 99
    later = await svc.get_context(settings, QUERY, **kw)
    assert later.metadata.cache_hit and "tampered" not in later.metadata.applied_filters
    assert later.metadata.config["max_tokens"] == 400 and later.metadata.config["top_k"] == 8


async def test_a_sync_that_changes_trust_is_never_answered_from_before_it(settings, graph, facts, tmp_path):
    group, uuids = facts
    # the min_trust filter drops the rejected fact below (its default is 0: nothing dropped)
    settings = settings.model_copy(update={"composite": settings.composite.model_copy(update={"min_trust": 0.1})})
    other = f"{group}_b"
    await _save(graph.for_group(other).driver, other)
    svc = ContextService()
    kw = dict(trust_context=MEDIUM, connection=graph, policy=POLICY, now=NOW)
    before = await svc.get_context(settings, QUERY, groups=[group], **kw)
    await svc.get_context(settings, QUERY, groups=[other], **kw)
    assert (await svc.get_context(settings, QUERY, groups=[group], **kw)).metadata.cache_hit
    # a sync promotes the low-trust duplicate of `group`: its trust changes in the graph
    rows = [row("c1", uuids["dup_lo"], "promoted", group), row("c2", uuids["time"], "rejected", group)]
    s = settings.model_copy(update={"sync": settings.sync.model_copy(update={"tiers": {
        "promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": 0.0, "expired": 0.0}})})
    await api.sync_review_rows(s, rows, review_db(tmp_path / "r.sqlite3", []), graph)
    after = await svc.get_context(settings, QUERY, groups=[group], **kw)
    assert not after.metadata.cache_hit
    shown_before = {m.id: m.trust_score for m in before.memories}
    shown_after = {m.id: m.trust_score for m in after.memories}
    # of the two duplicates the most trusted is shown: dup_hi before, the promoted dup_lo after
    assert uuids["dup_hi"] in shown_before and uuids["dup_lo"] not in shown_before
    assert shown_after.get(uuids["dup_lo"]) == 1.0 and uuids["dup_hi"] not in shown_after
    assert uuids["time"] in shown_before and uuids["time"] not in shown_after  # rejected: trust 0, below min_trust
    assert (await svc.get_context(settings, QUERY, groups=[group], **kw)).metadata.cache_hit
    # the other group's graph kept its trust state: its entry is still served
    assert (await svc.get_context(settings, QUERY, groups=[other], **kw)).metadata.cache_hit


def test_request_key_covers_trust_state_and_now():
    s = load_settings(environ={})
    base = request_key("q", s, MEDIUM, ["g"], "composite", trust_state=(("g", "t1"),))
    variants = [
        request_key("q", s, MEDIUM, ["g"], "composite", trust_state=(("g", "t2"),)),
        request_key("q", s, MEDIUM, ["g"], "composite", trust_state=(("g", None),)),
        request_key("q", s, MEDIUM, ["g"], "composite", trust_state=(("g", "t1"),), now=NOW),
        request_key("q", s.model_copy(update={"policy": PolicySettings(top_k=3)}), MEDIUM, ["g"], "composite",
                    trust_state=(("g", "t1"),)),
        request_key("q", s.model_copy(update={"access": s.access.model_copy(update={"labels": {"x": "low"}})}),
                    MEDIUM, ["g"], "composite", trust_state=(("g", "t1"),)),
    ]
    assert len({base, *variants}) == len(variants) + 1
    assert request_key("q", s, MEDIUM, ["g"], "composite", trust_state=(("g", "t1"),)) == base
