"""The sync state store's statements and one run's temporary tables.

:mod:`.named` loads ``statements.sql``: each statement against the state store by name, one per
action (``mark_graph_seen``, ``forget_unmatched``, ``quarantine``, ...), apart from the code as
``cypher/`` keeps the Cypher; :class:`~graph_trust.sync.store.state.StateStore` runs them by name
(``do``, ``one``, ``rows``). :class:`.run_tables.RunTables` owns one run's temporary tables.
"""
