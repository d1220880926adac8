"""Evaluate on judged sets the defaults were not tuned on: the bundled set's generator
(``build_evalset.py``) run with other seeds, so other subjects get other attributes, other
slots hold the wrong and outdated values, other facts are paraphrased, reviewed and flipped, and
other values and wordings are drawn; with ``--vocabulary library``, in another domain too (a
library catalogue: no entity name, relation name, value or question wording of the bundled
set, and two multi-valued relations). Each set is evaluated exactly as ``graph-trust eval
--bundled`` evaluates the shipped one (same review-draw generator, same sync, same rankings)::

    python graph_trust/data/eval/heldout.py --seeds 7,8 --draws 2 --embedder hashing,wordllama
    python graph_trust/data/eval/heldout.py --vocabulary library --seeds 7,8 --draws 2 --embedder hashing,wordllama

Like the generator, never imported at run time. Prints one line per seed, embedder and ranking:
nDCG@10 (mean over draws), wrong answer first, clean queries losing more than 0.05 per draw.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def generated_set(seed: int, vocabulary: str = "ops"):  # noqa: ANN201 (a BundledSet)
    """The bundled set's generator at ``seed`` in ``vocabulary`` (the shipped set is seed 1414 in
    ``ops``), as a BundledSet."""
    from graph_trust.data.eval import build_evalset
    from graph_trust.eval.dataset import BundledSet, check_judged, parse_qrels, parse_queries
    from graph_trust.eval.draws import draw_review

    out = build_evalset.build(seed, vocabulary_name=vocabulary)
    queries = parse_queries("".join(json.dumps(q) + "\n" for q in out["queries"]), f"{vocabulary} seed {seed} queries")
    qrels = parse_qrels("".join(f"{q} 0 {d} {g}\n" for q, d, g in out["qrels"]), f"{vocabulary} seed {seed} qrels")
    return BundledSet(graph=out["graph"], judged=check_judged(queries, qrels, f"{vocabulary} seed {seed} qrels"),
                      verdicts=out["verdicts"], review=draw_review(out["graph"], out["verdicts"], seed=0))


def main() -> None:
    sys.path.insert(0, str(HERE.parents[2]))
    from graph_trust import api
    from graph_trust.config import load_settings, parse_sets
    from graph_trust.data.eval.build_evalset import VOCABULARIES
    from graph_trust.eval import evaluate

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", default="7,8", help="generator seeds, comma-separated (1414 is the shipped set)")
    p.add_argument("--vocabulary", default="ops", choices=VOCABULARIES,
                   help="the domain: ops (the bundled set's) or library (none of its names or wordings)")
    p.add_argument("--draws", type=int, default=2)
    p.add_argument("--embedder", default="hashing")
    p.add_argument("--rank", default="trust,composite")
    p.add_argument("--quick", action="store_true", help="the first 12 queries of each set (a smoke test)")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    args = p.parse_args()
    settings = load_settings(overrides=parse_sets(args.sets))
    for seed in (int(s) for s in args.seeds.split(",")):
        data = generated_set(seed, args.vocabulary)
        evaluate.bundled = lambda data=data: copy.deepcopy(data)  # (a --quick run trims its set in place)
        for emb in args.embedder.split(","):
            rep = asyncio.run(api.evaluate_bundled(settings, ranks=args.rank.split(","), draws=args.draws,
                                                   embedder=emb, quick=args.quick)).to_dict()
            for m in rep["methods"]:
                clean = (m.get("vs_vanilla") or {}).get("clean_losses", {}).get("mean")
                print(f"{args.vocabulary} seed {seed}  {emb}  {m['name']}  nDCG@10 {m['ndcg@10']['mean']:.3f}  "
                      f"wrong first {m['wrong_first']['mean']:.0%}  clean losing "
                      f"{'-' if clean is None else f'{clean:g}'} of {rep['clean_queries']}", flush=True)


if __name__ == "__main__":
    main()
