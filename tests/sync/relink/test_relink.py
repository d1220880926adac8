"""relink on a real embedded FalkorDB: the migration fixture, writes, journal and rollback."""

from __future__ import annotations

import json
import sqlite3

import pytest
from migration_fixture import KINDS, Migration, build_migration, evidence_column, generate, per_class, written_ids  # noqa: E402

from graph_trust.clients.hashing import HashingEmbedder  # noqa: E402
from graph_trust.errors import RollbackConflictError  # noqa: E402
from graph_trust.sync.relink import relink, rollback_relink  # noqa: E402

EMB = HashingEmbedder()


@pytest.fixture
async def migration(graph, tmp_path, unique) -> Migration:
    """A small migration of every class (the full fixture is for the per-class bar)."""
    return await build_migration(graph, EMB, tmp_path, f"m{unique}", plan=generate(3, 6))


def _after_first(text: str) -> str:
    """The raw text after element 0 of a JSON list."""
    i = text.index("[") + 1
    while text[i].isspace():
        i += 1
    return text[json.JSONDecoder().raw_decode(text, i)[1]:]


async def test_migration_meets_the_bar_per_class_with_no_wrong_write(graph, settings, tmp_path, unique):
    migration = await build_migration(graph, EMB, tmp_path, f"f{unique}")  # the fixed fixture
    before = evidence_column(migration.review_db)
    report = await relink(settings, review_db=str(migration.review_db), conn=graph)  # search.embedder's
    after = evidence_column(migration.review_db)
    written = written_ids(before, after)
    table = per_class(migration.cases, migration.expected, written)

    assert set(table) == set(KINDS)
    for kind, row in table.items():
        assert row["candidates"] >= 30, (kind, row)
        assert row["wrong_writes"] == 0, (kind, row)
        if row["resolvable"]:
            assert row["correct"] >= 0.95 * row["resolvable"], (kind, row)
    # the report agrees with the DB and explains every orphan
    d = report.to_dict()
    assert d["orphaned"] == len(migration.cases)  # current candidates are not orphaned
    relinked = d["relinked_exact"] + d["relinked_endpoints"] + d["relinked_similar"]
    assert d["written"] == len(written) and {e["id"] for e in relinked} == set(written)
    for e in relinked + d["unmatched"] + d["ambiguous"]:
        assert e["reason"]
    # the graph was embedded by the configured embedder: cosine is used, and said so
    assert {v["method"] for v in d["similarity"].values()} == {"bm25+cosine"} and report.vectors_fetched > 0
    assert not report.warnings
    # each tier where it belongs: same predicate -> exact; renamed -> by endpoints
    by = {e["id"]: k for k in ("exact", "endpoints", "similar") for e in d[f"relinked_{k}"]}
    for cid, c in migration.cases.items():
        if c.kind in ("verbatim", "respelled") and cid in by:
            assert by[cid] == "exact", (c, by[cid])
        if c.kind == "reworded" and cid in by:
            assert by[cid] == "endpoints", (c, by[cid])
    # a fact re-extracted twice is reported ambiguous with both edges scored
    ambiguous = {e["id"]: e for e in d["ambiguous"]}
    for cid, c in migration.cases.items():
        if c.kind == "near_duplicate" and not c.resolvable:
            assert len(ambiguous[cid]["top"]) == 2 and all(t["score"] is not None for t in ambiguous[cid]["top"])
    # dropped facts whose pair keeps another fact held by its own candidate are ambiguous, not written
    held = [e for e in d["ambiguous"] if "already names it" in e["reason"]]
    assert held and all(migration.cases[e["id"]].kind == "dropped" for e in held)
    # candidates whose evidence is current are untouched
    for cid in migration.current:
        assert after[cid] == before[cid]


class PermutedEmbedder(HashingEmbedder):
    """Same dimension as the default embedder, unrelated axes: another model's vectors."""

    def embed(self, texts):
        return super().embed(texts)[:, ::-1].copy()


class BrokenEmbedder(HashingEmbedder):
    async def create_batch(self, input_data_list):
        raise ConnectionError("model endpoint unreachable")


@pytest.mark.parametrize("built_with, used, reason", [
    (HashingEmbedder(dim=128), None, "128 dimensions"),
    (PermutedEmbedder(), None, "does not reproduce"),
    (HashingEmbedder(), BrokenEmbedder(), "failed: ConnectionError"),
])
async def test_vectors_of_another_embedder_are_never_compared(graph, settings, tmp_path, unique, built_with, used, reason):
    from graph_trust.cli.relink import render

    plan = generate(7, 10)
    m = await build_migration(graph, built_with, tmp_path, f"e{unique}", plan=plan)
    before = evidence_column(m.review_db)
    report = await relink(settings, review_db=str(m.review_db), conn=graph, embedder=used)
    d = report.to_dict()
    assert set(d["similarity"]) <= set(m.groups.values()) and d["similarity"]
    for verdict in d["similarity"].values():
        assert verdict["method"] == "bm25" and reason in verdict["reason"]
    assert report.vectors_fetched == 0  # no vector is fetched for scoring where cosine is not used
    assert all(t["cosine"] is None for e in d["relinked_similar"] + d["ambiguous"] for t in e.get("top", []))
    assert any("lexical (BM25) only" in w for w in report.warnings)
    assert "BM25 only (lexical)" in render(d)
    table = per_class(m.cases, m.expected, written_ids(before, evidence_column(m.review_db)))
    assert sum(r["wrong_writes"] for r in table.values()) == 0, table


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
    from graph_trust.sync.store.relink_journal import JournalStore

    run = JournalStore(settings).run(dry.run_id)
    assert run["status"] == "ok" and run["counts"]["dry_run"] is True
    assert rollback_relink(settings, dry.run_id)["restored"] == 0
    real = await relink(settings, review_db=str(migration.review_db), conn=graph, embedder=EMB)
    assert [e["id"] for e in dry.relinked_exact] == [e["id"] for e in real.relinked_exact]
    assert [e["id"] for e in dry.relinked_similar] == [e["id"] for e in real.relinked_similar]
    assert [e["id"] for e in dry.relinked_endpoints] == [e["id"] for e in real.relinked_endpoints]


async def test_group_option_limits_the_run(graph, settings, migration):
    before = evidence_column(migration.review_db)
    report = await relink(settings, review_db=str(migration.review_db), conn=graph, embedder=EMB, group=migration.groups["b"])
    written = written_ids(before, evidence_column(migration.review_db))
    assert written and all(migration.cases[cid].group == "b" for cid in written)
    assert report.orphaned == sum(c.group == "b" for c in migration.cases.values())


async def test_sync_after_relink_applies_trust_to_the_new_edges(graph, settings, migration):
    from graph_trust.sync.runner import run_sync

    before = await run_sync(settings, review_db=str(migration.review_db), graph=graph)
    assert len(before.to_dict()["unmatched"]) >= len(migration.cases)  # orphans: nothing to apply
    report = await relink(settings, review_db=str(migration.review_db), conn=graph, embedder=EMB)
    after = (await run_sync(settings, review_db=str(migration.review_db), graph=graph)).to_dict()
    relinked = {e["id"]: e["new_evidence_id"]
                for e in report.relinked_exact + report.relinked_endpoints + report.relinked_similar}
    assert after["edges_set"] >= len(set(relinked.values()))
    unmatched_ids = {u["id"] if isinstance(u, dict) else u for u in after["unmatched"]}
    assert not unmatched_ids & set(relinked)
    for gid in migration.groups.values():
        rows = await graph.for_group(gid).run_text(
            "MATCH ()-[r:RELATES_TO]->() WHERE r.trust_score IS NOT NULL RETURN r.uuid AS uuid", {}, write=False)
        trusted = {r["uuid"] for r in rows}
        mine = {u for cid, u in relinked.items() if migration.groups[migration.cases[cid].group] == gid}
        assert mine <= trusted
