"""The one factory for the embedder ``search.embedder`` configures: search, context, relink and
the sample loader build their embedder here, so a graph is embedded and searched alike."""

from __future__ import annotations

import importlib
from typing import Any

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.config import Settings
from graph_trust.errors import ConfigError


def make_embedder(settings: Settings) -> Any:
    """The embedder ``search.embedder`` names: ``hashing`` (:class:`HashingEmbedder`) or
    ``module:callable`` (called with no arguments; it returns a graphiti-core ``EmbedderClient``).
    Every command that embeds a query or a fact builds its embedder here."""
    spec = settings.search.embedder
    if spec == "hashing":
        return HashingEmbedder()
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise ConfigError(f"config key search.embedder: expected 'hashing' or 'module:callable', got {spec!r}")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"config key search.embedder: cannot load {spec!r} ({exc})") from None
    return factory()
