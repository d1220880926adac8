"""The retrieval policy (pure): threshold, redaction, clipping, dedup, interleaving, budget.

Order, over candidates that already passed access control:

1. drop those with ``score < min_score``;
2. clip to ``clip_sentences`` sentences, then redact PII in what is shown (default patterns
   plus ``redaction_patterns``, to a fixed point);
3. dedup by the normalized hash of the text that will be shown, keeping the most trusted
   (then highest score, then smallest id) of each set;
4. interleave by strategy and keep ``top_k``;
5. the token budget (:mod:`graph_trust.context.budget`): the sum of the memories' tokens is at
   most ``max_tokens``, ellipsis included; a cut last memory that would duplicate one already
   shown is left out.

Dedup runs on the shown text, so no two memories of a payload share a normalized hash.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from graph_trust.config import PolicySettings
from graph_trust.context.budget import enforce_budget
from graph_trust.context.clip import clip
from graph_trust.context.dedup import dedup, normalized_hash
from graph_trust.context.interleave import interleave
from graph_trust.context.payload import Memory, Provenance
from graph_trust.context.redact import Redactor
from graph_trust.context.tokens import TokenCounter, token_counter


@dataclass(frozen=True, slots=True)
class Candidate:
    """A fact the policy may show: its full text and what the payload reports about it."""

    id: str
    text: str
    score: float
    timestamp: datetime | None = None
    group: str | None = None
    type: str = "fact"
    trust_score: float | None = None
    review_status: str | None = None
    role: str | None = None
    episodes: tuple[str, ...] = ()
    access_redacted: bool = False  # redacted by sensitivity: only its metadata may be shown


@dataclass(slots=True)
class PolicyStats:
    total: int = 0
    below_min_score: int = 0
    duplicates_removed: int = 0
    reached_dedup: int = 0
    truncated: bool = False
    total_tokens: int = 0
    applied_filters: list[str] = field(default_factory=list)

    @property
    def dedup_ratio(self) -> float:
        return self.duplicates_removed / self.reached_dedup if self.reached_dedup else 0.0


@dataclass(frozen=True, slots=True)
class _Shown:
    c: Candidate
    content: str
    was_redacted: bool


def _trust_first(s: _Shown) -> tuple[float, float, str]:
    t = s.c.trust_score
    return (-(t if t is not None else -1.0), -s.c.score, s.c.id)


def apply_policy(
    candidates: Sequence[Candidate],
    policy: PolicySettings,
    *,
    search_type: str | None = None,
    counter: TokenCounter | None = None,
    redactor: Redactor | None = None,
) -> tuple[list[Memory], PolicyStats]:
    """The memories to show, in order, and what each stage removed."""
    count = counter or token_counter(policy.token_counter)
    red = redactor or Redactor.from_settings(policy)
    stats = PolicyStats(total=len(candidates))
    stats.applied_filters = ["access_control", "score_threshold"]
    if red.enabled:
        stats.applied_filters.append("redaction")
    stats.applied_filters += ["clipping", "deduplication", f"interleave:{policy.interleave}", "token_budget"]

    above = [c for c in candidates if c.score >= policy.min_score]
    stats.below_min_score = len(candidates) - len(above)
    shown: list[_Shown] = []
    for c in above:
        text = policy.redaction_replacement if c.access_redacted else c.text
        clipped, was = red(clip(text, policy.clip_sentences, policy.language)[0])
        if clipped.strip():
            shown.append(_Shown(c, clipped, was or c.access_redacted))
    stats.reached_dedup = len(shown)
    kept, stats.duplicates_removed = dedup(sorted(shown, key=_trust_first), lambda s: s.content)
    chosen = interleave(
        kept,
        strategy=policy.interleave,
        top_k=policy.top_k,
        ratio=policy.ratio,
        score=lambda s: s.c.score,
        timestamp=lambda s: s.c.timestamp,
        ident=lambda s: s.c.id,
    )
    redacted_cuts: set[str] = set()

    def finish(text: str) -> str:
        out, changed = red(text)
        if changed:
            redacted_cuts.add(out)
        return out

    fitted, stats.truncated = enforce_budget([s.content for s in chosen], policy.max_tokens, count, finish=finish)
    if stats.truncated and len(fitted) > 1:
        last = normalized_hash(fitted[-1][0])
        if any(normalized_hash(t) == last for t, _ in fitted[:-1]):
            fitted.pop()
            stats.truncated = False
    st = search_type or policy.search_type
    memories = []
    for s, (content, n) in zip(chosen, fitted, strict=False):
        c = s.c
        memories.append(
            Memory(
                id=c.id,
                content=content,
                score=c.score,
                timestamp=c.timestamp.isoformat() if c.timestamp else None,
                group=c.group,
                type=c.type,
                tokens=n,
                trust_score=c.trust_score,
                review_status=c.review_status,
                role=c.role,
                provenance=Provenance(
                    group=c.group,
                    search_type=st,
                    original_length=len(c.text),
                    was_redacted=s.was_redacted or (content != s.content and content in redacted_cuts),
                    episodes=c.episodes,
                ),
            )
        )
    stats.total_tokens = sum(m.tokens for m in memories)
    return memories, stats
