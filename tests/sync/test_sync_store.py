"""The state store has one owner: statements by name in ``sync/store/statements.sql`` (each with
its comment, each used), run through ``StateStore.do/one/rows``; one run's temporary tables owned
by ``RunTables``; the runner reads as its steps, under 250 lines, with no SQL. Modules that still
hold SQL of their own against the state store are listed here and may only leave the list."""

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
# modules that run statements of their own against the state store, still to move into sync/store/
NOT_YET_MOVED = {"sync/relink/store.py", "sync/store/state.py", "sync/verify.py"}
# modules that speak SQL to the review DB (not the state store)
REVIEW_DB = {"sync/review_db.py", "sync/confidence/schema.py", "sync/confidence/store.py",
             "sync/runs/change_marker.py"}


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


def test_the_runner_reads_as_its_steps_with_no_sql():
    runner = SYNC / "runner.py"
    assert len(runner.read_text().splitlines()) < 250
    assert not _runs_sql(runner) and _sql_text(runner) == []


def test_only_the_store_and_the_listed_modules_run_sql():
    found = {str(p.relative_to(REPO)) for p in SYNC.rglob("*.py") if _runs_sql(p)}
    outside = {p for p in found if not p.startswith("sync/store/")} - NOT_YET_MOVED - REVIEW_DB
    assert outside == set(), "modules running SQL of their own: move their statements into sync/store/"
    # the phases split out of the runner never did
    for name in ("edge_phase", "shadow_refresh", "candidate_phase", "trust_tokens", "vector_recheck"):
        path = SYNC / f"{name}.py"
        assert not _runs_sql(path) and _sql_text(path) == [], name


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
    con.execute("CREATE TEMP TABLE desired (graph, edge_uuid)")
    con.execute("CREATE TEMP TABLE changed (id, status, evidence_refs_json, group_id, memory_type, sensitivity, scope)")
    con.execute("CREATE TEMP TABLE gone (id TEXT)")
    con.execute(sql("new_guard_edges"))
    tables.new_keys()
    tables.new_conf_edges()
    tables.note_foreign_props("g", [], ())
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
        con.execute("SAVEPOINT s")
        try:
            if made:  # (the table the statement makes exists here already: compiled without it)
                con.execute(f"DROP TABLE temp.{made[1]}")
            con.execute(f"EXPLAIN {text_of}", named_params or [None] * text_of.count("?"))
        except sqlite3.Error as exc:
            raise AssertionError(f"{name}: {exc}") from None
        finally:
            con.execute("ROLLBACK TO s")
            con.execute("RELEASE s")
    tables.drop()
    left = {r[0] for r in con.execute("SELECT name FROM temp.sqlite_master WHERE type = 'table'")}
    assert left & set(TEMP_TABLES) == set()
    con.close()
