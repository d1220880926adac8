"""The confidence commands through the real `graph-trust` process: --json output, help that
teaches, and one clear error line with exit code 2 for each kind of bad input."""

from __future__ import annotations

import sqlite3

import pytest
from cli_helpers import Result, run_cli

from graph_trust.cli.main import main
from graph_trust.sync.review_db import init_review_db, insert_rows


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run `graph-trust ARGS` in this process (main() with its error mapping and exit codes)."""
    for var in ("GRAPH_TRUST_CONFIG", "GRAPH_TRUST_REVIEW_DB"):
        monkeypatch.delenv(var, raising=False)

    def run(*args: str) -> Result:
        with pytest.raises(SystemExit) as e:
            main(list(args))
        out = capsys.readouterr()
        return Result(e.value.code, out.out, out.err)

    return run


COMMANDS = ["confidence", "verify-fact", "record-usage", "vote", "contradictions", "stale", "credibility"]


@pytest.fixture
def db(tmp_path, cli):
    p = tmp_path / "review.sqlite3"
    r = cli("review", "init", str(p), "--json")
    assert r.code == 0, r.err
    assert "fact_verifications" in r.json()["confidence_tables"]
    insert_rows(p, [
        {"id": "f1", "subject": "es", "predicate": "port", "object": "9200", "status": "promoted",
         "updated_at": "2026-01-01T00:00:00Z"},
        {"id": "f2", "subject": "es", "predicate": "port", "object": "9300", "status": "candidate",
         "updated_at": "2026-01-01T00:00:00Z"},
    ])
    con = sqlite3.connect(p)
    with con:
        con.execute("INSERT INTO fact_sources (fact_id, agent_id, category, created_at) "
                    "VALUES ('f1', 'es-agent', 'infrastructure', '2026-01-01T00:00:00Z')")
    con.close()
    return str(p)


def test_operator_flow_json(db, cli):
    r = run_cli("confidence", "f1", "--review-db", db, "--risk", "critical", "--json")  # the real process
    assert r.code == 0, r.err
    before = r.json()
    assert set(before["factors"]) == {"freshness", "source", "verification", "consensus", "contradiction",
                                      "success", "context"}
    assert before["decision"]["should_act"] is False and before["level"] in {"low", "very_low", "medium"}
    r = cli("verify-fact", "f1", "--type", "confirmed", "--by", "ops", "--review-db", db, "--json")
    assert r.code == 0, r.err
    assert r.json()["confidence"] > before["score"]
    r = cli("vote", "f1", "agree", "--confidence", "0.9", "--by", "ops", "--review-db", db, "--json")
    assert r.code == 0 and r.json()["consensus"] > 0.5
    r = cli("record-usage", "f1", "--outcome", "success", "--by", "bot", "--action", "connect", "--review-db", db,
                "--json")
    assert r.code == 0 and r.json()["outcome"] == "success"
    r = cli("contradictions", "--resolve", "--review-db", db, "--json")
    assert r.code == 0, r.err
    rec = r.json()["recorded"]
    assert len(rec) == 1 and rec[0]["type"] == "conflicting_value"
    r = cli("stale", "--days", "1", "--category", "infrastructure", "--review-db", db, "--json")
    assert r.code == 0 and [f["id"] for f in r.json()["facts"]] in ([], ["f1"])
    r = cli("credibility", "es-agent", "--review-db", db, "--json")
    assert r.code == 0 and r.json()["categories"][0]["category"] == "infrastructure"
    r = cli("confidence", "f1", "--review-db", db)  # text output names every factor
    assert r.code == 0 and all(f in r.out for f in ("freshness", "verification", "contradiction"))


@pytest.mark.parametrize("args, needle", [
    (["confidence", "nope"], "no fact 'nope' in review DB"),
    (["verify-fact", "nope", "--type", "confirmed", "--by", "a"], "neither the edge uuid of a fact"),
    (["verify-fact", "f1", "--type", "maybe", "--by", "a"], "'maybe' is not one of"),
    (["record-usage", "f1", "--outcome", "great", "--by", "a", "--action", "x"], "'great' is not one of"),
    (["record-usage", "f1", "--outcome", "success", "--by", " ", "--action", "x"], "--by AGENT"),
    (["vote", "f1", "agree", "--confidence", "1.5", "--by", "a"], "1.5 is not in the range"),
    (["vote", "f1", "perhaps", "--confidence", "0.5", "--by", "a"], "'perhaps' is not one of"),
    (["stale", "--days", "-3"], "-3"),
    (["credibility", "ghost"], "agent 'ghost'"),
    (["confidence", "learn"], "at least 20"),
    (["confidence", "revert"], "nothing to revert"),
])
def test_bad_input_one_line_exit_2(db, cli, args, needle):
    r = cli(*args, "--review-db", db)
    assert r.code == 2, (r.out, r.err)
    assert needle in r.err and "Traceback" not in r.err


def test_db_without_confidence_tables_says_how_to_add_them(tmp_path, cli):
    p = tmp_path / "old.sqlite3"
    init_review_db(p)  # candidates only
    insert_rows(p, [{"id": "f1", "status": "promoted"}])
    r = cli("confidence", "f1", "--review-db", str(p))
    assert r.code == 2 and "graph-trust review init" in r.err
    assert cli("review", "init", str(p)).code == 0
    assert cli("confidence", "f1", "--review-db", str(p)).code == 0


def test_every_command_help_teaches(cli):
    for cmd in COMMANDS:
        r = cli(cmd, "--help")
        assert r.code == 0 and "Examples" in r.out and "--json" in r.out and "--review-db" in r.out, cmd


def test_fact_named_like_a_subcommand(tmp_path, cli):
    p = tmp_path / "r.sqlite3"
    assert cli("review", "init", str(p)).code == 0
    insert_rows(p, [{"id": "learn", "status": "promoted"}, {"id": "-odd", "status": "candidate"}])
    r = cli("confidence", "show", "learn", "--review-db", str(p), "--json")
    assert r.code == 0 and r.json()["id"] == "learn"
    r = cli("confidence", "show", "--review-db", str(p), "--json", "--", "-odd")
    assert r.code == 0 and r.json()["id"] == "-odd"


@pytest.mark.parametrize("mode,weight", [("tiers", 0.5), ("confidence", 0.5), ("confidence", 0.9)])
def test_confidence_shows_the_trust_sync_writes(db, cli, tmp_path, mode, weight):
    from graph_trust.sync.confidence.trust import blended

    cfg = tmp_path / "graph-trust.yaml"
    cfg.write_text(f"sync:\n  trust_mode: {mode}\n  confidence_weight: {weight}\n")
    for fact, tier in (("f1", 1.0), ("f2", 0.25)):
        r = cli("confidence", fact, "--review-db", db, "--config", str(cfg), "--json")
        assert r.code == 0, r.err
        out = r.json()
        t = out["trust"]
        assert (t["trust_mode"], t["status"], t["tier"]) == (mode, out["inputs"]["status"], tier)
        used = round(out["score"] / 0.001) * 0.001  # sync.confidence_step's default
        want = tier if mode == "tiers" else tier * (1 - weight + weight * used)
        assert t["trust_score"] == pytest.approx(want) == pytest.approx(
            blended(tier, used, weight if mode == "confidence" else 0.0))
        text = cli("confidence", fact, "--review-db", db, "--config", str(cfg))
        assert f"= {want:.3f}" in text.out if mode == "confidence" else f"{want:.3f}, the" in text.out
