-- The state store's tables (created if missing; graph_trust.sync.store.state describes each).
CREATE TABLE IF NOT EXISTS sync_runs (
    run_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, kind TEXT NOT NULL, graph_key TEXT NOT NULL,
    graph TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT, status TEXT NOT NULL,
    dry_run INTEGER NOT NULL DEFAULT 0, full INTEGER NOT NULL DEFAULT 0, counts_json TEXT,
    config_hash TEXT, pid INTEGER, target_run TEXT, error TEXT
);
CREATE INDEX IF NOT EXISTS sync_runs_graph ON sync_runs (graph_key, seq);
CREATE TABLE IF NOT EXISTS sync_journal (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, batch INTEGER NOT NULL,
    graph_key TEXT NOT NULL, graph TEXT NOT NULL, kind TEXT NOT NULL, uuid TEXT NOT NULL,
    old_json TEXT, new_json TEXT, state TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sync_journal_run ON sync_journal (run_id, batch, uuid);
CREATE INDEX IF NOT EXISTS sync_journal_key ON sync_journal (graph_key, kind, graph, uuid);
CREATE INDEX IF NOT EXISTS sync_journal_pending ON sync_journal (graph_key) WHERE state = 'pending';
CREATE TABLE IF NOT EXISTS sync_quarantine (
    run_id TEXT NOT NULL, candidate_id TEXT NOT NULL, reason TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sync_quarantine_run ON sync_quarantine (run_id);
CREATE TABLE IF NOT EXISTS sync_sources (source TEXT PRIMARY KEY, refreshed_at TEXT NOT NULL, tiers_hash TEXT,
    full_diff_pending INTEGER NOT NULL DEFAULT 0, graph_key TEXT);
CREATE TABLE IF NOT EXISTS sync_desired (
    source TEXT NOT NULL, graph TEXT NOT NULL, uuid TEXT NOT NULL, trust_score REAL, trust_status TEXT,
    memory_type TEXT, sensitivity TEXT, scope TEXT, PRIMARY KEY (source, graph, uuid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_touched (
    source TEXT NOT NULL, graph TEXT NOT NULL, uuid TEXT NOT NULL, PRIMARY KEY (source, graph, uuid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_unmatched (
    source TEXT NOT NULL, graph TEXT NOT NULL, uuid TEXT NOT NULL, PRIMARY KEY (source, graph, uuid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_candidates (
    source TEXT NOT NULL, id TEXT NOT NULL, graph TEXT, edge_uuid TEXT, status TEXT,
    memory_type TEXT, sensitivity TEXT, scope TEXT, reason TEXT,
    raw_status, raw_evidence_refs_json, raw_group_id, raw_memory_type, raw_sensitivity, raw_scope,
    PRIMARY KEY (source, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sync_candidates_edge ON sync_candidates (source, graph, edge_uuid);
CREATE INDEX IF NOT EXISTS sync_candidates_quarantined ON sync_candidates (source, id) WHERE reason IS NOT NULL;
CREATE TABLE IF NOT EXISTS sync_shadow (
    graph_key TEXT NOT NULL, graph TEXT NOT NULL, uuid TEXT NOT NULL,
    trust_score REAL, trust_status TEXT, trust_run_id TEXT, trust_updated_at TEXT,
    memory_type TEXT, sensitivity TEXT, scope TEXT, source_uuid TEXT, target_uuid TEXT,
    PRIMARY KEY (graph_key, graph, uuid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_confidence (
    source TEXT NOT NULL, id TEXT NOT NULL, confidence REAL NOT NULL, PRIMARY KEY (source, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_graphs (graph_key TEXT PRIMARY KEY, scanned_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sync_aggregate_all (graph_key TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS sync_tokens (
    source TEXT NOT NULL, graph TEXT NOT NULL, token TEXT, PRIMARY KEY (source, graph)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_guard_edges (
    graph_key TEXT NOT NULL, graph TEXT NOT NULL, uuid TEXT NOT NULL, expired INTEGER NOT NULL,
    invalid INTEGER NOT NULL, tag INTEGER NOT NULL, PRIMARY KEY (graph_key, graph, uuid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_guard_marks (
    graph_key TEXT NOT NULL, graph TEXT NOT NULL, latest_json TEXT, PRIMARY KEY (graph_key, graph)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_pruned (run_id TEXT PRIMARY KEY, pruned_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sync_dirty (
    graph_key TEXT NOT NULL, graph TEXT NOT NULL, uuid TEXT NOT NULL,
    PRIMARY KEY (graph_key, graph, uuid)
) WITHOUT ROWID;
