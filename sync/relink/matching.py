"""Pure matching core of ``graph-trust relink``: candidates to ``RELATES_TO`` edges, no I/O.

An :class:`EdgeIndex` holds one group's edges (uuid, predicate = edge ``name``, fact, source
and target entity names). :class:`Matcher` matches a :class:`RelinkCandidate` in three tiers,
always with direction: the candidate's subject is an edge's *source*, its object the *target*.
An edge in the opposite direction is a different fact ("A depends on B" is not "B depends on A")
and is never a match, however similar its words.

1. **exact**: normalized subject, predicate and object (or subject and predicate when the
   candidate has no object) equal an edge's source name, ``name`` and target name. One such
   edge is the match; several (near-duplicates) are told apart by fact similarity with the
   margin below, else the candidate is *ambiguous*.
2. **endpoints**: the predicate was renamed, but subject and object name the source and
   target of edges (normalized names). One edge from that source to that target is the match
   (outcome ``endpoints``); several are decided by fact similarity (threshold and margin).
3. **similar**: no edge joins the two names. The pool is every edge whose source plausibly
   matches the subject and whose target plausibly matches the object (a name that exists in
   the group as it is matches only itself; an unknown name matches names with close token
   sets). Each is scored ``(bm25 + cosine) / 2``: BM25 of the fact's words *other than the
   endpoint names* (every edge in the pool shares those, so they prove nothing), normalized to
   [0, 1] by the query's IDF mass; cosine of the fact embeddings, clipped at 0. BM25 alone
   when embeddings are missing on either side (or not comparable: see ``sync/relink/embedding_check.py``).
   The best edge wins when its score is at least ``min_similarity`` and beats the runner-up
   by ``margin``; within the margin it is *ambiguous*, below the threshold *unmatched*.
   Pools of hub entities are cut to the ``pool_cap`` best by BM25 before cosine.

Nothing ambiguous or unmatched is ever written. :func:`settle_claims` then looks across
candidates: an edge that another candidate with a different fact already names as evidence,
or that several candidates with different facts would take, is *ambiguous* for every
candidate that got it by anything weaker than a sole exact match.

Names are normalized by :func:`normalize_name` (NFKC, casefold, punctuation and underscores
to spaces, whitespace collapsed); the exact *key* also drops the spaces, so ``Acme Corp``,
``ACME  corp``, ``acme-corp`` and ``AcmeCorp`` agree. An unknown name *plausibly matches* a
known one when one's token set contains the other's (``Redis`` and ``Redis Cache``, ``Smith``
and ``Alice Smith``); names that merely share words (``nightly backup job``, ``weekly backup
job``) are different entities.

The matcher never fetches anything: :meth:`Matcher.prepare` says which edges need
embeddings, the caller supplies them to :meth:`Matcher.decide` (so a 100k-edge graph's
embeddings never sit in memory at once).
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from graph_trust.clients.hashing import STOPWORDS
from graph_trust.sync.relink.text_index import BM25Index

_NON_WORD = re.compile(r"[\W_]+")
# Words that join a relation to its time, place or manner without naming it: two facts sharing
# only these ("works at X since 2021", "founded X since 2019") state different relations.
_CONNECTIVES = frozenset("""since until till after before during while into onto over under
    via per than then also about around across along among between through within without""".split())
_NOT_EVIDENCE = STOPWORDS | _CONNECTIVES

Outcome = Literal["exact", "endpoints", "similar", "ambiguous", "unmatched"]


def normalize_name(text: str | None) -> str:
    """NFKC + casefold, punctuation/underscore runs to one space, trimmed: ``'ACME,  Corp.'`` -> ``'acme corp'``."""
    if not text:
        return ""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return _NON_WORD.sub(" ", folded).strip()


def name_key(text: str | None) -> str:
    """The exact-match key: :func:`normalize_name` without spaces (``'AcmeCorp'`` == ``'Acme Corp'``)."""
    return normalize_name(text).replace(" ", "")


def tokenize(text: str | None) -> list[str]:
    """Word tokens of a name or fact, normalized as :func:`normalize_name`."""
    return normalize_name(text).split()


@dataclass(frozen=True)
class RelinkCandidate:
    """What matching needs from a review-DB candidate."""

    id: str
    subject: str | None
    predicate: str | None
    object: str | None
    fact: str | None
    group_id: str | None = None


@dataclass(frozen=True)
class EdgeRef:
    """An edge (by group and position in its :class:`EdgeIndex`) with its scores."""

    group_id: str | None
    uuid: str
    fact: str
    score: float | None
    bm25: float | None = None
    cosine: float | None = None

    def as_dict(self) -> dict:
        return {
            "uuid": self.uuid,
            "group_id": self.group_id,
            "fact": self.fact,
            "score": _round(self.score),
            "bm25": _round(self.bm25),
            "cosine": _round(self.cosine),
        }


@dataclass(frozen=True)
class MatchResult:
    """The outcome for one candidate; ``edge`` is set for the written outcomes only.
    ``sole``: the edge was the only one of its tier (an exact match nothing else shares)."""

    candidate_id: str
    outcome: Outcome
    reason: str
    edge: EdgeRef | None = None
    top: tuple[EdgeRef, ...] = ()
    sole: bool = False

    @property
    def written(self) -> bool:
        return self.outcome in ("exact", "endpoints", "similar")


def _round(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)


# --- names -------------------------------------------------------------------------------


class NameTable:
    """Distinct entity names of a group (by :func:`name_key`) with a token index for fuzzy look-up."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.vocab: dict[str, int] = {}
        self._ptr = array("q", [0])
        self._toks = array("i")

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, name: str | None) -> int:
        key = name_key(name)
        nid = self.ids.get(key)
        if nid is None:
            nid = self.ids[key] = len(self.ids)
            for tok in sorted(set(tokenize(name))):
                tid = self.vocab.setdefault(tok, len(self.vocab))
                self._toks.append(tid)
            self._ptr.append(len(self._toks))
        return nid

    def freeze(self) -> None:
        ptr = np.frombuffer(self._ptr, dtype=np.int64)
        toks = np.frombuffer(self._toks, dtype=np.int32)
        self.ntoks = np.diff(ptr).astype(np.int32)
        owner = np.repeat(np.arange(len(self.ids), dtype=np.int32), self.ntoks)
        order = np.argsort(toks, kind="stable")
        self.post_names = owner[order]
        self.post_ptr = np.zeros(len(self.vocab) + 1, dtype=np.int64)
        np.cumsum(np.bincount(toks, minlength=len(self.vocab)), out=self.post_ptr[1:])

    def plausible(self, name: str | None) -> np.ndarray:
        """Ids of the names that plausibly match ``name`` (see module docstring)."""
        key = name_key(name)
        if not key:
            return np.zeros(0, dtype=np.int64)
        exact = self.ids.get(key)
        if exact is not None:  # the entity exists under this name: others are other entities
            return np.array([exact], dtype=np.int64)
        found: list[int] = []
        qtoks = set(tokenize(name))
        known = [self.vocab[t] for t in qtoks if t in self.vocab]
        if known:
            parts = [self.post_names[self.post_ptr[t] : self.post_ptr[t + 1]] for t in known]
            hits = np.concatenate(parts)
            names, inter = np.unique(hits, return_counts=True)
            ok = inter == np.minimum(self.ntoks[names], len(qtoks))  # one contains the other
            found.extend(names[ok].tolist())
        return np.unique(np.array(found, dtype=np.int64))


# --- edges of one group ------------------------------------------------------------------


class EdgeIndex:
    """One group's ``RELATES_TO`` edges, built with :meth:`add` then :meth:`freeze`.

    ``add(..., embedding=...)`` keeps the vector in memory (tests, small graphs); at scale
    the caller passes vectors to :meth:`Matcher.decide` instead.
    """

    def __init__(self, group_id: str | None) -> None:
        self.group_id = group_id
        self.names = NameTable()
        self.text = BM25Index()
        self.uuids: list[str] = []
        self.facts: list[str] = []
        self._src = array("i")
        self._tgt = array("i")
        self._by_spo: dict[tuple[int, str, int], int | tuple[int, ...]] = {}
        self._by_sp: dict[tuple[int, str], int | tuple[int, ...]] = {}
        self._by_st: dict[tuple[int, int], int | tuple[int, ...]] = {}
        self.vectors: dict[int, np.ndarray] = {}
        self.frozen = False

    def __len__(self) -> int:
        return len(self.uuids)

    def add(
        self,
        uuid: str,
        name: str | None,
        fact: str | None,
        source_name: str | None,
        target_name: str | None,
        embedding: list[float] | np.ndarray | None = None,
    ) -> int:
        """Append an edge; returns its position."""
        i = len(self.uuids)
        s, t = self.names.add(source_name), self.names.add(target_name)
        p = name_key(name)
        self.uuids.append(uuid)
        self.facts.append(fact or "")
        self._src.append(s)
        self._tgt.append(t)
        _push(self._by_spo, (s, p, t), i)
        _push(self._by_sp, (s, p), i)
        _push(self._by_st, (s, t), i)
        self.text.add(tokenize(fact))
        if embedding is not None and len(embedding):
            self.vectors[i] = np.asarray(embedding, dtype=np.float32)
        return i

    def freeze(self) -> EdgeIndex:
        self.names.freeze()
        self.text.freeze()
        self.src = np.frombuffer(self._src, dtype=np.int32)
        self.tgt = np.frombuffer(self._tgt, dtype=np.int32)
        n_names = len(self.names)
        # name id -> edges touching it (as source or target), CSR
        ends = np.concatenate([self.src, self.tgt])
        edges = np.concatenate([np.arange(len(self)), np.arange(len(self))]).astype(np.int32)
        order = np.argsort(ends, kind="stable")
        self.adj_edges = edges[order]
        self.adj_ptr = np.zeros(n_names + 1, dtype=np.int64)
        np.cumsum(np.bincount(ends, minlength=n_names), out=self.adj_ptr[1:])
        self.frozen = True
        return self

    def exact(self, subject: str | None, predicate: str | None, obj: str | None) -> list[int]:
        """Edges whose source/name/target keys equal the candidate's (object optional)."""
        s = self.names.ids.get(name_key(subject))
        p = name_key(predicate)
        if s is None or not p:
            return []
        if obj:
            o = self.names.ids.get(name_key(obj))
            hit = None if o is None else self._by_spo.get((s, p, o))
        else:
            hit = self._by_sp.get((s, p))
        if hit is None:
            return []
        return [hit] if isinstance(hit, int) else list(hit)

    def between(self, subject: str | None, obj: str | None) -> list[int]:
        """Edges from the entity named ``subject`` to the one named ``obj`` (normalized names)."""
        s, o = self.names.ids.get(name_key(subject)), self.names.ids.get(name_key(obj))
        hit = None if s is None or o is None else self._by_st.get((s, o))
        if hit is None:
            return []
        return [hit] if isinstance(hit, int) else list(hit)

    def edges_of(self, name_ids: np.ndarray) -> np.ndarray:
        """Edges touching any of ``name_ids``."""
        if not name_ids.size:
            return np.zeros(0, dtype=np.int64)
        parts = [self.adj_edges[self.adj_ptr[n] : self.adj_ptr[n + 1]] for n in name_ids]
        return np.unique(np.concatenate(parts)).astype(np.int64)

    def plausible_edges(self, subject: str | None, obj: str | None) -> np.ndarray:
        """Edges whose source plausibly matches subject (and target object): direction kept."""
        subj_ids = self.names.plausible(subject)
        edges = self.edges_of(subj_ids)
        if not edges.size:
            return edges
        keep = np.isin(self.src[edges], subj_ids)
        if obj:
            obj_ids = self.names.plausible(obj)
            keep &= np.isin(self.tgt[edges], obj_ids)
        return edges[keep]


def _push(d: dict, key: tuple, i: int) -> None:
    prev = d.get(key)
    if prev is None:
        d[key] = i
    elif isinstance(prev, int):
        d[key] = (prev, i)
    else:
        d[key] = (*prev, i)


# --- the matcher -------------------------------------------------------------------------


@dataclass
class Prepared:
    """A candidate's exact hits, endpoint edges or similarity pool, per group, before scoring."""

    candidate: RelinkCandidate
    mode: Literal["exact", "endpoints", "similar", "none"]
    reason: str = ""
    pools: list[tuple[EdgeIndex, np.ndarray]] = field(default_factory=list)
    # endpoints: edges joining the same two entities the other way (never matches, but they show
    # the pair holds more than one relation, so a sole edge the right way proves nothing alone)
    reverse: int = 0

    @property
    def size(self) -> int:
        return sum(p.size for _, p in self.pools)

    def needs_vectors(self) -> list[tuple[EdgeIndex, np.ndarray]]:
        """(index, edge positions) whose embeddings :meth:`Matcher.decide` can use."""
        if self.mode == "similar" or (self.mode in ("exact", "endpoints") and self.size > 1):
            return [(ix, p) for ix, p in self.pools if p.size]
        return []


VectorMap = dict[tuple[str | None, int], np.ndarray]


class Matcher:
    """Match candidates against the edges of one or more groups (see module docstring)."""

    def __init__(
        self,
        indexes: dict[str | None, EdgeIndex],
        *,
        min_similarity: float = 0.5,
        margin: float = 0.05,
        pool_cap: int = 200,
    ) -> None:
        self.indexes = indexes
        self.min_similarity = min_similarity
        self.margin = margin
        self.pool_cap = pool_cap

    def scope(self, cand: RelinkCandidate) -> list[EdgeIndex]:
        """The indexes a candidate may match in: its group's; for a candidate without a group,
        the index keyed None (FalkorDB's default graph) if there is one, else every group."""
        if cand.group_id is None:
            if None in self.indexes:
                return [self.indexes[None]]
            return list(self.indexes.values())
        ix = self.indexes.get(cand.group_id)
        return [ix] if ix is not None else []

    def prepare(self, cand: RelinkCandidate) -> Prepared:
        """Exact hits, the edges between the endpoints, or the plausible-endpoint pool, unscored."""
        if not (cand.subject or "").strip():
            return Prepared(cand, "none", "candidate has no subject: endpoints cannot be checked")
        scope = self.scope(cand)
        if not scope or not any(len(ix) for ix in scope):
            where = f"group {cand.group_id!r}" if cand.group_id is not None else "the graph"
            return Prepared(cand, "none", f"{where} has no RELATES_TO edges")
        if (cand.predicate or "").strip():
            hits = _pools(scope, lambda ix: ix.exact(cand.subject, cand.predicate, cand.object))
            if hits:
                return Prepared(cand, "exact", pools=hits)
        if (cand.object or "").strip():
            hits = _pools(scope, lambda ix: ix.between(cand.subject, cand.object))
            if hits:
                back = sum(p.size for _, p in _pools(scope, lambda ix: ix.between(cand.object, cand.subject)))
                return Prepared(cand, "endpoints", pools=hits, reverse=back)
        if not (cand.fact or "").strip():
            return Prepared(cand, "none", "no edge with the same subject+predicate(+object) or endpoints "
                                          "and no fact text to compare")
        qtoks = relation_tokens(cand)
        pools = []
        for ix in scope:
            pool = ix.plausible_edges(cand.subject, cand.object)
            if pool.size > self.pool_cap:  # hub entities: keep the best by BM25 before cosine
                keep = np.argsort(-ix.text.normalized(qtoks, pool), kind="stable")[: self.pool_cap]
                pool = np.sort(pool[keep])
            if pool.size:
                pools.append((ix, pool))
        if not pools:
            if cand.object:
                why = "no edge from an entity plausibly named as the subject to one named as the object"
            else:
                why = "no edge from an entity plausibly named as the subject"
            return Prepared(cand, "none", f"{why} (edges the other way are different facts)")
        return Prepared(cand, "similar", pools=pools)

    def decide(
        self,
        prep: Prepared,
        cand_vector: np.ndarray | None = None,
        vectors: VectorMap | None = None,
    ) -> MatchResult:
        """Score the pool and apply the tier, threshold and margin rules. ``vectors`` maps
        ``(group_id, edge position)`` to an embedding; missing ones fall back to the index's own."""
        cand = prep.candidate
        if prep.mode == "none":
            return MatchResult(cand.id, "unmatched", prep.reason)
        n = prep.size
        if n == 1 and prep.mode in ("exact", "endpoints"):
            ix, p = prep.pools[0]
            i = int(p[0])
            ref = EdgeRef(ix.group_id, ix.uuids[i], ix.facts[i], 1.0)
            if prep.mode == "exact":
                return MatchResult(cand.id, "exact", _exact_what(cand), ref, (ref,), sole=True)
            if prep.reverse:  # a miss, never a guess: the renamed fact may be one of those
                return MatchResult(cand.id, "ambiguous", f"one edge from the subject to the object, but "
                                   f"{prep.reverse} more join them the other way (the renamed fact may read "
                                   "either way)", None, (ref,))
            return MatchResult(cand.id, "endpoints", "the one edge from the subject to the object "
                               "(predicate renamed)", ref, (ref,))
        refs, used_cosine = self._score(prep, cand_vector, vectors or {})
        refs.sort(key=lambda r: -(r.score or 0.0))
        top = tuple(refs[:2])
        best = refs[0]
        second = refs[1] if len(refs) > 1 else None
        how = "bm25+cosine" if used_cosine else "bm25 only (no comparable embeddings)"
        what = _exact_what(cand) if prep.mode == "exact" else "the subject and object as source and target"
        if prep.mode != "similar" and not (cand.fact or "").strip():
            return MatchResult(cand.id, "ambiguous", f"{n} edges match {what} and the candidate has no fact "
                               "to tell them apart", None, top)
        if prep.mode == "similar" and best.score < self.min_similarity:
            return MatchResult(cand.id, "unmatched", f"best fact similarity {best.score:.3f} ({how}) is below "
                               f"min_similarity {self.min_similarity} among {n} plausible edges", None, top)
        if prep.mode == "endpoints" and (best.bm25 or 0.0) < self.min_similarity / 2:
            # every edge here joins the same two names, so cosine is high for all of them: only
            # words the candidate shares with the best edge beyond the names are evidence
            return MatchResult(cand.id, "unmatched", f"{n} edges match {what} and the best shares too few of "
                               f"the candidate's words (BM25 {best.bm25 or 0.0:.3f} < min_similarity/2 = "
                               f"{self.min_similarity / 2})", None, top)
        if second is not None and best.score - second.score < self.margin:
            return MatchResult(cand.id, "ambiguous", f"{n} edges match {what}; top two fact similarities "
                               f"{best.score:.3f} and {second.score:.3f} ({how}) are within margin {self.margin}",
                               None, top)
        if prep.mode == "similar":
            runner = f", runner-up {second.score:.3f}" if second is not None else ", only plausible edge"
            return MatchResult(cand.id, "similar", f"fact similarity {best.score:.3f} ({how}){runner}", best, top)
        return MatchResult(cand.id, prep.mode, f"{what}; {n} edges share it, chosen by fact similarity ({how}) "
                           f"{best.score:.3f} vs {second.score:.3f}", best, top)

    def match(self, cand: RelinkCandidate, cand_vector: np.ndarray | None = None,
              vectors: VectorMap | None = None) -> MatchResult:
        """:meth:`prepare` then :meth:`decide` (vectors from the indexes unless given)."""
        return self.decide(self.prepare(cand), cand_vector, vectors)

    def _score(self, prep: Prepared, cand_vector: np.ndarray | None, vectors: VectorMap) -> tuple[list[EdgeRef], bool]:
        qtoks = relation_tokens(prep.candidate)
        parts = []
        for ix, pool in prep.pools:
            bm = ix.text.normalized(qtoks, pool)
            vecs = [vectors.get((ix.group_id, int(i)), ix.vectors.get(int(i))) for i in pool]
            parts.append((ix, pool, bm, vecs))
        cv = None if cand_vector is None else np.asarray(cand_vector, dtype=np.float32)
        use_cos = cv is not None and cv.size > 0 and float(np.linalg.norm(cv)) > 0 and all(
            v is not None and v.shape == cv.shape for *_, vecs in parts for v in vecs
        )
        refs: list[EdgeRef] = []
        for ix, pool, bm, vecs in parts:
            cos = None
            if use_cos:
                m = np.vstack(vecs)
                norms = np.linalg.norm(m, axis=1) * np.linalg.norm(cv)
                cos = np.clip(np.divide(m @ cv, norms, out=np.zeros(len(m), dtype=np.float32), where=norms > 0), 0.0, 1.0)
            for k, i in enumerate(pool):
                c = None if cos is None else float(cos[k])
                score = float(bm[k]) if c is None else (float(bm[k]) + c) / 2
                refs.append(EdgeRef(ix.group_id, ix.uuids[int(i)], ix.facts[int(i)], score, float(bm[k]), c))
        return refs, use_cos


def _pools(scope: list[EdgeIndex], hits_of) -> list[tuple[EdgeIndex, np.ndarray]]:
    out = [(ix, np.array(hits_of(ix), dtype=np.int64)) for ix in scope]
    return [(ix, h) for ix, h in out if h.size]


def relation_tokens(cand: RelinkCandidate) -> list[str]:
    """The fact's tokens without the subject's and object's and without stopwords: every edge
    in a pool already shares the endpoints, and ``is``, ``to``, ``by`` are shared by unrelated
    facts, so BM25 should weigh what is said about the endpoints."""
    names = set(tokenize(cand.subject)) | set(tokenize(cand.object))
    toks = tokenize(cand.fact)
    rest = [t for t in toks if t not in names and t not in _NOT_EVIDENCE]
    return rest or [t for t in toks if t not in names] or toks


def _exact_what(cand: RelinkCandidate) -> str:
    return "exact subject+predicate+object" if cand.object else "exact subject+predicate"


# --- across candidates -------------------------------------------------------------------


def fact_key(cand: RelinkCandidate) -> str:
    """What makes two candidates the same fact: the normalized fact text, else the triple."""
    return normalize_name(cand.fact) or "|".join(name_key(x) for x in (cand.subject, cand.predicate, cand.object))


def settle_claims(
    matched: list[tuple[RelinkCandidate, MatchResult]],
    held: dict[str, list[tuple[str, str]]] | None = None,
) -> list[MatchResult]:
    """Results with contested edges made ambiguous.

    ``held`` maps an edge uuid to ``(candidate id, fact_key)`` of the candidates whose evidence
    already names it (not orphaned). A candidate matched by anything weaker than a sole exact match loses its edge
    (ambiguous) when another candidate with a different fact holds it or would take it: one
    edge is one fact, and which candidate's fact it is cannot be told without understanding
    both. Candidates with the same fact (duplicates) may share an edge.
    """
    held = held or {}
    by_edge: dict[str, list[int]] = {}
    for k, (_, r) in enumerate(matched):
        if r.written:
            by_edge.setdefault(r.edge.uuid, []).append(k)
    out = [r for _, r in matched]
    for uuid, ks in by_edge.items():
        for k in ks:
            cand, r = matched[k]
            if r.sole:
                continue
            mine = fact_key(cand)
            holders = sorted({cid for cid, key in held.get(uuid, ()) if key != mine})
            takers = sorted({matched[j][0].id for j in ks if j != k and fact_key(matched[j][0]) != mine})
            if holders or takers:
                who = (f"candidate {holders[0]} (a different fact) already names it as evidence" if holders else
                       f"candidate {takers[0]} (a different fact) matched it too")
                out[k] = MatchResult(cand.id, "ambiguous", f"edge {uuid} (matched by {r.outcome}) is one fact and "
                                     f"{who}", None, r.top)
    return out
