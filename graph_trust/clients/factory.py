"""The one factory for the embedder ``search.embedder`` configures: search, context, relink and
the sample loader build their embedder here, so a graph is embedded and searched alike."""

from __future__ import annotations

import importlib
from typing import Any

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.wordllama import WordLlamaEmbedder
from graph_trust.config import Settings
from graph_trust.errors import ConfigError

# The embedders graph-trust ships, by the name ``search.embedder`` (and ``--embedder``) gives them.
BUILTIN_EMBEDDERS = ("hashing", "wordllama")


def make_embedder(settings: Settings) -> Any:
    """The embedder ``search.embedder`` names (:func:`embedder_named`). Every command that embeds a
    query or a fact builds its embedder here."""
    return embedder_named(settings.search.embedder)


def embedder_named(spec: str) -> Any:
    """``hashing`` (:class:`HashingEmbedder`), ``wordllama`` (:class:`~graph_trust.clients.wordllama.
    WordLlamaEmbedder`, the ``wordllama`` extra) or ``module:callable`` (called with no arguments; it
    returns a graphiti-core ``EmbedderClient``)."""
    if spec == "hashing":
        return HashingEmbedder()
    if spec == "wordllama":
        return WordLlamaEmbedder()  # a ConfigError naming the extra when it is not installed
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise ConfigError(f"config key search.embedder: expected 'hashing', 'wordllama' or 'module:callable', "
                          f"got {spec!r}")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"config key search.embedder: cannot load {spec!r} ({exc})") from None
    return factory()
