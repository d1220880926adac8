"""A scoped caller learns only about groups in its scope: an unknown group's error lists only the
existing groups its scopes name, and a group outside its scopes answers alike whether it exists
or not (so its name cannot be probed)."""

from __future__ import annotations

import pytest
from test_policy_graph import QUERY, _save

from graph_trust import api
from graph_trust.access.trust_context import TrustContext
from graph_trust.context.service import ContextService
from graph_trust.errors import InputError


@pytest.fixture
async def two_groups(graph, unique):
    # leading zeros: first in the sorted list of every group of the shared test server, which an
    # unscoped error shows the first ten of
    a, b = f"00alpha_{unique}", f"00hushhush_{unique}"
    for g in (a, b):
        await _save(graph.for_group(g).driver, g)
    return a, b


async def test_an_unknown_group_error_lists_only_groups_in_scope(settings, graph, two_groups):
    a, b = two_groups
    svc = ContextService()
    scoped = TrustContext("hyper", True, "bot", (a, "planned"))
    p = await svc.get_context(settings, QUERY, trust_context=scoped, groups=["planned"], connection=graph)
    assert p.metadata.error_code == "GROUP_NOT_FOUND" and a in p.metadata.reason and b not in p.metadata.reason
    with pytest.raises(InputError) as err:
        await api.context(settings, QUERY, trust_context=scoped, groups=["planned"])
    assert a in str(err.value) and b not in str(err.value) and "in your scope" in str(err.value)
    with pytest.raises(InputError) as err:
        await api.search_visible(settings, QUERY, trust_context=scoped, groups=["planned"])
    assert b not in str(err.value)
    # an unscoped caller may see every group: the error lists them all
    p = await svc.get_context(settings, QUERY, trust_context=TrustContext("hyper", True, "root"), groups=["planned"],
                              connection=graph)
    assert a in p.metadata.reason and b in p.metadata.reason


async def test_a_group_outside_the_scope_answers_alike_whether_it_exists_or_not(settings, graph, two_groups):
    a, b = two_groups
    scoped = TrustContext("hyper", True, "bot", (a,))
    svc = ContextService()
    answers = []
    for group in (b, f"absent_{b}"):
        p = await svc.get_context(settings, QUERY, trust_context=scoped, groups=[group], connection=graph)
        found = await api.search_visible(settings, QUERY, trust_context=scoped, groups=[group])
        ctx = await api.context(settings, QUERY, trust_context=scoped, groups=[group])
        assert p.memories == [] and p.metadata.error_code is None and found.records == [] and ctx.items == []
        md = p.metadata
        answers.append((md.included_results, md.total_results, md.denied, md.search_depth, found.denied,
                        found.search_depth, ctx.candidates, ctx.denied, ctx.search_depth, ctx.text()))
    assert answers[0] == answers[1]
    # its own group is searched as usual
    p = await svc.get_context(settings, QUERY, trust_context=scoped, groups=[a], connection=graph,
                              policy={"min_score": 0.0})
    assert p.memories and {m.group for m in p.memories} == {a}

