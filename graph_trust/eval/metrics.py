"""Per-query quality of a ranking, with ir-measures (trec_eval's definitions), plus the two
measures it lacks: the wrong-answer-first rate and a paired bootstrap interval.

- ``ndcg@10``: trec_eval's nDCG over the top 10, gain = grade (2, 1, 0), log2 discount;
- ``mrr@10``: reciprocal rank of the first grade-2 fact in the top 10 (0 if none);
- ``p@5``: share of the top 5 that are grade-2 facts;
- ``wrong_first`` (contested queries only): the best-ranked wrong or outdated answer in the
  top 10 ranks above every grade-2 fact (or no grade-2 fact is in the top 10 while a wrong one
  is). Its rate is over contested queries.

ir-measures is the ``eval`` extra (``pip install 'graph-trust[eval]'``); a missing install is
one :class:`~graph_trust.errors.ConfigError` line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from graph_trust.errors import ConfigError
from graph_trust.eval.dataset import JudgedSet, Query

K = 10
METRICS = ("ndcg@10", "mrr@10", "p@5")


def ir_measures_module() -> Any:
    """The ir-measures module; a ConfigError naming the install command when the ``eval`` extra is
    missing (``graph-trust eval`` calls it before any graph work)."""
    try:
        import ir_measures  # the optional eval extra: a missing install is one ConfigError line
    except ImportError:
        raise ConfigError("graph-trust eval needs the IR metrics library: pip install 'graph-trust[eval]' "
                          "(installs ir-measures)") from None
    return ir_measures


def per_query(rankings: Mapping[str, Sequence[str]], judged: JudgedSet) -> dict[str, dict[str, float]]:
    """``{query_id: {metric: value}}`` for every judged query (an empty ranking scores 0).

    Rankings are lists of fact ids, best first; scores given to trec_eval are rank-based so its
    tie-breaking (by id) never reorders them.
    """
    irm = ir_measures_module()
    measures = {"ndcg@10": irm.nDCG @ K, "mrr@10": irm.RR(rel=2) @ K, "p@5": irm.P(rel=2) @ 5}
    qrels = [irm.Qrel(qid, doc, grade) for qid, docs in judged.qrels.items() for doc, grade in docs.items()]
    run = [irm.ScoredDoc(qid, doc, float(len(docs) - i))
           for qid, docs in rankings.items() for i, doc in enumerate(dict.fromkeys(docs))]
    out = {q.id: dict.fromkeys(METRICS, 0.0) for q in judged.queries}
    names = {str(m): name for name, m in measures.items()}
    for m in irm.iter_calc(list(measures.values()), qrels, run):
        if m.query_id in out:
            out[m.query_id][names[str(m.measure)]] = float(m.value)
    return out


def wrong_first(ranking: Sequence[str], query: Query, qrels: Mapping[str, int], k: int = K) -> bool | None:
    """None for a query with no wrong answer; else whether a wrong one outranks the right ones."""
    if not query.wrong:
        return None
    top = list(ranking)[:k]
    wrong = set(query.wrong)
    first_wrong = next((i for i, d in enumerate(top) if d in wrong), None)
    if first_wrong is None:
        return False
    first_right = next((i for i, d in enumerate(top) if qrels.get(d) == 2), None)
    return first_right is None or first_wrong < first_right


def bootstrap_ci(diffs: Sequence[float], *, resamples: int = 5000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """Paired bootstrap interval of the mean per-query difference (percentile method)."""
    d = np.asarray(diffs, dtype=np.float64)
    if d.size == 0:
        return (0.0, 0.0)
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, d.size, size=(resamples, d.size))].mean(axis=1)
    alpha = (1.0 - level) / 2
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))
