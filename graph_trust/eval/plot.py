"""``graph-trust eval --plot``: one PNG, nDCG@10 and the wrong-answer-first rate per ranking
(mean over draws, bars of one standard deviation). matplotlib is the ``plot`` extra."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graph_trust.errors import ConfigError, InputError


def write_plot(report: Any, path: str | Path) -> Path:
    """Draw the report's two headline measures side by side into ``path`` (PNG)."""
    try:  # matplotlib is the optional plot extra
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("--plot needs matplotlib: pip install 'graph-trust[plot]'") from None
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
    out = Path(path)
    try:
        fig.savefig(out, dpi=110)
    except OSError as exc:
        raise InputError(f"cannot write plot {out}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
    return out
