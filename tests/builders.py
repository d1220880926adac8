"""Build small graphs through graphiti-core's own API (EntityNode/EntityEdge .save(), no LLM)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from uuid import NAMESPACE_URL, uuid5

from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode


@dataclass(frozen=True)
class Fact:
    subject: str
    predicate: str
    object: str
    fact: str
    trust: float | None = None
    invalid_at: datetime | None = None


def stable_uuid(*parts: str) -> str:
    return str(uuid5(NAMESPACE_URL, "/".join(parts)))


async def build_graph(driver, embedder, facts: list[Fact], group_id: str, *, indices: bool = True):
    """Save ``facts`` into ``driver``'s graph; return {fact text: edge uuid}."""
    if indices:
        await driver.build_indices_and_constraints()
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    nodes: dict[str, EntityNode] = {}
    for f in facts:
        for name in (f.subject, f.object):
            if name not in nodes:
                node = EntityNode(uuid=stable_uuid(group_id, "n", name), name=name, group_id=group_id,
                                  labels=["Entity"], summary=f"{name} entity", created_at=now)
                await node.generate_name_embedding(embedder)
                await node.save(driver)
                nodes[name] = node
    out = {}
    for f in facts:
        edge = EntityEdge(
            uuid=stable_uuid(group_id, "e", f.fact),
            source_node_uuid=nodes[f.subject].uuid,
            target_node_uuid=nodes[f.object].uuid,
            name=f.predicate,
            fact=f.fact,
            group_id=group_id,
            episodes=[],
            created_at=now,
            valid_at=now,
            invalid_at=f.invalid_at,
            attributes={} if f.trust is None else {"trust_score": f.trust},
        )
        await edge.generate_embedding(embedder)
        await edge.save(driver)
        out[f.fact] = edge.uuid
    return out
