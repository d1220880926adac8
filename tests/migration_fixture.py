"""A realistic migration for relink tests: a review DB written against an *old* extraction and
a *new* graph built through graphiti-core's API (``EntityNode``/``EntityEdge.save()`` via
``tests/builders.build_graph``) where the same facts were re-extracted under new UUIDs.

Each :class:`Case` is one candidate and what re-extraction did to its fact:

``same``        re-extracted verbatim (new uuid only)
``renamed``     entity names changed in case and spacing (``Acme Corp`` -> ``ACME  corp``, ``AcmeCorp``)
``paraphrased`` predicate and fact wording changed, content words kept (as an LLM re-extraction does)
``twin``        two near-duplicate facts, both candidates, both re-extracted: each must find its own
``duplicated``  re-extracted *twice* (near-identical edges): ambiguous, must not be written
``dropped``     not re-extracted (its entities may still have other, different facts): must not be written

Two groups; on FalkorDB each group is its own graph.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path

from builders import Fact, build_graph


@dataclass(frozen=True)
class Case:
    kind: str
    group: str  # "a" or "b": suffix of the group id
    subject: str
    predicate: str
    object: str
    fact: str
    new: tuple[Fact, ...] = ()  # what the new graph holds for it (empty when dropped)

    @property
    def resolvable(self) -> bool:
        return self.kind in ("same", "renamed", "paraphrased", "twin")


def F(s, p, o, f):  # noqa: N802 - short constructor for the table below
    return Fact(s, p, o, f)


CASES: list[Case] = [
    # --- group a: people and companies ---
    Case("same", "a", "Alice Smith", "WORKS_AT", "Acme Corp", "Alice Smith works at Acme Corp as a backend engineer",
         (F("Alice Smith", "WORKS_AT", "Acme Corp", "Alice Smith works at Acme Corp as a backend engineer"),)),
    Case("same", "a", "Acme Corp", "HEADQUARTERED_IN", "Berlin", "Acme Corp is headquartered in Berlin",
         (F("Acme Corp", "HEADQUARTERED_IN", "Berlin", "Acme Corp is headquartered in Berlin"),)),
    Case("same", "a", "Carol White", "MANAGES", "Bob Jones", "Carol White manages Bob Jones in the platform team",
         (F("Carol White", "MANAGES", "Bob Jones", "Carol White manages Bob Jones in the platform team"),)),
    Case("same", "a", "Dave Brown", "FOUNDED", "Initech", "Dave Brown founded Initech in 2011",
         (F("Dave Brown", "FOUNDED", "Initech", "Dave Brown founded Initech in 2011"),)),
    Case("renamed", "a", "Bob Jones", "LIVES_IN", "New York", "Bob Jones lives in New York",
         (F("bob jones", "LIVES_IN", "NEW YORK", "bob jones lives in NEW YORK"),)),
    Case("renamed", "a", "Erin Black", "STUDIED_AT", "MIT", "Erin Black studied computer science at MIT",
         (F("Erin  Black", "studied_at", "M.I.T.", "Erin Black studied computer science at M.I.T."),)),
    Case("renamed", "a", "Acme Corp", "ACQUIRED", "Globex", "Acme Corp acquired Globex in 2023",
         (F("AcmeCorp", "ACQUIRED", "GLOBEX", "AcmeCorp acquired GLOBEX in 2023"),)),
    Case("renamed", "a", "Frank Green", "REPORTS_TO", "Carol White", "Frank Green reports to Carol White",
         (F("FRANK GREEN", "REPORTS_TO", "carol white", "FRANK GREEN reports to carol white"),)),
    Case("paraphrased", "a", "Alice Smith", "SPEAKS", "German", "Alice Smith speaks fluent German",
         (F("Alice Smith", "IS_FLUENT_IN", "German", "Alice Smith is fluent in German and speaks it at work"),)),
    Case("paraphrased", "a", "Initech", "SELLS", "TPS Software", "Initech sells TPS Software to banks",
         (F("Initech", "DISTRIBUTES", "TPS Software", "TPS Software is sold by Initech to banks and insurers"),)),
    Case("paraphrased", "a", "Bob Jones", "USES", "Kubernetes", "Bob Jones uses Kubernetes to deploy services",
         (F("Bob Jones", "DEPLOYS_WITH", "Kubernetes", "Bob Jones deploys the team's services with Kubernetes"),)),
    Case("paraphrased", "a", "Carol White", "ATTENDED", "KubeCon 2024", "Carol White attended KubeCon 2024 in Paris",
         (F("carol white", "WENT_TO", "KubeCon 2024", "Carol White went to KubeCon 2024, held in Paris"),)),
    Case("twin", "a", "Dave Brown", "INVESTED_IN", "Globex", "Dave Brown invested in Globex seed round in 2015",
         (F("Dave Brown", "INVESTED_IN", "Globex", "Dave Brown invested in the Globex seed round in 2015"),)),
    Case("twin", "a", "Dave Brown", "INVESTED_IN", "Globex", "Dave Brown invested in Globex series B in 2019 with a larger check",
         (F("Dave Brown", "INVESTED_IN", "Globex", "Dave Brown invested in Globex series B in 2019 with a larger check"),)),
    Case("duplicated", "a", "Erin Black", "MENTORS", "Frank Green", "Erin Black mentors Frank Green",
         (F("Erin Black", "MENTORS", "Frank Green", "Erin Black mentors Frank Green"),
          F("Erin Black", "MENTORS", "Frank Green", "Erin Black mentors Frank Green."))),
    Case("duplicated", "a", "Globex", "PARTNERS_WITH", "Initech", "Globex partners with Initech on payments",
         (F("Globex", "COOPERATES_WITH", "Initech", "Globex partners with Initech on payments"),
          F("Globex", "WORKS_WITH", "Initech", "Globex partners with Initech on payments."))),
    Case("dropped", "a", "Alice Smith", "OWNS", "Tesla Model 3", "Alice Smith owns a Tesla Model 3", ()),
    Case("dropped", "a", "Acme Corp", "SUED", "Initech", "Acme Corp sued Initech over a patent in 2020", ()),
    Case("dropped", "a", "Bob Jones", "MARRIED_TO", "Erin Black", "Bob Jones is married to Erin Black", ()),
    # --- group b: infrastructure ---
    Case("same", "b", "billing-db", "BACKED_UP_BY", "nightly backup job", "billing-db is backed up by the nightly backup job at 03:00 UTC",
         (F("billing-db", "BACKED_UP_BY", "nightly backup job", "billing-db is backed up by the nightly backup job at 03:00 UTC"),)),
    Case("same", "b", "api-gateway", "ROUTES_TO", "auth-service", "api-gateway routes login requests to auth-service",
         (F("api-gateway", "ROUTES_TO", "auth-service", "api-gateway routes login requests to auth-service"),)),
    Case("renamed", "b", "Prometheus", "SCRAPES", "billing-db", "Prometheus scrapes billing-db metrics every 15 seconds",
         (F("prometheus", "SCRAPES", "Billing DB", "prometheus scrapes Billing DB metrics every 15 seconds"),)),
    Case("renamed", "b", "auth-service", "DEPENDS_ON", "Redis Cache", "auth-service depends on Redis Cache for sessions",
         (F("Auth Service", "DEPENDS_ON", "redis cache", "Auth Service depends on redis cache for sessions"),)),
    Case("renamed", "b", "On-call Rotation", "PAGES", "SRE Team", "On-call Rotation pages the SRE Team for sev1 incidents",
         (F("on call rotation", "PAGES", "SRE team", "on call rotation pages the SRE team for sev1 incidents"),)),
    Case("paraphrased", "b", "billing-db", "REPLICATES_TO", "billing-replica", "billing-db replicates to billing-replica in eu-west-1",
         (F("billing-db", "HAS_REPLICA", "billing-replica", "billing-replica is the eu-west-1 replica of billing-db"),)),
    Case("paraphrased", "b", "deploy pipeline", "RUNS", "integration tests", "the deploy pipeline runs integration tests before every release",
         (F("deploy pipeline", "EXECUTES", "integration tests", "integration tests are executed by the deploy pipeline before each release"),)),
    Case("paraphrased", "b", "auth-service", "WRITTEN_IN", "Go", "auth-service is written in Go 1.22",
         (F("auth-service", "IMPLEMENTED_IN", "Go", "auth-service is implemented in Go, version 1.22"),)),
    Case("twin", "b", "api-gateway", "RATE_LIMITS", "public API", "api-gateway rate limits the public API to 100 requests per second",
         (F("api-gateway", "RATE_LIMITS", "public API", "api-gateway rate limits the public API to 100 requests per second"),)),
    Case("twin", "b", "api-gateway", "RATE_LIMITS", "public API", "api-gateway rate limits the public API burst to 500 requests for premium tenants",
         (F("api-gateway", "RATE_LIMITS", "public API", "api-gateway rate limits public API bursts to 500 requests for premium tenants"),)),
    Case("duplicated", "b", "Redis Cache", "EVICTS", "session keys", "Redis Cache evicts session keys after 30 minutes",
         (F("Redis Cache", "EVICTS", "session keys", "Redis Cache evicts idle session keys after 30 minutes"),
          F("Redis Cache", "EVICTS", "session keys", "Redis Cache evicts session keys after 30 idle minutes"))),
    Case("dropped", "b", "billing-db", "RUNS_ON", "Postgres 15", "billing-db runs on Postgres 15", ()),
    Case("dropped", "b", "api-gateway", "ROUTES_TO", "legacy-billing", "api-gateway routes invoices to legacy-billing", ()),
]

# Extra facts that only exist in the new graph (other relations between the same entities,
# so dropped and paraphrased candidates have plausible-but-wrong neighbours to resist).
EXTRA: dict[str, list[Fact]] = {
    "a": [
        F("Alice Smith", "VISITED", "Berlin", "Alice Smith visited Berlin for a conference"),
        F("Alice Smith", "COLLEAGUE_OF", "Bob Jones", "Alice Smith is a colleague of Bob Jones"),
        F("Acme Corp", "COMPETES_WITH", "Initech", "Acme Corp competes with Initech in the database market"),
        F("Bob Jones", "FRIENDS_WITH", "Erin Black", "Bob Jones and Erin Black are friends since college"),
        F("Alice Smith", "LIVES_IN", "Berlin", "Alice Smith lives in Berlin with her family"),
        F("Carol White", "SPOKE_AT", "KubeCon 2024", "Carol White spoke at KubeCon 2024 about platform teams"),
        F("Bob Jones", "CERTIFIED_IN", "Kubernetes", "Bob Jones holds a Kubernetes administrator certification"),
    ],
    "b": [
        F("billing-db", "MONITORED_BY", "Prometheus", "billing-db is monitored by Prometheus alerts"),
        F("api-gateway", "ROUTES_TO", "billing-service", "api-gateway routes invoice requests to billing-service"),
        F("billing-db", "STORES", "invoices", "billing-db stores all customer invoices"),
        F("auth-service", "OWNED_BY", "SRE Team", "auth-service is owned by the SRE Team"),
    ],
}

# Evidence JSON in the styles pipelines write: spaced, compact, unicode, extra elements and keys.
EVIDENCE_STYLES = [
    lambda old: json.dumps([{"evidence_id": old, "source": "episode-17", "score": 0.91}]),
    lambda old: json.dumps([{"evidence_id": old}, {"evidence_id": "other-edge", "kind": "support"}], separators=(",", ":")),
    lambda old: json.dumps([{"kind": "edge", "evidence_id": old, "note": "Zoë's café"}], ensure_ascii=False),
    lambda old: '[ {"evidence_id" : "%s", "extracted_at": "2025-06-01T10:00:00Z"} ,{"x": [1, 2.50, 1e-7]} ]' % old,
]

SCHEMA = """CREATE TABLE candidates (
    id TEXT PRIMARY KEY, subject TEXT, predicate TEXT, object TEXT, fact TEXT, status TEXT,
    evidence_refs_json TEXT, group_id TEXT NULL, updated_at TEXT,
    memory_type TEXT, sensitivity TEXT, scope TEXT, confidence REAL)"""


@dataclass
class Migration:
    groups: dict[str, str]  # "a"/"b" -> group id
    cases: dict[str, Case]  # candidate id -> case
    old_uuid: dict[str, str]  # candidate id -> evidence id in the review DB (orphaned)
    expected: dict[str, str | None]  # candidate id -> the one correct new uuid (None: must not be written)
    current: dict[str, str]  # candidate id -> uuid of a candidate that is NOT orphaned
    review_db: Path


async def build_migration(conn, embedder, tmp_path: Path, prefix: str, *, builder=build_graph) -> Migration:
    """Build both groups' new graphs and a review DB pointing at the old extraction.

    ``builder`` saves facts (default ``builders.build_graph``: ``EntityNode``/``EntityEdge.save()``;
    on ArcadeDB's Bolt endpoint :func:`build_graph_without_vector_procedure`)."""
    groups = {"a": f"{prefix}_a", "b": f"{prefix}_b"}
    uuids: dict[str, dict[str, str]] = {}
    for key, gid in groups.items():
        facts = [f for c in CASES if c.group == key for f in c.new] + EXTRA[key]
        g = conn.for_group(gid)
        uuids[key] = await builder(g.driver, embedder, facts, gid)
    cases, old, expected, current = {}, {}, {}, {}
    rows = []
    statuses = ["promoted", "corroborated", "candidate"]
    for k, c in enumerate(CASES):
        cid = f"cand-{k:03d}"
        cases[cid] = c
        old[cid] = str(uuid.UUID(int=k + 1, version=4))
        expected[cid] = uuids[c.group][c.new[0].fact] if c.resolvable else None
        rows.append((cid, c.subject, c.predicate, c.object, c.fact, statuses[k % 3],
                     EVIDENCE_STYLES[k % len(EVIDENCE_STYLES)](old[cid]), groups[c.group]))
    # candidates created after the migration: evidence already current, never touched
    for k, f in enumerate(EXTRA["a"][:2]):
        cid = f"fresh-{k}"
        current[cid] = uuids["a"][f.fact]
        rows.append((cid, f.subject, f.predicate, f.object, f.fact, "promoted",
                     json.dumps([{"evidence_id": current[cid]}]), groups["a"]))
    path = tmp_path / "review.sqlite3"
    write_review_db(path, rows)
    return Migration(groups, cases, old, expected, current, path)


async def build_graph_without_vector_procedure(driver, embedder, facts: list[Fact], group_id: str) -> dict[str, str]:
    """``builders.build_graph`` for ArcadeDB's Bolt endpoint (no vector procedure, no Graphiti DDL)."""
    return await build_graph(driver, embedder, facts, group_id, indices=False, vector_procedure=False)


def write_review_db(path: Path, rows: list[tuple]) -> None:
    """``rows``: (id, subject, predicate, object, fact, status, evidence_refs_json, group_id)."""
    con = sqlite3.connect(path)
    with con:
        con.execute(SCHEMA)
        con.executemany(
            "INSERT INTO candidates (id, subject, predicate, object, fact, status, evidence_refs_json, group_id, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, '2025-06-01T10:00:00+00:00')", rows)
    con.close()


def evidence_column(path: Path) -> dict[str, str]:
    con = sqlite3.connect(path)
    try:
        return dict(con.execute("SELECT id, evidence_refs_json FROM candidates"))
    finally:
        con.close()
