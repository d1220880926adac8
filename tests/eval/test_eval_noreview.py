"""The ``noreview`` ranking of ``graph-trust eval`` ("no review"): the trust search's rules as if
there were no review DB. On a graph carrying trust scores and review statuses it ranks exactly as
the default trust search ranks the same graph without them, so its row shows what the rules do
before any review (and the trust rows what review adds)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from builders import Fact, build_graph
from cli_helpers import run_inproc

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.config import load_settings
from graph_trust.eval.runner import methods_for, no_trust
from graph_trust.search import trust_search as gt
from graph_trust.search.ranked import search_config

PAST = datetime(2025, 6, 1, tzinfo=UTC)
REVIEWED = [
    Fact("billing-db", "BACKUP_AT", "02:00 UTC", "The nightly backup of billing-db runs at 02:00 UTC",
         trust=0.0, properties={"trust_status": "rejected"}),
    Fact("billing-db", "BACKUP_AT", "03:00 UTC", "The billing-db backup job runs at 03:00 UTC every night", trust=1.0,
         at=datetime(2026, 2, 1, tzinfo=UTC)),
    Fact("billing-db", "BACKUP_AT", "04:00 UTC", "billing-db backups ran at 04:00 UTC", invalid_at=PAST, trust=1.0),
    Fact("billing-db", "RUNS_ON", "db-host-1", "billing-db runs on db-host-1", trust=0.6),
    Fact("auth-service", "LISTENS_ON", "8080", "auth-service listens on port 8080", trust=0.0,
         properties={"trust_status": "expired"}),
    Fact("auth-service", "LISTENS_ON", "8443", "auth-service listens on port 8443 with TLS", trust=1.0),
    Fact("cron-host", "RUNS", "backup job", "cron-host runs the backup job for billing-db nightly", trust=0.25,
         properties={"trust_status": "candidate"}),
]
UNREVIEWED = [Fact(f.subject, f.predicate, f.object, f.fact, invalid_at=f.invalid_at, at=f.at) for f in REVIEWED]


@pytest.mark.parametrize("query", ["billing-db backup", "auth-service port", "what runs the backup job"])
async def test_noreview_ranks_as_the_defaults_on_the_graph_without_review(graph, unique, query):
    embedder = HashingEmbedder()
    reviewed, bare = f"r_{unique}", f"b_{unique}"
    await build_graph(graph.for_group(reviewed).driver, embedder, REVIEWED, reviewed)
    await build_graph(graph.for_group(bare).driver, embedder, UNREVIEWED, bare)
    settings = load_settings(environ={})
    noreview = search_config(settings, limit=10).model_copy(update={"negative_statuses": []})
    ours = await gt.trust_search(make_graphiti(graph.for_group(reviewed).driver, embedder=embedder), query,
                                 config=noreview, group_ids=[reviewed], trust_override=no_trust)
    theirs = await gt.trust_search(make_graphiti(graph.for_group(bare).driver, embedder=embedder), query,
                                   config=search_config(settings, limit=10), group_ids=[bare])
    # the same scores, the same facts at each score; equal scores in the documented order (by
    # uuid, and the two graphs' uuids differ: they are derived from the group)
    assert ours.edge_reranker_scores == theirs.edge_reranker_scores
    assert _facts_by_score(ours) == _facts_by_score(theirs)
    for res in (ours, theirs):
        pairs = list(zip(res.edge_reranker_scores, [e.uuid for e in res.edges], strict=True))
        assert pairs == sorted(pairs, key=lambda t: (-t[0], t[1]))
    assert all(e.boost == 0 and e.negative in (None, "invalidated") for e in ours.edge_explanations)


def _facts_by_score(res) -> dict[float, set[str]]:
    out: dict[float, set[str]] = {}
    for e, score in zip(res.edges, res.edge_reranker_scores, strict=True):
        out.setdefault(score, set()).add(e.fact)
    return out


def test_noreview_is_a_ranking_of_its_own_and_never_the_recommendation():
    methods = methods_for(["trust", "noreview"], None, load_settings(environ={}))
    assert [(m.name, m.kind) for m in methods] == [("vanilla", "vanilla"), ("trust@0.05", "trust"),
                                                   ("no review", "noreview")]


def test_eval_help_names_the_noreview_ranking(tmp_path, monkeypatch, capsys):
    code, out, _ = run_inproc(["eval", "--help"], tmp_path, monkeypatch, capsys)
    assert code == 0 and "noreview" in out and "trust,noreview,composite" in out
