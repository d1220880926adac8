"""Is this embedder the one that built the graph? (Search's check; relink uses the same test.)

Vectors of different embedders are not comparable: another model, another dimension, or the
same dimension and unrelated axes (``hashing`` and ``wordllama`` both make 256 floats, and a
query embedded by one scores noise against facts embedded by the other, without any error).
The test embeds a few stored facts again and compares with their stored ``fact_embedding``:
every one must have the same dimension and a cosine of at least :data:`PROBE_MIN_COSINE`
(:func:`compare`).

:func:`check_query_embedder` runs it before a cosine search, once per graph and embedder (then
again after :data:`RECHECK_S`), and raises :class:`~graph_trust.errors.ConfigError` naming
``search.embedder`` and, where one of the built-in embedders reproduces the stored vectors,
which. A graph with no stored fact embeddings passes (there is nothing to compare).
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graph_trust.clients.factory import BUILTIN_EMBEDDERS, embedder_named
from graph_trust.errors import ConfigError
from graph_trust.graph import vector_index as vi

PROBE_SAMPLE = 16  # stored facts embedded again per graph
PROBE_MIN_COSINE = 0.98  # a re-embedded fact this close to its stored vector: the same embedder
RECHECK_S = 600.0  # how long search trusts a verdict for one graph and embedder


def graphiti_text(fact: str | None) -> str:
    """A fact as graphiti-core embeds it (``EntityEdge.generate_embedding``: newlines to spaces)."""
    return (fact or "").replace("\n", " ")


def compare(stored: Sequence[Any], fresh: Sequence[Any]) -> dict[str, Any]:
    """Whether ``fresh`` vectors (the embedder's, of the same texts) reproduce ``stored``:
    ``{"same": bool, "checked": n, "min_cosine": float | None, "reason": str | None}``."""
    worst = 1.0
    for a, b in zip(stored, fresh, strict=True):
        a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
        if a.shape != b.shape:
            return {"same": False, "checked": 0, "min_cosine": None,
                    "reason": f"stored fact embeddings have {a.size} dimensions, the configured embedder "
                              f"makes {b.size}: the graph was embedded by another model"}
        norm = float(np.linalg.norm(a) * np.linalg.norm(b))
        worst = min(worst, float(a @ b) / norm if norm > 0 else 0.0)
    if worst < PROBE_MIN_COSINE:
        return {"same": False, "checked": len(stored), "min_cosine": round(worst, 4),
                "reason": f"the configured embedder does not reproduce the stored fact embeddings (lowest "
                          f"cosine {worst:.3f} over {len(stored)} sampled facts, {PROBE_MIN_COSINE} needed): "
                          "the graph was embedded by another model"}
    return {"same": True, "checked": len(stored), "min_cosine": round(worst, 4), "reason": None}


async def stored_sample(driver: Any, group_ids: list[str] | None) -> tuple[list[str], list[Any]]:
    """(facts as Graphiti embeds them, their stored vectors) of up to :data:`PROBE_SAMPLE` edges."""
    rows = await vi.run(driver, "edge_embedding_probe", group_ids=group_ids or None, limit=PROBE_SAMPLE)
    rows = [r for r in rows if r.get("embedding") is not None and len(r["embedding"]) and (r.get("fact") or "").strip()]
    return [graphiti_text(r["fact"]) for r in rows], [r["embedding"] for r in rows]


async def embed_texts(embedder: Any, texts: list[str]) -> list[Any]:
    """``texts`` embedded by a graphiti-core ``EmbedderClient`` (one at a time where it has no batch)."""
    try:
        return list(await embedder.create_batch(texts))
    except NotImplementedError:  # EmbedderClient's default
        return [await embedder.create(input_data=[t]) for t in texts]


# driver -> {embedder key: (checked at, error message or None)}
_VERDICTS: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], tuple[float, str | None]]] = (
    weakref.WeakKeyDictionary())


def _embedder_key(embedder: Any, group_ids: list[str] | None) -> tuple[Any, ...]:
    cls = type(embedder)
    return (cls.__module__, cls.__qualname__, repr(getattr(embedder, "config", None)),
            getattr(embedder, "dim", None), tuple(group_ids or ()))


async def check_query_embedder(driver: Any, embedder: Any, group_ids: list[str] | None) -> None:
    """ConfigError when ``embedder`` does not reproduce the fact embeddings stored in ``driver``'s
    graph (``group_ids``' edges); verdicts are kept per driver for :data:`RECHECK_S`."""
    key = _embedder_key(embedder, group_ids)
    now = time.monotonic()
    seen = _VERDICTS.setdefault(driver, {})
    if key not in seen or now - seen[key][0] > RECHECK_S:
        seen[key] = (now, await _verdict(driver, embedder, group_ids))
    error = seen[key][1]
    if error is not None:
        raise ConfigError(error)


@dataclass(frozen=True)
class Mismatch:
    """Why an embedder is not the one that built a graph, and which built-in one is (None: none)."""

    reason: str
    built_by: str | None


async def mismatch(driver: Any, embedder: Any, group_ids: list[str] | None) -> Mismatch | None:
    """None when ``embedder`` reproduces the fact embeddings stored in ``driver``'s graph (or it
    stores none); else why not, and the built-in embedder that does, if one does."""
    texts, stored = await stored_sample(driver, group_ids)
    if not texts:
        return None
    found = compare(stored, await embed_texts(embedder, texts))
    if found["same"]:
        return None
    return Mismatch(found["reason"], await _which_builtin(texts, stored, type(embedder)))


async def _verdict(driver: Any, embedder: Any, group_ids: list[str] | None) -> str | None:
    found = await mismatch(driver, embedder, group_ids)
    if found is None:
        return None
    where = f"group {', '.join(group_ids)}" if group_ids else "the graph"
    fix = (f"its facts were embedded by {found.built_by!r}: set search.embedder: {found.built_by}"
           if found.built_by else "set search.embedder to the embedder that built it (or re-embed its facts with "
                                  "the one you set)")
    return f"config key search.embedder: {found.reason} ({where}, query embedder {type(embedder).__name__}); {fix}"


async def _which_builtin(texts: list[str], stored: list[Any], current: type) -> str | None:
    """The built-in embedder (other than ``current``) that reproduces ``stored``, if one does."""
    for name in BUILTIN_EMBEDDERS:
        try:
            candidate = embedder_named(name)
        except ConfigError:  # an optional extra that is not installed
            continue
        if type(candidate) is not current and compare(stored, await embed_texts(candidate, texts))["same"]:
            return name
    return None
