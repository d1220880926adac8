"""Runs and their journal, in one place: the run kinds ``graph-trust runs`` lists and ``graph-trust
rollback`` undoes (:mod:`.kinds`, :mod:`.listing`, the sync job's own: :mod:`.sync_kind`), a run's
counters counted from its journal (:mod:`.counts`), its identity (graph key, config hash:
:mod:`.identity`), the per-graph lock (:mod:`.lock`), settling what a dead run left
(:mod:`.recovery`), rolling a sync run back (:mod:`.rollback`), and the review DB's change marker
that says when the confidence inputs kept between runs are current (:mod:`.change_marker`).
The rows themselves live in the state store (:mod:`graph_trust.sync.store`)."""
