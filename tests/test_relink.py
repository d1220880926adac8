"""relink on a real embedded FalkorDB: the migration fixture, writes, journal and rollback."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from migration_fixture import Migration, build_migration, evidence_column  # noqa: E402

from graph_trust.embedder import HashingEmbedder  # noqa: E402
from graph_trust.errors import RollbackConflictError  # noqa: E402
from graph_trust.sync.relink import relink, rollback_relink  # noqa: E402

EMB = HashingEmbedder()


@pytest.fixture
async def migration(graph, tmp_path, unique) -> Migration:
    return await build_migration(graph, EMB, tmp_path, f"m{unique}")


def _after_first(text: str) -> str:
    """The raw text after element 0 of a JSON list."""
    i = text.index("[") + 1
    while text[i].isspace():
        i += 1
    return text[json.JSONDecoder().raw_decode(text, i)[1]:]


def _written(before: dict[str, str], after: dict[str, str]) -> dict[str, str]:
    """candidate id -> new evidence id, for rows whose evidence JSON changed."""
    out = {}
    for cid, text in after.items():
        if text != before[cid]:
            out[cid] = json.loads(text)[0]["evidence_id"]
    return out


async def test_migration_relinks_resolvable_and_writes_nothing_wrong(graph, settings, migration):
    before = evidence_column(migration.review_db)
    report = await relink(settings, review_db=str(migration.review_db), conn=graph, embedder=EMB)
    after = evidence_column(migration.review_db)
    written = _written(before, after)

    resolvable = [cid for cid, c in migration.cases.items() if c.resolvable]
    correct = [cid for cid in resolvable if written.get(cid) == migration.expected[cid]]
    wrong = {cid: new for cid, new in written.items() if migration.expected.get(cid) != new}
    assert not wrong, f"wrong or unexpected writes: {wrong}"
    assert len(correct) / len(resolvable) >= 0.95, (
        f"relinked {len(correct)}/{len(resolvable)}; missed: "
        + str({cid: migration.cases[cid] for cid in resolvable if cid not in correct})
    )
    # the report agrees with the DB and explains every orphan
    d = report.to_dict()
    assert d["orphaned"] == len(migration.cases)  # fresh candidates are not orphaned
    assert d["written"] == len(written)
    assert {e["id"] for e in d["relinked_exact"] + d["relinked_similar"]} == set(written)
    for kind in ("duplicated", "dropped"):
        for cid, c in migration.cases.items():
            if c.kind == kind:
                assert cid not in written
    ambiguous = {e["id"]: e for e in d["ambiguous"]}
    for cid, c in migration.cases.items():
        if c.kind == "duplicated":
            assert cid in ambiguous, f"{c.fact!r} should be ambiguous"
            assert len(ambiguous[cid]["top"]) == 2 and all(t["score"] is not None for t in ambiguous[cid]["top"])
    for e in d["unmatched"] + d["ambiguous"] + d["relinked_exact"] + d["relinked_similar"]:
        assert e["reason"]
    # renamed entities relink exactly; paraphrases by similarity
    kinds = {e["id"]: "exact" for e in d["relinked_exact"]} | {e["id"]: "similar" for e in d["relinked_similar"]}
    for cid, c in migration.cases.items():
        if c.kind in ("same", "renamed") and cid in kinds:
            assert kinds[cid] == "exact"
    # non-orphaned candidates untouched
    for cid in migration.current:
        assert after[cid] == before[cid]


async def test_written_json_keeps_everything_else_and_rollback_restores_bytes(graph, settings, migration):
    before = evidence_column(migration.review_db)
    report = await relink(settings, review_db=str(migration.review_db), conn=graph, embedder=EMB)
    after = evidence_column(migration.review_db)
    assert report.run_id and report.written > 0
    for cid, text in after.items():
        if text == before[cid]:
            continue
        old, new = json.loads(before[cid]), json.loads(text)
        assert len(old) == len(new) and old[1:] == new[1:]
        assert new[0]["previous_evidence_ids"] == [old[0]["evidence_id"]]
        assert {k: v for k, v in new[0].items() if k not in ("evidence_id", "previous_evidence_ids")} == {
            k: v for k, v in old[0].items() if k != "evidence_id"
        }
        # elements after 0 are byte-identical text (not just equal JSON)
        assert _after_first(text) == _after_first(before[cid])

    # a second run finds no orphans among the relinked ones and writes nothing more
    again = await relink(settings, review_db=str(migration.review_db), conn=graph, embedder=EMB)
    assert again.written == 0 and again.orphaned == report.orphaned - report.written

    result = rollback_relink(settings, report.run_id)
    assert result["restored"] == report.written
    assert evidence_column(migration.review_db) == before  # byte for byte
    assert rollback_relink(settings, report.run_id)["already"] is True


async def test_rollback_refuses_when_a_row_changed_later_unless_forced(graph, settings, migration):
    before = evidence_column(migration.review_db)
    report = await relink(settings, review_db=str(migration.review_db), conn=graph, embedder=EMB)
    changed = report.relinked_exact[0]["id"]
    con = sqlite3.connect(migration.review_db)
    with con:
        con.execute("UPDATE candidates SET evidence_refs_json = ? WHERE id = ?", ('[{"evidence_id": "hand-edited"}]', changed))
    con.close()
    with pytest.raises(RollbackConflictError, match=changed):
        rollback_relink(settings, report.run_id)
    assert evidence_column(migration.review_db)[changed] == '[{"evidence_id": "hand-edited"}]'
    rollback_relink(settings, report.run_id, force=True)
    assert evidence_column(migration.review_db) == before


async def test_dry_run_writes_nothing_and_reports_the_same(graph, settings, migration):
    before = evidence_column(migration.review_db)
    dry = await relink(settings, review_db=str(migration.review_db), conn=graph, embedder=EMB, dry_run=True)
    assert evidence_column(migration.review_db) == before
    assert dry.written == 0 and dry.dry_run and dry.run_id.startswith("relink-")
    from graph_trust.sync.relink_store import JournalStore

    run = JournalStore(settings).run(dry.run_id)
    assert run["status"] == "ok" and run["counts"]["dry_run"] is True
    assert rollback_relink(settings, dry.run_id)["restored"] == 0
    real = await relink(settings, review_db=str(migration.review_db), conn=graph, embedder=EMB)
    assert [e["id"] for e in dry.relinked_exact] == [e["id"] for e in real.relinked_exact]
    assert [e["id"] for e in dry.relinked_similar] == [e["id"] for e in real.relinked_similar]


async def test_group_option_limits_the_run(graph, settings, migration):
    before = evidence_column(migration.review_db)
    report = await relink(settings, review_db=str(migration.review_db), conn=graph, embedder=EMB, group=migration.groups["b"])
    written = _written(before, evidence_column(migration.review_db))
    assert written and all(migration.cases[cid].group == "b" for cid in written)
    assert report.orphaned == sum(c.group == "b" for c in migration.cases.values())


async def test_sync_after_relink_applies_trust_to_the_new_edges(graph, settings, migration):
    from graph_trust.sync.runner import run_sync

    before = await run_sync(settings, review_db=str(migration.review_db), graph=graph)
    assert len(before.to_dict()["unmatched"]) >= len(migration.cases)  # orphans: nothing to apply
    report = await relink(settings, review_db=str(migration.review_db), conn=graph, embedder=EMB)
    after = (await run_sync(settings, review_db=str(migration.review_db), graph=graph)).to_dict()
    relinked = {e["id"]: e["new_evidence_id"] for e in report.relinked_exact + report.relinked_similar}
    assert after["edges_set"] >= len(set(relinked.values()))
    unmatched_ids = {u["id"] if isinstance(u, dict) else u for u in after["unmatched"]}
    assert not unmatched_ids & set(relinked)
    for gid in migration.groups.values():
        rows = await graph.for_group(gid).run_text(
            "MATCH ()-[r:RELATES_TO]->() WHERE r.trust_score IS NOT NULL RETURN r.uuid AS uuid", {}, write=False)
        trusted = {r["uuid"] for r in rows}
        mine = {u for cid, u in relinked.items() if migration.groups[migration.cases[cid].group] == gid}
        assert mine <= trusted
