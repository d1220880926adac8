"""BM25 over the items the exact vector store holds: postings graph-trust keeps itself.

FalkorDB's fulltext index keeps replaced entries in its BM25 statistics until its collector runs
and places a rewritten item anew among equal scores, so the same graph content gives different
BM25 candidates and scores depending on its write history. These postings are built from the
graph's content alone (the fields Graphiti's fulltext index covers, :data:`FIELDS`: a fact's
``name`` and ``fact``, an entity's ``name`` and ``summary``; tokenised and stemmed by
:func:`tokens`) beside the store's vectors (``terms.npy``, ``indptr.npy``, ``rows.npy``, ``tf.npy``, ``doclen.npy``,
memory-mapped like them), and scored by Okapi BM25 (:data:`K1`, :data:`B`, Lucene's idf) with
per-group statistics; items Graphiti wrote or deleted since the build are counted in and out
the same way the store's vectors are (:class:`graph_trust.graph.vector_store.StoreView`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import snowballstemmer

K1 = 1.2
B = 0.75
# RediSearch's default English stopwords (FalkorDB's fulltext index drops the same)
STOPWORDS = frozenset(
    "a is the an and are as at be but by for if in into it no not of on or such that their then there these "
    "they this to was will with".split())
_WORD = re.compile(r"[^\W_]+")
_STEMMER = snowballstemmer.stemmer("english")
# what BM25 covers per kind of item: the text fields of Graphiti's fulltext indexes (their group_id aside)
FIELDS = {"edge": ("name", "fact"), "node": ("name", "summary")}


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word)


def tokens(text: str | None) -> list[str]:
    """The terms of ``text``: lower-cased runs of letters and digits, stopwords left out, each
    reduced to its Snowball English stem (as RediSearch, FalkorDB's fulltext engine, does:
    "runs" and "run" are one term)."""
    return [_stem(t) for t in _WORD.findall((text or "").lower()) if t not in STOPWORDS]


def doc_text(row: dict[str, Any], kind: str) -> str:
    """What an item's BM25 covers (:data:`FIELDS`): a fact's relation name and fact, an entity's
    name and summary."""
    return " ".join(row.get(f) or "" for f in FIELDS[kind])


def write(gen: Path, docs: list[list[str]]) -> int:
    """Write the postings of ``docs`` (one term list per store row, in row order); the number of terms."""
    vocab: dict[str, int] = {}
    term_ids = [vocab.setdefault(t, len(vocab)) for ts in docs for t in ts]
    row_ids = np.repeat(np.arange(len(docs), dtype=np.int64), [len(ts) for ts in docs])
    names = np.asarray(sorted(vocab), dtype=str) if vocab else np.zeros(0, dtype="<U1")
    remap = np.empty(len(vocab), dtype=np.int64)
    for i, t in enumerate(names.tolist()):
        remap[vocab[t]] = i
    # each (term, row) pair as one integer, term major: a flat unique sorts by term, then row
    keys = remap[np.asarray(term_ids, dtype=np.int64)] * max(1, len(docs)) + row_ids
    flat, tf = np.unique(keys, return_counts=True)
    uniq = np.stack(np.divmod(flat, max(1, len(docs))))
    indptr = np.searchsorted(uniq[0], np.arange(len(names) + 1)) if len(names) else np.zeros(1, np.int64)
    np.save(gen / "terms.npy", names)
    np.save(gen / "indptr.npy", indptr.astype(np.int64))
    np.save(gen / "rows.npy", uniq[1].astype(np.int32))
    np.save(gen / "tf.npy", tf.astype(np.int32))
    np.save(gen / "doclen.npy", np.asarray([len(d) for d in docs], dtype=np.int32))
    return len(names)


class Postings:
    """The postings of one store generation, memory-mapped (:meth:`load`: None for a generation without)."""

    def __init__(self, gen: Path):
        self.terms = np.load(gen / "terms.npy", mmap_mode="r")
        self.indptr = np.load(gen / "indptr.npy", mmap_mode="r")
        self.rows = np.load(gen / "rows.npy", mmap_mode="r")
        self.tf = np.load(gen / "tf.npy", mmap_mode="r")
        self.doclen = np.load(gen / "doclen.npy", mmap_mode="r")

    @classmethod
    def load(cls, gen: Path) -> Postings | None:
        return cls(gen) if (gen / "terms.npy").exists() else None

    def postings(self, term: str, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows in [a, b), term frequencies) of ``term``."""
        i = int(np.searchsorted(self.terms, term))
        if i >= len(self.terms) or self.terms[i] != term:
            return np.zeros(0, np.int64), np.zeros(0, np.int32)
        rows = np.asarray(self.rows[self.indptr[i]:self.indptr[i + 1]], dtype=np.int64)
        tf = np.asarray(self.tf[self.indptr[i]:self.indptr[i + 1]])
        lo, hi = np.searchsorted(rows, [a, b])
        return rows[lo:hi], tf[lo:hi]


def bm25(tf: np.ndarray, dl: np.ndarray, df: int, n: int, avgdl: float) -> np.ndarray:
    """Okapi BM25 term weights of documents with term frequencies ``tf`` and lengths ``dl``."""
    idf = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
    return idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / max(avgdl, 1e-9)))
