"""The documented rule of which relations hold one value (graph_trust.search.slots), computed the
plain way for the tests that check learning against it."""

from __future__ import annotations

from graph_trust.search.slots import REJECTED, VERIFIED, relation_key


def plain_rule(rows, default: str = "single") -> dict[str, str]:
    """``rows``: (subject, predicate, object, status). Per relation, M subjects with two or more
    distinct verified values, S with one verified value and a different rejected one: several
    values when M >= 2 and M >= S; one value when S > 0 otherwise; ``default`` when only M == 1."""
    by: dict[tuple, dict[str, set]] = {}
    for s, p, o, status in rows:
        if status in VERIFIED or status in REJECTED:
            d = by.setdefault((s.casefold(), relation_key(p)), {"v": set(), "r": set()})
            d["v" if status in VERIFIED else "r"].add(o.casefold())
    m: dict[str, int] = {}
    s_: dict[str, int] = {}
    for (_, rel), d in by.items():
        if len(d["v"]) >= 2:
            m[rel] = m.get(rel, 0) + 1
        elif d["v"] and d["r"] - d["v"]:
            s_[rel] = s_.get(rel, 0) + 1
    out = {}
    for rel in m.keys() | s_.keys():
        several, one = m.get(rel, 0), s_.get(rel, 0)
        out[rel] = "multi" if several >= 2 and several >= one else "single" if one else default
    return out
