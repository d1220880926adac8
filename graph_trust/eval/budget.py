"""``graph-trust eval --bundled --review-budget K``: does the review queue buy more ranking quality
per review than reviewing at random?

A simulated reviewer decides ``K`` facts of the bundled set (or, with ``unseen_share``, of a set
generated per draw with one regional group no logged query searches: :func:`generated`,
:func:`split_unseen`), chosen by a strategy, and the trust search is measured on queries the
choice never saw. The acceptance compares the queue at 5% and 10% with random review of 40% by
the same reviewer, from no review. Per draw:

1. the judged queries are split in two halves (seeded; contested and clean queries alternate, so
   both halves hold both kinds): the *log* half and the *scored* half;
2. per starting point (``none``: the bundled review DB with its reviews removed, i.e. no review
   row; ``coverage``: the draw's review DB, ``--coverage`` of the facts reviewed at random, the
   shipped ``review.json`` for seed 0), a temporary graph is synced with it and the log half's
   queries are run through the real search (``api.search``), so the real retrieval-log writer
   records what they returned in that review DB. No scored query is ever searched before the
   scoring;
3. per strategy the reviewer decides ``K`` facts through the real review commands
   (``api.review_decide``, one batch per fact for the queue, each fact by its gold verdict:
   correct -> promote, wrong -> reject, outdated -> expire; with probability ``--noise`` the
   decision is flipped as in :mod:`graph_trust.eval.draws`, the same flip for the same fact and
   draw whichever strategy picked it):

   - ``queue``: the top item of the real ``review queue`` (``api.review_queue``: the same
     gather and rules as the command), read again after every decision, as a reviewer working
     down the page sees it, for budgets up to ``QUEUE_MAX_SHARE`` of the facts; when the queue has nothing left it has not decided, the rest of the
     budget goes at random (counted as ``filled_at_random``);
   - ``random``: a seeded random order of the facts no reviewer decided yet (no row, candidate
     or corroborated: what the queue also considers open);

   budgets are nested: the first ``K1`` decisions of a strategy are those of its ``K2 > K1`` run;
4. each resulting review DB is synced by the real sync job onto a fresh graph and the scored half
   is ranked by the trust search at ``search.trust_weight``: nDCG@10 and the wrong-answer-first
   count, against vanilla (Graphiti's ``search_``) on the same queries on a fresh graph no sync
   wrote: Graphiti as a user without graph-trust has it. Every graph has its exact vector stores
   built after its sync (:func:`~graph_trust.eval.runner.build_stores`), so the trust search ranks
   by the graph's content whichever edges were reviewed; no index is rebuilt, so each state's own
   vanilla, reported beside it, is Graphiti's order as the sync left the graph (FalkorDB's
   fulltext index keeps the entries a sync replaced in its statistics until it collects them).

Results are means over draws; the interval of the nDCG@10 gain over vanilla is the eval's paired
bootstrap (:func:`graph_trust.eval.metrics.bootstrap_ci`) over the scored queries, each query's
difference averaged over the draws that scored it.
"""

from __future__ import annotations

import random
import sqlite3
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from graph_trust.config import Settings
from graph_trust.data.eval import build_evalset
from graph_trust.errors import InputError
from graph_trust.eval.dataset import BundledSet, JudgedSet, Query, bundled
from graph_trust.eval.draws import DEFAULT_COVERAGE, DEFAULT_NOISE, NOISE_STATUS, draw_review, pick
from graph_trust.eval.metrics import bootstrap_ci, per_query, wrong_first
from graph_trust.eval.report import stat
from graph_trust.eval.runner import Method, Progress, build_stores, bundled_graph, rank_state
from graph_trust.review.candidates import open_candidates
from graph_trust.review.log import close_writer
from graph_trust.review.queue import review_rows
from graph_trust.review.rules import DECISIVE
from graph_trust.review.schema import STATUS_OF

STRATEGIES = ("queue", "random")
GENERATED_SEED = 7000  # generated set of draw d: build_evalset.build(GENERATED_SEED + d), never the bundled seed
STARTS = ("none", "coverage")
START_NAMES = {"none": "no review", "coverage": "random coverage"}
ACTOR = "eval-reviewer"
GOLD = {"correct": "promote", "wrong": "reject", "outdated": "expire"}
ACTION_OF = {status: action for action, status in STATUS_OF.items()}
QUEUE_READ = 20  # items read from the queue per decision, beyond the facts already decided
QUEUE_ALL = 1_000_000  # ... or every item, when those are all decided or not facts of the graph
QUEUE_MAX_SHARE = 0.2  # budgets above this share are run for random review only (the reference)
ACCEPT_SHARE = 0.05  # the acceptance budget: 5% of the facts
ACCEPT_MORE = 0.10  # ... and the queue at 10% must beat the reference
RANDOM_SHARE = 0.40  # the reference: random review of 40% of the facts by the same reviewer
MAX_UNSEEN = 0.5


@dataclass(frozen=True)
class ReviewCommands:
    """The real commands the simulation goes through; :mod:`graph_trust.api` hands them in (the
    evaluation sits below it and never imports the sync job or the api)."""

    init_db: Callable[[Path], Any]  # api.init_review_db: adds the review tables to a review DB
    sync_db: Callable[[Settings, Path, Any], Awaitable[Any]]  # a full sync of a review DB onto a graph
    search: Callable[..., Awaitable[Any]]  # api.search: counted in the retrieval log
    queue: Callable[..., Awaitable[list[Any]]]  # api.review_queue
    decide: Callable[..., Awaitable[dict[str, Any]]]  # api.review_decide


@dataclass(frozen=True)
class Budget:
    """A review budget as given (``5%`` or ``23``) and in facts."""

    spec: str
    facts: int


def resolve_budgets(specs: list[str], n_facts: int) -> list[Budget]:
    """``5%`` (a share of the facts, rounded) or a count of facts, each at most ``n_facts``;
    sorted by size, duplicates dropped."""
    out: dict[int, Budget] = {}
    for raw in specs:
        spec = raw.strip()
        try:
            if spec.endswith("%"):
                share = float(spec[:-1])
                if not 0 < share <= 100:
                    raise ValueError
                k = max(1, round(share / 100 * n_facts))
            else:
                k = int(spec)
                if not 0 < k <= n_facts:
                    raise ValueError
        except ValueError:
            raise InputError(f"--review-budget: {spec!r} is not a share (e.g. 5%, in (0, 100]) or a count of "
                             f"facts (1 to {n_facts})") from None
        out.setdefault(k, Budget(spec, k))
    if not out:
        raise InputError("--review-budget: give at least one budget, e.g. 5% or 5%,10%,20%")
    return [out[k] for k in sorted(out)]


def names(raw: list[str], allowed: tuple[str, ...], option: str) -> list[str]:
    """The chosen names in ``allowed``'s order; an unknown one is an InputError naming it."""
    bad = [r for r in raw if r not in allowed]
    if bad or not raw:
        raise InputError(f"{option}: unknown {(bad or [''])[0]!r}: choose from {', '.join(allowed)}")
    return [a for a in allowed if a in raw]


def split_queries(queries: list[Query], seed: int) -> tuple[list[Query], list[Query]]:
    """(log half, scored half): contested and clean queries shuffled by ``seed`` and dealt
    alternately, so each half holds half of each kind; disjoint, together every query."""
    rng = random.Random(f"split-{seed}")
    log, scored = [], []
    for kind in (True, False):
        group = [q for q in queries if q.contested == kind]
        rng.shuffle(group)
        for q in group:
            (scored if (len(scored) + len(log)) % 2 else log).append(q)
    return log, scored


def subjects_of(queries: list[Query], qrels: dict[str, dict[str, int]], graph: dict[str, Any]) -> dict[str, str]:
    """Query id -> the subject entity it asks about (the source of its correct answers)."""
    source = {e["uuid"]: e["source"] for e in graph["edges"]}
    out = {}
    for q in queries:
        right = sorted(u for u, g in qrels[q.id].items() if g == 2 and u in source)
        out[q.id] = source[right[0]] if right else f"query:{q.id}"
    return out


def split_unseen(queries: list[Query], share: float, seed: int) -> tuple[list[Query], list[Query]]:
    """(log half, scored half) of a generated set with regional groups (``build(regions=...)``):
    the queries of the estates' own groups are split as :func:`split_queries` splits them; the
    scored half gains queries about the regional groups, which no logged query searches, until they
    are ``share`` of it (at most every regional query: ``share`` up to 0.5 with one region)."""
    if not 0 <= share <= MAX_UNSEEN:
        raise InputError(f"--unseen-share: {share:g} is not in [0, {MAX_UNSEEN:g}]")
    regional = [q for q in queries if q.group and "-r" in q.group]
    log, scored = split_queries([q for q in queries if q not in regional], seed)
    rng = random.Random(f"unseen-{seed}")
    rng.shuffle(regional)
    n_unseen = min(len(regional), round(share / (1 - share) * len(scored))) if share < 1 else len(regional)
    return log, scored + regional[:n_unseen]


def reviewer_action(verdict: str, uuid: str, seed: int, noise: float) -> str:
    """What the simulated reviewer decides for a fact: its gold verdict's action, flipped with
    probability ``noise`` (the draws' noise table); the same for a fact and draw whichever
    strategy asks."""
    rng = random.Random(f"review-{seed}-{uuid}")
    if rng.random() < noise:
        return ACTION_OF[pick(rng, NOISE_STATUS[verdict])]
    return GOLD[verdict]


def snapshot(src: Path, dst: Path) -> Path:
    """A consistent copy of the SQLite review DB ``src`` at ``dst`` (SQLite's backup API)."""
    dst.unlink(missing_ok=True)
    a, b = sqlite3.connect(src), sqlite3.connect(dst)
    try:
        a.backup(b)
    finally:
        a.close()
        b.close()
    return dst


def statuses(settings: Settings, db: Path) -> dict[str, str]:
    """Edge uuid -> its review row's status (the review DB's rows, as the queue reads them)."""
    conn, cand = open_candidates(db, settings.review, readonly=True)
    try:
        return {uuid: status for _, status, uuid, _, _ in review_rows(conn, cand) if uuid}
    finally:
        conn.close()


async def record_log(cmds: ReviewCommands, settings: Settings, db: Path, queries: list[Query]) -> Settings:
    """Run ``queries`` through the real search with the retrieval log on (query text kept), into
    ``db``; returns the settings used. The writer is flushed and closed before returning."""
    s = settings.model_copy(deep=True)
    s.review = s.review.model_copy(update={"url": str(db), "log": True, "log_queries": True})
    try:
        for q in queries:
            await cmds.search(s, q.text, groups=[q.group] if q.group else None)
    finally:
        close_writer(s.review)
    return s


@dataclass
class Choice:
    """The facts one strategy had decided at each budget (nested), with their review DBs."""

    strategy: str
    decided: list[tuple[str, str, str]] = field(default_factory=list)  # (edge uuid, action, chosen by)
    dbs: dict[int, Path] = field(default_factory=dict)  # budget (facts) -> snapshot of the review DB


async def choose(cmds: ReviewCommands, strategy: str, settings: Settings, db: Path, graph: Any,
                 budgets: list[Budget], verdicts: dict[str, str], *, seed: int, noise: float,
                 out_dir: Path) -> Choice:
    """Decide ``max(budgets)`` facts in ``db`` by ``strategy`` (module docstring), snapshotting the
    review DB at every budget into ``out_dir``."""
    choice = Choice(strategy)
    done: set[str] = set()
    open_facts = [u for u in sorted(verdicts) if statuses(settings, db).get(u) not in DECISIVE]
    random.Random(f"random-{seed}").shuffle(open_facts)
    marks = {b.facts for b in budgets}

    async def decide(uuids: list[str], by: str) -> None:
        acts: dict[str, list[str]] = {}
        for u in uuids:
            acts.setdefault(reviewer_action(verdicts[u], u, seed, noise), []).append(u)
        for action, ids in acts.items():
            await cmds.decide(settings, action, ids, actor=ACTOR, reason=f"simulated review ({by}, gold verdict)",
                              review_db=db, graph=graph)
        for u in uuids:
            done.add(u)
            choice.decided.append((u, reviewer_action(verdicts[u], u, seed, noise), by))
            if len(choice.decided) in marks:
                choice.dbs[len(choice.decided)] = snapshot(db, out_dir / f"{strategy}-{len(choice.decided)}.sqlite3")

    target = max(marks)
    if strategy == "queue":  # the queue's budgets stop at QUEUE_MAX_SHARE: larger ones are random's reference
        target = max((m for m in marks if m <= QUEUE_MAX_SHARE * len(verdicts)), default=target)
        marks = {m for m in marks if m <= target}
        while len(done) < target:
            top = None
            for limit in (len(done) + QUEUE_READ, QUEUE_ALL):  # the top few; all of them if those are taken
                items = await cmds.queue(settings, review_db=db, graph=graph, limit=limit)
                top = next((i.edge_uuid for i in items if not i.key.startswith("candidate:")
                            and i.edge_uuid in verdicts and i.edge_uuid not in done), None)
                if top is not None or len(items) < limit:
                    break
            if top is None:
                break
            await decide([top], "queue")
    rest = [u for u in open_facts if u not in done]
    while len(done) < target:  # the random strategy, or the queue's remainder once it ran dry
        step = min(m for m in marks | {target} if m > len(done)) - len(done)
        batch, rest = rest[:step], rest[step:]
        if not batch:
            raise InputError(f"--review-budget {target}: only {len(done)} facts are left to review")
        await decide(batch, "random")
    return choice


class StatesProgress:
    """One progress bar over every state of a draw: a step per ranked query (what
    :func:`~graph_trust.eval.runner.rank_state` reports)."""

    def __init__(self, progress: Progress | None, label: str, total: int) -> None:
        self.progress, self.label, self.total = progress, label, total

    def ranking(self, _phase: str, n: int, _total: int | None) -> None:
        if self.progress:
            self.progress(self.label, n, self.total)


@dataclass
class Scores:
    """Per query of the scored half: nDCG@10 per ranking, and the wrong answer first per ranking
    on the contested ones."""

    ndcg: dict[str, dict[str, float]]
    wrong: dict[str, dict[str, bool]]


def score(rankings: dict[str, dict[str, list[str]]], judged: JudgedSet) -> Scores:
    """The rankings' per-query measures (the eval's metric code)."""
    return Scores({m: {q: v["ndcg@10"] for q, v in per_query(r, judged).items()} for m, r in rankings.items()},
                  {m: {q.id: bool(wrong_first(r.get(q.id, []), q, judged.qrels[q.id])) for q in judged.queries
                       if q.contested} for m, r in rankings.items()})


@dataclass
class StateResult:
    """One review state ranked on the scored half, with the draw's reference: Graphiti's own
    search on the graph no sync wrote (``baseline``)."""

    case: str
    strategy: str  # "start" for the starting point
    facts: int  # decided by the strategy (0 at the start)
    reviewed: int  # facts with a review row in the state's review DB
    scores: Scores  # trust and vanilla on this state's graph
    baseline: Scores  # vanilla on the graph no sync wrote
    chosen_by_queue: int = 0
    filled_at_random: int = 0


def state(rankings: dict[str, dict[str, list[str]]], judged: JudgedSet, baseline: Scores, case: str, strategy: str,
          facts: int, reviewed: int, choice: Choice | None = None) -> StateResult:
    by = [b for _, _, b in (choice.decided[:facts] if choice else [])]
    return StateResult(case, strategy, facts, reviewed, score(rankings, judged), baseline, by.count("queue"),
                       by.count("random"))


@dataclass
class BudgetReport:
    """Everything the review-budget evaluation prints; :meth:`to_dict` is its ``--json`` form."""

    embedder: str
    facts: int
    trust_ranking: str
    draws: list[dict[str, Any]]
    states: list[list[StateResult]]  # per draw
    rows: list[dict[str, Any]] = field(default_factory=list)
    acceptance: dict[str, Any] = field(default_factory=dict)
    dataset: str = "bundled"

    def summarize(self) -> None:
        keys = list(dict.fromkeys((s.case, s.strategy, s.facts) for d in self.states for s in d))
        for case, strategy, facts in keys:
            per = [s for d in self.states for s in d if (s.case, s.strategy, s.facts) == (case, strategy, facts)]
            t, v = self.trust_ranking, "vanilla"
            diffs: dict[str, list[float]] = {}
            for s in per:
                for q, val in s.scores.ndcg[t].items():
                    diffs.setdefault(q, []).append(val - s.baseline.ndcg[v][q])
            per_q = np.array([np.mean(x) for x in diffs.values()])
            lo, hi = bootstrap_ci(per_q)
            wt = [sum(s.scores.wrong[t].values()) for s in per]
            wv = [sum(s.baseline.wrong[v].values()) for s in per]
            self.rows.append({
                "case": case, "start": START_NAMES[case], "strategy": strategy, "facts": facts,
                "share": round(facts / self.facts, 4), "reviewed": stat([s.reviewed for s in per], 1),
                "ndcg@10": stat([np.mean(list(s.scores.ndcg[t].values())) for s in per]),
                "vanilla_ndcg@10": stat([np.mean(list(s.baseline.ndcg[v].values())) for s in per]),
                "state_vanilla_ndcg@10": stat([np.mean(list(s.scores.ndcg[v].values())) for s in per]),
                "gain": {**stat([np.mean([s.scores.ndcg[t][q] - s.baseline.ndcg[v][q] for q in s.scores.ndcg[t]])
                                 for s in per]),
                         "ci95": [round(lo, 4), round(hi, 4)], "queries": int(per_q.size)},
                "wrong_first": stat(wt, 2), "vanilla_wrong_first": stat(wv, 2),
                "state_vanilla_wrong_first": stat([sum(s.scores.wrong[v].values()) for s in per], 2),
                "wrong_first_reduction": stat([a - b for a, b in zip(wv, wt, strict=True)], 2),
                "contested_scored": stat([len(s.scores.wrong[t]) for s in per], 1),
                "chosen_by_queue": stat([s.chosen_by_queue for s in per], 1),
                "filled_at_random": stat([s.filled_at_random for s in per], 1),
                "draws": len(per),
            })
        self.acceptance = self._acceptance()

    def _acceptance(self) -> dict[str, Any]:
        """The issue's target, the same simulated reviewer on both sides: from no review, the queue
        at 5% of the facts reaches at least random review of 40% on mean nDCG@10 and on the
        wrong-answer-first count, and the queue at 10% beats it on both (means over draws)."""
        k5, k10, k40 = (max(1, round(x * self.facts)) for x in (ACCEPT_SHARE, ACCEPT_MORE, RANDOM_SHARE))
        row = {(r["case"], r["strategy"], r["facts"]): r for r in self.rows}
        q5, q10, ref = row.get(("none", "queue", k5)), row.get(("none", "queue", k10)), row.get(("none", "random", k40))
        if q5 is None or q10 is None or ref is None:
            return {"evaluated": False, "reason": f"needs the queue at {k5} and {k10} facts (5%, 10%) and random review "
                                                  f"of {k40} (40%) from no review (--review-budget 5%,10%,40% "
                                                  "--review-start none)"}
        def m(r: dict[str, Any], key: str) -> float:
            return r[key]["mean"]
        checks = {"q5_ndcg": m(q5, "ndcg@10") >= m(ref, "ndcg@10"), "q5_wrong": m(q5, "wrong_first") <= m(ref, "wrong_first"),
                  "q10_ndcg": m(q10, "ndcg@10") > m(ref, "ndcg@10"), "q10_wrong": m(q10, "wrong_first") < m(ref, "wrong_first")}
        return {"evaluated": True, "met": all(checks.values()), "facts": [k5, k10, k40],
                "queue5": {"ndcg@10": m(q5, "ndcg@10"), "wrong_first": m(q5, "wrong_first")},
                "queue10": {"ndcg@10": m(q10, "ndcg@10"), "wrong_first": m(q10, "wrong_first")},
                "random40": {"ndcg@10": m(ref, "ndcg@10"), "wrong_first": m(ref, "wrong_first")}, **checks}

    def to_dict(self) -> dict[str, Any]:
        return {"mode": "review-budget", "dataset": self.dataset, "embedder": self.embedder, "facts": self.facts,
                "trust_ranking": self.trust_ranking, "draws": self.draws, "rows": self.rows,
                "acceptance": self.acceptance}


def generated(seed: int) -> BundledSet:
    """A judged set drawn like the bundled one with another seed (``build_evalset.build``)."""
    out = build_evalset.build(GENERATED_SEED + seed, regions=1)
    queries = [Query(q["id"], q["query"], q.get("group"), tuple(q["wrong"]), tuple(q["classes"]))
               for q in out["queries"]]
    qrels: dict[str, dict[str, int]] = {}
    for qid, doc, grade in out["qrels"]:
        qrels.setdefault(qid, {})[doc] = grade
    return BundledSet(out["graph"], JudgedSet(queries, qrels), out["verdicts"], [])


def log_subjects(db: Path, graph: dict[str, Any]) -> set[str]:
    """The subject entities of every fact the retrieval log in ``db`` returned."""
    source = {e["uuid"]: e["source"] for e in graph["edges"]}
    con = sqlite3.connect(db)
    try:
        return {source[u] for (u,) in con.execute("SELECT DISTINCT edge_uuid FROM retrieval_log") if u in source}
    finally:
        con.close()


def unseen_shares(log_half: list[Query], scored_half: list[Query], data: BundledSet, db: Path) -> dict[str, float]:
    """The shares of scored queries whose subject the log in ``db`` never returned (at any rank),
    and whose subject no logged query asks about."""
    subject = subjects_of(log_half + scored_half, data.judged.qrels, data.graph)
    returned = log_subjects(db, data.graph)
    asked = {subject[q.id] for q in log_half}
    n = len(scored_half)
    return {"scored_unseen_by_log": round(sum(subject[q.id] not in returned for q in scored_half) / n, 4),
            "scored_not_asked_by_log": round(sum(subject[q.id] not in asked for q in scored_half) / n, 4)}


async def evaluate_budget(settings: Settings, cmds: ReviewCommands, *, sync_rows: Any, budgets: list[str],
                          strategies: list[str], starts: list[str], draws: int = 3, noise: float = DEFAULT_NOISE,
                          coverage: float = DEFAULT_COVERAGE, seed: int = 0, quick: bool = False,
                          progress: Progress | None = None, embedder: str = "hashing",
                          unseen_share: float | None = None) -> BudgetReport:
    """The review-budget evaluation (module docstring) for one embedder: on the bundled set, or,
    with ``unseen_share``, on a generated set per draw whose scored half holds that share of
    queries about subjects no logged query asks about."""
    data = bundled() if unseen_share is None else generated(seed)
    n_facts = len(data.graph["edges"])
    plan = resolve_budgets(budgets, n_facts)
    strategies = names(strategies, STRATEGIES, "--review-strategy")
    starts = names(starts, STARTS, "--review-start")
    queries = data.judged.queries[:12] if quick else data.judged.queries
    weight = settings.search.trust_weight
    trust = Method(f"trust@{weight:g}", "trust", weight)
    methods = [Method("vanilla", "vanilla"), trust]
    all_states, info = [], []
    for d in range(draws):
        draw_seed = seed + d
        if unseen_share is not None:
            data = generated(draw_seed)
            queries = data.judged.queries
            if quick:  # the first 6 queries of each group: the regional one included
                queries = [q for g in data.graph["groups"] for q in [x for x in queries if x.group == g][:6]]
            log_half, scored_half = split_unseen(queries, unseen_share, draw_seed)
        else:
            log_half, scored_half = split_queries(queries, draw_seed)
        measured: dict[str, Any] = {}
        scored = JudgedSet(scored_half, {q.id: data.judged.qrels[q.id] for q in scored_half})
        states: list[StateResult] = []
        bar = StatesProgress(progress, f"budget draw {d + 1}/{draws} {embedder}",
                             (1 + len(starts) * (1 + len(strategies) * len(plan))) * len(scored_half))

        async def rank_db(db: Path) -> tuple[dict[str, dict[str, list[str]]], int]:
            """Sync a review DB onto a fresh graph with the real sync job and rank the scored half."""
            async with bundled_graph(settings, data.graph, embedder) as (s, conn, _, vectors):
                await cmds.sync_db(s, db, conn)
                await build_stores(conn, s, data.graph)
                return await rank_state(conn, s, data.graph, scored, methods, vectors, bar=bar), len(statuses(s, db))

        async with bundled_graph(settings, data.graph, embedder) as (s, conn, _, vectors):
            # Graphiti as it is without graph-trust: the graph no sync wrote
            await build_stores(conn, s, data.graph)
            ref = await rank_state(conn, s, data.graph, scored, methods[:1], vectors, bar=bar)
        baseline = score(ref, scored)
        for case in starts:
            start_rows = draw_review(data.graph, data.verdicts, seed=draw_seed, coverage=coverage, noise=noise) \
                if case == "coverage" else []
            with tempfile.TemporaryDirectory(prefix="graph-trust-budget-") as tmp:
                out = Path(tmp)
                async with bundled_graph(settings, data.graph, embedder) as (s, conn, root, vectors):
                    db0 = out / "start.sqlite3"
                    await sync_rows(s, start_rows, db0, conn)
                    cmds.init_db(db0)
                    await build_stores(conn, s, data.graph)
                    s_log = await record_log(cmds, s, db0, log_half)
                    if case == starts[0]:
                        measured = unseen_shares(log_half, scored_half, data, db0)
                    s_log.review.log = False  # choosing reads the log; it adds nothing to it
                    ranked = await rank_state(conn, s, data.graph, scored, methods, vectors, bar=bar)
                    states.append(state(ranked, scored, baseline, case, "start", 0, len(start_rows)))
                    choices = []
                    for strategy in strategies:
                        db = snapshot(db0, out / f"{strategy}.sqlite3")
                        choices.append(await choose(cmds, strategy, s_log, db, conn, plan, data.verdicts,
                                                    seed=draw_seed, noise=noise, out_dir=out))
                for choice in choices:
                    for b in plan:
                        if b.facts not in choice.dbs:
                            continue  # above QUEUE_MAX_SHARE: random only
                        ranked, reviewed = await rank_db(choice.dbs[b.facts])
                        states.append(state(ranked, scored, baseline, case, choice.strategy, b.facts, reviewed,
                                            choice))
        all_states.append(states)
        info.append({"seed": draw_seed, "set": "bundled" if unseen_share is None else f"generated-{draw_seed}",
                     "log_queries": [q.id for q in log_half], "scored_queries": [q.id for q in scored_half],
                     "coverage": coverage, "noise": noise, "unseen_share": unseen_share, **measured})
    report = BudgetReport(embedder, n_facts, trust.name, info, all_states,
                          dataset="bundled" if unseen_share is None else f"generated (unseen share {unseen_share:g})")
    report.summarize()
    return report


__all__ = ["ACTOR", "STARTS", "STRATEGIES", "Budget", "BudgetReport", "Choice", "ReviewCommands", "choose",
           "evaluate_budget", "record_log", "resolve_budgets", "reviewer_action", "score", "split_queries", "state"]
