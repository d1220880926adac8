"""The sync commands through the real ``graph-trust`` CLI: JSON reports, exit codes, one-line errors."""

from __future__ import annotations

import yaml
from cli_helpers import run_cli
from sync_fixtures import FACTS, build, edge_props, review_db, row, set_rows

from graph_trust.sync.review_db import insert_rows


async def test_sync_verify_runs_rollback_cli(graph, settings, tmp_path, unique, embedded_path):
    group = f"g_{unique}"
    uuids = await build(graph, group)
    u = [uuids[f.fact] for f in FACTS]
    init = run_cli("review", "init", str(tmp_path / "r.sqlite3"), "--json")
    assert init.code == 0 and init.json()["table"] == "candidates"
    db = review_db(tmp_path / "r.sqlite3", [row("c1", u[0], "promoted", group), row("c2", "gone", "promoted", group),
                                            row("c3", None, "promoted", group, ev="[]")])
    cfg = tmp_path / "graph-trust.yaml"
    cfg.write_text(yaml.safe_dump({"graph": {"uri": f"embedded:{embedded_path}", "database": settings.graph.database},
                                   "state_dir": str(settings.state_dir), "sync": {"tiers": settings.sync.tiers}}))
    common = ("--config", str(cfg), "--json")

    dry = run_cli("sync", "--review-db", str(db), "--dry-run", *common)
    assert dry.code == 0, dry.err
    d = dry.json()
    for key in ("run_id", "dry_run", "candidates_read", "edges_set", "edges_unchanged", "edges_cleared",
                "entities_updated", "unmatched", "quarantined", "duration_s"):
        assert key in d
    assert d["dry_run"] and d["edges_set"] == 1 and d["unmatched"][0]["id"] == "c2"
    assert d["quarantined"] == [{"id": "c3", "reason": "evidence_refs_json is an empty list"}]
    assert (await edge_props(graph, group))[u[0]]["trust_score"] is None  # dry run wrote nothing

    drift = run_cli("verify", "--review-db", str(db), *common)
    assert drift.code == 1 and drift.json()["drift"]["edge_missing_trust"] == 1

    real = run_cli("sync", "--review-db", str(db), *common)
    assert real.code == 0 and real.json()["edges_set"] == 1
    run_id = real.json()["run_id"]
    ok = run_cli("verify", "--review-db", str(db), *common)
    assert ok.code == 0 and ok.json()["in_sync"]
    runs = run_cli("runs", *common)
    assert [r["run_id"] for r in runs.json()][:2] == [run_id, d["run_id"]]

    rb = run_cli("rollback", run_id, *common)
    assert rb.code == 0 and rb.json()["edges_restored"] == 1
    assert (await edge_props(graph, group))[u[0]]["trust_score"] is None
    again = run_cli("rollback", run_id, *common)
    assert again.code == 2 and again.err.strip() == f"error: run {run_id} is already rolled back"

    missing = run_cli("sync", "--review-db", str(tmp_path / "nope.sqlite3"), *common)
    assert missing.code == 2 and missing.err.count("\n") == 1 and "does not exist" in missing.err

    # a row naming a group that has no graph (a typo) and an entity's trust set by hand: one hint
    # line each (text mode)
    typo = f"no-such-{unique}"
    insert_rows(db, [row("c9", u[2], "promoted", typo)])
    d = run_cli("sync", "--review-db", str(db), *common).json()
    assert d["candidates_changed"] == 1 and d["unknown_groups"] == [typo]
    assert {"id": "c9", "edge_uuid": u[2], "graph": typo} in d["unmatched"]
    await graph.for_group(group).run_text("MATCH (n:Entity {name: 'alice'}) SET n.trust_score = 0.5", {}, write=True)
    text = run_cli("verify", "--review-db", str(db), "--config", str(cfg))
    assert text.code == 1 and text.out.startswith("DRIFT: ") and "entity_stale_trust: 1" in text.out
    assert text.out.splitlines()[-2:] == [
        f"hint: 1 group_id(s) name no existing graph ('{typo}'): their candidates are unmatched and no graph "
        "was created; fix the review rows' group_id if it is a typo",
        "hint: a normal sync re-aggregates the entities at the ends of edges whose trust changed or that left the "
        "graph; entity trust edited by hand needs 'graph-trust sync --full'"]


async def test_prune_cli(graph, settings, tmp_path, unique, embedded_path):
    group = f"g_{unique}"
    uuids = await build(graph, group)
    u = [uuids[f.fact] for f in FACTS]
    db = review_db(tmp_path / "r.sqlite3", [row("c1", u[0], "promoted", group), row("c2", u[1], "candidate", group)])
    cfg = tmp_path / "graph-trust.yaml"
    cfg.write_text(yaml.safe_dump({"graph": {"uri": f"embedded:{embedded_path}", "database": settings.graph.database},
                                   "state_dir": str(settings.state_dir), "sync": {"tiers": settings.sync.tiers}, "review": {"path": str(db)}}))
    common = ("--config", str(cfg))
    first = run_cli("sync", *common, "--json").json()["run_id"]
    set_rows(db, "UPDATE candidates SET status = 'promoted', updated_at = '2030-01-01T00:00:00Z' WHERE id = 'c2'")
    second = run_cli("sync", *common, "--json").json()["run_id"]

    preview = run_cli("prune", "--keep", "1", "--dry-run", *common, "--json")
    assert preview.code == 0, preview.err
    assert preview.json()["pruned"] == [first] and preview.json()["journal_rows_deleted"] > 0
    done = run_cli("prune", "--keep", "1", "--vacuum", *common)
    assert done.code == 0 and done.out.startswith("pruned 1 run(s): ") and "state store: " in done.out
    sizes = done.out.split("state store: ")[1].split(" bytes")[0]
    before, after = (int(n.replace(",", "")) for n in sizes.split(" -> "))
    assert after <= before  # the vacuumed file, not the file plus a log holding a copy of it
    listed = run_cli("runs", *common)
    assert [ln for ln in listed.out.splitlines() if first in ln][0].split()[2:5] == ["ok", "(journal", "pruned)"]
    assert second in listed.out
    refused = run_cli("rollback", first, *common)
    assert refused.code == 2 and refused.err.count("\n") == 1
    assert refused.err.startswith(f"error: run {first} can no longer be rolled back: `graph-trust prune` deleted")
    bad = run_cli("prune", "--keep", "0", *common)
    assert bad.code == 2 and "--keep" in bad.err
