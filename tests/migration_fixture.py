"""Migrations for relink tests: a review DB written against an *old* extraction and a *new*
graph built through graphiti-core's API (``EntityNode``/``EntityEdge.save()`` via
``tests/builders.build_graph``) where facts were re-extracted under new uuids, some changed,
some dropped.

:func:`generate` makes one from a seed; every class of what a re-extraction does is there
(``per_class`` candidates at least, spread over two groups):

``verbatim``        re-extracted as it was (new uuid only)
``respelled``       entity names changed in case, spacing, hyphenation (``billing-db`` ->
                    ``Billing DB``, ``BillingDB``), predicate re-cased
``reworded``        predicate renamed and the sentence reworded (``LISTENS_ON`` ->
                    ``SERVES_ON_PORT``); names sometimes respelled; sometimes a second, other
                    fact joins the same two entities
``reversed``        "A r B" and "B r A" were both candidates; the re-extraction kept one
                    (sometimes reworded); the other must not be written
``dropped``         not re-extracted while its subject keeps other facts: the same words to
                    another object, other relations, an object that other facts still use, or
                    another fact between the same two entities that its own candidate holds;
                    must not be written
``near_duplicate``  two candidates differing in a detail, both re-extracted (each must find its
                    own), or one fact re-extracted twice (ambiguous, must not be written)
``two_groups``      the same fact in both groups: the candidate's own group's edge, or nothing
                    when only the other group kept it

``synthetic=True`` draws names from random syllables instead of the realistic pools.
:func:`build_migration` builds the fixed fixture (seed 15, 32 per class) on a graph.
"""

from __future__ import annotations

import json
import random
import sqlite3
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from builders import Fact, build_graph

from graph_trust.sync.relink.matching import name_key, tokenize

KINDS = ("verbatim", "respelled", "reworded", "reversed", "dropped", "near_duplicate", "two_groups")
GROUPS = ("a", "b")

# relation -> ((subject kind, object kind), phrasings: (predicate, sentence)); any two phrasings
# of a relation say the same thing, so a re-extraction may swap one for another.
RELATIONS: dict[str, tuple[tuple[str, str], list[tuple[str, str]]]] = {
    "depends_on": (("svc", "svc"), [("DEPENDS_ON", "{s} depends on {o}"), ("REQUIRES", "{s} requires {o}"),
                                    ("RELIES_ON", "{s} relies on {o} to work"),
                                    ("CALLS", "{s} makes calls to {o}")]),
    "replicates_to": (("svc", "svc"), [("REPLICATES_TO", "{s} replicates to {o}"),
                                       ("HAS_REPLICA", "{s} keeps a replica of its data on {o}"),
                                       ("MIRRORED_TO", "{s} is mirrored to {o}")]),
    "listens_on": (("svc", "port"), [("LISTENS_ON", "{s} listens on {o}"),
                                     ("SERVES_ON_PORT", "{s} accepts connections on {o}"),
                                     ("BOUND_TO", "{s} is bound to {o}")]),
    "monitored_by": (("svc", "tech"), [("MONITORED_BY", "{s} is monitored by {o}"), ("WATCHED_BY", "{o} watches {s}"),
                                       ("ALERTS_IN", "{s} has its alerts defined in {o}")]),
    "runs_on": (("svc", "tech"), [("RUNS_ON", "{s} runs on {o}"), ("DEPLOYED_ON", "{s} is deployed on {o}"),
                                  ("HOSTED_BY", "{s} is hosted by {o}")]),
    "works_at": (("person", "org"), [("WORKS_AT", "{s} works at {o}"), ("EMPLOYED_BY", "{s} is employed by {o}"),
                                     ("HAS_JOB_AT", "{s} has a job at {o}")]),
    "founded": (("person", "org"), [("FOUNDED", "{s} founded {o}"), ("CREATED", "{s} created {o}"),
                                    ("ESTABLISHED", "{o} was established by {s}")]),
    "lives_in": (("person", "place"), [("LIVES_IN", "{s} lives in {o}"), ("RESIDES_IN", "{s} resides in {o}"),
                                       ("HOME_IN", "{s} has a home in {o}")]),
    "manages": (("person", "person"), [("MANAGES", "{s} manages {o}"), ("SUPERVISES", "{s} supervises {o}"),
                                       ("LEADS", "{s} is the manager of {o}")]),
    "mentors": (("person", "person"), [("MENTORS", "{s} mentors {o}"), ("COACHES", "{s} coaches {o}"),
                                       ("ADVISES", "{s} gives advice to {o}")]),
    "owns": (("team", "svc"), [("OWNS", "{s} owns {o}"), ("RESPONSIBLE_FOR", "{s} is responsible for {o}"),
                               ("MAINTAINS", "{s} maintains {o}")]),
    "uses": (("team", "tech"), [("USES", "{s} uses {o}"), ("BUILDS_WITH", "{s} builds with {o}"),
                                ("ADOPTED", "{s} adopted {o}")]),
}
REVERSIBLE = ("depends_on", "replicates_to", "manages", "mentors")
DETAILS = {
    "svc": ["", " for sessions", " in eu-west-1", " since the 2023 migration", " for nightly reports",
            " during peak hours", " with a 5 second timeout", " for rate limits", " in production",
            " for the checkout flow", " through a private link", " for audit logs"],
    "person": ["", " since 2019", " as a senior engineer", " in the platform team", " for three years",
               " on a contract basis", " after the reorg", " in the research group", " since 2021"],
    "team": ["", " since the reorg", " for the payments roadmap", " in every region", " for on-call"],
}
SVC_A = ("billing auth search payment order inventory user report email ledger catalog shipping notify "
         "session audit media profile pricing fraud invoice checkout cart review rating tax refund "
         "coupon loyalty export import metrics tracing").split()
SVC_B = "db service api queue worker cache gateway store proxy scheduler replica indexer".split()
FIRST = ("alice bob carol dave erin frank grace heidi ivan judy mallory niaj olivia peggy rupert sybil "
         "trent victor walter xena yusuf zoe liam noah emma amara kenji sofia mateo priya").split()
LAST = ("smith jones brown white green black king wright lopez hill scott adams baker nelson carter "
        "mitchell perez roberts turner campbell parker evans collins stewart morris").split()
ORG_A = ("acme globex initech umbrella stark wayne wonka hooli vandelay soylent cyberdyne tyrell "
         "massive dunder pied wernham prestige gringotts oceanic aperture").split()
ORG_B = "corp labs systems group holdings analytics networks foods".split()
PLACES = ("berlin paris london madrid rome vienna prague oslo lisbon dublin warsaw athens zurich boston "
          "denver austin seattle chicago toronto sydney tokyo seoul").split()
TECH = ("postgres redis kafka kubernetes prometheus grafana nginx envoy terraform vault consul "
        "elasticsearch rabbitmq cassandra datadog").split()
TEAMS = ("platform data payments identity growth security mobile infra search ml web frontend backend "
         "release quality support analytics devex").split()
TEAM_UNITS = "team squad crew guild chapter unit".split()
SYLLABLES = "ka lo mi ren tas vo zu bri dal fen gor hix jup kel mon nar pel quo rix sal tov ul vex wyn yor".split()


@dataclass(frozen=True)
class Case:
    """One orphaned candidate and the edge of the new graph that is its fact (``expect``)."""

    kind: str
    group: str  # "a" or "b"
    subject: str
    predicate: str
    object: str
    fact: str
    expect: Fact | None = None  # None: its fact is not in its group's new graph (must not be written)

    @property
    def resolvable(self) -> bool:
        return self.expect is not None


@dataclass
class Plan:
    """A generated migration before it is built: the new graph's facts and the candidates."""

    facts: dict[str, list[Fact]] = field(default_factory=lambda: {g: [] for g in GROUPS})
    cases: list[Case] = field(default_factory=list)
    current: list[tuple[str, Fact, Fact]] = field(default_factory=list)  # (group, candidate, edge it names)


class _Generator:
    def __init__(self, rng: random.Random, synthetic: bool) -> None:
        self.rng = rng
        self.synthetic = synthetic
        self.plan = Plan()
        self.names: dict[str, set[str]] = {g: set() for g in GROUPS}  # name keys in use per group
        self.texts: dict[str, set[str]] = {g: set() for g in GROUPS}
        self.shared: dict[str, list[str]] = {}  # small pools (places, tech, ports) reused on purpose
        self.tokens: dict[str, list[set[str]]] = {g: [] for g in GROUPS}  # token sets of names in use

    # --- names ---------------------------------------------------------------------------

    def _draw(self, kind: str) -> str:
        r = self.rng
        if self.synthetic:
            word = lambda: "".join(r.choice(SYLLABLES) for _ in range(r.randint(2, 3)))  # noqa: E731
            return {"svc": lambda: f"{word()}-{word()}", "person": lambda: f"{word().title()} {word().title()}",
                    "org": lambda: f"{word().title()} {r.choice(ORG_B).title()}", "team": lambda: f"{word()} team",
                    "place": lambda: word().title(), "tech": lambda: word().title(),
                    "port": lambda: f"port {r.randint(1024, 65000)}"}[kind]()
        return {"svc": lambda: f"{r.choice(SVC_A)}-{r.choice(SVC_B)}",
                "person": lambda: f"{r.choice(FIRST).title()} {r.choice(LAST).title()}",
                "org": lambda: f"{r.choice(ORG_A).title()} {r.choice(ORG_B).title()}",
                "team": lambda: f"{r.choice(TEAMS)} {r.choice(TEAM_UNITS)}", "place": lambda: r.choice(PLACES).title(),
                "tech": lambda: r.choice(TECH).title(), "port": lambda: f"port {r.randint(1024, 65000)}"}[kind]()

    def fresh(self, kind: str, groups: tuple[str, ...]) -> str:
        """A name no fact of ``groups`` uses yet, and that neither contains nor is contained in one."""
        for _ in range(2_000):
            name = self._draw(kind)
            key, toks = name_key(name), set(tokenize(name))
            if all(key not in self.names[g] and not self._overlaps(toks, g) for g in groups):
                for g in groups:
                    self.names[g].add(key)
                    self.tokens[g].append(toks)
                return name
        raise RuntimeError(f"name pool for {kind!r} exhausted")

    def _overlaps(self, toks: set[str], group: str) -> bool:
        return any(toks <= t or t <= toks for t in self.tokens[group])

    def obj(self, kind: str, groups: tuple[str, ...]) -> str:
        """An object name: people, orgs, services and teams fresh; places, tech and ports shared."""
        if kind in ("place", "tech", "port"):
            pool = self.shared.setdefault(kind, [])
            if len(pool) < 6 or self.rng.random() < 0.3:
                try:
                    pool.append(self.fresh(kind, GROUPS))
                except RuntimeError:  # the pool is used up: reuse
                    pass
            return self.rng.choice(pool)
        return self.fresh(kind, groups)

    def respell(self, name: str) -> str:
        """The same name as a re-extraction might spell it: case, spacing, hyphenation."""
        words = tokenize(name)
        for _ in range(20):
            how = self.rng.randrange(7)
            out = {0: name.upper(), 1: name.lower().replace("-", " ").replace(" ", "  "),
                   2: "".join(w.title() for w in words), 3: "-".join(w.title() for w in words),
                   4: " " + name.title() + " ", 5: "_".join(words), 6: name.swapcase().replace(" ", "-")}[how]
            if out != name and name_key(out) == name_key(name):
                return out
        return name.upper()

    # --- facts ---------------------------------------------------------------------------

    def sentence(self, rel: str, k: int, s: str, o: str, detail: str) -> tuple[str, str]:
        pred, tmpl = RELATIONS[rel][1][k]
        return pred, tmpl.format(s=s, o=o) + detail

    def detail(self, kind: str) -> str:
        return self.rng.choice(DETAILS.get(kind, [""]))

    def add(self, group: str, fact: Fact) -> Fact:
        if fact.fact in self.texts[group]:
            raise ValueError("duplicate fact text")  # the builder keys edges by fact text
        self.texts[group].add(fact.fact)
        self.plan.facts[group].append(fact)
        return fact

    def case(self, kind: str, group: str, s: str, p: str, o: str, f: str, expect: Fact | None) -> None:
        self.plan.cases.append(Case(kind, group, s, p, o, f, expect))

    def rel(self, among: tuple[str, ...] = tuple(RELATIONS)) -> tuple[str, str, str]:
        rel = self.rng.choice(among)
        (sk, ok), _ = RELATIONS[rel]
        return rel, sk, ok

    def other_phrasing(self, rel: str, k: int) -> int:
        return self.rng.choice([j for j in range(len(RELATIONS[rel][1])) if j != k])

    def keep_other_facts(self, group: str, s: str, sk: str, avoid: str) -> None:
        """One to three other facts of subject ``s`` (none to ``avoid``)."""
        for _ in range(self.rng.randint(1, 3)):
            rel = self.rng.choice([r for r, ((a, _), _) in RELATIONS.items() if a == sk])
            ok = RELATIONS[rel][0][1]
            o = self.obj(ok, (group,))
            if name_key(o) == name_key(avoid):
                continue
            pred, text = self.sentence(rel, self.rng.randrange(len(RELATIONS[rel][1])), s, o, self.detail(sk))
            if text not in self.texts[group]:
                self.add(group, Fact(s, pred, o, text))

    # --- classes -------------------------------------------------------------------------

    def verbatim(self, g: str) -> None:
        rel, sk, ok = self.rel()
        s, o = self.fresh(sk, (g,)), self.obj(ok, (g,))
        p, f = self.sentence(rel, self.rng.randrange(len(RELATIONS[rel][1])), s, o, self.detail(sk))
        self.case("verbatim", g, s, p, o, f, self.add(g, Fact(s, p, o, f)))

    def respelled(self, g: str) -> None:
        rel, sk, ok = self.rel()
        s, o = self.fresh(sk, (g,)), self.obj(ok, (g,))
        k = self.rng.randrange(len(RELATIONS[rel][1]))
        d = self.detail(sk)
        p, f = self.sentence(rel, k, s, o, d)
        which = self.rng.randrange(3)
        s2 = self.respell(s) if which != 1 else s
        o2 = self.respell(o) if which != 0 else o
        p2 = p.lower() if self.rng.random() < 0.3 else p
        _, f2 = self.sentence(rel, k, s2.strip(), o2.strip(), d)
        self.case("respelled", g, s, p, o, f, self.add(g, Fact(s2, p2, o2, f2)))

    def reworded(self, g: str) -> None:
        rel, sk, ok = self.rel()
        s, o = self.fresh(sk, (g,)), self.obj(ok, (g,))
        k = self.rng.randrange(len(RELATIONS[rel][1]))
        d = self.detail(sk)
        p, f = self.sentence(rel, k, s, o, d)
        s2, o2 = (self.respell(s), self.respell(o)) if self.rng.random() < 0.4 else (s, o)
        p2, f2 = self.sentence(rel, self.other_phrasing(rel, k), s2.strip(), o2.strip(),
                               d if self.rng.random() < 0.7 else "")
        new = self.add(g, Fact(s2, p2, o2, f2))
        if self.rng.random() < 0.3:  # another, different fact between the same two entities
            others = [r for r, (kinds, _) in RELATIONS.items() if kinds == (sk, ok) and r != rel]
            if others:
                r2 = self.rng.choice(others)
                pp, ff = self.sentence(r2, 0, s, o, self.rng.choice([x for x in DETAILS[sk] if x != d]))
                self.add(g, Fact(s, pp, o, ff))
        self.case("reworded", g, s, p, o, f, new)

    def reversed(self, g: str) -> None:
        rel, sk, _ = self.rel(REVERSIBLE)
        a, b = self.fresh(sk, (g,)), self.fresh(sk, (g,))
        k = self.rng.randrange(len(RELATIONS[rel][1]))
        d1 = self.detail(sk)
        p1, f1 = self.sentence(rel, k, a, b, d1)
        p2, f2 = self.sentence(rel, k, b, a, d1 if self.rng.random() < 0.5 else self.detail(sk))
        kept = self.rng.randrange(2)
        s, o, p, f = (a, b, p1, f1) if kept == 0 else (b, a, p2, f2)
        if self.rng.random() < 0.5:  # kept, but reworded
            p, f = self.sentence(rel, self.other_phrasing(rel, k), s, o, d1)
        new = self.add(g, Fact(s, p, o, f))
        self.case("reversed", g, a, p1, b, f1, new if kept == 0 else None)
        self.case("reversed", g, b, p2, a, f2, new if kept == 1 else None)

    def dropped(self, g: str) -> None:
        rel, sk, ok = self.rel()
        s = self.fresh(sk, (g,))
        k = self.rng.randrange(len(RELATIONS[rel][1]))
        variant = self.rng.randrange(5)
        o = self.obj(ok, (g,))
        d = self.detail(sk)
        if variant == 0:  # the same words to another object
            o2 = self.obj(ok, (g,))
            if name_key(o2) != name_key(o):
                _, f2 = self.sentence(rel, k, s, o2, self.detail(sk))
                self.add(g, Fact(s, RELATIONS[rel][1][k][0], o2, f2))
        elif variant == 2 and ok in ("svc", "person", "org"):  # the object keeps facts of its own
            s3 = self.fresh(sk, (g,))
            p3, f3 = self.sentence(rel, self.rng.randrange(len(RELATIONS[rel][1])), s3, o, self.detail(sk))
            self.add(g, Fact(s3, p3, o, f3))
        elif variant == 3:  # another fact between the same two, held by its own candidate
            others = [r for r, (kinds, _) in RELATIONS.items() if kinds == (sk, ok) and r != rel]
            if others:
                r2 = self.rng.choice(others)
                pp, ff = self.sentence(r2, self.rng.randrange(len(RELATIONS[r2][1])), s, o, self.detail(sk))
                edge = self.add(g, Fact(s, pp, o, ff))
                self.plan.current.append((g, edge, edge))
        elif variant == 4:  # two other facts between the same two, none its own nor with its words
            others = [r for r, (kinds, _) in RELATIONS.items() if kinds == (sk, ok) and r != rel]
            if others:
                r2 = self.rng.choice(others)
                words = set(tokenize(d))  # (a fact sharing its qualifier's words: see docs/incoming/relink.md)
                details = self.rng.sample([x for x in DETAILS[sk] if x and not words & set(tokenize(x))], 2)
                for j, dd in zip(self.rng.sample(range(len(RELATIONS[r2][1])), 2), details, strict=True):
                    pp, ff = self.sentence(r2, j, s, o, dd)
                    self.add(g, Fact(s, pp, o, ff))
        self.keep_other_facts(g, s, sk, avoid=o)
        p, f = self.sentence(rel, k, s, o, d)
        self.case("dropped", g, s, p, o, f, None)

    def near_duplicate(self, g: str) -> None:
        rel, sk, ok = self.rel()
        s, o = self.fresh(sk, (g,)), self.obj(ok, (g,))
        k = self.rng.randrange(len(RELATIONS[rel][1]))
        if self.rng.random() < 0.8:  # two facts differing in a detail, both re-extracted
            d1, d2 = self.rng.sample([d for d in DETAILS[sk] if d], 2)
            k2 = k if self.rng.random() < 0.5 else self.other_phrasing(rel, k)
            for d in (d1, d2):
                p, f = self.sentence(rel, k, s, o, d)
                p2, f2 = self.sentence(rel, k2, s, o, d)
                self.case("near_duplicate", g, s, p, o, f, self.add(g, Fact(s, p2, o, f2)))
        else:  # one fact re-extracted twice, nearly identically: which one is its edge is unknowable
            p, f = self.sentence(rel, k, s, o, self.detail(sk))
            self.add(g, Fact(s, p, o, f))
            self.add(g, Fact(s, p, o, f + "."))
            self.case("near_duplicate", g, s, p, o, f, None)

    def two_groups(self, g: str) -> None:
        rel, sk, ok = self.rel()
        s, o = self.fresh(sk, GROUPS), self.obj(ok, GROUPS)
        k = self.rng.randrange(len(RELATIONS[rel][1]))
        p, f = self.sentence(rel, k, s, o, self.detail(sk))
        other = GROUPS[1 - GROUPS.index(g)]
        self.add(other, Fact(s, p, o, f))
        mine = None
        if self.rng.random() < 0.7:  # kept in the candidate's group too (maybe reworded)
            p2, f2 = (p, f) if self.rng.random() < 0.5 else self.sentence(rel, self.other_phrasing(rel, k), s, o, "")
            mine = self.add(g, Fact(s, p2, o, f2))
        self.case("two_groups", g, s, p, o, f, mine)


def generate(seed: int, per_class: int = 32, *, synthetic: bool = False,
             kinds: tuple[str, ...] = KINDS) -> Plan:
    """A migration with at least ``per_class`` candidates of each of ``kinds``."""
    gen = _Generator(random.Random(seed), synthetic)
    for kind in kinds:
        make: Callable[[str], None] = getattr(gen, kind)
        k = 0
        while sum(c.kind == kind for c in gen.plan.cases) < per_class:
            make(GROUPS[k % 2])
            k += 1
    # facts that only the new graph has, some with candidates already pointing at them
    for g in GROUPS:
        for _ in range(3):
            rel, sk, ok = gen.rel()
            s, o = gen.fresh(sk, (g,)), gen.obj(ok, (g,))
            p, f = gen.sentence(rel, 0, s, o, gen.detail(sk))
            edge = gen.add(g, Fact(s, p, o, f))
            gen.plan.current.append((g, edge, edge))
    gen.rng.shuffle(gen.plan.cases)
    return gen.plan


# Evidence JSON in the styles pipelines write: spaced, compact, unicode, extra elements and keys.
EVIDENCE_STYLES = [
    lambda old: json.dumps([{"evidence_id": old, "source": "episode-17", "score": 0.91}]),
    lambda old: json.dumps([{"evidence_id": old}, {"evidence_id": "other-edge", "kind": "support"}], separators=(",", ":")),
    lambda old: json.dumps([{"kind": "edge", "evidence_id": old, "note": "Zoë's café"}], ensure_ascii=False),
    lambda old: '[ {"evidence_id" : "' + old + '", "extracted_at": "2025-06-01T10:00:00Z"} ,{"x": [1, 2.50, 1e-7]} ]',
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


async def build_migration(conn, embedder, tmp_path: Path, prefix: str, *, builder=build_graph,
                          plan: Plan | None = None) -> Migration:
    """Build both groups' new graphs and a review DB pointing at the old extraction.

    ``plan`` defaults to the fixed fixture (``generate(15, 32)``). ``builder`` saves facts
    (default ``builders.build_graph``: ``EntityNode``/``EntityEdge.save()``; on ArcadeDB's Bolt
    endpoint :func:`build_graph_without_vector_procedure`)."""
    plan = plan or generate(15, 32)
    groups = {g: f"{prefix}_{g}" for g in GROUPS}
    uuids = {g: await builder(conn.for_group(gid).driver, embedder, plan.facts[g], gid) for g, gid in groups.items()}
    cases, old, expected, current, rows = {}, {}, {}, {}, []
    statuses = ["promoted", "corroborated", "candidate"]
    for k, c in enumerate(plan.cases):
        cid = f"cand-{k:04d}"
        cases[cid] = c
        old[cid] = str(uuid.UUID(int=k + 1, version=4))
        expected[cid] = uuids[c.group][c.expect.fact] if c.expect else None
        rows.append((cid, c.subject, c.predicate, c.object, c.fact, statuses[k % 3],
                     EVIDENCE_STYLES[k % len(EVIDENCE_STYLES)](old[cid]), groups[c.group]))
    for k, (g, cand, edge) in enumerate(plan.current):  # evidence already current: never touched
        cid = f"fresh-{k}"
        current[cid] = uuids[g][edge.fact]
        rows.append((cid, cand.subject, cand.predicate, cand.object, cand.fact, "promoted",
                     json.dumps([{"evidence_id": current[cid]}]), groups[g]))
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


def written_ids(before: dict[str, str], after: dict[str, str]) -> dict[str, str]:
    """candidate id -> new evidence id, for rows whose evidence JSON changed."""
    return {cid: json.loads(text)[0]["evidence_id"] for cid, text in after.items() if text != before[cid]}


def per_class(cases: dict[str, Case], expected: dict[str, str | None], written: dict[str, str]) -> dict[str, dict]:
    """Accuracy per class: candidates, resolvable, relinked correctly, wrong writes, misses."""
    out: dict[str, dict] = {}
    for cid, c in cases.items():
        row = out.setdefault(c.kind, {"candidates": 0, "resolvable": 0, "correct": 0, "wrong_writes": 0, "misses": 0})
        row["candidates"] += 1
        got = written.get(cid)
        if c.resolvable:
            row["resolvable"] += 1
            row["correct"] += got == expected[cid]
            row["misses"] += got is None
        if got is not None and got != expected[cid]:
            row["wrong_writes"] += 1
    return {k: out[k] for k in KINDS if k in out}
