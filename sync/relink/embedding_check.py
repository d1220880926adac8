"""Honest embeddings: may the configured embedder's vectors be compared with a group's stored
``fact_embedding`` s? (:class:`EmbeddingCheck`; otherwise relink matches by BM25 alone.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from graph_trust.sync.relink.graph_read import fetch_embeddings
from graph_trust.sync.relink.matching import EdgeIndex

PROBE_SAMPLE = 16  # stored facts embedded again per group to check the embedder
PROBE_MIN_COSINE = 0.98  # a re-embedded fact this close to its stored vector: the same embedder


def graphiti_text(fact: str | None) -> str:
    """A fact as graphiti-core embeds it (``EntityEdge.generate_embedding``: newlines to spaces)."""
    return (fact or "").replace("\n", " ")


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
        worst = 1.0
        for i, vec in zip(picks, fresh, strict=True):
            a, b = stored[ix.uuids[i]], np.asarray(vec, dtype=np.float32)
            if a.shape != b.shape:
                return _lexical(f"stored fact embeddings have {a.size} dimensions, the configured embedder "
                                f"makes {b.size}: the graph was embedded by another model")
            norm = float(np.linalg.norm(a) * np.linalg.norm(b))
            worst = min(worst, float(a @ b) / norm if norm > 0 else 0.0)
        if worst < PROBE_MIN_COSINE:
            return _lexical(f"the configured embedder does not reproduce the stored fact embeddings (lowest "
                            f"cosine {worst:.3f} over {len(picks)} sampled facts, {PROBE_MIN_COSINE} needed): "
                            "the graph was embedded by another model", checked=len(picks))
        return {"method": "bm25+cosine", "checked": len(picks), "min_cosine": round(worst, 4), "reason": None}


def _lexical(reason: str, checked: int = 0) -> dict[str, Any]:
    return {"method": "bm25", "checked": checked, "min_cosine": None, "reason": reason}
