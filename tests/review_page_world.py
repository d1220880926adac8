"""The review page's tests' world (tests/review/test_review_page*.py): a real FalkorDB graph (sync_fixtures' facts, a competing value, a fact
whose text is markup, an episode), a review DB with rows, a proposer and a retrieval log."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from builders import Fact
from graphiti_core.nodes import EpisodeType, EpisodicNode
from sync_fixtures import FACTS, build, row

from graph_trust import api
from graph_trust.review.log import RetrievalLog
from graph_trust.sync.review_db import insert_records, insert_rows

# markup, quotes and an ampersand in a fact, and an element in an episode: all must reach the page as text
HOSTILE = '<script>alert("fact")</script> "double" & \'single\' </td><b>bold</b>'
EPISODE_CONTENT = 'ops chat: billing-db moved to db-host-2 <img src=x onerror="alert(1)"> & more'
COMPETITOR = Fact("billing-db", "RUNS_ON", "db-host-2", "billing-db runs on db-host-2 since the move",
                  episodes=("ep-move",))
MARKUP = Fact("evil-svc", "NOTE", "x", HOSTILE)


@dataclass
class PageWorld:
    graph: object
    settings: object
    url: str
    group: str
    uuid: dict[str, str]  # fact text -> edge uuid

    def u(self, fact: Fact) -> str:
        return self.uuid[fact.fact]


async def make_page_world(graph, settings, url: str, unique: str) -> PageWorld:
    group = f"g_{unique}"
    uuids = await build(graph, group, [*FACTS, COMPETITOR, MARKUP])
    episode = EpisodicNode(uuid="ep-move", name="ops chat 2026-01-02", group_id=group, source=EpisodeType.message,
                           source_description="ops channel", content=EPISODE_CONTENT, labels=[],
                           created_at=datetime(2026, 1, 2, tzinfo=UTC),
                           valid_at=datetime(2026, 1, 2, tzinfo=UTC))
    await episode.save(graph.for_group(group).driver)
    api.init_review_db(url)
    u = [uuids[f.fact] for f in FACTS]
    insert_rows(url, [row("c1", u[0], "candidate", group), row("c2", u[1], "candidate", group),
                      row("c4", u[2], "promoted", group),
                      {**row("c-markup", uuids[MARKUP.fact], "candidate", group), "fact": HOSTILE}])
    insert_records(url, {"fact_sources": [{"fact_id": "c1", "agent_id": "alice", "created_at": "2026-01-01"}]})
    log = RetrievalLog(url, background=False)
    for _ in range(3):  # agents were shown both values of billing-db RUNS_ON, and the markup fact
        log.record("search", [(u[1], group), (uuids[COMPETITOR.fact], group), (uuids[MARKUP.fact], group)])
    log.record("mcp", [(u[0], group)])
    log.close()
    settings.review.url = url
    settings.review.page.reviewer = "bob"
    return PageWorld(graph, settings, url, group, uuids)
