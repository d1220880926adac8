"""Confidence inputs kept between sync runs: the part of ``ConfidenceStore.gather`` that does not
depend on the current time (:class:`~graph_trust.sync.confidence.store.Static`), in an ``.npz``
file under the state directory, reused while the review DB's change marker
(:mod:`graph_trust.sync.runs.change_marker`) says nothing it reads has changed; a DB without a whole
marker never uses the cache. The cache is keyed by the DB's path and token, the counter, the schema
version and every setting that shapes the inputs; ages, the usage window and credibilities
(days active) are recomputed from the cached timestamps and records on every run.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from graph_trust.config import Settings, state_path
from graph_trust.sync.confidence.inputs import STATIC_ARRAYS, Gathered, Static
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.runs.change_marker import marker

FORMAT = 1  # bump when what ``Static`` holds changes


def cache_path(settings: Settings, review: str | Path) -> Path:
    """The cache file of one review DB (its resolved path or URL) under the state directory."""
    return state_path(settings, f"confidence-inputs-{hashlib.sha256(str(review).encode()).hexdigest()[:16]}.npz")


def _key(cs: ConfidenceStore, mark: tuple[str, int, int], settings: Settings) -> str:
    return hashlib.sha256(json.dumps([FORMAT, cs.db.identity, *mark, cs.db.table, cs.db.columns,
                                      settings.review.model_dump(mode="json"),
                                      settings.confidence.model_dump(mode="json")],
                                     sort_keys=True, default=str).encode()).hexdigest()


def _load(path: Path, key: str) -> Static | None:
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(z["meta"].tobytes().decode())
            if meta["key"] != key:
                return None
            arrays = {k: z[k] for k in STATIC_ARRAYS}
    except (OSError, ValueError, KeyError, json.JSONDecodeError):  # none yet, or unreadable: rebuilt
        return None
    return Static(meta["ids"], meta["statuses"], meta["authors"], meta["cats"], arrays,
                  [tuple(v) for v in meta["votes"]], meta["votes_read"], [tuple(u) for u in meta["uses"]],
                  tuple([tuple(r) for r in rows] for rows in meta["track"]))


def _save(path: Path, key: str, st: Static) -> bool:
    """Write ``st`` under ``key`` (atomically); False when its records do not fit JSON (left uncached)."""
    try:
        meta = json.dumps({"key": key, "ids": st.ids, "statuses": st.statuses, "authors": st.authors,
                           "cats": st.cats, "votes": st.votes, "votes_read": st.votes_read, "uses": st.uses,
                           "track": st.track})
    except (TypeError, ValueError):  # e.g. a blob in a record: such a DB is scored uncached
        return False
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, suffix=".tmp", delete=False) as f:
        try:  # (a file of its own: two runs at once never write into each other's)
            np.savez(f, meta=np.frombuffer(meta.encode(), dtype=np.uint8), **st.arrays)
        except BaseException:
            os.unlink(f.name)
            raise
    os.replace(f.name, path)
    return True


def gather_all(cs: ConfidenceStore, settings: Settings) -> tuple[Gathered, bool]:
    """Every candidate's factor inputs as ``cs.gather()`` gives them, the time-independent part
    from the cache when the review DB's marker says it is current (the reads and the marker in
    one snapshot). Returns (inputs, whether the cache was used)."""
    with cs.conn.snapshot():
        mark = marker(cs.conn, cs.db.table)
        path = cache_path(settings, cs.db.identity)
        key = None if mark is None else _key(cs, mark, settings)
        st = None if key is None else _load(path, key)
        hit = st is not None
        if st is None:
            st = cs.static()
            if key is not None:
                _save(path, key, st)
    return cs.timed(st), hit


__all__ = ["cache_path", "gather_all"]
