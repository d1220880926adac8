"""Offline stand-ins so ``graphiti_core.Graphiti`` constructs and searches with no network.

``Graphiti(...)`` builds an OpenAI LLM client, embedder and reranker for every client it is not
given, and those need ``OPENAI_API_KEY``. Searching never calls the LLM, so graph-trust's demo,
tests and benchmarks hand Graphiti:

- :class:`OfflineLLMClient`: constructs without a key; any call raises
  :class:`LLMUnavailableError` naming the fix (ingestion such as ``add_episode`` needs a real
  LLM: pass Graphiti's configured ``llm_client``);
- :class:`graph_trust.clients.hashing.HashingEmbedder`: the deterministic offline embedder;
- :class:`EmbeddingCrossEncoder`: a ``CrossEncoderClient`` that ranks passages by the
  embedder's cosine similarity to the query (used only by the ``*_CROSS_ENCODER`` recipes).

Real deployments construct ``Graphiti`` with their own clients; graph-trust's search takes any
``Graphiti`` instance.
"""

from __future__ import annotations

import typing

import numpy as np
from graphiti_core import Graphiti
from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.driver.driver import GraphDriver
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client import LLMClient
from graphiti_core.llm_client.config import DEFAULT_MAX_TOKENS, LLMConfig, ModelSize
from graphiti_core.prompts.models import Message
from pydantic import BaseModel

from graph_trust.clients.array import ArrayEmbedder
from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.errors import ConfigError


class LLMUnavailableError(ConfigError):
    """An operation needed an LLM, but Graphiti was built with the offline stand-in."""


_NO_LLM = (
    "this Graphiti instance has no LLM (graph-trust's offline client): searching works, "
    "but {what} needs a real one; construct Graphiti with your llm_client instead of "
    "graph_trust.clients.offline.make_graphiti"
)


class OfflineLLMClient(LLMClient):
    """An ``LLMClient`` that constructs without credentials and refuses every call."""

    def __init__(self) -> None:
        super().__init__(LLMConfig(api_key=None, model="offline", small_model="offline"))

    async def generate_response(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int | None = None,
        model_size: ModelSize = ModelSize.medium,
        group_id: str | None = None,
        prompt_name: str | None = None,
        **kwargs: typing.Any,
    ) -> dict[str, typing.Any]:
        raise LLMUnavailableError(_NO_LLM.format(what=f"prompt {prompt_name or '(unnamed)'!r}"))

    async def _generate_response(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        model_size: ModelSize = ModelSize.medium,
        **kwargs: typing.Any,
    ) -> dict[str, typing.Any]:
        raise LLMUnavailableError(_NO_LLM.format(what="an LLM call"))


class EmbeddingCrossEncoder(CrossEncoderClient):
    """Rank passages by cosine similarity of their embeddings to the query's.

    Scores are the cosine similarities (in [-1, 1]); ties keep the input order.
    """

    def __init__(self, embedder: EmbedderClient | None = None) -> None:
        self.embedder = embedder if embedder is not None else HashingEmbedder()

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        if not passages:
            return []
        texts = [query, *passages]
        if isinstance(self.embedder, ArrayEmbedder):
            vecs = self.embedder.embed(texts)
        else:
            try:
                rows = await self.embedder.create_batch(texts)
            except NotImplementedError:  # EmbedderClient's default
                rows = [await self.embedder.create(input_data=[t]) for t in texts]
            vecs = np.asarray(rows, dtype=np.float64)
        norms = np.linalg.norm(vecs, axis=1)
        norms[norms == 0] = 1.0
        unit = vecs / norms[:, None]
        scores = unit[1:] @ unit[0]
        order = np.argsort(-scores, kind="stable")
        return [(passages[i], float(scores[i])) for i in order]


def make_graphiti(driver: GraphDriver, embedder: EmbedderClient | None = None) -> Graphiti:
    """A ``Graphiti`` over ``driver`` that needs no network and no API key.

    ``embedder`` defaults to :class:`HashingEmbedder` (it must be the embedder the graph's
    vectors were made with); the cross-encoder ranks with the same embedder.
    """
    embedder = embedder if embedder is not None else HashingEmbedder()
    return Graphiti(
        graph_driver=driver,
        llm_client=OfflineLLMClient(),
        embedder=embedder,
        cross_encoder=EmbeddingCrossEncoder(embedder),
    )
