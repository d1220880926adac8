"""The numpy-backed ``EmbedderClient`` base graph-trust's own embedders share.

:class:`ArrayEmbedder` gives graphiti-core's ``create``/``create_batch`` from one numpy
``embed(texts) -> (n, dim)`` method, the fast path graph-trust's own code (the sample loader, the
benchmarks, the cross-encoder) calls directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from graphiti_core.embedder.client import EmbedderClient


class ArrayEmbedder(EmbedderClient):
    """A graphiti-core ``EmbedderClient`` over a numpy ``embed(texts) -> (n, dim)`` method (the
    fast path graph-trust's own code calls directly)."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise NotImplementedError

    async def create(
        self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]
    ) -> list[float]:
        """Embed one text. A list of strings embeds its first element, as Graphiti's own
        embedders do (Graphiti calls ``create(input_data=[text])``)."""
        return self.embed([single_text(input_data, type(self).__name__)])[0].astype(np.float64).tolist()

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        """Embed many texts; the i-th vector belongs to the i-th text."""
        # float64 -> list is about twice as fast as float32 -> list; the values are the same.
        return self.embed(input_data_list).astype(np.float64).tolist()


def single_text(input_data: object, embedder: str) -> str:
    """The one text ``EmbedderClient.create`` embeds: a string, or the first of a list of strings."""
    if isinstance(input_data, str):
        return input_data
    if isinstance(input_data, list | tuple) and input_data and isinstance(input_data[0], str):
        return input_data[0]
    raise TypeError(
        f"{embedder} embeds text: pass a string or a list of strings, not token ids "
        f"({type(input_data).__name__})"
    )
