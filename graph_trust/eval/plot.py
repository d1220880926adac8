"""``graph-trust eval --plot``: one PNG, nDCG@10 and the wrong-answer-first rate per ranking
(mean over draws, bars of one standard deviation). matplotlib is the ``plot`` extra."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graph_trust.errors import ConfigError, InputError
from graph_trust.eval.budget import START_NAMES


def _pyplot() -> Any:
    try:  # matplotlib is the optional plot extra
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("--plot needs matplotlib: pip install 'graph-trust[plot]'") from None
    return plt


def _save(fig: Any, plt: Any, path: str | Path) -> Path:
    out = Path(path)
    try:
        fig.savefig(out, dpi=110)
    except OSError as exc:
        raise InputError(f"cannot write plot {out}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
    return out


def write_plot(report: Any, path: str | Path) -> Path:
    """Draw the report's two headline measures side by side into ``path`` (PNG)."""
    plt = _pyplot()
    rows = report.to_dict()["methods"]
    names = [r["name"] for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(max(8, 1.6 * len(names)), 4), constrained_layout=True)
    for ax, key, title in ((ax1, "ndcg@10", "nDCG@10 (higher is better)"),
                           (ax2, "wrong_first", "wrong answer first (lower is better)")):
        means = [r[key]["mean"] for r in rows]
        ax.bar(names, means, yerr=[r[key]["std"] for r in rows], capsize=4,
               color=["#888888" if r["kind"] == "vanilla" else "#3b7dd8" for r in rows])
        ax.set_title(title)
        ax.set_ylim(0, 1)
        ax.tick_params(axis="x", rotation=30)
    fig.suptitle(f"rank_const {report.rank_const:g}, {max(1, len(report.draws))} draw(s)")
    return _save(fig, plt, path)


def write_budget_plot(report: Any, path: str | Path) -> Path:
    """The review-budget proof as one PNG: the nDCG@10 gain over vanilla and the wrong-answer-first
    count against the facts reviewed, one line per starting point and strategy (means over draws),
    the random-coverage start as a dashed reference."""
    plt = _pyplot()
    d = report.to_dict()
    rows = d["rows"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    styles = {"queue": "-o", "random": "--s"}
    colors = {"none": "#3b7dd8", "coverage": "#d8803b"}
    for case in dict.fromkeys(r["case"] for r in rows):
        start = next((r for r in rows if r["case"] == case and r["strategy"] == "start"), None)
        for strategy in ("queue", "random"):
            line = sorted((r for r in rows if r["case"] == case and r["strategy"] == strategy),
                          key=lambda r: r["facts"])
            if not line:
                continue
            pts = ([start] if start else []) + line
            xs = [100 * r["share"] for r in pts]
            label = f"{strategy}, from {START_NAMES[case]}"
            ax1.plot(xs, [r["gain"]["mean"] for r in pts], styles[strategy], color=colors[case], label=label)
            ax2.plot(xs, [r["wrong_first"]["mean"] for r in pts], styles[strategy], color=colors[case], label=label)
        if case == "coverage" and start:
            cov = f"{start['reviewed']['mean'] / d['facts']:.0%} random coverage, no budget"
            ax1.axhline(start["gain"]["mean"], color=colors[case], linestyle=":", linewidth=1, label=cov)
            ax2.axhline(start["wrong_first"]["mean"], color=colors[case], linestyle=":", linewidth=1, label=cov)
    if rows:  # every row's reference: vanilla on the graph no sync wrote, the same per draw
        ax2.axhline(rows[0]["vanilla_wrong_first"]["mean"], color="#888888", linestyle=":", linewidth=1,
                    label="vanilla (Graphiti's search_)")
    ax1.set_title("nDCG@10 gain over vanilla (higher is better)")
    ax2.set_title(f"wrong answer first, of {rows[0]['contested_scored']['mean']:g} contested (lower is better)"
                  if rows else "wrong answer first")
    for ax in (ax1, ax2):
        ax.set_xlabel("review budget (% of the facts, decided by the strategy)")
        ax.grid(alpha=0.3)
    ax2.legend(fontsize=7)
    fig.suptitle(f"review budget, held-out queries, {d['trust_ranking']}, embedder {d['embedder']}, "
                 f"{len(d['draws'])} draw(s)")
    return _save(fig, plt, path)
