"""What the ranking rules read about one candidate pool, computed from its items and the ranking
settings: why an item carries negative evidence, whether a trust boost may lift it, its competing
slot and its statement, the instant its competitors are ordered by, and the query's identifier it
does not state.

Each fact is computed once, on first use: the rules declare the facts they read
(:func:`graph_trust.search.rules.base.reads`), and the pipeline asks for those
(:func:`graph_trust.search.rules.start`). A rule that needs something no fact here gives reads it
from :attr:`PoolFacts.items` and :attr:`PoolFacts.settings` itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import cached_property
from typing import Any

import numpy as np

from graph_trust.config import RankingSettings
from graph_trust.search.slots import ALL_SINGLE, Relations, SlotKey
from graph_trust.search.topic import missing_identifiers

# the facts a rule may declare: the RankState inputs, and what they are computed from
FACTS: tuple[str, ...] = ("negative", "neg", "eligible", "groups", "twins", "stamps", "invalidated", "missing")


def relations_of(config: Any) -> Relations:
    """The :class:`~graph_trust.search.slots.Relations` a recipe or a search result carries, else
    the recipe's (or search settings') ``single_valued`` / ``multi_valued`` / ``unreviewed_relations``
    (every relation holds one value for anything else)."""
    given = getattr(config, "relations", None)
    if isinstance(given, Relations):
        return given
    if isinstance(config, RankingSettings):
        return Relations.of(config.single_valued, config.multi_valued, config.unreviewed_relations)
    return ALL_SINGLE


def competitor_keys(edges: Sequence[Any], relations: Relations = ALL_SINGLE) -> list[SlotKey | None]:
    """Each edge's competing slot (:func:`graph_trust.search.slots.slot_key` of its source entity
    and relation name, Graphiti's contradiction key); None without either, or when ``relations``
    says the relation holds several values (its facts never compete)."""
    return [relations.competing_slot(getattr(e, "source_node_uuid", None), getattr(e, "name", None)) for e in edges]


def statement_keys(edges: Sequence[Any], competitors: Sequence[tuple[str, str] | None]) -> list[tuple | None]:
    """Each edge's statement key: its competitor key and its target entity (None without either):
    edges with one key say the same thing in other words."""
    return [None if k is None or not isinstance(getattr(e, "target_node_uuid", None), str)
            else (*k, e.target_node_uuid) for e, k in zip(edges, competitors, strict=True)]


def timestamp(value: Any) -> float:
    """Seconds since the epoch of a datetime or ISO string (naive is UTC); NaN for anything else."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return math.nan
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()
    return math.nan


class PoolFacts:
    """The facts of one pool of ``items`` (Graphiti edges or nodes, ``kind`` ``edge`` or ``node``,
    in pool order) searched for ``query`` at ``now``, under ``settings`` (a recipe or the
    ``search:`` section). Each is None where it does not apply (nodes have no slots; a setting
    turns it off; nothing in the pool carries negative evidence)."""

    def __init__(self, items: Sequence[Any], kind: str, settings: RankingSettings | None = None, query: str = "",
                 now: datetime | None = None):
        self.items = items
        self.kind = kind
        self.settings = settings if settings is not None else RankingSettings()
        self.query = query
        self.now = now or datetime.now(UTC)

    @classmethod
    def given(cls, **facts: Any) -> PoolFacts:
        """Facts handed in as they are (the others None): the rules over arrays, without items."""
        unknown = set(facts) - set(FACTS)
        if unknown:
            raise TypeError(f"unknown pool facts {sorted(unknown)} (known: {', '.join(FACTS)})")
        out = cls((), "given")
        out.__dict__.update({name: None for name in FACTS if name != "neg"} | facts)
        return out

    def get(self, name: str) -> Any:
        """The fact ``name`` (one of :data:`FACTS`)."""
        if name not in FACTS:
            raise KeyError(f"unknown pool fact {name!r} (known: {', '.join(FACTS)})")
        return getattr(self, name)

    @property
    def is_edges(self) -> bool:
        return self.kind == "edge"

    @cached_property
    def texts(self) -> list[str]:
        """What each item says: an edge's fact, a node's name."""
        return [(x.fact if self.is_edges else x.name) for x in self.items]

    @cached_property
    def invalidated(self) -> np.ndarray | None:
        """Edges whose ``invalid_at`` or ``expired_at`` is past (None for nodes)."""
        if not self.is_edges:
            return None
        now = self.now.timestamp()

        def past(value: Any) -> bool:
            t = timestamp(value)
            return not math.isnan(t) and t <= now

        return np.fromiter((past(e.invalid_at) or past(e.expired_at) for e in self.items), dtype=bool,
                           count=len(self.items))

    @cached_property
    def negative(self) -> list[str | None] | None:
        """Per item, why it is demoted: its ``trust_status`` when that is one of the
        ``negative_statuses``, else ``"invalidated"`` for an edge past its ``invalid_at``/``expired_at``
        (``demote_invalidated``); None when nothing in the pool is."""
        statuses = set(self.settings.negative_statuses)
        invalidated = self.invalidated if self.settings.demote_invalidated else None
        out: list[str | None] = []
        for i, x in enumerate(self.items):
            status = (x.attributes or {}).get("trust_status") if statuses else None
            if isinstance(status, str) and status in statuses:
                out.append(status)
            elif invalidated is not None and invalidated[i]:
                out.append("invalidated")
            else:
                out.append(None)
        return out if any(n is not None for n in out) else None

    @cached_property
    def neg(self) -> np.ndarray | None:
        """:attr:`negative` as a mask (None when no item has negative evidence)."""
        negative = self.negative
        if negative is None:
            return None
        neg = np.fromiter((n is not None for n in negative), dtype=bool, count=len(negative))
        return neg if neg.any() else None

    @cached_property
    def missing(self) -> list[str | None] | None:
        """Per edge, the query's identifier its fact does not state (``topic_guard``; None: off)."""
        if not self.is_edges or not self.settings.topic_guard:
            return None
        return missing_identifiers(self.query, self.texts)

    @cached_property
    def eligible(self) -> np.ndarray | None:
        """Items a trust boost may lift (None: all): not past ``invalid_at``/``expired_at`` (unless
        ``boost_expired``), on the query's topic (``topic_guard``)."""
        invalidated = self.invalidated
        eligible = None if invalidated is None or self.settings.boost_expired else ~invalidated
        missing = self.missing
        if missing is not None:
            on_topic = np.fromiter((m is None for m in missing), dtype=bool, count=len(missing))
            eligible = on_topic if eligible is None else eligible & on_topic
        return eligible

    @cached_property
    def groups(self) -> list[SlotKey | None] | None:
        """Each edge's competitor key (:func:`competitor_keys` by the settings' relations; None for nodes)."""
        return competitor_keys(self.items, relations_of(self.settings)) if self.is_edges else None

    @cached_property
    def twins(self) -> list[tuple | None] | None:
        """Each edge's statement key (:func:`statement_keys`; None for nodes)."""
        groups = self.groups
        return None if groups is None else statement_keys(self.items, groups)

    @cached_property
    def stamps(self) -> np.ndarray | None:
        """Each edge's ``valid_at`` (else ``created_at``) in seconds, by which equal trust competes
        (``competitors: trust_recency``; None otherwise: trust alone)."""
        if not self.is_edges or self.settings.competitors != "trust_recency":
            return None
        return np.array([timestamp(e.valid_at or e.created_at) for e in self.items], dtype=np.float64)


__all__ = ["FACTS", "PoolFacts", "competitor_keys", "relations_of", "statement_keys", "timestamp"]
