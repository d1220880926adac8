"""The evaluation report: per-method quality over draws, the paired comparison with vanilla,
and the settings the data supports.

Per draw, each method's metrics are means over queries; the report gives their mean and
standard deviation over draws. The comparison with vanilla is paired by query: each query's
nDCG@10 difference is averaged over draws, then a paired bootstrap gives the 95% interval of
the mean difference, and wins, losses and ties are counted (|difference| <= 0.005 is a tie).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graph_trust.eval.dataset import JudgedSet
from graph_trust.eval.metrics import METRICS, bootstrap_ci, per_query, wrong_first
from graph_trust.eval.runner import Method

TIE = 0.005
CLEAN_LOSS = 0.05  # a clean query (no competitor) losing more nDCG@10 than this is counted
JSON_VERSION = 1


def stat(values: Sequence[float], digits: int = 4) -> dict[str, Any]:
    a = np.asarray(values, dtype=np.float64)
    return {"mean": round(float(a.mean()), digits), "std": round(float(a.std(ddof=1)) if a.size > 1 else 0.0, digits),
            "per_draw": [round(float(v), digits) for v in a]}


@dataclass
class EvalReport:
    """Everything ``graph-trust eval`` prints; :meth:`to_dict` is the stable ``--json`` form."""

    mode: str
    graph: str
    settings: dict[str, Any]
    rank_const: float
    draws: list[dict[str, Any]]
    judged: JudgedSet
    methods: list[Method]
    per_draw: list[dict[str, dict[str, dict[str, float]]]]  # draw -> method -> query -> metric
    wrong: list[dict[str, dict[str, bool | None]]]  # draw -> method -> query -> wrong first?
    method_rows: list[dict[str, Any]] = field(default_factory=list)
    per_query_rows: list[dict[str, Any]] = field(default_factory=list)
    class_rows: list[dict[str, Any]] = field(default_factory=list)
    recommendation: dict[str, Any] = field(default_factory=dict)
    default_weight: float | None = None  # search.trust_weight of the run: names the configured ranking
    embedder: str | None = None  # what embedded the graph and the queries (search.embedder)

    @classmethod
    def build(cls, *, mode: str, graph: str, settings: dict[str, Any], rank_const: float,
              draws: list[dict[str, Any]], judged: JudgedSet, methods: list[Method],
              rankings: list[dict[str, dict[str, list[str]]]], default_weight: float | None = None,
              embedder: str | None = None) -> EvalReport:
        per_draw = [{m.name: per_query(r[m.name], judged) for m in methods} for r in rankings]
        wrong = [{m.name: {q.id: wrong_first(r[m.name].get(q.id, []), q, judged.qrels[q.id])
                           for q in judged.queries} for m in methods} for r in rankings]
        rep = cls(mode, graph, settings, rank_const, draws, judged, methods, per_draw, wrong,
                  default_weight=default_weight, embedder=embedder)
        rep._summarize()
        return rep

    def _ndcg(self, method: str) -> np.ndarray:
        """queries x draws."""
        return np.array([[d[method][q.id]["ndcg@10"] for d in self.per_draw] for q in self.judged.queries])

    def _summarize(self) -> None:
        queries = self.judged.queries
        clean = np.array([not q.contested for q in queries])
        n_contested = int((~clean).sum())
        base = self._ndcg("vanilla")
        for m in self.methods:
            row: dict[str, Any] = {"name": m.name, "kind": m.kind, "weight": m.weight,
                                   "rank_const": self.rank_const if m.rank_const is None else m.rank_const}
            for metric in METRICS:
                row[metric] = stat([np.mean([d[m.name][q.id][metric] for q in queries]) for d in self.per_draw])
            counts = [sum(1 for v in w[m.name].values() if v) for w in self.wrong]
            row["wrong_first"] = {**stat([c / n_contested if n_contested else 0.0 for c in counts]),
                                  "count_per_draw": counts, "contested_queries": n_contested}
            if m.kind != "vanilla":
                diff = self._ndcg(m.name) - base  # queries x draws
                per_q = diff.mean(axis=1)
                lo, hi = bootstrap_ci(per_q)
                clean_losses = [int(((diff[:, i] < -CLEAN_LOSS) & clean).sum()) for i in range(diff.shape[1])]
                row["vs_vanilla"] = {
                    "ndcg@10_diff": round(float(per_q.mean()), 4),
                    "ci95": [round(lo, 4), round(hi, 4)],
                    "wins": int((per_q > TIE).sum()),
                    "losses": int((per_q < -TIE).sum()),
                    "ties": int((np.abs(per_q) <= TIE).sum()),
                    "clean_losses": stat(clean_losses, 2),
                    "clean_worst_loss": round(float(-min(0.0, (per_q[clean].min() if clean.any() else 0.0))), 4),
                }
            self.method_rows.append(row)
        for q in queries:
            self.per_query_rows.append({
                "id": q.id, "query": q.text, "classes": list(q.classes), "contested": q.contested,
                "ndcg@10": {m.name: round(float(np.mean([d[m.name][q.id]["ndcg@10"] for d in self.per_draw])), 4)
                            for m in self.methods},
                "wrong_first": {m.name: (None if not q.contested else
                                         round(float(np.mean([bool(w[m.name][q.id]) for w in self.wrong])), 4))
                                for m in self.methods},
            })
        classes = sorted({c for q in queries for c in q.classes})
        for c in classes:
            rows = [r for r in self.per_query_rows if c in r["classes"]]
            contested = [r for r in rows if r["contested"]]
            self.class_rows.append({
                "class": c, "queries": len(rows), "contested_queries": len(contested),
                "ndcg@10": {m.name: round(float(np.mean([r["ndcg@10"][m.name] for r in rows])), 4)
                            for m in self.methods},
                "wrong_first": {m.name: (round(float(np.mean([r["wrong_first"][m.name] for r in contested])), 4)
                                         if contested else None) for m in self.methods},
                # spread over draws: the standard deviation of the class's per-draw means
                "ndcg@10_std": {m.name: round(float(np.std([np.mean([d[m.name][q.id]["ndcg@10"] for q in queries
                                                                     if c in q.classes]) for d in self.per_draw])), 4)
                                for m in self.methods},
                "wrong_first_std": {m.name: (round(float(np.std([np.mean([bool(w[m.name][q.id]) for q in queries
                                                                          if c in q.classes and q.contested])
                                                                 for w in self.wrong])), 4)
                                             if contested else None) for m in self.methods},
            })
        self.recommendation = self._recommend()

    def _configured(self) -> dict[str, Any] | None:
        """The row of the trust ranking at the run's own settings (weight and rank_const), if compared."""
        for r in self.method_rows:
            if (r["kind"] == "trust" and self.default_weight is not None and r["weight"] == self.default_weight
                    and r["rank_const"] == self.rank_const):
                return r
        return None

    def _recommend(self) -> dict[str, Any]:
        """The best mean nDCG@10 among the compared rankings the data supports: the 95% paired
        interval of their nDCG@10 difference to vanilla lies above 0, their wrong-answer-first
        rate is at most vanilla's, and no more clean queries lose more than CLEAN_LOSS (mean
        per draw) than at the configured settings (when those were not compared: than the
        fewest among the compared rankings). The configured ranking is kept when it qualifies
        and the best beats it by TIE or less. Every other ranking is listed with the criteria it
        failed, so an empty recommendation says why."""
        rows = {r["name"]: r for r in self.method_rows}
        van = rows["vanilla"]
        # the noreview row shows what the rules do without review; it is not a setting to recommend
        others = [r for r in self.method_rows if r["kind"] not in ("vanilla", "noreview")]
        configured = self._configured()
        if configured is not None:
            allowed, against = configured["vs_vanilla"]["clean_losses"]["mean"], f"the configured {configured['name']}"
        elif others:
            allowed = min(r["vs_vanilla"]["clean_losses"]["mean"] for r in others)
            against = "the fewest among the compared rankings"
        else:
            allowed, against = 0.0, "none"
        failed: dict[str, list[str]] = {}
        for r in others:
            vs, why = r["vs_vanilla"], []
            lo, hi = vs["ci95"]
            if not lo > 0:
                why.append(f"ΔnDCG@10 {vs['ndcg@10_diff']:+.3f}, 95% CI [{lo:+.3f}, {hi:+.3f}] does not exclude 0")
            if r["wrong_first"]["mean"] > van["wrong_first"]["mean"]:
                why.append(f"wrong answer first {r['wrong_first']['mean']:.0%} > vanilla's "
                           f"{van['wrong_first']['mean']:.0%}")
            if vs["clean_losses"]["mean"] > allowed + 1e-9:
                why.append(f"{vs['clean_losses']['mean']:g} clean queries losing > {CLEAN_LOSS} per draw, more than "
                           f"{against} ({allowed:g})")
            failed[r["name"]] = why
        ok = [r for r in others if not failed[r["name"]]]
        criteria = {"ci95_above_zero": True, "wrong_first_at_most": van["wrong_first"]["mean"],
                    "clean_losses_at_most": allowed, "clean_losses_against": against}
        rejected = {name: why for name, why in failed.items() if why}
        if not ok:
            detail = "; ".join(f"{name}: {', '.join(why)}" for name, why in rejected.items()) or "nothing compared"
            return {"method": None, "settings": {}, "significant": False, "criteria": criteria, "rejected": rejected,
                    "reason": "no compared ranking is supported by the data (its nDCG@10 interval against vanilla "
                              "above 0, wrong answer first at most vanilla's, clean losses no worse than "
                              f"{against}): {detail}. Keep the current settings; compare others with --weights / "
                              "--set / --rank-const"}
        best = max(ok, key=lambda r: r["ndcg@10"]["mean"])
        if configured in ok and best["ndcg@10"]["mean"] - configured["ndcg@10"]["mean"] <= TIE:
            best = configured  # a gain within TIE is no reason to change the settings
        lo, hi = best["vs_vanilla"]["ci95"]
        settings = dict(self.settings)
        if best["kind"] in ("trust", "confidence"):
            settings["search.trust_weight"] = best["weight"]
        if best["kind"] == "confidence":
            settings["sync.trust_mode"] = "confidence"
        if best["rank_const"] != self.rank_const:
            settings["search.rank_const"] = best["rank_const"]
        return {"method": best["name"], "settings": settings, "significant": True, "criteria": criteria,
                "rejected": rejected,
                "reason": (f"{best['name']}: nDCG@10 {best['ndcg@10']['mean']:.3f} vs vanilla "
                           f"{van['ndcg@10']['mean']:.3f} (95% CI of the difference [{lo:+.3f}, {hi:+.3f}]), "
                           f"wrong answer first {best['wrong_first']['mean']:.0%} vs {van['wrong_first']['mean']:.0%}, "
                           f"{best['vs_vanilla']['clean_losses']['mean']:g} clean queries losing more than "
                           f"{CLEAN_LOSS} per draw (at most {allowed:g}: {against})")}

    def to_dict(self) -> dict[str, Any]:
        queries = self.judged.queries
        return {
            "version": JSON_VERSION,
            "mode": self.mode,
            "graph": self.graph,
            "embedder": self.embedder,
            "settings": self.settings,
            "rank_const": self.rank_const,
            "limit": 10,
            "queries": len(queries),
            "contested_queries": sum(q.contested for q in queries),
            "clean_queries": sum(not q.contested for q in queries),
            "draws": self.draws,
            "methods": self.method_rows,
            "per_query": self.per_query_rows,
            "by_class": self.class_rows,
            "recommendation": self.recommendation,
        }
