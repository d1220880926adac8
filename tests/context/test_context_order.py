"""The context pipeline runs in the order trust, salience, selection, rank, limit.

The property test generates candidate pools with competing groups (same subject and
predicate, different objects), ties in every score, salience on some records and not on
others, sensitivities a context denies or redacts, and checks that no shuffle of the
candidates changes the output, and that the salience filter runs before selection.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from memory_records import NOW, rec

from graph_trust.access.layers import salience_of
from graph_trust.access.trust_context import TrustContext
from graph_trust.config import load_settings
from graph_trust.context.agent import context_from_records
from graph_trust.search.ranking import Explanation

SETTINGS = load_settings(overrides={"composite.max_results": 4}, environ={})
LOW = [0.0, 0.25, 0.5, 1.0]  # few distinct values: ties everywhere


def _explained(uuid: str, rank: int, final: float, fused: float):
    return Explanation(uuid, "", None, None, fused, None, 0.0, final, rank, rank)


@st.composite
def pools(draw):
    n = draw(st.integers(1, 14))
    subjects = ["billing-db", "backup", "kafka"]
    out = []
    for i in range(n):
        competing = draw(st.booleans())
        fused = draw(st.sampled_from([0.5, 1.0, 1.5]))
        explained = draw(st.booleans())
        out.append(
            rec(
                f"u{i:02d}",
                age_h=draw(st.sampled_from([0.0, 24.0, None])),
                trust_score=draw(st.sampled_from([None, *LOW])),
                salience=draw(st.sampled_from([None, 0.2, 0.6, 0.9])),
                sensitivity=draw(st.sampled_from([None, "low", "medium", "high", "hyper"])),
                relevance_raw=fused if explained else None,
                # The search rank may tie too (edges and nodes are ranked apart).
                explanation=_explained(f"u{i:02d}", draw(st.integers(1, 4)), fused, fused) if explained else None,
                subject=draw(st.sampled_from(subjects)) if competing else None,
                predicate="runs_at" if competing else None,
                object=draw(st.sampled_from(["2am", "3am", "4am"])) if competing else None,
            )
        )
    return out


def _shape(result):
    return (
        [it.uuid for it in result.items],
        [(s.best.uuid, tuple(a.uuid for a in s.alternatives)) for s in result.selections],
        result.denied,
        result.redacted,
        result.below_min_trust,
    )


@hsettings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pool=pools(),
    rank=st.sampled_from(["composite", "boost"]),
    min_salience=st.sampled_from([None, 0.0, 0.5, 0.7]),
    by_salience=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_shuffling_the_candidates_never_changes_the_output(pool, rank, min_salience, by_salience, seed):
    ctx = TrustContext("medium")

    def run(records):
        return context_from_records(
            records, "q", settings=SETTINGS, trust_context=ctx, rank=rank, min_salience=min_salience,
            by_salience=by_salience, now=NOW,
        )

    expected = _shape(run(pool))
    shuffled = list(pool)
    random.Random(seed).shuffle(shuffled)
    assert _shape(run(shuffled)) == expected


@hsettings(max_examples=200, deadline=None)
@given(pool=pools(), min_salience=st.sampled_from([0.5, 0.7]))
def test_every_record_shown_passes_the_salience_filter_and_groups_keep_an_eligible_best(pool, min_salience):
    out = context_from_records(
        pool, "q", settings=SETTINGS, trust_context=TrustContext.unrestricted(), rank="composite",
        min_salience=min_salience, now=NOW,
    )
    shown = {it.uuid for it in out.items}
    for it in out.items:
        assert salience_of(it) >= min_salience
    for sel in out.selections:
        assert salience_of(sel.best) >= min_salience
        assert all(salience_of(a) >= min_salience for a in sel.alternatives)
        assert sel.best.uuid in shown


def test_a_competing_group_whose_best_is_below_min_salience_shows_its_best_eligible_fact():
    # "2am" is more relevant and trusted, so it wins selection when both compete; but it is not
    # salient. Filtering after selection made the whole group disappear.
    recs = [
        rec("2am", trust_score=1.0, salience=0.1, relevance_raw=2.0, subject="backup", predicate="runs_at", object="2am"),
        rec("3am", trust_score=0.6, salience=0.8, relevance_raw=1.0, subject="backup", predicate="runs_at", object="3am"),
        rec("other", trust_score=0.6, salience=0.8, relevance_raw=0.5),
    ]
    out = context_from_records(
        recs, "q", settings=SETTINGS, trust_context=TrustContext.unrestricted(), min_salience=0.5, now=NOW
    )
    assert [it.uuid for it in out.items] == ["3am", "other"]
    assert out.selections == []  # one eligible member left: nothing competes with it

    recs[0] = rec("2am", trust_score=1.0, salience=0.9, relevance_raw=2.0, subject="backup", predicate="runs_at",
                  object="2am")
    out = context_from_records(
        recs, "q", settings=SETTINGS, trust_context=TrustContext.unrestricted(), min_salience=0.5, now=NOW
    )
    assert [it.uuid for it in out.items][0] == "2am"
    assert [(s.best.uuid, [a.uuid for a in s.alternatives]) for s in out.selections] == [("2am", ["3am"])]
