"""Honest embeddings: may the configured embedder's vectors be compared with a group's stored
``fact_embedding`` s? (:class:`EmbeddingCheck`; otherwise relink matches by BM25 alone.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graph_trust.clients.probe import PROBE_MIN_COSINE, PROBE_SAMPLE, compare, graphiti_text
from graph_trust.sync.relink.graph_read import fetch_embeddings
from graph_trust.sync.relink.matching import EdgeIndex

__all__ = ["PROBE_MIN_COSINE", "PROBE_SAMPLE", "EmbeddingCheck", "graphiti_text"]


class EmbeddingCheck:
    """Per group: may the configured embedder's vectors be compared with the stored ones?

    Vectors from different embedders are not comparable (another model, another dimension, or
    the same dimension and unrelated axes). The check embeds up to ``PROBE_SAMPLE`` of the
    group's stored facts again (spread over the group) and compares with their stored
    ``fact_embedding``: every one must have the same dimension and cosine >= ``PROBE_MIN_COSINE``.
    The verdicts are kept in ``results`` (the report's ``similarity``).
    """

    def __init__(self, embed: Callable[[list[str]], Any], embedder_name: str,
                 conn_for: Callable[[str | None], Any], indexes: dict[str | None, EdgeIndex]) -> None:
        self.embed = embed
        self.embedder_name = embedder_name
        self.conn_for = conn_for
        self.indexes = indexes
        self.results: dict[str | None, dict[str, Any]] = {}

    async def __call__(self, group_id: str | None) -> bool:
        if group_id not in self.results:
            self.results[group_id] = {"embedder": self.embedder_name, **await self._check(self.indexes[group_id])}
        return self.results[group_id]["method"] == "bm25+cosine"

    async def _check(self, ix: EdgeIndex) -> dict[str, Any]:
        with_fact = [i for i, f in enumerate(ix.facts) if f.strip()]
        picks = with_fact[:: max(1, len(with_fact) // PROBE_SAMPLE)][:PROBE_SAMPLE]
        stored = await fetch_embeddings(self.conn_for(ix.group_id), [ix.uuids[i] for i in picks])
        picks = [i for i in picks if ix.uuids[i] in stored]
        if not picks:
            return _lexical("the group's edges have no stored fact_embedding")
        try:
            fresh = await self.embed([graphiti_text(ix.facts[i]) for i in picks])
        except Exception as exc:  # a remote model may fail in any way: fall back, say why
            return _lexical(f"the configured embedder failed: {type(exc).__name__}: {exc}")
        found = compare([stored[ix.uuids[i]] for i in picks], fresh)
        if not found["same"]:
            return _lexical(found["reason"], checked=found["checked"])
        return {"method": "bm25+cosine", "checked": found["checked"], "min_cosine": found["min_cosine"], "reason": None}


def _lexical(reason: str, checked: int = 0) -> dict[str, Any]:
    return {"method": "bm25", "checked": checked, "min_cosine": None, "reason": reason}
