"""Shared CLI plumbing: common options, settings, output and async running."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import click

from graph_trust.cli.signals import run  # noqa: F401 - the CLI's one event loop per command (SIGTERM cancels it)
from graph_trust.config import Settings, load_settings


@dataclass
class Runtime:
    """What every command gets: validated settings and the output mode."""

    settings: Settings
    json: bool
    debug: bool

    @property
    def quiet(self) -> bool:
        """No progress bars under --json or when stdout is not a terminal."""
        return self.json or not sys.stdout.isatty()


def common_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add --config, --graph, --json and --debug, kept for :func:`runtime` (the command calls it
    for its settings; an option of its own that sets a setting goes in as a dotted key of
    ``overrides``)."""

    @click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
                  help="YAML config file (default: $GRAPH_TRUST_CONFIG or ./graph-trust.yaml).")
    @click.option("--graph", "graph_uri", default=None, metavar="URI",
                  help="Graph address: embedded:PATH (default embedded:.graph-trust/graph), "
                       "falkordb://host:port, bolt://host:port, neo4j://host:port.")
    @click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON on stdout.")
    @click.option("--debug", is_flag=True, help="Show tracebacks and debug logs.")
    @functools.wraps(fn)
    def wrapper(*args: Any, config_path: str | None, graph_uri: str | None, as_json: bool, debug: bool,
                **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        ctx.meta["graph_trust.common"] = {"config": config_path, "graph.uri": graph_uri,
                                          "json": as_json, "debug": debug}
        return fn(*args, **kwargs)

    return wrapper


def graph_option() -> str | None:
    """The graph the command line named (``--graph``), None when it named none."""
    return click.get_current_context().meta["graph_trust.common"]["graph.uri"]


def runtime(overrides: dict[str, Any] | None = None, flags: Mapping[str, str] | None = None,
            explicit: Mapping[str, Any] | None = None) -> Runtime:
    """Settings for the current command: YAML, then env, then --graph and ``overrides`` (None: an
    unset flag), then ``explicit`` (``--set`` values, None included), validated once. ``flags``
    names the option each override came from (dotted key -> ``--flag``), so a bad value's error
    names the flag the user typed."""
    meta = click.get_current_context().meta["graph_trust.common"]
    all_overrides = {"graph.uri": meta["graph.uri"], **(overrides or {})}
    settings = load_settings(meta["config"], overrides=all_overrides,
                             override_sources=flags, explicit=explicit)
    return Runtime(settings=settings, json=meta["json"], debug=meta["debug"])


def emit_json(obj: Any) -> None:
    """Stable JSON on stdout (sorted keys, ISO datetimes)."""
    click.echo(json.dumps(obj, indent=2, sort_keys=True, default=_default, ensure_ascii=False))


def _default(o: Any) -> Any:
    if hasattr(o, "isoformat"):
        return o.isoformat()
    if hasattr(o, "to_dict"):
        return o.to_dict()
    if isinstance(o, set | frozenset):
        return sorted(o)
    return str(o)


def table(rows: list[list[Any]], headers: list[str]) -> str:
    """A plain aligned text table (no dependency needed for this)."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def trust_cell(v: float | None) -> str:
    """A trust score in a table: two decimals, '-' for none."""
    return "-" if v is None else f"{v:.2f}"


# The columns of an explained result (search.ranking.Explanation): final = fused + boost + relation,
# or the score of the place a rule moved the item to ("moved": the rule and the score it had).
EXPLAIN_HEADERS = ["#", "final", "fused", "trust", "boost", "relation", "bm25", "cos", "unboosted#", "negative",
                   "moved"]


def explain_cells(e: Any, digits: int = 4) -> list[Any]:
    """One explained result's cells under :data:`EXPLAIN_HEADERS`."""
    moved = "-" if e.moved_by is None else f"{e.moved_by} from {e.score_before_move:.{digits}f}"
    # a trusted fact the topic guard left unboosted says which of the query's identifiers it lacks
    withheld = getattr(e, "missing_identifier", None) if e.trust_score is not None else None
    boost = f"{e.boost:+.{digits}f}" if withheld is None else f"0 (lacks {withheld})"
    return [e.rank, f"{e.final:.{digits}f}", f"{e.fused:.{digits}f}", trust_cell(e.trust_score),
            boost, f"{e.relation_bonus:+.{digits}f}", e.bm25_rank or "-", e.cosine_rank or "-",
            e.rank_without_boost, e.negative or "-", moved]


def shorten(text: str, width: int = 80) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


class ProgressBars:
    """click progress bars on stderr, one per phase; silent when ``quiet`` (``--json`` or no
    terminal) or when a phase has no known total. Call with ``(phase, n, total)`` to advance
    by ``n``; :meth:`at` moves to an absolute position. Use as a context manager."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.bar: Any = None
        self.phase: str | None = None

    def __call__(self, phase: str, n: int, total: int | None) -> None:
        if self.quiet or total is None:
            return
        if phase != self.phase:
            self.close()
            self.phase = phase
            self.bar = click.progressbar(length=total, label=phase, file=click.get_text_stream("stderr"))
            self.bar.__enter__()
        self.bar.update(n)

    def at(self, phase: str, done: int, total: int | None) -> None:
        """Progress given as a running count rather than an increment."""
        pos = self.bar.pos if self.bar is not None and phase == self.phase else 0
        self(phase, done - pos, total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None

    def __enter__(self) -> ProgressBars:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
