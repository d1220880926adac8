"""HashingEmbedder: deterministic, fixed dimension, unit length, lexically meaningful."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from graphiti_core.embedder.client import EmbedderClient
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_trust.clients.hashing import DEFAULT_DIM, HashingEmbedder
from graph_trust.clients.offline import EmbeddingCrossEncoder

FACT = "The nightly backup of billing-db runs at 03:00 UTC."


async def test_create_is_deterministic_within_and_across_processes():
    a = await HashingEmbedder().create(FACT)
    b = await HashingEmbedder().create([FACT])  # Graphiti passes a one-element list
    code = (
        "import asyncio, json; from graph_trust.clients.hashing import HashingEmbedder; "
        f"print(json.dumps(asyncio.run(HashingEmbedder().create({FACT!r}))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": ""},
    ).stdout
    assert a == b == json.loads(out)


async def test_dimension_and_unit_length():
    v = await HashingEmbedder().create(FACT)
    assert len(v) == DEFAULT_DIM
    assert all(isinstance(x, float) for x in v)
    assert np.linalg.norm(v) == pytest.approx(1.0, abs=1e-6)
    w = await HashingEmbedder(dim=64).create(FACT)
    assert len(w) == 64


async def test_create_batch_matches_create():
    texts = [FACT, "auth-service listens on port 8443", "", "Straße café — ünïcode", "a\x00b"]
    e = HashingEmbedder()
    batch = await e.create_batch(texts)
    singles = [await HashingEmbedder().create(t) for t in texts]
    np.testing.assert_allclose(batch, singles, atol=1e-7)


def test_empty_and_stopword_only_texts_embed_to_zero():
    m = HashingEmbedder().embed(["", "the of and", "   "])
    assert m.shape == (3, DEFAULT_DIM)
    assert not m.any()


def test_similar_texts_are_closer_than_unrelated():
    e = HashingEmbedder()
    query = "when does the billing database backup run"
    related = e.similarity(query, "The billing database backup runs at 03:00 UTC.")
    paraphrase = e.similarity(query, "billing-db backups run nightly")
    unrelated = e.similarity(query, "auth-service listens on port 8443")
    assert related > paraphrase > unrelated
    assert related > 0.5
    assert abs(unrelated) < 0.2


def test_case_and_punctuation_do_not_matter():
    e = HashingEmbedder()
    assert e.similarity("Billing-DB backup!", "billing db backup") == pytest.approx(1.0, abs=1e-6)


def test_rejects_non_text_input():
    e = HashingEmbedder()
    with pytest.raises(TypeError, match="index 1"):
        e.embed(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="sequence of texts"):
        e.embed("one string")
    with pytest.raises(ValueError, match="dim"):
        HashingEmbedder(dim=0)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(max_size=60), min_size=1, max_size=8))
def test_rows_are_unit_or_zero_and_independent_of_batch(texts):
    e = HashingEmbedder(dim=32)
    m = e.embed(texts)
    norms = np.linalg.norm(m, axis=1)
    assert np.all((np.abs(norms - 1) < 1e-5) | (norms == 0))
    for i, t in enumerate(texts):
        np.testing.assert_allclose(HashingEmbedder(dim=32).embed([t])[0], m[i], atol=1e-6)


async def test_cross_encoder_ranks_by_cosine():
    ce = EmbeddingCrossEncoder(HashingEmbedder())
    passages = ["auth-service listens on port 8443", "The billing database backup runs at 03:00 UTC."]
    ranked = await ce.rank("billing database backup", passages)
    assert [p for p, _ in ranked] == [passages[1], passages[0]]
    assert ranked[0][1] > ranked[1][1]
    assert await ce.rank("anything", []) == []


async def test_cross_encoder_works_with_an_embedder_without_batch():
    class OneByOne(EmbedderClient):  # create only; create_batch raises NotImplementedError
        async def create(self, input_data):
            return await HashingEmbedder().create(input_data)

    passages = ["billing backup", "auth listens on port 8443"]
    ranked = await EmbeddingCrossEncoder(OneByOne()).rank("auth port", passages)
    assert ranked[0][0] == "auth listens on port 8443"


async def test_vectors_are_pinned():
    """The bundled demo's ranks depend on these exact vectors: changing the hashing scheme
    (features, key, weights, dim) must be a deliberate change that updates this test."""
    v = np.array(await HashingEmbedder().create(FACT))
    nonzero = np.nonzero(v)[0]
    assert list(nonzero[:3]) == [1, 2, 8]
    np.testing.assert_allclose(v[nonzero[:3]], [-0.237356, -0.118678, 0.118678], atol=1e-6)
