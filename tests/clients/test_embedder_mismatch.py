"""A graph embedded by one embedder and searched with another: one error naming search.embedder
(and the built-in embedder that built the graph), whether the dimensions differ or not
(hashing and wordllama both make 256 floats); the same embedder searches as before."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from builders import sample_as_group
from cli_helpers import run_cli
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from graph_trust import api
from graph_trust.access.trust_context import TrustContext
from graph_trust.clients.factory import embedder_named
from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.probe import PROBE_MIN_COSINE, compare
from graph_trust.demo.sample import demo_queries, load_sample
from graph_trust.errors import ConfigError
from graph_trust.graph.connection import open_graph

HAS_WORDLLAMA = importlib.util.find_spec("wordllama") is not None
needs_wordllama = pytest.mark.skipif(not HAS_WORDLLAMA, reason="the wordllama extra (in the test extra)")


async def _load(settings, embedder) -> str:
    """The sample's demo group embedded by ``embedder``, in a group (graph) of this test's own."""
    group = f"ops_{settings.graph.database}"
    async with open_graph(settings) as conn:
        await load_sample(conn.driver, embedder, data=sample_as_group(group))
        await conn.for_group(group).settle()
    return group


@needs_wordllama
@pytest.mark.parametrize(("built", "searched"), [("hashing", "wordllama"), ("wordllama", "hashing")])
async def test_the_other_builtin_embedder_is_one_error_naming_the_right_one(settings, built, searched):
    group = await _load(settings, embedder_named(built))
    settings.search.embedder = searched
    for query in demo_queries():
        with pytest.raises(ConfigError) as err:
            await api.search(settings, query, groups=[group])
        msg = str(err.value)
        assert msg.startswith("config key search.embedder:") and "another model" in msg
        assert f"embedded by {built!r}: set search.embedder: {built}" in msg
    with pytest.raises(ConfigError, match="search.embedder"):  # the context path searches the same way
        await api.get_context(settings, demo_queries()[0] + " ", trust_context=TrustContext.unrestricted(),
                              groups=[group])
    settings.search.embedder = built
    assert (await api.search(settings, demo_queries()[0], groups=[group])).edges


async def test_another_dimension_is_the_same_error_not_the_servers(settings):
    group = await _load(settings, HashingEmbedder(dim=64))
    with pytest.raises(ConfigError, match=r"search\.embedder: stored fact embeddings have 64 dimensions, the "
                                          r"configured embedder makes 256.*set search\.embedder to the embedder"):
        await api.search(settings, demo_queries()[0], groups=[group])


async def test_the_cli_prints_one_line_and_exits_2(settings, tmp_path):
    group = await _load(settings, HashingEmbedder(dim=64))
    r = run_cli("search", demo_queries()[0], "--group", group, "--graph", settings.graph.uri,
                env={"GRAPH_TRUST_STATE_DIR": str(tmp_path / "state"), "NEO4J_DATABASE": settings.graph.database})
    assert r.code == 2, r.err
    assert r.err.count("\n") == 1 and r.err.startswith("error: config key search.embedder: ")


async def test_a_bm25_only_search_needs_no_check(settings):
    """Without a cosine method the query is never embedded, so no embedder can mismatch."""
    from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF

    from graph_trust.clients.offline import make_graphiti
    from graph_trust.search.trust_search import trust_search

    group = await _load(settings, HashingEmbedder(dim=64))
    cfg = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
    cfg.edge_config.search_methods = [m for m in cfg.edge_config.search_methods if m.value == "bm25"]
    async with open_graph(settings) as conn:
        res = await trust_search(make_graphiti(conn.for_group(group).driver), demo_queries()[0], config=cfg,
                                 group_ids=[group])
    assert res.edges


UNIT = arrays(np.float64, st.integers(8, 64), elements=st.floats(-1, 1)).filter(lambda v: np.linalg.norm(v) > 0.1)


@hsettings(max_examples=200, deadline=None)
@given(stored=st.lists(UNIT, min_size=1, max_size=6), noise=st.floats(0, 0.6), seed=st.integers(0, 2**32 - 1))
def test_compare_accepts_the_same_vectors_and_rejects_other_axes_and_dimensions(stored, noise, seed):
    rng = np.random.default_rng(seed)
    same = [v + noise * np.linalg.norm(v) * rng.standard_normal(v.size) / np.sqrt(v.size) for v in stored]
    found = compare(stored, same)
    cos = min(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))) for a, b in zip(stored, same, strict=True))
    if abs(cos - PROBE_MIN_COSINE) > 1e-5:  # float32 rounding aside, the threshold decides
        assert found["same"] == (cos >= PROBE_MIN_COSINE)
    flipped = list(stored)
    k = int(rng.integers(len(stored)))
    flipped[k] = -stored[k]  # one sampled fact from other axes is enough
    assert compare(stored, flipped)["same"] is False
    wider = [np.concatenate([v, [0.0]]) for v in stored]
    verdict = compare(stored, wider)
    assert verdict["same"] is False and "dimensions" in verdict["reason"]
