"""A deterministic, offline embedder for the demo, the tests and the benchmarks.

``HashingEmbedder`` is a graphiti-core ``EmbedderClient`` that needs no model and no network.
It maps a text to a vector by *signed feature hashing*:

1. casefold the text and split it into word tokens (``\\w+``: letters, digits, underscore;
   ``billing-db`` gives ``billing`` and ``db``, ``03:00`` gives ``03`` and ``00``);
2. drop a short list of English stopwords (``the``, ``does``, ``when``, ...);
3. every remaining word contributes one *word feature* (weight 1.0) and the character
   trigrams of ``<word>`` (boundary-marked, weight 0.5 each), so ``backup`` and ``backups``
   or ``database`` and ``databases`` share most of their features;
4. each feature is hashed with keyed BLAKE2b (8-byte digest, fixed key ``graph-trust/hashing-v1``):
   the digest modulo ``dim`` picks the coordinate, its top bit the sign (+1 / -1), so
   collisions cancel on average instead of piling up;
5. the vector is L2-normalised. An empty text (or one made only of stopwords) maps to the
   zero vector, which is similar to nothing.

The result is a lexical similarity (shared words and word pieces), not a semantic one:
good enough to make Graphiti's cosine search meaningful offline, reproducible bit for bit on
every machine and Python version, and fast (per-word features are cached and a batch is
assembled with one ``numpy.bincount``). Real deployments pass the embedder Graphiti is
configured with (OpenAI, Voyage, Gemini, ...) instead; nothing else in graph-trust depends on
this class.

Dimension: graphiti-core's ``EMBEDDING_DIM`` (1024 unless the ``EMBEDDING_DIM`` environment
variable says otherwise) is only the default of *model* embedders and the length of the dummy
vector Graphiti uses when a search has no cosine method; FalkorDB's ``vecf32`` values and the
cosine scan Graphiti runs need no fixed dimension, only that stored and query vectors agree.
``DEFAULT_DIM`` is 256: hashing collisions add cosine noise of about ``1/sqrt(dim)`` (~0.06),
far below the similarity of related facts, while vectors stay 4x smaller than at 1024 (1 KiB
per edge as ``vecf32``), which matters on the 100k-edge benchmark graphs. A graph must be
embedded and searched with the same ``dim``.

The factory every command builds its embedder with is :func:`graph_trust.clients.factory.make_embedder`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from graph_trust.clients.array import ArrayEmbedder

DEFAULT_DIM = 256
HASH_KEY = b"graph-trust/hashing-v1"
WORD_WEIGHT = 1.0
TRIGRAM_WEIGHT = 0.5

STOPWORDS = frozenset(
    """a an and are as at be by did do does for from has have how in is it its of on or
    that the their this to was were what when where which who whom why will with""".split()
)

_TOKEN_OR_NUL = re.compile(r"\w+|\x00")
_SEPARATOR = " \x00 "  # between texts of a chunk; NUL is never part of a word
_SEPARATOR_NUL = "\x00"
# bytes -> bytes: ASCII letters lowercased, digits/underscore/NUL kept, other ASCII -> space
_ASCII_WORDS = bytes(
    c + 32 if 65 <= c <= 90 else c if (48 <= c <= 57 or 97 <= c <= 122 or c in (0, 95)) else 32
    for c in range(256)
)
_CACHE_LIMIT = 500_000  # words kept in the feature table before it is reset
_CHUNK = 2048  # texts per numpy pass (keeps the working set in cache)


class HashingEmbedder(ArrayEmbedder):
    """Signed feature hashing of words and character trigrams into ``dim`` floats (L2-normalised).

    >>> import asyncio
    >>> e = HashingEmbedder()
    >>> v = asyncio.run(e.create("The nightly backup of billing-db runs at 03:00 UTC"))
    >>> len(v), round(sum(x * x for x in v), 6)
    (256, 1.0)
    """

    def __init__(self, dim: int = DEFAULT_DIM) -> None:
        if not isinstance(dim, int) or isinstance(dim, bool) or dim < 8:
            raise ValueError(f"embedding dim must be an integer >= 8, got {dim!r}")
        self.dim = dim
        self._reset_vocabulary()

    # --- numpy API -------------------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into a ``(len(texts), dim)`` float32 array of unit (or zero) rows."""
        if isinstance(texts, str):
            raise TypeError("HashingEmbedder.embed takes a sequence of texts, not one string")
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for lo in range(0, len(texts), _CHUNK):
            out[lo : lo + _CHUNK] = self._embed_chunk(texts[lo : lo + _CHUNK], lo)
        return out

    def _embed_chunk(self, texts: Sequence[str], offset: int) -> np.ndarray:
        n = len(texts)
        for row, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(
                    f"HashingEmbedder embeds strings, got {type(text).__name__} "
                    f"at index {offset + row}"
                )
        ids = self._token_ids(texts)
        # Token rows: the separator token (id 0) between texts advances the row.
        token_rows = np.cumsum(ids == 0)
        # Every token expands to its word's slice of the feature table (a CSR gather).
        starts = self._starts[ids]
        nfeat = self._starts[ids + 1] - starts
        ends = np.cumsum(nfeat)
        total = int(ends[-1]) if len(ends) else 0
        pos = np.repeat(starts - (ends - nfeat), nfeat) + np.arange(total)
        flat = np.repeat(token_rows * self.dim, nfeat) + self._fidx[pos]
        vecs = np.bincount(flat, weights=self._fval[pos], minlength=n * self.dim)
        vecs = vecs.reshape(n, self.dim).astype(np.float64, copy=False)
        norms = np.sqrt(np.einsum("ij,ij->i", vecs, vecs))[:, None]
        return np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)

    def _token_ids(self, texts: Sequence[str]) -> np.ndarray:
        """Word ids of all tokens of ``texts``, texts separated by the separator id 0.

        ASCII text takes a fast path (one bytes.translate + split for the whole chunk) that
        yields exactly the tokens of the general path (``\\w+`` on the casefolded text).
        """
        joined = _SEPARATOR.join(texts)
        if joined.count(_SEPARATOR_NUL) != len(texts) - 1:  # a text holds NUL itself
            joined = _SEPARATOR.join(t.replace(_SEPARATOR_NUL, " ") for t in texts)
        if joined.isascii():
            tokens = joined.encode("ascii").translate(_ASCII_WORDS).split()
        else:
            tokens = [t.encode() for t in _TOKEN_OR_NUL.findall(joined.casefold())]
        vocab = self._vocab
        new = set(tokens).difference(vocab)
        if new:
            self._add_words(new)
            vocab = self._vocab
        return np.array(list(map(vocab.__getitem__, tokens)), dtype=np.int64)

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two texts (convenience for tests and explanations)."""
        va, vb = self.embed([a, b])
        return float(np.dot(va, vb))

    # --- feature table -------------------------------------------------------------------------
    # Word w (id i) owns features _fidx[_starts[i]:_starts[i+1]] with signed weights _fval[...];
    # the arrays grow by doubling, so adding words is amortised O(1).

    def _reset_vocabulary(self) -> None:
        self._vocab: dict[bytes, int] = {}
        self._trigrams: dict[str, tuple[int, float]] = {}
        self._starts = np.zeros(1024 + 1, dtype=np.int64)
        self._fidx = np.zeros(16 * 1024, dtype=np.int64)
        self._fval = np.zeros(16 * 1024, dtype=np.float64)
        self._add_word(_SEPARATOR_NUL.encode())  # id 0, no features

    def _add_words(self, words: set[bytes]) -> None:
        if len(self._vocab) + len(words) > _CACHE_LIMIT:
            self._reset_vocabulary()
        for word in sorted(words):
            self._add_word(word)

    def _add_word(self, word: bytes) -> None:
        idx, val = self._word_features(word.decode())
        wid = len(self._vocab)
        start = int(self._starts[wid])
        end = start + len(idx)
        if wid + 2 > len(self._starts):
            self._starts = np.concatenate([self._starts, np.zeros_like(self._starts)])
        while end > len(self._fidx):
            self._fidx = np.concatenate([self._fidx, np.zeros_like(self._fidx)])
            self._fval = np.concatenate([self._fval, np.zeros_like(self._fval)])
        self._fidx[start:end] = idx
        self._fval[start:end] = val
        self._starts[wid + 1] = end
        self._vocab[word] = wid

    def _word_features(self, word: str) -> tuple[list[int], list[float]]:
        """Hashed (coordinate, signed weight) pairs of one word; none for a stopword."""
        if word in STOPWORDS or word == _SEPARATOR_NUL:
            return [], []
        marked = f"<{word}>"
        feats = [self._hash("w:" + word, WORD_WEIGHT)]
        trigrams = self._trigrams
        for i in range(len(marked) - 2):
            tri = marked[i : i + 3]
            hashed = trigrams.get(tri)
            if hashed is None:
                hashed = trigrams[tri] = self._hash("t:" + tri, TRIGRAM_WEIGHT)
            feats.append(hashed)
        return [f[0] for f in feats], [f[1] for f in feats]

    def _hash(self, feature: str, weight: float) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode(), digest_size=8, key=HASH_KEY).digest()
        h = int.from_bytes(digest, "little")
        return h % self.dim, (-weight if h >> 63 else weight)
