"""HashingEmbedder throughput: batch embedding against one ``create()`` call per text; and, with
the wordllama extra installed, WordLlama's against HashingEmbedder's in the same process.

    python bench/bench_embedder.py [--texts 100000]

Texts are the sample's facts with a per-text suffix (so about half the words are new to the
vocabulary). Prints one JSON line: texts/s of ``embed`` (numpy) on a cold and a warm
vocabulary, of ``create_batch`` (Python lists, what Graphiti consumes) and of a loop of
``create`` calls on a fresh embedder (the baseline, measured in the same process on a
5,000-text slice), and the ratio of each batch figure to the baseline. With ``wordllama``
importable: its model load time (from the installed wheel) and ``embed`` texts/s, and its ratio
to HashingEmbedder's warm ``embed``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import time

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.demo.sample import sample_graph


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", type=int, default=100_000)
    n = parser.parse_args().texts
    facts = [e["fact"] for e in sample_graph()["edges"]]
    texts = [f"{facts[i % len(facts)]} (ticket OPS-{i}, host app-{i % 997:03d})" for i in range(n)]

    def rate(fn, items) -> float:
        start = time.perf_counter()
        fn(items)
        return len(items) / (time.perf_counter() - start)

    e = HashingEmbedder()
    cold = rate(e.embed, texts)
    warm = rate(e.embed, texts)
    lists = rate(lambda t: asyncio.run(e.create_batch(t)), texts)

    fresh = HashingEmbedder()  # the baseline starts cold too

    async def one_by_one(items: list[str]) -> None:
        for t in items:
            await fresh.create(t)

    baseline = rate(lambda t: asyncio.run(one_by_one(t)), texts[:5000])
    dense = {}
    if importlib.util.find_spec("wordllama") is not None:
        from graph_trust.clients.wordllama import WordLlamaEmbedder, load_model

        start = time.perf_counter()
        w = WordLlamaEmbedder(load_model())
        loaded = time.perf_counter() - start
        wl = rate(w.embed, texts)
        dense = {"wordllama_load_s": round(loaded, 2), "wordllama_embed_per_s": round(wl),
                 "ratio_wordllama_vs_hashing_warm": round(wl / warm, 3)}
    print(json.dumps({
        "texts": n,
        "embed_cold_per_s": round(cold),
        "embed_warm_per_s": round(warm),
        "create_batch_per_s": round(lists),
        "create_loop_per_s": round(baseline),
        "ratio_embed_cold_vs_loop": round(cold / baseline, 1),
        "ratio_create_batch_vs_loop": round(lists / baseline, 1),
        **dense,
    }))


if __name__ == "__main__":
    main()
