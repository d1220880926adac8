"""``graph-trust index status | check | rebuild`` and the cosine stage in ``search --explain``,
through the real CLI: JSON, the text table, exit codes, one-line errors."""

from __future__ import annotations

import numpy as np
import yaml
from cli_helpers import run_cli
from test_index_recall import ops_facts, random_graph, save

from graph_trust.clients.hashing import HashingEmbedder


async def test_index_commands(graph, settings, tmp_path, unique, embedded_path):
    easy, ties = f"g_{unique}", f"t_{unique}"
    await random_graph(graph.for_group(easy).driver, easy, 600, np.random.default_rng(1))
    facts = ops_facts(600, seed=3)
    await save(graph.for_group(ties).driver, ties, HashingEmbedder().embed(facts).astype(np.float64), facts=facts)
    cfg = tmp_path / "graph-trust.yaml"
    cfg.write_text(yaml.safe_dump({"graph": {"uri": f"embedded:{embedded_path}", "database": settings.graph.database},
                                   "state_dir": str(settings.state_dir), "search": {"cosine_index_min_size": 100},
                                   "vector_index": {"store": False}}))  # the HNSW path: auto's without a store
    common = ("--config", str(cfg))

    before = run_cli("index", "status", "--group", easy, "--json", *common)
    assert before.code == 0, before.err
    entry = before.json()["graphs"][easy]["edge"]
    assert entry["index"] is None and entry["choice"]["stage"] == "scan" and "no vector index" in entry["choice"]["reason"]

    init = run_cli("init", "--group", easy, "--group", ties, *common)
    assert init.code == 0, init.err
    assert f"vector indexes of {easy}: edges created (16 dims)" in init.out
    assert "search of its edges uses the index: recall@10 1.000 >= 0.98 at k 80 (measured at 600 edges)" in init.out

    status = run_cli("index", "status", *common)
    assert status.code == 0, status.err
    lines = {tuple(line.split()[:2]): line for line in status.out.splitlines()[3:]}
    assert "index" in lines[(easy, "edges")].split() and "1.000@k80" in lines[(easy, "edges")]
    tied = lines[(ties, "edges")].split()  # hashing: most top candidates tie; the index orders them by uuid
    assert "index" in tied and int(tied[tied.index("1.000@k80") + 1].rstrip("%")) > 50, tied

    check = run_cli("index", "check", "--group", easy, "--json", *common)
    assert check.code == 0, check.err
    assert check.json()["measured"] == {easy: {"edge": "asked", "node": "asked"}}
    stale = run_cli("index", "check", "--stale", "--group", easy, "--group", ties, "--json", *common)
    assert stale.code == 0 and stale.json()["measured"] == {}

    rebuilt = run_cli("index", "rebuild", "--group", easy, "--kind", "edge", *common)
    assert rebuilt.code == 0, rebuilt.err
    assert rebuilt.out.strip() == (f"{easy} edges: index created (M 16, efConstruction 200); search uses the index: "
                                   "recall@10 1.000 >= 0.98 at k 80 (measured at 600 edges)")

    explained = run_cli("search", "who owns billing db", "--group", ties, "--explain", *common)
    assert explained.code == 0, explained.err
    assert (f"cosine candidates of {ties} (edges): index, recall@10 1.000 >= 0.98 at k 80 (measured at 600 edges)"
            in explained.out)
    as_json = run_cli("search", "who owns billing db", "--group", ties, "--json", *common)
    assert as_json.json()["cosine_stages"][0]["stage"] == "index"
    bad = run_cli("index", "status", "--group", "nope", *common)
    assert bad.code == 2 and bad.err.strip().startswith("error: unknown group 'nope'")
    assert len(bad.err.strip().splitlines()) == 1
    bad_kind = run_cli("index", "rebuild", "--kind", "both", *common)
    assert bad_kind.code == 2 and "'both' is not one of 'edge', 'node'" in bad_kind.err


async def test_store_is_the_stage_wherever_built_and_says_so(graph, settings, tmp_path, unique, embedded_path):
    """init builds the exact vector store; index status, init, rebuild and search --explain name it
    as the stage with why; a graph never initialised is scanned."""
    built, bare = f"g_{unique}", f"b_{unique}"
    facts = ops_facts(300, seed=4)
    for g in (built, bare):
        await save(graph.for_group(g).driver, g, HashingEmbedder().embed(facts).astype(np.float64), facts=facts)
    cfg = tmp_path / "graph-trust.yaml"
    cfg.write_text(yaml.safe_dump({"graph": {"uri": f"embedded:{embedded_path}", "database": settings.graph.database},
                                   "state_dir": str(settings.state_dir)}))
    common = ("--config", str(cfg))
    init = run_cli("init", "--group", built, *common)
    assert init.code == 0, init.err
    assert f"exact vector store of {built}: edges built (300)" in init.out
    assert "search of its edges uses the store: exact vector store of 300 edges, kept fresh" in init.out
    status = run_cli("index", "status", "--group", built, "--group", bare, "--json", *common).json()["graphs"]
    assert status[built]["edge"]["store"]["items"] == 300
    assert status[built]["edge"]["choice"]["stage"] == "store"
    assert status[bare]["edge"]["store"] is None and status[bare]["edge"]["choice"]["stage"] == "scan"
    explained = run_cli("search", "who owns billing db", "--group", built, "--explain", *common)
    assert explained.code == 0, explained.err
    assert f"cosine candidates of {built} (edges): store, exact vector store of 300 edges, kept fresh" in explained.out
    scanned = run_cli("search", "who owns billing db", "--group", bare, "--json", *common).json()["cosine_stages"]
    assert scanned[0]["stage"] == "scan"
    rebuilt = run_cli("index", "rebuild", "--group", built, "--kind", "edge", *common)
    assert rebuilt.code == 0, rebuilt.err
    # the shipped defaults create no HNSW index beside the store (vector_index.enabled: null)
    assert rebuilt.out.startswith(f"{built} edges: store built (300); index not needed; search uses the store")
    assert "vector indexes of " + built + ": none (not needed beside the exact vector store)" in init.out
