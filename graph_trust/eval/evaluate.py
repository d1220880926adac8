"""The two evaluations ``graph-trust eval`` runs (its library equivalents).

- :func:`evaluate_judged`: the user's judged queries on the configured graph, as it is;
- :func:`evaluate_bundled`: the shipped set over ``draws`` review draws, each on a fresh
  temporary embedded graph synced with the sync job the caller hands in
  (:func:`graph_trust.api.evaluate_bundled` hands in the real one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graph_trust.clients.factory import BUILTIN_EMBEDDERS, embedder_named
from graph_trust.config import Settings
from graph_trust.errors import InputError
from graph_trust.eval.dataset import bundled, load_judged
from graph_trust.eval.draws import DEFAULT_COVERAGE, DEFAULT_NOISE, contested_pairs, draw_confidence, draw_review
from graph_trust.eval.report import EvalReport
from graph_trust.eval.runner import Progress, methods_for, rank_bundled_draw, rank_configured, wants_confidence
from graph_trust.review.hooks import ConfidenceTrust, ReviewSync

MAX_DRAWS = 100


async def evaluate_judged(settings: Settings, queries: str | Path, qrels: str | Path, *, ranks: list[str],
                          weights: list[float] | None = None, sets: dict[str, Any] | None = None,
                          rank_consts: list[float] | None = None, progress: Progress | None = None,
                          confidence_trust: ConfidenceTrust | None = None,
                          review_db: str | Path | None = None) -> EvalReport:
    """Compare the rankings on the configured graph (synced beforehand) over judged queries.

    The ``confidence`` ranking reads the confidence records of the review DB (``review_db``,
    default ``review.path``) through ``confidence_trust``; a missing DB, or one without the
    confidence tables, is one error before any search."""
    judged = load_judged(queries, qrels)
    methods = methods_for(ranks, weights, settings, rank_consts)
    override = None
    if wants_confidence(methods):
        if confidence_trust is None:
            raise InputError("the confidence ranking needs the review DB's confidence records")
        override = confidence_trust(settings, review_db, None)
    graph, rankings = await rank_configured(settings, judged, methods, progress=progress, confidence_trust=override)
    return EvalReport.build(mode="judged", graph=graph, settings=dict(sets or {}),
                            rank_const=settings.search.rank_const, draws=[], judged=judged, methods=methods,
                            rankings=[rankings], default_weight=settings.search.trust_weight,
                            embedder=settings.search.embedder)


async def evaluate_bundled(settings: Settings, *, sync_rows: ReviewSync, ranks: list[str],
                           weights: list[float] | None = None,
                           sets: dict[str, Any] | None = None, draws: int = 5, noise: float = DEFAULT_NOISE,
                           coverage: float = DEFAULT_COVERAGE, seed: int = 0, quick: bool = False,
                           rank_consts: list[float] | None = None,
                           progress: Progress | None = None,
                           confidence_trust: ConfidenceTrust | None = None,
                           embedder: str = "hashing") -> EvalReport:
    """The shipped set over ``draws`` review draws (seeds ``seed .. seed+draws-1``), its graph
    embedded and searched by ``embedder`` (``hashing`` or ``wordllama``).

    Draw seed 0 at the default coverage and noise is the shipped ``review.json``. ``quick``
    keeps the first 12 queries (for smoke tests). Each draw's graph has its exact vector stores
    built after its sync (:func:`~graph_trust.eval.runner.build_stores`), so the trust search
    ranks by the graph's content, as on a freshly loaded copy of the same state. With a ``confidence`` ranking, each draw's review DB also
    holds the draw's confidence records (:func:`~graph_trust.eval.draws.draw_confidence`), and
    ``confidence_trust`` reads them."""
    if not 1 <= draws <= MAX_DRAWS:
        raise InputError(f"--draws must be between 1 and {MAX_DRAWS}, got {draws}")
    if embedder not in BUILTIN_EMBEDDERS:
        raise InputError(f"--embedder: unknown embedder {embedder!r}: the bundled set is embedded by "
                         f"{' or '.join(BUILTIN_EMBEDDERS)}")
    embedder_named(embedder)  # a missing optional extra fails here, before any graph work
    data = bundled()
    judged = data.judged
    pairs = contested_pairs(judged.queries, judged.qrels)  # every query's, --quick or not
    if quick:
        judged.queries = judged.queries[:12]
        judged.qrels = {q.id: judged.qrels[q.id] for q in judged.queries}
    methods = methods_for(ranks, weights, settings, rank_consts)
    confident = wants_confidence(methods)
    if confident and confidence_trust is None:
        raise InputError("the confidence ranking needs the review DB's confidence records")
    results, counts = [], []
    for d in range(draws):
        rows = draw_review(data.graph, data.verdicts, seed=seed + d, coverage=coverage, noise=noise)
        records = draw_confidence(data.graph, data.verdicts, rows, pairs, seed=seed + d, noise=noise) \
            if confident else None
        counts.append({t: len(r) for t, r in records.items()} if records else None)
        results.append(await rank_bundled_draw(settings, data.graph, rows, judged, methods, seed=seed + d,
                                               sync_rows=sync_rows, progress=progress,
                                               records=records, confidence_trust=confidence_trust,
                                               embedder=embedder, label=f"draw {d + 1}/{draws} {embedder}"))
    return EvalReport.build(
        mode="bundled", graph="bundled evaluation set (temporary embedded FalkorDB per draw)",
        settings=dict(sets or {}), rank_const=settings.search.rank_const,
        draws=[{"seed": r.seed, "coverage": coverage, "noise": noise, "review_rows": r.review_rows,
                "noisy_rows": r.noisy_rows, "sync": r.sync}
               | ({"confidence_records": n} if n else {}) for r, n in zip(results, counts, strict=True)],
        judged=judged, methods=methods, rankings=[r.rankings for r in results],
        default_weight=settings.search.trust_weight, embedder=embedder)
