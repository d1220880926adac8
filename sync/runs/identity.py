"""Identity hashes of a run: which graph it ran on, and under which settings."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from graph_trust.config import Settings


def graph_key(g: Any) -> str:
    """Stable id of a graph (server address + default database), never holding credentials."""
    return hashlib.sha256(f"{g.address.display}|{g.database}".encode()).hexdigest()[:16]


def config_hash(settings: Settings) -> str:
    """Hash of the settings that decide what sync writes (tiers, aggregation, review mapping)."""
    relevant = {"tiers": settings.sync.tiers, "aggregation": settings.sync.aggregation,
                "review": settings.review.model_dump(mode="json")}
    return hashlib.sha256(json.dumps(relevant, sort_keys=True, default=str).encode()).hexdigest()[:16]
