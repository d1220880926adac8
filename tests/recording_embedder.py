"""An embedder a test names in ``search.embedder`` ("recording_embedder:RecordingEmbedder")."""

from __future__ import annotations

from graph_trust.clients.hashing import HashingEmbedder


class RecordingEmbedder(HashingEmbedder):
    """The hashing embedder (same vectors), recording every text it embeds."""

    seen: list[str] = []

    async def create(self, input_data):  # noqa: ANN001, ANN201
        RecordingEmbedder.seen.append(input_data if isinstance(input_data, str) else input_data[0])
        return await super().create(input_data)
