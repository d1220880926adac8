"""Generate the bundled demo data: ``sample_graph.json`` and ``sample_review.json``.

Kept in the repository so the data can be regenerated and reviewed; never imported at run
time (``graph_trust.demo.sample`` reads the JSON). Deterministic: a fixed seed, ``uuid5`` ids and
fixed timestamps, so rerunning it rewrites byte-identical files::

    python graph_trust/data/build_sample.py          # rewrite both files
    python graph_trust/data/build_sample.py --check  # also print demo ranks

The domain is an operations knowledge graph: services, databases, hosts, ports, teams,
people, on-call rotations, backup and cron schedules, deploy windows, runbooks and regions,
in two Graphiti groups (``ops``, the main estate, and ``ops-eu``, a smaller EU estate).
Facts are ``RELATES_TO`` edges with a predicate name (``RUNS_ON``, ``LISTENS_ON``,
``OWNED_BY``, ``SCHEDULED_AT``, ``DEPENDS_ON``, ...) and a sentence. Some facts contradict
each other (two backup times, two ports, an old and a new owner with ``invalid_at`` on the
old one), some are near-duplicates.

``sample_review.json`` is the bundled review DB: rows of the ``candidates`` table (issue 3's
schema) for about 40% of the edges. The right side of every contradiction is promoted, the
wrong side rejected or left a candidate, and a few rows point at edge UUIDs that are not in
the graph (orphans from a "migration", for ``graph-trust relink``).
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20261122
NAMESPACE = uuid.UUID("6f1c8a52-3d0e-5b8e-9a55-7a1d2c9e4b10")
EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

DEMO_GROUP = "ops"
DEMO_QUERIES = [
    "when does the billing database backup run",
    "which port does the auth service listen on",
    "who owns the payments api",
]


def _uuid(*parts: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "/".join(parts)))


def _iso(dt: datetime) -> str:
    return dt.isoformat()


@dataclass
class Builder:
    group: str
    rng: random.Random
    entities: dict[str, dict] = field(default_factory=dict)
    edges: list[dict] = field(default_factory=list)

    def entity(self, name: str, label: str, summary: str) -> str:
        if name not in self.entities:
            self.entities[name] = {
                "uuid": _uuid(self.group, "entity", name),
                "name": name,
                "summary": summary,
                "group_id": self.group,
                "labels": [label],
                "created_at": _iso(EPOCH + timedelta(hours=len(self.entities))),
            }
        return name

    def fact(
        self,
        source: str,
        predicate: str,
        target: str,
        text: str,
        *,
        key: str | None = None,
        day: int | None = None,
        invalid_day: int | None = None,
        tag: str | None = None,
    ) -> dict:
        day = self.rng.randint(0, 280) if day is None else day
        created = EPOCH + timedelta(days=day, minutes=self.rng.randint(0, 1439))
        edge = {
            "uuid": _uuid(self.group, "edge", key or f"{source}|{predicate}|{target}|{text}"),
            "source": self.entities[source]["uuid"],
            "target": self.entities[target]["uuid"],
            "name": predicate,
            "fact": text,
            "group_id": self.group,
            "valid_at": _iso(created - timedelta(days=self.rng.randint(0, 3))),
            "created_at": _iso(created),
        }
        if invalid_day is not None:
            edge["invalid_at"] = _iso(EPOCH + timedelta(days=invalid_day))
        if tag:
            edge["tag"] = tag
        self.edges.append(edge)
        return edge


# --- the estate --------------------------------------------------------------------------

FIRST = """Ada Bruno Chen Dara Elif Farah Goran Hana Ivo Jonas Kaia Liam Mei Nadia Omar Priya
Quinn Rafael Sofia Tomas Uma Viktor Wen Xenia Yusuf Zoe Aino Bilal Carmen Dmitri Esther Felix
Greta Hugo Ines Jules""".split()
LAST = """Okafor Lindqvist Tanaka Moreau Novak Haddad Kowalski Reyes Fischer Sato Brennan Costa
Duarte Ekström Ivanova Jensen Kaur Larsen Mendes Nakamura Oliveira Petrov Rossi Schmidt""".split()

TEAMS = {
    "Payments Team": "payments",
    "Identity Team": "identity",
    "Billing Team": "billing",
    "Platform Team": "platform",
    "Data Team": "data",
    "Search Team": "search",
    "Storefront Team": "storefront",
    "SRE Team": "sre",
    "Security Team": "security",
    "Checkout Team": "checkout",
}

# name, owning team, port, kind, dependencies, description
SERVICES = [
    ("auth-service", "Identity Team", 8443, "api", ["users-db", "sessions-redis"], "issues and verifies login tokens"),
    ("payments-api", "Checkout Team", 8081, "api", ["payments-db", "auth-service", "fraud-scorer"], "takes card and wallet payments"),
    ("billing-service", "Billing Team", 8082, "api", ["billing-db", "payments-api", "ledger-service"], "creates invoices and subscription charges"),
    ("ledger-service", "Billing Team", 8083, "api", ["billing-db"], "keeps the double-entry ledger"),
    ("checkout-web", "Storefront Team", 3000, "web", ["payments-api", "cart-service", "auth-service"], "serves the checkout pages"),
    ("cart-service", "Storefront Team", 8084, "api", ["orders-db", "catalog-service"], "stores shopping carts"),
    ("catalog-service", "Storefront Team", 8085, "api", ["catalog-db", "search-api"], "serves product data"),
    ("search-api", "Search Team", 8086, "api", ["search-cluster"], "answers product search queries"),
    ("search-indexer", "Search Team", 9300, "worker", ["catalog-db", "search-cluster"], "rebuilds the product search index"),
    ("orders-service", "Checkout Team", 8087, "api", ["orders-db", "payments-api", "inventory-service"], "tracks orders from checkout to delivery"),
    ("inventory-service", "Storefront Team", 8088, "api", ["inventory-db"], "tracks stock levels"),
    ("notification-worker", "Platform Team", 9100, "worker", ["queue-broker", "users-db"], "sends emails and push notifications"),
    ("queue-broker", "Platform Team", 5672, "infra", [], "is the RabbitMQ message broker"),
    ("api-gateway", "Platform Team", 443, "edge", ["auth-service", "rate-limiter"], "routes public API traffic"),
    ("rate-limiter", "Platform Team", 8089, "api", ["sessions-redis"], "enforces per-client request quotas"),
    ("fraud-scorer", "Security Team", 8090, "api", ["analytics-warehouse", "feature-store"], "scores payments for fraud risk"),
    ("feature-store", "Data Team", 8091, "api", ["analytics-warehouse"], "serves ML features"),
    ("etl-pipeline", "Data Team", 9101, "worker", ["analytics-warehouse", "orders-db", "billing-db"], "loads nightly data into the warehouse"),
    ("reporting-service", "Data Team", 8092, "api", ["analytics-warehouse"], "builds finance and sales reports"),
    ("audit-logger", "Security Team", 8093, "worker", ["audit-db", "queue-broker"], "records security audit events"),
    ("secrets-vault", "Security Team", 8200, "infra", [], "stores credentials and certificates"),
    ("user-profile-service", "Identity Team", 8094, "api", ["users-db"], "manages user profiles"),
    ("session-service", "Identity Team", 8095, "api", ["sessions-redis"], "keeps user sessions"),
    ("admin-console", "Platform Team", 3001, "web", ["auth-service", "audit-logger"], "is the internal admin UI"),
    ("metrics-collector", "SRE Team", 9090, "infra", [], "scrapes Prometheus metrics"),
    ("log-shipper", "SRE Team", 5044, "infra", ["queue-broker"], "ships logs to the log store"),
    ("status-page", "SRE Team", 3002, "web", ["metrics-collector"], "shows public service status"),
    ("recommendation-service", "Data Team", 8096, "api", ["feature-store", "catalog-service"], "suggests related products"),
    ("coupon-service", "Checkout Team", 8097, "api", ["orders-db"], "validates discount codes"),
    ("shipping-service", "Checkout Team", 8098, "api", ["orders-db", "queue-broker"], "books parcel shipments"),
    ("tax-service", "Billing Team", 8099, "api", ["billing-db"], "computes sales tax"),
    ("invoice-renderer", "Billing Team", 9102, "worker", ["billing-service"], "renders invoice PDFs"),
    ("image-resizer", "Storefront Team", 9103, "worker", [], "resizes product images"),
    ("cdn-purger", "Platform Team", 9104, "worker", [], "purges CDN caches after deploys"),
    ("deploy-bot", "Platform Team", 9105, "worker", ["queue-broker"], "runs deployments"),
    ("backup-agent", "SRE Team", 9106, "worker", ["secrets-vault"], "runs database backups"),
]

# name, engine, owning team, port, backup hour (UTC)
DATABASES = [
    ("billing-db", "PostgreSQL", "Billing Team", 5432, 3),
    ("payments-db", "PostgreSQL", "Checkout Team", 5432, 1),
    ("users-db", "PostgreSQL", "Identity Team", 5432, 4),
    ("orders-db", "PostgreSQL", "Checkout Team", 5433, 1),
    ("inventory-db", "MySQL", "Storefront Team", 3306, 5),
    ("catalog-db", "MySQL", "Storefront Team", 3306, 5),
    ("audit-db", "PostgreSQL", "Security Team", 5434, 6),
    ("analytics-warehouse", "ClickHouse", "Data Team", 9000, 7),
    ("sessions-redis", "Redis", "Identity Team", 6379, 0),
    ("search-cluster", "Elasticsearch", "Search Team", 9200, 2),
]

CRON_JOBS = [
    ("cert-renewal", "renews TLS certificates", "0 4 * * 1", "Mondays at 04:00 UTC", "Security Team"),
    ("log-rotation", "rotates and compresses logs", "15 0 * * *", "every day at 00:15 UTC", "SRE Team"),
    ("index-rebuild", "rebuilds the product search index", "30 2 * * *", "every day at 02:30 UTC", "Search Team"),
    ("invoice-run", "charges monthly subscriptions", "0 6 1 * *", "on the 1st of the month at 06:00 UTC", "Billing Team"),
    ("report-digest", "emails the daily sales digest", "0 7 * * *", "every day at 07:00 UTC", "Data Team"),
    ("stale-cart-cleanup", "deletes carts idle for 30 days", "45 3 * * *", "every day at 03:45 UTC", "Storefront Team"),
    ("session-purge", "purges expired sessions", "*/30 * * * *", "every 30 minutes", "Identity Team"),
    ("fraud-model-retrain", "retrains the fraud model", "0 5 * * 0", "Sundays at 05:00 UTC", "Security Team"),
    ("warehouse-vacuum", "compacts warehouse partitions", "0 8 * * 6", "Saturdays at 08:00 UTC", "Data Team"),
    ("dns-audit", "checks DNS records for drift", "0 9 * * 2", "Tuesdays at 09:00 UTC", "SRE Team"),
    ("dependency-scan", "scans images for vulnerable packages", "0 10 * * 3", "Wednesdays at 10:00 UTC", "Security Team"),
    ("cache-warmup", "warms the catalog cache", "50 5 * * *", "every day at 05:50 UTC", "Storefront Team"),
]

DEPLOY_WINDOWS = [
    "Tuesday 14:00-16:00 UTC deploy window",
    "Thursday 14:00-16:00 UTC deploy window",
    "Monday 10:00-12:00 UTC deploy window",
    "Wednesday 09:00-11:00 UTC deploy window",
]

REGIONS = {"us-east-1": "the primary AWS region in Virginia", "us-west-2": "the secondary AWS region in Oregon"}


def _person(rng: random.Random, used: set[str]) -> str:
    while True:
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        if name not in used:
            used.add(name)
            return name


def build_ops(rng: random.Random) -> Builder:
    b = Builder("ops", rng)
    for region, desc in REGIONS.items():
        b.entity(region, "Region", f"{region} is {desc}.")
    for team, slug in TEAMS.items():
        b.entity(team, "Team", f"The {team} is the engineering team for {slug}.")

    # hosts
    hosts: dict[str, list[str]] = {"app": [], "db": [], "worker": [], "edge": [], "batch": []}
    for kind, count in (("app", 20), ("db", 12), ("worker", 8), ("edge", 4), ("batch", 4)):
        for i in range(1, count + 1):
            region = "us-east-1" if i % 4 else "us-west-2"
            name = f"{kind}-{i:02d}.prod.internal"
            b.entity(name, "Host", f"{name} is a production {kind} host in {region}.")
            hosts[kind].append(name)
            b.fact(name, "LOCATED_IN", region, f"Host {name} is located in the {region} region.")

    # ports (shared entities)
    def port(p: int) -> str:
        return b.entity(f"port {p}", "Port", f"TCP port {p}.")

    # people and teams
    used: set[str] = set()
    members: dict[str, list[str]] = {}
    for team in TEAMS:
        members[team] = []
        for _ in range(3):
            person = _person(rng, used)
            b.entity(person, "Person", f"{person} is an engineer in the {team}.")
            members[team].append(person)
            b.fact(person, "MEMBER_OF", team, f"{person} is a member of the {team}.")
        lead = members[team][0]
        b.fact(lead, "LEADS", team, f"{lead} leads the {team}.")
        rotation = b.entity(f"{team.replace(' Team', '')} on-call rotation", "OnCallRotation",
                            f"The weekly on-call rotation of the {team}.")
        b.fact(rotation, "COVERS", team, f"The {rotation} covers services owned by the {team}.")
        for person in members[team][1:]:
            b.fact(person, "ON_CALL_FOR", rotation, f"{person} is on call in the {rotation}.")

    # deploy windows
    for w in DEPLOY_WINDOWS:
        b.entity(w, "DeployWindow", f"The {w}.")

    for name, _team, _p, _kind, _deps, what in SERVICES:
        b.entity(name, "Service", f"{name} {what}.")

    # databases
    for i, (name, engine, team, p, hour) in enumerate(DATABASES):
        b.entity(name, "Database", f"{name} is the {engine} database owned by the {team}.")
        host = hosts["db"][i % len(hosts["db"])]
        b.fact(name, "RUNS_ON", host, f"{name} runs on {host}.")
        b.fact(name, "LISTENS_ON", port(p), f"{name} ({engine}) listens on port {p}.")
        b.fact(name, "OWNED_BY", team, f"{name} is owned by the {team}.")
        job = b.entity(f"{name} nightly backup", "Job", f"The nightly backup job of {name}.")
        b.fact(job, "BACKS_UP", name, f"The {name} nightly backup job backs up {name} to object storage.")
        if name != "billing-db":  # billing-db's schedule is a contradiction, below
            t = b.entity(f"{hour:02d}:00 UTC", "Schedule", f"Daily at {hour:02d}:00 UTC.")
            b.fact(job, "SCHEDULED_AT", t, f"The nightly backup of {name} runs at {hour:02d}:00 UTC.")
        b.fact(job, "RUNS_ON", "backup-agent", f"The {name} backup is executed by backup-agent.")

    # services
    for i, (name, team, p, kind, deps, _what) in enumerate(SERVICES):
        pool = {"api": "app", "web": "app", "worker": "worker", "infra": "batch", "edge": "edge"}[kind]
        for h in rng.sample(hosts[pool], 2):
            b.fact(name, "RUNS_ON", h, rng.choice([
                f"{name} runs on {h}.",
                f"{name} is deployed on host {h}.",
                f"An instance of {name} runs on {h}.",
            ]))
        if name not in ("auth-service",):  # auth-service's port is a contradiction, below
            b.fact(name, "LISTENS_ON", port(p), rng.choice([
                f"{name} listens on port {p}.",
                f"{name} serves traffic on port {p}.",
            ]))
        if name != "payments-api":  # payments-api's ownership changed, below
            b.fact(name, "OWNED_BY", team, rng.choice([
                f"{name} is owned by the {team}.",
                f"The {team} owns {name}.",
            ]))
        for dep in deps:
            b.fact(name, "DEPENDS_ON", dep, rng.choice([
                f"{name} depends on {dep}.",
                f"{name} calls {dep}.",
                f"{name} cannot start without {dep}.",
            ]))
        rb = b.entity(f"Runbook: {name}", "Runbook", f"Operational runbook for {name}: restarts, failover, rollback.")
        b.fact(name, "DOCUMENTED_IN", rb, f"Incidents on {name} are handled with the runbook 'Runbook: {name}'.")
        w = DEPLOY_WINDOWS[i % len(DEPLOY_WINDOWS)]
        b.fact(name, "DEPLOYS_DURING", w, f"{name} is deployed during the {w}.")

    # cron jobs
    for job, what, cron, human, team in CRON_JOBS:
        j = b.entity(f"{job} cron job", "Job", f"The {job} cron job {what}.")
        s = b.entity(f"cron '{cron}'", "Schedule", f"Cron expression {cron} ({human}).")
        b.fact(j, "SCHEDULED_AT", s, f"The {job} job {what} and runs {human} (cron '{cron}').")
        b.fact(j, "RUNS_ON", rng.choice(hosts["batch"]), f"The {job} job runs on a batch host.")
        b.fact(j, "OWNED_BY", team, f"The {job} job is owned by the {team}.")

    add_ops_contradictions(b)
    return b


def add_ops_contradictions(b: Builder) -> None:
    """The facts the demo is about: contradictions, superseded facts and near-duplicates."""
    # The wrong sides of the demo contradictions are FAQ entries of a stale wiki page: they repeat
    # the question's words, so fulltext (BM25) ranks them first whatever state FalkorDB's index
    # is in, while the right facts are closest in embedding space. Vanilla RRF ties them and
    # keeps the BM25 winner first; the promoted fact's boost breaks the tie.
    # 1. billing-db backup time: 03:00 UTC is right (promoted); 02:00 UTC is the stale wiki.
    job = "billing-db nightly backup"
    t3 = b.entity("03:00 UTC", "Schedule", "Daily at 03:00 UTC.")
    t2 = b.entity("02:00 UTC", "Schedule", "Daily at 02:00 UTC.")
    b.fact(job, "SCHEDULED_AT", t3, "The billing database backup runs at 03:00 UTC.",
           key="billing-backup-right", day=200, tag="contradiction:billing-backup:right")
    b.fact(job, "SCHEDULED_AT", t2,
           "When does the billing database backup run? At 02:00 UTC, according to the old wiki page.",
           key="billing-backup-wrong", day=40, tag="contradiction:billing-backup:wrong")
    b.fact(job, "SCHEDULED_AT", t2, "Nightly billing-db snapshots start at 02:00 UTC.",
           key="billing-backup-dup", day=60, tag="contradiction:billing-backup:wrong-dup")

    # 2. auth-service port: 8443 is right (promoted); 8080 is the pre-TLS port (candidate).
    auth = "auth-service"
    p8443 = b.entity("port 8443", "Port", "TCP port 8443.")
    p8080 = b.entity("port 8080", "Port", "TCP port 8080.")
    b.fact(auth, "LISTENS_ON", p8443, "The auth service listens on port 8443 (TLS).",
           key="auth-port-right", day=180, tag="contradiction:auth-port:right")
    b.fact(auth, "LISTENS_ON", p8080, "Which port does the auth service listen on? 8080, according to the old wiki page.",
           key="auth-port-wrong", day=30, tag="contradiction:auth-port:wrong")
    b.fact(auth, "LISTENS_ON", p8443, "Health checks of auth-service probe port 8443.",
           key="auth-port-health", day=185, tag="contradiction:auth-port:right-dup")

    # 3. payments-api owner: the Payments Team owned it until the reorg (invalid_at), now Checkout.
    pay = "payments-api"
    b.fact(pay, "OWNED_BY", "Payments Team", "payments-api is owned by the Payments Team.",
           key="payments-owner-old", day=10, invalid_day=150, tag="contradiction:payments-owner:old")
    b.fact(pay, "OWNED_BY", "Checkout Team", "payments-api is owned by the Checkout Team.",
           key="payments-owner-new", day=152, tag="contradiction:payments-owner:right")
    b.fact(pay, "OWNED_BY", "Payments Team", "The payments API owner is the Payments Team (old org chart).",
           key="payments-owner-stale", day=20, tag="contradiction:payments-owner:wrong")

    # more contradictions outside the demo queries
    b.fact("orders-db nightly backup", "SCHEDULED_AT", b.entity("01:30 UTC", "Schedule", "Daily at 01:30 UTC."),
           "The nightly backup of orders-db runs at 01:30 UTC.",
           key="orders-backup-wrong", day=25, tag="contradiction:orders-backup:wrong")
    b.fact("search-indexer", "LISTENS_ON", b.entity("port 9301", "Port", "TCP port 9301."),
           "search-indexer listens on port 9301.", key="indexer-port-wrong", day=35,
           tag="contradiction:indexer-port:wrong")
    b.fact("checkout-web", "DEPLOYS_DURING", "Thursday 14:00-16:00 UTC deploy window",
           "checkout-web is deployed during the Thursday 14:00-16:00 UTC deploy window.",
           key="checkout-window-wrong", day=45, tag="contradiction:checkout-window:wrong")
    lead_old = next(n for n, e in b.entities.items() if e["labels"] == ["Person"])
    b.fact(lead_old, "LEADS", "SRE Team", f"{lead_old} leads the SRE Team.",
           key="sre-lead-old", day=15, invalid_day=120, tag="superseded:sre-lead")

    # near-duplicates of existing facts (different wording, same meaning)
    for name in ("checkout-web", "ledger-service", "search-api", "rate-limiter", "fraud-scorer"):
        runs_on = next(e for e in b.edges if e["name"] == "RUNS_ON" and e["source"] == b.entities[name]["uuid"])
        host = next(n for n, ent in b.entities.items() if ent["uuid"] == runs_on["target"])
        b.fact(name, "RUNS_ON", host, f"{name} was deployed to {host} last week.",
               key=f"dup-runs-on-{name}", tag="near-duplicate")
    b.fact("etl-pipeline", "DEPENDS_ON", "billing-db", "The ETL pipeline reads billing-db every night.",
           key="dup-etl-billing", tag="near-duplicate")


EU_SERVICES = [
    ("auth-service-eu", "Identity Team", 8443, ["users-db-eu"]),
    ("payments-api-eu", "Checkout Team", 8081, ["payments-db-eu", "auth-service-eu"]),
    ("billing-service-eu", "Billing Team", 8082, ["billing-db-eu", "payments-api-eu"]),
    ("checkout-web-eu", "Storefront Team", 3000, ["payments-api-eu", "auth-service-eu"]),
    ("gdpr-export-service", "Security Team", 8110, ["users-db-eu", "audit-db-eu"]),
    ("vat-service", "Billing Team", 8111, ["billing-db-eu"]),
    ("notification-worker-eu", "Platform Team", 9100, ["users-db-eu"]),
    ("api-gateway-eu", "Platform Team", 443, ["auth-service-eu"]),
]
EU_DATABASES = [
    ("billing-db-eu", "PostgreSQL", "Billing Team", 5432, 2),
    ("payments-db-eu", "PostgreSQL", "Checkout Team", 5432, 1),
    ("users-db-eu", "PostgreSQL", "Identity Team", 5432, 3),
    ("audit-db-eu", "PostgreSQL", "Security Team", 5434, 4),
]


def build_eu(rng: random.Random) -> Builder:
    b = Builder("ops-eu", rng)
    b.entity("eu-central-1", "Region", "eu-central-1 is the AWS region in Frankfurt.")
    b.entity("eu-west-1", "Region", "eu-west-1 is the AWS region in Ireland.")
    hosts = []
    for kind, count in (("app", 10), ("db", 4), ("worker", 3)):
        for i in range(1, count + 1):
            region = "eu-central-1" if i % 3 else "eu-west-1"
            name = f"{kind}-{i:02d}.eu.prod.internal"
            b.entity(name, "Host", f"{name} is a production {kind} host in {region}.")
            b.fact(name, "LOCATED_IN", region, f"Host {name} is located in the {region} region.")
            hosts.append(name)
    used: set[str] = set()
    for team in ("Identity Team", "Checkout Team", "Billing Team", "Storefront Team", "Security Team", "Platform Team"):
        b.entity(team, "Team", f"The {team} (EU) runs the EU estate for {TEAMS[team]}.")
        for _ in range(2):
            person = _person(rng, used)
            b.entity(person, "Person", f"{person} is an engineer in the EU {team}.")
            b.fact(person, "MEMBER_OF", team, f"{person} is a member of the EU {team}.")
    for i, (name, engine, team, _port, hour) in enumerate(EU_DATABASES):
        b.entity(name, "Database", f"{name} is the EU {engine} database owned by the {team}.")
        b.fact(name, "RUNS_ON", hosts[10 + i], f"{name} runs on {hosts[10 + i]}.")
        b.fact(name, "OWNED_BY", team, f"{name} is owned by the {team}.")
        job = b.entity(f"{name} nightly backup", "Job", f"The nightly backup job of {name}.")
        t = b.entity(f"{hour:02d}:00 UTC", "Schedule", f"Daily at {hour:02d}:00 UTC.")
        b.fact(job, "SCHEDULED_AT", t, f"The nightly backup of {name} runs at {hour:02d}:00 UTC.")
        b.fact(job, "BACKS_UP", name, f"The {name} nightly backup job backs up {name} to the EU bucket.")
    for name, _team, _p, _deps in EU_SERVICES:
        b.entity(name, "Service", f"{name} is the EU deployment of {name.removesuffix('-eu')}.")
    for name, team, p, deps in EU_SERVICES:
        pt = b.entity(f"port {p}", "Port", f"TCP port {p}.")
        for h in rng.sample(hosts[:10], 2):
            b.fact(name, "RUNS_ON", h, f"{name} runs on {h}.")
        b.fact(name, "LISTENS_ON", pt, f"{name} listens on port {p}.")
        b.fact(name, "OWNED_BY", team, f"{name} is owned by the EU {team}.")
        for dep in deps:
            b.fact(name, "DEPENDS_ON", dep, f"{name} depends on {dep}.")
        rb = b.entity(f"Runbook: {name}", "Runbook", f"Operational runbook for {name}.")
        b.fact(name, "DOCUMENTED_IN", rb, f"Incidents on {name} are handled with the runbook 'Runbook: {name}'.")
    # EU contradiction: the EU auth service moved from 8444 to 8443
    b.fact("auth-service-eu", "LISTENS_ON", b.entity("port 8444", "Port", "TCP port 8444."),
           "auth-service-eu listens on port 8444.", key="eu-auth-port-wrong", day=20,
           tag="contradiction:eu-auth-port:wrong")
    return b


# --- the review DB -----------------------------------------------------------------------

STATUS_TRUST_ORDER = ["promoted", "corroborated", "candidate", "rejected", "expired"]
# Sensitivity labels the default configuration knows (access.levels), so that with the default
# clearance (medium) an agent sees every reviewed fact of the sample.
SENSITIVITY = ["public", "low", "low", "medium"]
# Every edge of the sample states a fact about the estate (graph-trust's memory type "fact").
MEMORY_TYPE = "fact"


def build_review(builders: list[Builder], rng: random.Random) -> list[dict]:
    names = {e["uuid"]: e["name"] for b in builders for e in b.entities.values()}
    rows: list[dict] = []

    def row(edge: dict, status: str, *, evidence_id: str | None = None, confidence: float | None = None,
            note: str | None = None) -> None:
        n = len(rows) + 1
        updated = EPOCH + timedelta(days=rng.randint(200, 300), minutes=rng.randint(0, 1439))
        ref = {"evidence_id": evidence_id or edge["uuid"], "kind": "graphiti_edge"}
        if note:
            ref["note"] = note
        rng.randrange(3)  # one draw per row here keeps every later random value of the data where it is
        rows.append({
            "id": f"cand-{n:04d}",
            "subject": names[edge["source"]],
            "predicate": edge["name"],
            "object": names[edge["target"]],
            "fact": edge["fact"],
            "status": status,
            "evidence_refs_json": json.dumps([ref]),
            "group_id": edge["group_id"],
            "updated_at": _iso(updated),
            "memory_type": MEMORY_TYPE,
            "sensitivity": rng.choice(SENSITIVITY),
            "scope": "team" if edge["name"] in ("OWNED_BY", "MEMBER_OF", "LEADS", "ON_CALL_FOR") else "org",
            "confidence": confidence if confidence is not None else round(rng.uniform(0.55, 0.99), 2),
        })

    tagged = {e.get("tag"): e for b in builders for e in b.edges if e.get("tag")}
    decided: set[str] = set()
    # the contradictions: right side promoted, wrong side rejected or still a candidate
    plan = {
        "contradiction:billing-backup:right": "promoted",
        "contradiction:billing-backup:wrong": "rejected",
        "contradiction:billing-backup:wrong-dup": "candidate",
        "contradiction:auth-port:right": "promoted",
        "contradiction:auth-port:wrong": "candidate",
        "contradiction:auth-port:right-dup": "corroborated",
        "contradiction:payments-owner:right": "promoted",
        "contradiction:payments-owner:old": "expired",
        "contradiction:payments-owner:wrong": "candidate",
        "contradiction:orders-backup:wrong": "rejected",
        "contradiction:indexer-port:wrong": "candidate",
        "contradiction:checkout-window:wrong": "rejected",
        "contradiction:eu-auth-port:wrong": "rejected",
        "superseded:sre-lead": "expired",
    }
    for tag, status in plan.items():
        edge = tagged[tag]
        row(edge, status, confidence=0.95 if status == "promoted" else 0.3 if status == "rejected" else None)
        decided.add(edge["uuid"])
    # a second, lower-tier candidate row for some decided edges (highest tier wins)
    for tag in ("contradiction:billing-backup:right", "contradiction:auth-port:right"):
        row(tagged[tag], "candidate", confidence=0.6, note="duplicate extraction")

    # the rest: about 40% of all edges, deterministic sample, weighted statuses
    all_edges = [e for b in builders for e in b.edges if e["uuid"] not in decided and not e.get("tag")]
    target = round(0.4 * sum(len(b.edges) for b in builders)) - len(decided)
    for edge in rng.sample(all_edges, target):
        status = rng.choices(STATUS_TRUST_ORDER, weights=[35, 25, 30, 7, 3])[0]
        row(edge, status)

    # orphans: evidence ids of edges from before a migration (not in the graph), same texts
    for edge in rng.sample(all_edges, 6):
        row(edge, rng.choice(["promoted", "corroborated"]),
            evidence_id=_uuid(edge["group_id"], "pre-migration-edge", edge["uuid"]),
            note="extracted before the 2026-09 graph migration")
    return rows


def build() -> tuple[dict, list[dict]]:
    rng = random.Random(SEED)
    builders = [build_ops(rng), build_eu(rng)]
    review = build_review(builders, rng)
    graph = {
        "version": 1,
        "description": "graph-trust demo: an operations knowledge graph (see build_sample.py)",
        "groups": [b.group for b in builders],
        "demo_queries": DEMO_QUERIES,
        "demo_group": DEMO_GROUP,
        "entities": [e for b in builders for e in b.entities.values()],
        "edges": [{k: v for k, v in e.items() if k != "tag"} for b in builders for e in b.edges],
    }
    return graph, review


def _records(items: list[dict]) -> str:
    """A JSON list with one compact record per line (small, and diffs stay readable)."""
    return "[\n" + ",\n".join(json.dumps(i, ensure_ascii=False) for i in items) + "\n]"


def write(graph: dict, review: list[dict]) -> None:
    head = {k: v for k, v in graph.items() if k not in ("entities", "edges")}
    text = "{\n" + "".join(f"{json.dumps(k)}: {json.dumps(v)},\n" for k, v in head.items())
    text += f'"entities": {_records(graph["entities"])},\n"edges": {_records(graph["edges"])}\n}}\n'
    (HERE / "sample_graph.json").write_text(text, encoding="utf-8")
    (HERE / "sample_review.json").write_text(_records(review) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="load into a temporary embedded graph and print demo ranks")
    args = parser.parse_args()
    graph, review = build()
    write(graph, review)
    edges_by_group: dict[str, int] = {}
    for e in graph["edges"]:
        edges_by_group[e["group_id"]] = edges_by_group.get(e["group_id"], 0) + 1
    print(f"entities={len(graph['entities'])} edges={len(graph['edges'])} by group={edges_by_group} "
          f"review rows={len(review)}")
    if args.check:
        check_demo(review)


# --- --check: the demo queries on a real embedded graph ------------------------------------

TIERS = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": 0.0, "expired": 0.0}


def check_demo(review: list[dict], weight: float = 0.15, limit: int = 5) -> None:
    """Print, per demo query, the vanilla top-k (graphiti ``search_``) with each fact's BM25
    and cosine rank and review status, and the order after ``fused + trust * weight``."""
    import asyncio
    import tempfile

    from falkordb.asyncio import FalkorDB
    from graphiti_core.driver.falkordb_driver import FalkorDriver
    from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF
    from graphiti_core.search.search_filters import SearchFilters
    from graphiti_core.search.search_utils import edge_fulltext_search, edge_similarity_search

    from graph_trust.clients.offline import make_graphiti
    from graph_trust.demo.sample import load_sample
    from graph_trust.graph.embedded import EmbeddedServer

    trust: dict[str, tuple[float, str]] = {}
    for r in review:
        uid = json.loads(r["evidence_refs_json"])[0]["evidence_id"]
        t = TIERS[r["status"]]
        if uid not in trust or t > trust[uid][0]:
            trust[uid] = (t, r["status"])

    async def run(sock: str) -> None:
        driver = FalkorDriver(falkor_db=FalkorDB(unix_socket_path=sock), database=DEMO_GROUP)
        await load_sample(driver)
        graphiti = make_graphiti(driver)
        now = datetime.now(UTC)
        for q in DEMO_QUERIES:
            cfg = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
            cfg.limit = limit
            res = await graphiti.search_(q, config=cfg, group_ids=[DEMO_GROUP])
            vec = await graphiti.embedder.create(input_data=[q])
            bm = await edge_fulltext_search(driver, q, SearchFilters(), [DEMO_GROUP], 2 * limit)
            co = await edge_similarity_search(driver, vec, None, None, SearchFilters(), [DEMO_GROUP], 2 * limit)
            fused: dict[str, float] = {}
            for lst in (bm, co):
                for i, e in enumerate(lst):
                    fused[e.uuid] = fused.get(e.uuid, 0.0) + 1 / (i + 1)
            facts = {e.uuid: e for e in bm + co}
            vanilla = sorted(fused, key=lambda u: -fused[u])  # stable: insertion order on ties
            assert [e.uuid for e in res.edges] == vanilla[:limit], "manual RRF differs from search_"

            def boost(u: str) -> float:
                e = facts[u]
                past = any(t is not None and t <= now for t in (e.invalid_at, e.expired_at))
                return 0.0 if past else trust.get(u, (0.0, ""))[0] * weight

            boosted = sorted(vanilla, key=lambda u: -(fused[u] + boost(u)))
            print(f"\n{q!r}")
            for rank, u in enumerate(vanilla[: 2 * limit], 1):
                b = next((i + 1 for i, e in enumerate(bm) if e.uuid == u), None)
                c = next((i + 1 for i, e in enumerate(co) if e.uuid == u), None)
                status = trust.get(u, (0.0, "-"))[1]
                print(f"  v#{rank:<2} b#{boosted.index(u) + 1:<2} bm25={b!s:<4} cos={c!s:<4} "
                      f"fused={fused[u]:.3f} {status:<12} {facts[u].fact}")
        await driver.close()

    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(Path(tmp) / "g") as srv:
        asyncio.run(run(srv.socket_path))


if __name__ == "__main__":
    main()
