"""Generate the bundled labeled evaluation set (``graph_trust/data/eval/``).

Kept in the repository so the set can be regenerated and reviewed; the bundled set is read from
the files (:mod:`graph_trust.eval.dataset`), and :func:`build` with another seed makes the other
judged sets of ``graph-trust eval --review-budget --generated``. Deterministic: a fixed seed,
``uuid5`` ids and fixed timestamps, so rerunning it rewrites byte-identical files::

    python graph_trust/data/eval/build_evalset.py

It writes

- ``graph.json``: the graph in the demo sample's format (entities, ``RELATES_TO`` facts, two
  groups), plus ``as_of``, the instant the set describes (recency is measured from it);
- ``queries.jsonl``: one judged query per line (``id``, ``query``, ``group``, ``wrong``,
  ``classes``);
- ``qrels.txt``: graded judgments in TREC format (``query_id 0 fact_uuid grade``);
- ``verdicts.json``: what a careful reviewer would decide about every fact (``correct``,
  ``wrong``, ``outdated``), the input of the review-draw generator
  (:func:`graph_trust.eval.draws.draw_review`);
- ``review.json``: draw 0 of the review DB (the ``candidates`` rows; 40% coverage, 5% noise).

The domain is the operations graph of a company with two estates: ``infra`` (identity, edge,
messaging, observability) and ``payments``. Every query asks one attribute of one subject
(a port, an owner, a version, a backup time, a runbook, an on-call engineer, an RTO, ...).
Each query is given one class: ``clean`` (no wrong answer in the graph), ``superseded`` (an
older value whose ``invalid_at`` is set), ``stale`` (an older value nobody invalidated) or
``wrong_extraction`` (a recent fact with a value taken from another subject, often phrased
closer to the query than the right one). Orthogonal flags add ``paraphrase`` (two or three
correct facts worded differently) and ``intrusion`` (a true but off-topic fact about the same
subject, full of the query's words: the fact a trust boost might push above the answer).
Every query also has a ``related`` fact (grade 1). The remaining facts are background: the
same attributes of subjects nobody asks about, which compete lexically with the judged ones.
"""

from __future__ import annotations

import json
import random
import sys
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
SEED = 1414
NAMESPACE = uuid.UUID("b7f2e0c4-5a61-5d7e-8c3b-14e0a9d2f6c1")
AS_OF = datetime(2026, 11, 1, 0, 0, tzinfo=UTC)

GROUPS = {
    "infra": {
        "service": ["auth-gateway", "edge-proxy", "events-kafka", "search-api", "notification-service", "vault",
                    "ci-runner", "grafana", "dns-resolver", "object-store", "session-cache", "log-shipper"],
        "database": ["users-db", "inventory-db", "metrics-tsdb", "config-etcd"],
        "incident": ["INC-2041", "INC-2107", "INC-2133"],
        "teams": ["platform-core", "sre-emea", "identity-team", "observability", "edge-networking"],
        "people": ["Priya Raman", "Tomasz Nowak", "Aiko Tanaka", "Lena Fischer", "Diego Alvarez", "Sam Okafor"],
        "regions": ["eu-west-1", "us-east-1", "eu-central-1"],
    },
    "payments": {
        "service": ["payments-api", "billing-worker", "fraud-scorer", "invoice-service", "payouts-api", "fx-rates",
                    "card-vault", "settlement-batch", "reconciliation-job", "checkout-web", "refunds-api"],
        "database": ["ledger-db", "billing-db", "payouts-db", "risk-warehouse", "merchants-db"],
        "incident": ["INC-3012", "INC-3055", "INC-3090"],
        "teams": ["payments-eng", "billing-squad", "risk-team", "merchant-platform"],
        "people": ["Grace Liu", "Marco Bianchi", "Nadia Haddad", "Oskar Berg", "Ines Duarte", "Kwame Mensah"],
        "regions": ["eu-west-1", "us-east-2", "ap-southeast-1"],
    },
}

PORTS = [8080, 8443, 9090, 5432, 6379, 9092, 3000, 8200, 7000, 4317, 9443, 8081, 5000, 8500, 2379, 9200]
CAUSES = [
    "an expired TLS certificate on the internal load balancer",
    "a connection pool exhausted by a retry storm",
    "a bad feature-flag rollout that disabled request signing",
    "a full disk on the primary database host",
    "DNS resolution failures after a resolver config push",
    "a schema migration that locked the orders table",
    "a memory leak in the JSON serializer after the upgrade",
    "an expired API key for the upstream card network",
]
TIMES = ["01:00 UTC", "01:30 UTC", "02:00 UTC", "02:30 UTC", "03:00 UTC", "03:30 UTC", "04:00 UTC", "23:30 UTC"]
WINDOWS = ["Tuesday to Thursday, 10:00-16:00 UTC", "Monday to Wednesday, 09:00-15:00 UTC",
           "weekdays before 14:00 UTC", "Tuesday and Thursday afternoons"]

# Each attribute: which subject kind it applies to, how operators ask it, how the graph states
# the answer (several wordings, some sharing few words with the question), a related fact
# (grade 1) and an off-topic fact that shares the question's words (the intrusion).
ATTRS: dict[str, dict] = {
    "port": {
        "kind": "service", "pred": "LISTENS_ON",
        "ask": ["which port does {s} listen on", "what port is {s} exposed on", "{s} port number"],
        "say": ["{s} listens on port {v}.", "The {s} service accepts connections on TCP port {v}.",
                "Clients reach {s} at :{v} inside the cluster."],
        "related": ("EXPOSES_METRICS_ON", "{s} exposes its Prometheus metrics on port {x}."),
        "intrude": ("FIREWALL_RULE", "Firewall rule fw-{n} opens the {s} listener port only to the office network."),
    },
    "owner": {
        "kind": "service", "pred": "OWNED_BY",
        "ask": ["who owns {s}", "which team is responsible for {s}", "{s} owner team"],
        "say": ["{s} is owned by the {v} team.", "The {v} team is responsible for {s}.",
                "Ownership of {s} sits with {v}."],
        "related": ("TECH_LEAD", "{p} is the tech lead for {s}."),
        "intrude": ("OWNERSHIP_REVIEW", "The yearly review of who owns {s} and which team is responsible is due in December."),
    },
    "version": {
        "kind": "service", "pred": "RUNS_VERSION",
        "ask": ["what version of {s} is running in production", "which {s} version is deployed in prod",
                "{s} production version"],
        "say": ["Production runs {s} version {v}.", "{s} was upgraded to {v} in production.",
                "The prod deployment of {s} is on release {v}."],
        "related": ("STAGING_VERSION", "Staging runs {s} version {x} ahead of the production rollout."),
        "intrude": ("CHANGE_FREEZE", "During the year-end change freeze no {s} version upgrades may be deployed to production."),
    },
    "backup": {
        "kind": "database", "pred": "BACKUP_AT",
        "ask": ["when does the {s} backup run", "what time is the nightly {s} backup", "{s} backup schedule"],
        "say": ["The {s} backup runs daily at {v}.", "Nightly {s} snapshots start at {v}.",
                "A full dump of {s} is taken every night at {v}."],
        "related": ("BACKUP_RETENTION", "{s} backups are kept for {n} days in the cold storage bucket."),
        "intrude": ("RESTORE_DRILL", "The quarterly restore drill checks that the nightly {s} backup can run a full restore."),
    },
    "runbook": {
        "kind": "service", "pred": "FAILOVER_RUNBOOK",
        "ask": ["where is the runbook for {s} failover", "how do I fail over {s}", "{s} failover runbook link"],
        "say": ["The {s} failover runbook lives at {v}.", "To fail over {s}, follow {v}.",
                "Failover steps for {s} are documented in {v}."],
        "related": ("FAILOVER_TESTED", "{s} failover was last tested in a game day on {d}."),
        "intrude": ("RUNBOOK_POLICY", "Every runbook, including the {s} failover runbook, must be reviewed twice a year."),
    },
    "oncall": {
        "kind": "service", "pred": "ON_CALL",
        "ask": ["who is on call for {s}", "who do I page for {s}", "{s} on-call engineer this week"],
        "say": ["{v} is the primary on-call engineer for {s} this rotation.", "Page {v} for {s} incidents.",
                "The {s} pager is held by {v}."],
        "related": ("ROTATION_CHANGE", "The {s} on-call rotation hands over every Monday at 09:00 UTC."),
        "intrude": ("ONCALL_POLICY", "On-call engineers for {s} must acknowledge a page within 5 minutes."),
    },
    "rto": {
        "kind": "database", "pred": "HAS_RTO",
        "ask": ["what is the recovery time objective for {s}", "RTO of {s}", "how fast must {s} be restored"],
        "say": ["The recovery time objective for {s} is {v} minutes.", "{s} must be back within {v} minutes of an outage.",
                "{s} has an RTO of {v} minutes."],
        "related": ("HAS_RPO", "The recovery point objective for {s} is {n} minutes of data."),
        "intrude": ("DR_REVIEW", "The recovery objectives for {s} are reviewed by the disaster recovery board each quarter."),
    },
    "region": {
        "kind": "service", "pred": "DEPLOYED_IN",
        "ask": ["which region is {s} deployed in", "where does {s} run", "{s} primary region"],
        "say": ["{s} is deployed in {v}.", "{s} runs in the {v} region.", "The primary region of {s} is {v}."],
        "related": ("WARM_STANDBY", "{s} keeps a warm standby in {r}."),
        "intrude": ("REGION_POLICY", "Customer data handled by {s} must not leave the region it is deployed in."),
    },
    "timeout": {
        "kind": "service", "pred": "REQUEST_TIMEOUT",
        "ask": ["what is the request timeout for {s}", "how long does {s} wait before timing out", "{s} timeout"],
        "say": ["{s} times out upstream requests after {v} seconds.", "The request timeout of {s} is {v} s.",
                "{s} gives up on a call after {v} seconds."],
        "related": ("RETRIES", "{s} retries a failed request up to {n} times with backoff."),
        "intrude": ("TIMEOUT_ALERT", "An alert fires when more than 1% of {s} requests time out."),
    },
    "replicas": {
        "kind": "service", "pred": "REPLICAS",
        "ask": ["how many replicas does {s} run", "{s} replica count in production", "how many pods does {s} have"],
        "say": ["{s} runs {v} replicas in production.", "Production keeps {v} pods of {s}.",
                "The {s} deployment is scaled to {v} replicas."],
        "related": ("AUTOSCALE_MAX", "{s} autoscales up to {n} replicas under load."),
        "intrude": ("PDB", "A pod disruption budget keeps at least one {s} replica running in production during node drains."),
    },
    "retention": {
        "kind": "service", "pred": "LOG_RETENTION",
        "ask": ["how long are {s} logs retained", "{s} log retention", "how many days of {s} logs do we keep"],
        "say": ["{s} logs are retained for {v} days.", "Log retention for {s} is {v} days.",
                "We keep {v} days of {s} logs in the log store."],
        "related": ("AUDIT_RETENTION", "{s} audit events are archived for {n} months."),
        "intrude": ("LOG_PII", "{s} logs must not contain card numbers or other personal data."),
    },
    "deploy": {
        "kind": "service", "pred": "DEPLOY_WINDOW",
        "ask": ["when is the deploy window for {s}", "when can we deploy {s}", "{s} deployment window"],
        "say": ["Deploys of {s} are allowed {v}.", "The {s} deploy window is {v}.",
                "{s} may be released {v}."],
        "related": ("DEPLOY_APPROVER", "Production deploys of {s} need approval from {p}."),
        "intrude": ("DEPLOY_PIPELINE", "The {s} deploy pipeline runs integration tests before every deployment."),
    },
    "cert": {
        "kind": "service", "pred": "CERT_EXPIRES",
        "ask": ["when does the TLS certificate for {s} expire", "{s} certificate expiry date",
                "when do we need to renew the {s} cert"],
        "say": ["The TLS certificate for {s} expires on {v}.", "{s}'s certificate is valid until {v}.",
                "The {s} cert must be renewed before {v}."],
        "related": ("CERT_ISSUER", "The {s} certificate is issued by the internal ACME CA."),
        "intrude": ("CERT_ALERT", "Certificate expiry alerts for {s} fire 14 days before the TLS certificate expires."),
    },
    "database": {
        "kind": "service", "pred": "USES_DB",
        "ask": ["which database does {s} use", "where does {s} store its data", "{s} backing database"],
        "say": ["{s} stores its data in {v}.", "The backing database of {s} is {v}.",
                "{s} reads and writes {v}."],
        "related": ("CACHE", "{s} caches hot reads in session-cache."),
        "intrude": ("DB_MIGRATION", "Schema migrations of the database {s} uses are applied by the migration job."),
    },
    "cause": {
        "kind": "incident", "pred": "CAUSED_BY",
        "ask": ["what caused {s}", "root cause of {s}", "why did {s} happen"],
        "say": ["{s} was caused by {v}.", "The root cause of {s} was {v}.",
                "The postmortem of {s} traced the outage to {v}."],
        "related": ("INCIDENT_IMPACT", "{s} degraded checkout and login for {n} minutes."),
        "intrude": ("POSTMORTEM_POLICY", "The postmortem for {s} must list the root cause and the follow-up actions."),
    },
}
CLASSES = ["clean"] * 12 + ["superseded"] * 6 + ["stale"] * 6 + ["wrong_extraction"] * 6


class Vocabulary(NamedTuple):
    """A domain the generator draws a set from: its groups (subjects of each kind and value
    pools), its attributes (relation name, questions, fact wordings, related and intrusion facts;
    ``"values": 2`` makes an attribute hold two correct values per subject, a multi-valued
    relation), how a value is drawn and how a template is filled. ``summary`` is an entity's
    summary (``{name}``, ``{label}``, ``{group}``)."""

    name: str
    description: str
    groups: dict[str, dict]
    attrs: dict[str, dict]
    value: Callable[[str, dict, random.Random, str], str]
    fill: Callable[..., str]
    summary: str


def vocabulary(name: str) -> Vocabulary:
    """The vocabulary called ``name``: ``ops`` (the bundled set's) or ``library``
    (:mod:`graph_trust.data.eval.vocab_library`: no entity, relation or question in common)."""
    if name == "ops":
        return Vocabulary("ops", "graph-trust labeled evaluation set: an operations graph in two estates",
                          GROUPS, ATTRS, lambda a, g, r, s: _value(a, g, r, s), lambda *a: _fill(*a),
                          "{name} ({label}) in the {group} estate.")
    if name == "library":
        from graph_trust.data.eval import vocab_library

        return vocab_library.VOCABULARY
    raise ValueError(f"unknown vocabulary {name!r}: one of {', '.join(VOCABULARIES)}")


VOCABULARIES = ("ops", "library")


class Builder:
    """Accumulates one group's entities and facts; ids are uuid5 of stable keys."""

    def __init__(self, group: str, rng: random.Random, summary: str = "{name} ({label}) in the {group} estate."):
        self.group = group
        self.rng = rng
        self.summary = summary
        self.entities: dict[str, dict] = {}
        self.edges: list[dict] = []
        self.verdicts: dict[str, str] = {}

    def entity(self, name: str, label: str) -> str:
        uid = str(uuid.uuid5(NAMESPACE, f"{self.group}/entity/{name}"))
        if uid not in self.entities:
            self.entities[uid] = {
                "uuid": uid, "name": name, "summary": self.summary.format(name=name, label=label.lower(), group=self.group),
                "group_id": self.group, "labels": [label],
                "created_at": (AS_OF - timedelta(days=400)).isoformat(),
            }
        return uid

    def fact(self, key: str, subject: str, skind: str, pred: str, obj: str, text: str, verdict: str,
             age_days: tuple[int, int], invalid_at: datetime | None = None) -> str:
        uid = str(uuid.uuid5(NAMESPACE, f"{self.group}/fact/{key}"))
        valid = AS_OF - timedelta(days=self.rng.randint(*age_days), hours=self.rng.randint(0, 23))
        edge = {
            "uuid": uid, "source": self.entity(subject, skind.title()), "target": self.entity(obj, "Value"),
            "name": pred, "fact": text, "group_id": self.group, "valid_at": valid.isoformat(),
            "created_at": (valid + timedelta(hours=self.rng.randint(1, 72))).isoformat(),
        }
        if invalid_at is not None:
            edge["invalid_at"] = invalid_at.isoformat()
        self.edges.append(edge)
        self.verdicts[uid] = verdict
        return uid


def _value(attr: str, g: dict, rng: random.Random, subject: str) -> str:
    """A plausible value of ``attr`` for ``subject``."""
    if attr == "port":
        return str(rng.choice(PORTS))
    if attr == "owner":
        return rng.choice(g["teams"])
    if attr == "version":
        return f"{rng.randint(1, 9)}.{rng.randint(0, 24)}.{rng.randint(0, 12)}"
    if attr == "backup":
        return rng.choice(TIMES)
    if attr == "runbook":
        return f"https://wiki.internal/runbooks/{subject}-failover-v{rng.randint(2, 5)}"
    if attr == "oncall":
        return rng.choice(g["people"])
    if attr == "rto":
        return str(rng.choice([15, 30, 45, 60, 120, 240]))
    if attr == "region":
        return rng.choice(g["regions"])
    if attr == "timeout":
        return str(rng.choice([2, 5, 10, 15, 30, 60]))
    if attr == "replicas":
        return str(rng.choice([2, 3, 4, 6, 8, 12]))
    if attr == "retention":
        return str(rng.choice([7, 14, 30, 90, 180, 365]))
    if attr == "deploy":
        return rng.choice(WINDOWS)
    if attr == "cert":
        return (AS_OF + timedelta(days=rng.randint(20, 400))).strftime("%Y-%m-%d")
    if attr == "database":
        return rng.choice(g["database"])
    if attr == "cause":
        return rng.choice(CAUSES)
    raise ValueError(attr)


def _other_value(attr: str, g: dict, rng: random.Random, subject: str, avoid: str | frozenset[str],
                 value: Callable[[str, dict, random.Random, str], str] | None = None) -> str:
    """A value of ``attr`` other than ``avoid`` (one value or several), drawn by ``value`` (``_value``)."""
    avoid = frozenset({avoid}) if isinstance(avoid, str) else avoid
    for _ in range(50):
        v = (value or _value)(attr, g, rng, subject)
        if v not in avoid:
            return v
    raise RuntimeError(f"no other value for {attr}")


def _fill(template: str, rng: random.Random, g: dict, s: str, v: str = "") -> str:
    text = template.format(
        s=s, v=v, x=_other_value("port", g, rng, s, v) if "{x}" in template and "port" in template
        else f"{rng.randint(1, 9)}.{rng.randint(0, 24)}.{rng.randint(0, 12)}",
        n=rng.choice([3, 5, 7, 14, 21, 30, 45, 90]), p=rng.choice(g["people"]), r=rng.choice(g["regions"]),
        d=(AS_OF - timedelta(days=rng.randint(20, 200))).strftime("%Y-%m-%d"),
    )
    return text[0].upper() + text[1:] if text[0].islower() and not text.startswith(s) else text


def build_group(group: str, rng: random.Random, n_queries: int, vocab: Vocabulary | None = None
                ) -> tuple[Builder, list[dict], list[tuple]]:
    """One group's facts, queries and qrels, in ``vocab``'s domain (the bundled ``ops`` one by default)."""
    vocab = vocab or vocabulary("ops")
    attrs, _fill, value = vocab.attrs, vocab.fill, vocab.value
    g = vocab.groups[group.split("-r")[0]]
    b = Builder(group, rng, vocab.summary)
    pairs = [(a, s) for a, spec in attrs.items() for s in g[spec["kind"]]]
    rng.shuffle(pairs)
    # One query per attribute first (every attribute is asked), then the rest at random.
    asked: list[tuple[str, str]] = []
    for a in attrs:
        asked.append(next(p for p in pairs if p[0] == a and p not in asked))
    asked += [p for p in pairs if p not in asked][: n_queries - len(asked)]
    classes = list(CLASSES)
    rng.shuffle(classes)
    queries, qrels = [], []
    for i, ((attr, s), cls) in enumerate(zip(asked, classes, strict=True)):
        spec = attrs[attr]
        qid = f"{group[:3]}{group[len(group.split('-r')[0]):]}-{i + 1:02d}"
        key = f"{attr}/{s}"
        v = value(attr, g, rng, s)
        flags = [cls]
        paraphrase = rng.random() < 0.35
        intrusion = rng.random() < 0.4
        wordings = rng.sample(spec["say"], 3 if paraphrase and rng.random() < 0.4 else 2 if paraphrase else 1)
        right = [b.fact(f"{key}/right/{j}", s, spec["kind"], spec["pred"], v, _fill(w, rng, g, s, v), "correct",
                        (5, 200)) for j, w in enumerate(wordings)]
        values = {v}
        for k in range(1, spec.get("values", 1)):  # a multi-valued relation: each further correct value
            more = _other_value(attr, g, rng, s, frozenset(values), value)
            values.add(more)
            right += [b.fact(f"{key}/right{k}/{j}", s, spec["kind"], spec["pred"], more, _fill(w, rng, g, s, more),
                             "correct", (5, 200)) for j, w in enumerate(rng.sample(spec["say"], len(wordings)))]
        wrong: list[str] = []
        newest = min(datetime.fromisoformat(e["valid_at"]) for e in b.edges if e["uuid"] in right)
        if cls in ("superseded", "stale"):
            old = _other_value(attr, g, rng, s, frozenset(values), value)
            for j in range(rng.choice([1, 1, 2])):
                w = rng.choice(spec["say"])
                wrong.append(b.fact(f"{key}/old/{j}", s, spec["kind"], spec["pred"], old, _fill(w, rng, g, s, old),
                                    "outdated", (250, 900), invalid_at=newest if cls == "superseded" else None))
        elif cls == "wrong_extraction":
            bad = _other_value(attr, g, rng, s, frozenset(values), value)
            # The wrong fact often echoes the question's own words: the lexical trap.
            ask = rng.choice(spec["ask"]).format(s=s)
            w = rng.choice(spec["say"] + [f"Asked {ask}, the answer given in chat was {{v}}."])
            wrong.append(b.fact(f"{key}/wrong/0", s, spec["kind"], spec["pred"], bad, _fill(w, rng, g, s, bad),
                                "wrong", (2, 120)))
        if paraphrase:
            flags.append("paraphrase")
        rel_pred, rel_t = spec["related"]
        related = b.fact(f"{key}/related", s, spec["kind"], rel_pred, f"{s} {rel_pred.lower()}",
                         _fill(rel_t, rng, g, s), "correct", (10, 400))
        intruder = None
        if intrusion:
            flags.append("intrusion")
            in_pred, in_t = spec["intrude"]
            intruder = b.fact(f"{key}/intrude", s, spec["kind"], in_pred, f"{s} {in_pred.lower()}",
                              _fill(in_t, rng, g, s), "correct", (5, 300))
        queries.append({"id": qid, "query": rng.choice(spec["ask"]).format(s=s), "group": group,
                        "wrong": wrong, "classes": flags})
        qrels += [(qid, u, 2) for u in right] + [(qid, related, 1)] + [(qid, u, 0) for u in wrong]
        if intruder:
            qrels.append((qid, intruder, 0))
    # Background: attributes nobody asks about, stated plainly (some with an old value too).
    for attr, s in [p for p in pairs if p not in asked]:
        spec = attrs[attr]
        v = value(attr, g, rng, s)
        b.fact(f"{attr}/{s}/background", s, spec["kind"], spec["pred"], v,
               _fill(rng.choice(spec["say"]), rng, g, s, v), "correct", (5, 500))
        if rng.random() < 0.12:
            old = _other_value(attr, g, rng, s, v, value)
            b.fact(f"{attr}/{s}/background-old", s, spec["kind"], spec["pred"], old,
                   _fill(rng.choice(spec["say"]), rng, g, s, old), "outdated", (300, 900))
    return b, queries, qrels


def build(seed: int = SEED, regions: int = 0, vocabulary_name: str = "ops") -> dict[str, object]:
    """The set (graph, queries, qrels, verdicts) drawn with ``seed``: the bundled one with ``SEED``;
    another seed gives other subjects asked, classes, values, ages and wordings. ``regions`` adds
    that many regional groups, copies of the estates in turn (``infra-r1``, then ``payments-r1``,
    ``infra-r2``, ...: the same kinds of subjects, entities of their own, drawn afresh), so a judged
    set can hold questions about a part of the graph another set of questions never searched.
    ``vocabulary_name`` picks the domain (:func:`vocabulary`): ``library`` draws a set with no
    entity, relation or question of the bundled one, for judging what was tuned on ``ops``."""
    vocab = vocabulary(vocabulary_name)
    rng = random.Random(seed)
    base = list(vocab.groups)
    groups = base + [f"{base[k % len(base)]}-r{k // len(base) + 1}" for k in range(regions)]
    graph = {"version": 1, "description": vocab.description,
             "as_of": AS_OF.isoformat(), "groups": groups, "entities": [], "edges": []}
    queries, qrels, verdicts = [], [], {}
    for group in groups:
        b, q, r = build_group(group, rng, len(CLASSES), vocab)
        graph["entities"] += sorted(b.entities.values(), key=lambda e: e["uuid"])
        graph["edges"] += b.edges
        queries += q
        qrels += r
        verdicts.update(b.verdicts)
    return {"graph": graph, "queries": queries, "qrels": qrels, "verdicts": verdicts}


def main() -> None:
    sys.path.insert(0, str(HERE.parents[2]))
    from graph_trust.eval.draws import draw_review

    out = build()
    (HERE / "graph.json").write_text(json.dumps(out["graph"], indent=1) + "\n", encoding="utf-8")
    (HERE / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in out["queries"]), encoding="utf-8")
    (HERE / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in out["qrels"]), encoding="utf-8")
    (HERE / "verdicts.json").write_text(json.dumps(out["verdicts"], indent=1, sort_keys=True) + "\n", encoding="utf-8")
    rows = draw_review(out["graph"], out["verdicts"], seed=0)
    (HERE / "review.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    n_edges = len(out["graph"]["edges"])
    print(f"{n_edges} facts, {len(out['queries'])} queries, {len(out['qrels'])} judgments, {len(rows)} review rows")


if __name__ == "__main__":
    main()
