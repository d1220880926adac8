"""Judged queries and graded judgments: reading, checking, and the bundled set.

Two files describe a judged set (docs/incoming/eval.md has the format):

- queries, JSON Lines: ``{"id": "q1", "query": "which port does auth-gateway listen on",
  "group": "infra", "wrong": ["<fact uuid>", ...], "classes": ["stale"]}``; ``id`` and
  ``query`` are required; ``group`` (the Graphiti group to search) defaults to the configured
  groups; ``wrong`` lists the facts that are wrong or outdated answers to the query (judged 0,
  they define the wrong-answer-first rate); ``classes`` are free labels reported per class;
- qrels, TREC format: ``query_id iteration fact_uuid grade`` per line, grade 2 a correct
  answer, 1 related, 0 irrelevant or a wrong or outdated answer.

Every error names the file and line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from graph_trust.errors import InputError

BUNDLED_PACKAGE = "graph_trust.data.eval"
GRADES = (0, 1, 2)


@dataclass(frozen=True)
class Query:
    """One judged query."""

    id: str
    text: str
    group: str | None = None
    wrong: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()

    @property
    def contested(self) -> bool:
        """A wrong or outdated answer exists in the graph (a competitor)."""
        return bool(self.wrong)


@dataclass
class JudgedSet:
    """Queries and their graded judgments (``qrels[query_id][fact_uuid] = grade``)."""

    queries: list[Query]
    qrels: dict[str, dict[str, int]] = field(default_factory=dict)

    def facts(self) -> set[str]:
        return {d for judged in self.qrels.values() for d in judged}


def _text(path: str | Path, what: str) -> str:
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{what} file {p} does not exist")
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {what} file {p}: {exc}") from None


def parse_queries(text: str, source: str = "queries") -> list[Query]:
    """Queries from JSON Lines (blank lines skipped)."""
    out: list[Query] = []
    seen: set[str] = set()
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source} line {n}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected a JSON object")
        qid, query = obj.get("id"), obj.get("query")
        if not isinstance(qid, str) or not qid.strip() or any(c.isspace() for c in qid):
            raise InputError(f"{where}: 'id' must be a non-empty string without spaces")
        if qid in seen:
            raise InputError(f"{where}: duplicate query id {qid!r}")
        if not isinstance(query, str) or not query.strip():
            raise InputError(f"{where}: 'query' must be a non-empty string")
        group = obj.get("group")
        if group is not None and (not isinstance(group, str) or not group):
            raise InputError(f"{where}: 'group' must be a non-empty string")
        lists = {}
        for key in ("wrong", "classes"):
            value = obj.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise InputError(f"{where}: '{key}' must be a list of strings")
            lists[key] = tuple(value)
        seen.add(qid)
        out.append(Query(qid, query, group, lists["wrong"], lists["classes"]))
    if not out:
        raise InputError(f"{source}: no queries")
    return out


def parse_qrels(text: str, source: str = "qrels") -> dict[str, dict[str, int]]:
    """TREC qrels: ``query_id iteration doc_id grade``; a repeated pair is an error."""
    out: dict[str, dict[str, int]] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        where = f"{source} line {n}"
        if len(parts) != 4:
            raise InputError(f"{where}: expected 'query_id iteration fact_id grade' (4 fields), got {len(parts)}")
        qid, _, doc, grade_s = parts
        try:
            grade = int(grade_s)
        except ValueError:
            raise InputError(f"{where}: grade {grade_s!r} is not an integer (0, 1 or 2)") from None
        if grade not in GRADES:
            raise InputError(f"{where}: grade {grade} must be 0, 1 or 2")
        if doc in out.setdefault(qid, {}):
            raise InputError(f"{where}: fact {doc} is judged twice for query {qid!r}")
        out[qid][doc] = grade
    return out


def check_judged(queries: list[Query], qrels: dict[str, dict[str, int]], source: str = "qrels") -> JudgedSet:
    """Cross-check: qrels name known queries, every query is judged, ``wrong`` facts grade 0."""
    ids = {q.id for q in queries}
    unknown = [qid for qid in qrels if qid not in ids]
    if unknown:
        raise InputError(f"{source}: query id {unknown[0]!r} is not in the queries file "
                         f"({len(unknown)} unknown id(s))")
    for q in queries:
        judged = qrels.get(q.id)
        if not judged:
            raise InputError(f"query {q.id!r} has no judgments in {source}")
        for w in q.wrong:
            if judged.get(w, 0) != 0:
                raise InputError(f"query {q.id!r}: fact {w} is listed as wrong but judged {judged[w]} in {source}")
    return JudgedSet(list(queries), {q.id: dict(qrels[q.id]) for q in queries})


def load_judged(queries_path: str | Path, qrels_path: str | Path) -> JudgedSet:
    """Read and cross-check a queries file and a qrels file."""
    queries = parse_queries(_text(queries_path, "queries"), f"queries file {queries_path}")
    qrels = parse_qrels(_text(qrels_path, "qrels"), f"qrels file {qrels_path}")
    return check_judged(queries, qrels, f"qrels file {qrels_path}")


@cache
def _bundled_text(name: str) -> str:
    return resources.files(BUNDLED_PACKAGE).joinpath(name).read_text(encoding="utf-8")


@dataclass
class BundledSet:
    """The shipped evaluation set: graph, judgments, verdicts and draw 0 of the review DB."""

    graph: dict[str, Any]
    judged: JudgedSet
    verdicts: dict[str, str]
    review: list[dict[str, Any]]


def bundled() -> BundledSet:
    """A fresh copy of the shipped set (``graph_trust/data/eval/``)."""
    queries = parse_queries(_bundled_text("queries.jsonl"), "bundled queries.jsonl")
    qrels = parse_qrels(_bundled_text("qrels.txt"), "bundled qrels.txt")
    return BundledSet(
        graph=json.loads(_bundled_text("graph.json")),
        judged=check_judged(queries, qrels, "bundled qrels.txt"),
        verdicts=json.loads(_bundled_text("verdicts.json")),
        review=json.loads(_bundled_text("review.json")),
    )
