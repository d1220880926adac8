"""Any query text is accepted or refused with one clear line, on a real FalkorDB: nothing a user
or an agent types reaches the fulltext engine as something it cannot parse (control characters,
lone underscores, any unicode), and the agent path (get_context) answers the reference's
INVALID_QUERY / skip for a query it cannot search."""

from __future__ import annotations

import string

from graphiti_core.search.search_config_recipes import COMBINED_HYBRID_SEARCH_RRF
from graphiti_core.search.search_filters import SearchFilters
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from test_policy_graph import facts  # noqa: F401 - the shared fixture

from graph_trust import api
from graph_trust.access.trust_context import TrustContext
from graph_trust.clients.offline import make_graphiti
from graph_trust.context.service import ContextService
from graph_trust.errors import InputError
from graph_trust.search.fulltext import edge_fulltext_candidates, searchable
from graph_trust.search.trust_search import EDGE_HYBRID_SEARCH_RRF_TRUST, trust_search

MEDIUM = TrustContext("medium", True, "alice")
# what RediSearch's query parser is touchy about, mixed with words the graph holds
TOUCHY = "".join(chr(c) for c in range(0, 32)) + "\x7f\x85\u200b\ufeff\u2028\u00ad" + string.punctuation + " "
QUERIES = st.one_of(
    st.text(min_size=1, max_size=24),  # any unicode (surrogates, unassigned, private use included)
    st.text(alphabet=TOUCHY + "billng-db backup", min_size=1, max_size=16),
    st.lists(st.sampled_from(["billing", "db", "backup", "_", "\x01", "\x1b", "\x7f", ":", "-", "__", "a_b",
                              "@", "\\", '"', "|", "*", "(", ")", "~"]), min_size=1, max_size=6).map("".join),
)
ONE_LINE_ERRORS = ("the search query is empty", "the search query has no searchable text")


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(q=QUERIES)
async def test_every_query_text_is_searched_or_refused_with_one_line(settings, graph, facts, q):  # noqa: F811
    group, _ = facts
    driver = graph.for_group(group).driver
    text = searchable(q)
    assert text == text.strip() and all(ch.isprintable() or ch == " " for ch in text)
    # the engine-level stage, with and without a group filter, and Graphiti's own node/episode searches
    for groups in ([group], None):
        await edge_fulltext_candidates(driver, q, SearchFilters(), groups, 5)
    graphiti = make_graphiti(driver)
    try:
        await trust_search(graphiti, q, COMBINED_HYBRID_SEARCH_RRF, group_ids=[group])
        out = await api.search_visible(settings, q, trust_context=MEDIUM, groups=[group], limit=5)
    except InputError as exc:
        assert str(exc).startswith(ONE_LINE_ERRORS) and "\n" not in str(exc), str(exc)
        assert not text.strip() or not q.strip()
    else:
        assert text and out.records is not None
    payload = await ContextService().get_context(settings, q, trust_context=MEDIUM, groups=[group], connection=graph)
    md = payload.metadata
    if text:
        assert md.error_code is None, md.reason
    else:
        assert (md.error_code, md.fallback, payload.memories) == ("INVALID_QUERY", "skip", [])
        assert md.reason and "\n" not in md.reason


async def test_control_characters_inside_words_still_find_the_fact(graph, facts):  # noqa: F811
    group, uuids = facts
    driver = graph.for_group(group).driver
    clean = await trust_search(driver, "billing-db backup encryption key", EDGE_HYBRID_SEARCH_RRF_TRUST,
                               group_ids=[group], embedder=make_graphiti(driver).embedder)
    dirty = await trust_search(driver, "billing-db\x01 backup\x1b encryption\x7f key", EDGE_HYBRID_SEARCH_RRF_TRUST,
                               group_ids=[group], embedder=make_graphiti(driver).embedder)
    assert [e.uuid for e in dirty.edges] == [e.uuid for e in clean.edges] and uuids["key"] in {e.uuid for e in
                                                                                                clean.edges}


def test_searchable_keeps_words_and_drops_only_what_no_engine_parses():
    assert searchable("who owns\x01 the payments api") == "who owns the payments api"
    assert searchable("billing_db _ :_ a_ _b __") == "billing_db : a_ _b"
    assert searchable("\x01\x1b\x7f\u200b") == "" and searchable("\ue000 x") == "x"
    assert searchable("étage 🙂_") == "étage 🙂"
