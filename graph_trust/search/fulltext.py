"""The BM25 candidate stage of trust_search for facts: graphiti-core's fulltext search, faster.

graphiti-core's ``edge_fulltext_search`` builds the fields of every match (its return clause,
the whole property map with the embedding) before its ``ORDER BY score DESC LIMIT``: on FalkorDB,
whose fulltext procedure yields every match, that is most of the search's time where a query's
words are common. This stage sends the same statement with the sort and limit before the return
clause (``cypher/edge_fulltext_search``), built from graphiti-core's own pieces (its fulltext
query, filter conditions, return clause and record parser): the same rows reach the same sort in
the same order, so it returns the same facts in the same order. Backends it has no statement for
(Kuzu, Neptune, drivers with their own search interface) get graphiti-core's function itself.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from graphiti_core.driver.driver import GraphProvider
from graphiti_core.edges import EntityEdge, get_entity_edge_from_record
from graphiti_core.models.edges.edge_db_queries import get_entity_edge_return_query
from graphiti_core.search import search_utils as su
from graphiti_core.search.search_filters import SearchFilters, edge_search_filter_query_constructor

from graph_trust.graph import backends, queries

_OWN = (GraphProvider.FALKORDB, GraphProvider.NEO4J)
_LONE_UNDERSCORES = re.compile(r"(?<![^\W_])_+(?![^\W_])")  # not next to a letter or digit


def searchable(query: str) -> str:
    """``query`` as every fulltext engine may be handed it, through graphiti-core's own query
    helpers or this module's: characters of Unicode's "other" categories (controls such as
    ``\\x01``, ``\\x1b`` and ``\\x7f``, format characters, surrogates, private use, unassigned)
    become spaces, and underscores next to no letter or digit go (Graphiti's FalkorDB helper turns
    every other ASCII punctuation character into a space and keeps ``_``): RediSearch's query
    parser rejects a term of either ("Syntax error"), and neither is a word of an indexed fact.
    Empty when nothing is left (the caller refuses that query)."""
    text = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in query)
    return " ".join(_LONE_UNDERSCORES.sub(" ", text).split())


async def edge_fulltext_candidates(driver: Any, query: str, search_filter: SearchFilters,
                                   group_ids: list[str] | None, limit: int) -> list[EntityEdge]:
    """What ``graphiti_core.search.search_utils.edge_fulltext_search`` returns for these arguments
    (the query made :func:`searchable` first)."""
    p, query = driver.provider, searchable(query)
    if not query:
        return []
    if getattr(driver, "search_interface", None) or p not in _OWN:
        return await su.edge_fulltext_search(driver, query, search_filter, group_ids, limit)
    fuzzy = su.fulltext_query(query, group_ids, driver)
    if fuzzy == "":
        return []
    conds, params = edge_search_filter_query_constructor(search_filter, p)
    if group_ids is not None:
        conds.append("e.group_id IN $group_ids")
        params["group_ids"] = group_ids
    text = (queries.load("edge_fulltext_search", backends.for_driver(driver).dialect)
            .replace("/*filters*/", "".join(f" AND {c}" for c in conds))
            .replace("/*returns*/", get_entity_edge_return_query(p)))
    records, _, _ = await driver.execute_query(text, query=fuzzy, limit=limit, routing_="r", **params)
    return [get_entity_edge_from_record(r, p) for r in records or []]
