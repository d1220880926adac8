"""The state store has one owner: statements by name in ``sync/store/statements.sql`` (each with
its comment, each used), run through ``StateStore.do/one/rows``; one run's temporary tables owned
by ``RunTables``; the runner reads as its steps, under 250 lines, with no SQL; no module outside
``sync/store`` runs SQL against the state store (those speaking to the review DB aside)."""

from __future__ import annotations

import ast
import re
import sqlite3

from paths import REPO

from graph_trust.sync.store.named import sql, statements
from graph_trust.sync.store.run_tables import TEMP_TABLES, RunTables
from graph_trust.sync.store.state import connect_state

SYNC = REPO / "sync"
SQL_WORDS = re.compile(r"\b(SELECT|INSERT|DELETE|UPDATE|CREATE|DROP|PRAGMA)\b")
# modules that speak SQL to the review DB (not the state store)
REVIEW_DB = {"sync/review_db.py", "sync/confidence/schema.py", "sync/confidence/store.py",
             "sync/runs/change_marker.py", "sync/relink/store.py", "sync/confidence/inputs.py", "sync/confidence/weights.py"}


def _runs_sql(path) -> bool:
    """Whether the module calls execute/executemany/executescript or holds SQL text."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("execute", "executemany", "executescript"):
            return True
    return False


def _sql_text(path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docstrings and SQL_WORDS.search(n.value)]


class _Count:
    """An aggregate standing in for verify's ``trust_aggregate``."""

    def __init__(self) -> None:
        self.n = 0

    def step(self, value) -> None:
        self.n += 1

    def finalize(self) -> int:
        return self.n


def test_the_runner_reads_as_its_steps_with_no_sql():
    runner = SYNC / "runner.py"
    assert len(runner.read_text().splitlines()) < 250
    assert not _runs_sql(runner) and _sql_text(runner) == []


def test_no_module_outside_the_store_runs_sql_against_the_state_db():
    found = {str(p.relative_to(REPO)) for p in SYNC.rglob("*.py") if _runs_sql(p)}
    outside = {p for p in found if not p.startswith("sync/store/")} - REVIEW_DB
    assert outside == set(), "modules running SQL of their own: move their statements into sync/store/"
    # and no module but those speaking to the review DB holds SQL text: it is in statements.sql
    holding = {str(p.relative_to(REPO)) for p in SYNC.rglob("*.py") if _sql_text(p)} - REVIEW_DB
    assert holding == set(), holding


def test_every_statement_is_named_once_commented_used_and_valid(tmp_path):
    named = statements()
    text = (SYNC / "store" / "statements.sql").read_text()
    code = "\n".join(p.read_text() for p in SYNC.rglob("*.py"))
    con = connect_state(tmp_path / "state.sqlite3")
    tables = RunTables(con)
    con.execute("CREATE TEMP TABLE tiers (status TEXT PRIMARY KEY, score REAL)")
    con.execute(sql("create_work_empty"))
    con.execute("CREATE TEMP TABLE unmatched (graph TEXT, uuid TEXT)")
    con.execute("CREATE TEMP TABLE review_rows AS SELECT * FROM sync_candidates")
    con.execute("CREATE TEMP TABLE desired (graph, edge_uuid, score, status, memory_type, sensitivity, scope)")
    con.execute("CREATE TEMP TABLE changed (id, status, evidence_refs_json, group_id, memory_type, sensitivity, scope)")
    con.execute("CREATE TEMP TABLE gone (id TEXT)")
    con.execute(sql("new_guard_edges"))
    tables.new_keys()
    tables.new_conf_edges()
    tables.note_foreign_props("g", [], ())
    con.create_aggregate("trust_aggregate", 1, _Count)
    tables.new_actual()
    tables.new_want_and_have("g")
    tables.new_unmatched_edges([])
    con.execute(sql("create_relink_runs"))
    con.execute(sql("create_relink_journal"))
    for name, text_of in named.items():
        assert re.search(rf"-- name: {name}\n--", text), f"{name}: no comment saying what it does"
        if name.startswith("part_"):  # a fragment: used by name through part()
            assert f'"{name[5:]}"' in code, f"{name}: never used"
            continue
        assert f'"{name}"' in code, f"{name}: never used"
        if "{" in text_of:  # a template: checked as its callers complete it (the sync tests run them)
            continue
        named_params = dict.fromkeys(re.findall(r":([a-z_]+)", text_of))
        made = re.match(r"CREATE TEMP TABLE (\w+) (?!NOT)", text_of)
        if made:  # (the table the statement makes exists here already: compiled without it, then put back)
            con.execute("SAVEPOINT s")
            con.execute(f"DROP TABLE temp.{made[1]}")
        try:
            con.execute(f"EXPLAIN {text_of}", named_params or [None] * text_of.count("?"))
        except sqlite3.Error as exc:
            raise AssertionError(f"{name}: {exc}") from None
        finally:
            if made:
                con.execute("ROLLBACK TO s")
                con.execute("RELEASE s")
    tables.drop()
    left = {r[0] for r in con.execute("SELECT name FROM temp.sqlite_master WHERE type = 'table'")}
    assert left & set(TEMP_TABLES) == set()
    con.close()
