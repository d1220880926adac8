"""Retrieval policy metrics as Prometheus metrics (extra ``metrics``: prometheus-client).

Every payload's metadata is recorded into one registry (:func:`registry`, the library
accessor); :func:`write_textfile` writes it in the node-exporter textfile format for cron jobs
(``graph-trust context --policy --metrics-file PATH``). Without prometheus-client, recording
is a no-op and writing is a ConfigError.

=====================================================  =========  ==========================
metric                                                 type       reference name
=====================================================  =========  ==========================
graph_trust_retrieval_latency_seconds                  histogram  retrieval.latency_ms
graph_trust_retrieval_results                          histogram  retrieval.results_count
graph_trust_retrieval_tokens                           histogram  retrieval.tokens_used
graph_trust_retrieval_dedup_ratio                      gauge      retrieval.dedup_ratio
graph_trust_retrieval_cache_hit_ratio                  gauge      retrieval.cache_hit_rate
graph_trust_retrieval_requests_total{outcome}          counter    (ok, cache, skip, empty)
graph_trust_retrieval_duplicates_removed_total         counter
=====================================================  =========  ==========================
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from graph_trust.errors import ConfigError

_lock = threading.Lock()
_metrics: dict[str, Any] | None = None


def _build() -> dict[str, Any] | None:
    try:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
    except ImportError:
        return None
    reg = CollectorRegistry(auto_describe=True)
    p = "graph_trust_retrieval_"
    return {
        "registry": reg,
        "latency": Histogram(p + "latency_seconds", "End-to-end get_context time.", registry=reg,
                             buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5)),
        "results": Histogram(p + "results", "Memories returned per request.", registry=reg,
                             buckets=(0, 1, 2, 4, 6, 8, 10, 15, 20)),
        "tokens": Histogram(p + "tokens", "Tokens used per request.", registry=reg,
                            buckets=(0, 100, 250, 500, 750, 1000, 1500, 2000, 3000)),
        "dedup": Gauge(p + "dedup_ratio", "Share of duplicates removed, last request.", registry=reg),
        "cache": Gauge(p + "cache_hit_ratio", "Cache hits / lookups since the process started.", registry=reg),
        "requests": Counter(p + "requests", "Requests by outcome.", ["outcome"], registry=reg),
        "dups": Counter(p + "duplicates_removed", "Duplicate memories removed.", registry=reg),
    }


def _get() -> dict[str, Any] | None:
    global _metrics
    with _lock:
        if _metrics is None:
            _metrics = _build() or {}
        return _metrics or None


def registry() -> Any:
    """The prometheus-client ``CollectorRegistry`` holding the retrieval metrics (None without
    prometheus-client). Expose it with ``prometheus_client.generate_latest(registry())``."""
    m = _get()
    return m["registry"] if m else None


def record(md: Any) -> None:
    """Record one payload's :class:`~graph_trust.context.payload.Metadata`."""
    m = _get()
    if not m:
        return
    outcome = "cache" if md.cache_hit else (md.fallback or "ok")
    m["requests"].labels(outcome=outcome).inc()
    m["cache"].set(md.cache_hit_rate)
    if md.fallback is None and not md.cache_hit:
        m["latency"].observe(md.query_time_ms / 1000)
        m["results"].observe(md.included_results)
        m["tokens"].observe(md.total_tokens)
        m["dedup"].set(md.dedup_ratio)
        m["dups"].inc(md.duplicates_removed)


def write_textfile(path: str | Path) -> None:
    """Write the metrics atomically in the node-exporter textfile format."""
    reg = registry()
    if reg is None:
        raise ConfigError("--metrics-file needs prometheus-client (pip install 'graph-trust[metrics]')")
    from prometheus_client import write_to_textfile

    write_to_textfile(str(path), reg)
