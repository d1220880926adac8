"""Okapi BM25 over a corpus held in flat numpy arrays (no scipy, no per-document objects).

Relinking scores each orphaned candidate's fact against a *handful* of edges (those whose
endpoints plausibly match), but with IDF taken from the whole group. ``rank_bm25.BM25Okapi``
can only score a query against the entire corpus (``get_scores`` is O(corpus) per query: 10k
candidates x 100k edges is 10^9 term look-ups), so this index keeps two CSR layouts:

* a **forward index** (document -> term ids, term frequencies) for :meth:`BM25Index.score`
  over a chosen set of documents, O(sum of their lengths);
* **postings** (term -> documents) for :meth:`BM25Index.score_all`, O(postings of the
  query terms), used by the benchmark and for full-corpus look-ups.

Scores follow rank-bm25's Okapi formula (``k1=1.5``, ``b=0.75``) with Lucene's always-positive
IDF ``log(1 + (N - df + 0.5) / (df + 0.5))``; query terms count once each.
:meth:`BM25Index.normalized` divides by the query's IDF mass (the score of a document of average
length containing every query term once), so a value near 1 means "every query term, weighted
by rarity, is in the document" and values are comparable across queries.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Sequence

import numpy as np


class BM25Index:
    """Build with :meth:`add` per document, then :meth:`freeze`; score afterwards."""

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.vocab: dict[str, int] = {}
        self._ptr = array("q", [0])
        self._terms = array("i")
        self._tfs = array("f")
        self.frozen = False

    def __len__(self) -> int:
        return len(self._ptr) - 1

    def add(self, tokens: Sequence[str]) -> int:
        """Append one document (its tokens); returns its id (0, 1, 2, ...)."""
        if self.frozen:
            raise RuntimeError("BM25Index is frozen")
        vocab = self.vocab
        for tok, tf in Counter(tokens).items():
            tid = vocab.get(tok)
            if tid is None:
                tid = vocab[tok] = len(vocab)
            self._terms.append(tid)
            self._tfs.append(tf)
        self._ptr.append(len(self._terms))
        return len(self._ptr) - 2

    def freeze(self) -> BM25Index:
        """Turn the build buffers into numpy arrays and compute IDF, lengths and postings."""
        self.ptr = np.frombuffer(self._ptr, dtype=np.int64)
        self.terms = np.frombuffer(self._terms, dtype=np.int32)
        self.tfs = np.frombuffer(self._tfs, dtype=np.float32)
        n_docs = len(self)
        owner = np.repeat(np.arange(n_docs, dtype=np.int32), np.diff(self.ptr))
        self.doclen = np.bincount(owner, weights=self.tfs, minlength=n_docs).astype(np.float32)
        self.avgdl = float(self.doclen.mean()) if n_docs else 1.0
        self.avgdl = self.avgdl or 1.0
        df = np.bincount(self.terms, minlength=len(self.vocab)).astype(np.float64)
        self.idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
        self.idf_unseen = float(np.log1p((n_docs + 0.5) / 0.5))
        order = np.argsort(self.terms, kind="stable")
        self.post_docs = owner[order]
        self.post_tfs = self.tfs[order]
        self.post_ptr = np.zeros(len(self.vocab) + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.terms, minlength=len(self.vocab)), out=self.post_ptr[1:])
        # length normalisation per document, precomputed: k1 * (1 - b + b * dl / avgdl)
        self.lennorm = (self.k1 * (1 - self.b + self.b * self.doclen / self.avgdl)).astype(np.float32)
        self.frozen = True
        return self

    # --- queries ---------------------------------------------------------------------------

    def query(self, tokens: Sequence[str]) -> tuple[np.ndarray, float]:
        """(sorted ids of the known query terms, the query's IDF mass including unseen terms)."""
        known, mass = set(), 0.0
        for tok in set(tokens):
            tid = self.vocab.get(tok)
            if tid is None:
                mass += self.idf_unseen
            else:
                known.add(tid)
        ids = np.array(sorted(known), dtype=np.int32)
        mass += float(self.idf[ids].sum()) if ids.size else 0.0
        return ids, mass

    def score(self, tokens: Sequence[str], docs: np.ndarray) -> np.ndarray:
        """BM25 of the query against each document in ``docs`` (forward index)."""
        qids, _ = self.query(tokens)
        return self._score_ids(qids, np.asarray(docs, dtype=np.int64))

    def normalized(self, tokens: Sequence[str], docs: np.ndarray) -> np.ndarray:
        """``score / IDF mass of the query``, clipped to [0, 1]; zeros for an empty query."""
        qids, mass = self.query(tokens)
        docs = np.asarray(docs, dtype=np.int64)
        if mass <= 0:
            return np.zeros(docs.size, dtype=np.float32)
        return np.clip(self._score_ids(qids, docs) / mass, 0.0, 1.0)

    def score_all(self, tokens: Sequence[str]) -> np.ndarray:
        """BM25 of the query against every document (postings; cost is the postings' length)."""
        qids, _ = self.query(tokens)
        out = np.zeros(len(self), dtype=np.float32)
        for tid in qids:
            lo, hi = self.post_ptr[tid], self.post_ptr[tid + 1]
            d = self.post_docs[lo:hi]
            tf = self.post_tfs[lo:hi]
            out[d] += self.idf[tid] * tf * (self.k1 + 1) / (tf + self.lennorm[d])
        return out

    def _score_ids(self, qids: np.ndarray, docs: np.ndarray) -> np.ndarray:
        if not qids.size or not docs.size:
            return np.zeros(docs.size, dtype=np.float32)
        starts = self.ptr[docs]
        lens = self.ptr[docs + 1] - starts
        total = int(lens.sum())
        if total == 0:
            return np.zeros(docs.size, dtype=np.float32)
        owner = np.repeat(np.arange(docs.size), lens)
        flat = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens) + np.repeat(starts, lens)
        terms = self.terms[flat]
        pos = np.minimum(np.searchsorted(qids, terms), qids.size - 1)
        hit = qids[pos] == terms
        if not hit.any():
            return np.zeros(docs.size, dtype=np.float32)
        t, tf, who = terms[hit], self.tfs[flat[hit]], owner[hit]
        s = self.idf[t] * tf * (self.k1 + 1) / (tf + self.lennorm[docs[who]])
        return np.bincount(who, weights=s, minlength=docs.size).astype(np.float32)
