"""Pools of several graphs (FalkorDB keeps a graph per group) merged into one: the merged pool
keeps the rank constant its pools were fused with, so the supported boost is the same as for one
graph's pool."""

from __future__ import annotations

from types import SimpleNamespace

from graph_trust.search import fusion
from graph_trust.search.trust_search import _Pool


def _items(*uuids: str) -> list[SimpleNamespace]:
    return [SimpleNamespace(uuid=u) for u in uuids]


def test_merged_pools_keep_their_rank_const():
    a = _Pool.from_lists(["bm25", "cosine"], [_items("a1", "a2"), _items("a2", "a1")], 60.0)
    b = _Pool.from_lists(["bm25", "cosine"], [_items("b1"), _items("b1")], 60.0)
    merged = _Pool.concat([a, b])
    assert merged.fused.rank_const == 60.0 and merged.fused.uuids == ["a1", "a2", "b1"]
    assert fusion.support(merged.fused).tolist() == [2 / 61, 2 / 61, 2 / 60]
    assert fusion.support(merged.fused).tolist() == (fusion.support(a.fused).tolist()
                                                     + fusion.support(b.fused).tolist())
    assert _Pool.concat([a]) is a
