"""The one group router: search, connections, sync's graph set and the sample loader reach a
group through the same driver clone, made once, on a real embedded FalkorDB; group names are
generated (repeats, the default graph, unknown groups)."""

from __future__ import annotations

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from graph_trust.graph import backends, routing
from graph_trust.graph.routing import AbsentGraph, Graphs

_names = st.lists(st.sampled_from(["a", "b", "c", "d", None, ""]), min_size=0, max_size=8)


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picks=_names)
async def test_every_caller_gets_the_same_clone_per_group(graph, unique, picks):
    groups = [f"{p}_{unique}" if p else p for p in picks]
    named = [g for g in groups if g]
    routes = routing.routes(graph.driver, named or None)
    if not named:
        assert routes == [(graph.driver, None)]
    else:  # one route per distinct group, in first-seen order, each with its own graph
        assert [gs for _, gs in routes] == [[g] for g in dict.fromkeys(named)]
    for group in groups:
        conn = graph.for_group(group)
        driver = routing.driver_for_group(graph.driver, group)
        assert conn.driver is driver
        assert conn.database == (group or graph.database)
        # a child connection and a clone route through the root's cache, not a cache of their own
        assert conn.for_group(group).driver is driver
        assert routing.driver_for_group(driver, graph.database) is graph.driver
        for other in named:
            assert conn.for_group(other).driver is routing.driver_for_group(graph.driver, other)
    for drv, gs in routes:
        if gs:
            assert drv is graph.for_group(gs[0]).driver
            assert drv._database == gs[0]
    await graph.settle()


async def test_graphs_never_reach_a_graph_that_does_not_exist(graph, unique):
    present, absent = f"here_{unique}", f"gone_{unique}"
    await graph.for_group(present).run_text("CREATE (:Entity {uuid: 'x'})", {}, write=True)
    graphs = await Graphs.open(graph)
    assert graphs.name_for(None) == graphs.name_for("") == graph.database
    assert graphs.name_for(present) == present
    assert graphs(present).driver is graph.for_group(present).driver
    assert graphs(present) is graphs(present)
    missing = graphs(absent)
    assert isinstance(missing, AbsentGraph) and await missing.query("edges_with_trust", lo="0", hi="z") == []
    assert graphs.absent([present, absent, graph.database]) == [absent]
    assert absent not in await graph.graph_names()  # nothing was sent that would create it
    await graph.settle()


def test_every_address_kind_has_one_backend_and_backends_differ_only_in_their_module():
    kinds = [k for b in backends.BACKENDS for k in b.kinds]
    assert len(kinds) == len(set(kinds)) and {"embedded", "falkordb", "neo4j"} <= set(kinds)
    schemes = [s for b in backends.BACKENDS for s in b.schemes]
    assert len(schemes) == len(set(schemes))
    assert backends.by_name("falkordb").graph_per_group and not backends.by_name("neo4j").graph_per_group
    for b in backends.BACKENDS:
        assert backends.for_kind(b.kinds[0]) is b and backends.by_name(b.name) is b


@given(cos=st.floats(min_value=-1.0, max_value=1.0))
def test_similarity_is_graphitis_scale_on_every_backend(cos):
    # FalkorDB's index returns the cosine distance 1 - cos, Neo4j's the score (1 + cos) / 2
    expected = (1.0 + cos) / 2.0
    assert abs(backends.by_name("falkordb").similarity(1.0 - cos) - expected) < 1e-12
    assert abs(backends.by_name("neo4j").similarity(expected) - expected) < 1e-12


@given(rows=st.lists(st.fixed_dictionaries({"uuid": st.uuids().map(str), "trust_score": st.floats(0, 1),
                                            "scope": st.none() | st.text(max_size=5)}), max_size=20,
                     unique_by=lambda r: r["uuid"]))
def test_bulk_params_carry_every_row_in_each_backends_shape(rows):
    assert backends.by_name("falkordb").bulk_params(rows) == {"rows": rows}
    bolt = backends.by_name("neo4j").bulk_params(rows)
    assert bolt["uuids"] == [r["uuid"] for r in rows]
    assert [{"uuid": u, **bolt["by_uuid"][u]} for u in bolt["uuids"]] == rows


@given(st.sets(st.from_regex(r"[a-z0-9_]{1,8}", fullmatch=True), max_size=30), st.integers(1, 12))
def test_a_long_group_list_is_cut_visibly(groups, shown):
    text = routing.listed(groups, shown)
    names = text.split(" (and ")[0].split(", ") if groups else []
    assert names == sorted(groups)[:shown]
    assert text.endswith(f"(and {len(groups) - shown} more)") == (len(groups) > shown)
    assert (text == "none") == (not groups)
