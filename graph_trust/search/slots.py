"""Competing slots: the one definition of which facts compete for one answer.

A *slot* is a subject and a relation (an edge's source entity and its ``name``). Facts of one
slot compete only when the relation holds one value at a time (an owner, a host, a port, a
schedule): a service depends on many things, so ``DEPENDS_ON`` facts never compete.
:func:`slot_key` is the key search (competitor rule, relation bonus), the composite rank, the
context's selector and the review queue all compare slots by; :class:`Relations` says which
relations hold one value, from configuration (``search.single_valued`` / ``search.multi_valued``),
then from review decisions (:func:`learn_relations`), then the default for relations never
reviewed (``search.unreviewed_relations``).

Learning from decisions (per relation, over the review rows with a subject, predicate and
object), subjects are counted, not rows: a subject with two or more different values verified
(promoted or corroborated) is evidence the relation holds several values; a subject with one value
verified and a different one rejected is evidence it holds one. The relation holds several when at
least :data:`MIN_MULTI_SUBJECTS` subjects show several and they are at least as many as those
showing one (a tie goes to several: a rejected value may simply be false, a second verified value
was checked by a person); it holds one when some subject shows one and that does not hold; with
too little evidence either way (one subject with several values and none with one) the default for
relations never reviewed applies. So one noisy subject (two values verified by mistake) never
turns a relation whose facts compete into one whose facts do not.

Every name is compared by :func:`relation_key`: words (split on spaces, underscores and hyphens)
upper-cased and joined by ``_``, so ``depends on``, ``DEPENDS_ON`` and ``Depends-On`` are one
relation."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Cardinality = Literal["single", "multi"]
CARDINALITIES: tuple[str, ...] = ("single", "multi")
VERIFIED = frozenset({"promoted", "corroborated"})
REJECTED = frozenset({"rejected"})
LEARNED_FROM: tuple[str, ...] = tuple(sorted(VERIFIED | REJECTED))  # the statuses learning reads
SlotKey = tuple[str, str]
MIN_MULTI_SUBJECTS = 2  # subjects with several verified values it takes to learn "several values"

_WORDS = re.compile(r"[\s_\-]+")


def relation_key(name: Any) -> str | None:
    """The normalised relation name (``DEPENDS_ON``), None for no name."""
    if not isinstance(name, str):
        return None
    words = [w for w in _WORDS.split(name.strip()) if w]
    return "_".join(words).upper() if words else None


def slot_key(subject: Any, relation: Any) -> SlotKey | None:
    """The slot of a fact: its subject (whitespace collapsed, case-folded) and normalised relation;
    None without either."""
    rel = relation_key(relation)
    if not isinstance(subject, str) or not subject.strip() or rel is None:
        return None
    return " ".join(subject.split()).casefold(), rel


def value_key(value: Any) -> str:
    """A slot's value compared as text: whitespace collapsed, case-folded."""
    return " ".join(str(value or "").split()).casefold()


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why a relation holds one or several values: ``source`` is ``config``, ``review`` or
    ``default``; ``reason`` says it in words (``--explain``)."""

    cardinality: Cardinality
    source: Literal["config", "review", "default"]
    reason: str

    @property
    def competes(self) -> bool:
        return self.cardinality == "single"


@dataclass(frozen=True)
class Relations:
    """Which relations hold one value. ``configured`` and ``learned`` map :func:`relation_key`
    names to a :class:`Verdict`; configuration wins over what was learned; anything else gets
    ``default``."""

    configured: Mapping[str, Verdict] = field(default_factory=dict)
    learned: Mapping[str, Verdict] = field(default_factory=dict)
    default: Cardinality = "single"

    @classmethod
    def of(cls, single: Iterable[str] = (), multi: Iterable[str] = (), default: Cardinality = "single",
           learned: Mapping[str, Verdict] | None = None) -> Relations:
        """From the configured names (``search.single_valued`` / ``search.multi_valued``)."""
        configured: dict[str, Verdict] = {}
        for names, card, key in ((single, "single", "search.single_valued"), (multi, "multi", "search.multi_valued")):
            for n in names:
                k = relation_key(n)
                if k is not None:
                    configured[k] = Verdict(card, "config", f"{key} names it")
        return cls(configured, dict(learned or {}), default)

    def verdict(self, relation: Any) -> Verdict:
        k = relation_key(relation)
        if k is not None and k in self.configured:
            return self.configured[k]
        if k is not None and k in self.learned:
            return self.learned[k]
        return Verdict(self.default, "default",
                       f"never reviewed: search.unreviewed_relations is {self.default}")

    def competes(self, relation: Any) -> bool:
        """Whether facts of ``relation`` compete (it holds one value)."""
        return self.verdict(relation).competes

    def competing_slot(self, subject: Any, relation: Any) -> SlotKey | None:
        """:func:`slot_key`, or None for a relation that holds several values (nothing competes)."""
        key = slot_key(subject, relation)
        return key if key is not None and self.competes(relation) else None


ALL_SINGLE = Relations()


def learn_relations(rows: Iterable[tuple[Any, Any, Any, Any]], names: Mapping[str, str] | None = None,
                    default: Cardinality = "single") -> dict[str, Verdict]:
    """Per relation, what review decisions show (module docstring). ``rows``: (subject, predicate,
    object, status) of reviewed facts; rows without a subject, predicate or object say nothing.
    ``names`` gives subjects and objects their display names in the reasons; ``default`` is the
    cardinality of a relation whose evidence is too little (its verdict's source is ``default``)."""
    names = names or {}
    values: dict[SlotKey, dict[str, set[str]]] = {}
    shown: dict[SlotKey, str] = {}
    display: dict[str, str] = {}
    for subject, predicate, obj, status in rows:
        key = slot_key(subject, predicate)
        val = value_key(obj)
        st = str(status or "").strip().lower()
        if key is None or not val or st not in VERIFIED | REJECTED:
            continue
        shown.setdefault(key, names.get(subject, subject))
        display.setdefault(val, names.get(obj, str(obj)))
        by = values.setdefault(key, {"verified": set(), "rejected": set()})
        by["verified" if st in VERIFIED else "rejected"].add(val)
    several: dict[str, list[str]] = {}  # relation -> one example per subject showing several values
    one: dict[str, list[str]] = {}  # relation -> one example per subject showing one value
    for key, by in sorted(values.items()):
        verified, rejected = sorted(by["verified"]), sorted(by["rejected"] - by["verified"])
        if len(verified) >= 2:
            vals = ", ".join(repr(display[v]) for v in verified[:3])
            several.setdefault(key[1], []).append(f"{shown[key]!r} has {len(verified)} verified values ({vals})")
        elif verified and rejected:
            one.setdefault(key[1], []).append(f"{shown[key]!r}: {display[verified[0]]!r} verified, "
                                              f"{display[rejected[0]]!r} rejected")
    out: dict[str, Verdict] = {}
    for rel in sorted(several.keys() | one.keys()):
        m, s = several.get(rel, []), one.get(rel, [])
        counts = f"{_subjects(len(m))} with several verified values, {len(s)} with one"
        if len(m) >= MIN_MULTI_SUBJECTS and len(m) >= len(s):
            out[rel] = Verdict("multi", "review", f"{counts} ({m[0]})")
        elif s:
            out[rel] = Verdict("single", "review", f"{counts} ({s[0]})")
        else:
            out[rel] = Verdict(default, "default", f"{counts} ({m[0]}): several values needs "
                               f"{MIN_MULTI_SUBJECTS}; search.unreviewed_relations is {default}")
    return out


def _subjects(n: int) -> str:
    return f"{n} subject" if n == 1 else f"{n} subjects"
