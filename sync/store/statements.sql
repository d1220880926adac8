-- The sync state store's statements, one per action, run by name (graph_trust.sync.store.named).
-- Each: what it does, then its parameters (:name). Temporary tables (temp.*) belong to one run's
-- RunTables (graph_trust.sync.store.run_tables).

-- name: graph_seen
-- Whether the shadow of this graph was ever rebuilt from a full scan. :graph_key
SELECT 1 FROM sync_graphs WHERE graph_key = :graph_key

-- name: mark_graph_seen
-- The shadow of this graph was rebuilt from a full scan now. :graph_key, :at
INSERT OR REPLACE INTO sync_graphs VALUES (:graph_key, :at)

-- name: aggregate_all_pending
-- Whether every entity of this graph must be re-aggregated (a --full run, or writes by someone else,
-- whose entity phase has not finished). :graph_key
SELECT 1 FROM sync_aggregate_all WHERE graph_key = :graph_key

-- name: mark_aggregate_all
-- Every entity of this graph must be re-aggregated (cleared by the entity phase that does it). :graph_key
INSERT OR IGNORE INTO sync_aggregate_all VALUES (:graph_key)

-- name: clear_aggregate_all
-- Every entity of this graph was re-aggregated. :graph_key
DELETE FROM sync_aggregate_all WHERE graph_key = :graph_key

-- name: count_candidates
-- Rows in the state store's copy of this review source. :source
SELECT count(*) FROM sync_candidates WHERE source = :source

-- name: quarantine
-- Record this run's quarantined candidates (rows of the copy with a reason). :run_id, :source
INSERT INTO sync_quarantine
SELECT :run_id, id, reason FROM sync_candidates INDEXED BY sync_candidates_quarantined
WHERE source = :source AND reason IS NOT NULL

-- name: forget_written_touched
-- The touched edges this run wrote (temp.keys) are no longer touched (those a verify touched
-- meanwhile stay for the next run). :source
DELETE FROM sync_touched WHERE source = :source AND (graph, uuid) IN (SELECT graph, uuid FROM temp.keys)

-- name: forget_unmatched
-- Drop the source's unmatched edges (replaced by this run's: add_unmatched). :source
DELETE FROM sync_unmatched WHERE source = :source

-- name: add_unmatched
-- This run's unmatched edges (temp.unmatched), retried by the next run. :source
INSERT INTO sync_unmatched SELECT :source, graph, uuid FROM temp.unmatched

-- name: drop_shadow_graph
-- Drop the shadow of one graph (rebuilt from a full scan next). :graph_key, :graph
DELETE FROM sync_shadow WHERE graph_key = :graph_key AND graph = :graph

-- name: unmatched_count
-- Scored candidates of this source whose edge this run did not find. :source
SELECT count(*) FROM temp.unmatched u
CROSS JOIN sync_candidates c INDEXED BY sync_candidates_edge
  ON c.source = :source AND c.graph = u.graph AND c.edge_uuid = u.uuid
JOIN temp.tiers t ON t.status = c.status
WHERE c.reason IS NULL AND t.score IS NOT NULL

-- name: unmatched_candidates
-- The first :limit of those (id, edge uuid, graph), by id. :source, :limit
SELECT c.id, c.edge_uuid, c.graph FROM temp.unmatched u
CROSS JOIN sync_candidates c INDEXED BY sync_candidates_edge
  ON c.source = :source AND c.graph = u.graph AND c.edge_uuid = u.uuid
JOIN temp.tiers t ON t.status = c.status
WHERE c.reason IS NULL AND t.score IS NOT NULL
ORDER BY c.id LIMIT :limit

-- name: tokens_left
-- The trust-state tokens this source's last run left, per graph. :source
SELECT graph, token FROM sync_tokens WHERE source = :source

-- name: leave_token
-- The trust-state token this source's run left on one graph. :source, :graph, :token
INSERT OR REPLACE INTO sync_tokens VALUES (:source, :graph, :token)

-- name: create_keys
-- temp.keys: the touched, unmatched and drifted edges this run compares (RunTables).
CREATE TEMP TABLE IF NOT EXISTS keys (graph TEXT, uuid TEXT, PRIMARY KEY (graph, uuid))

-- name: clear_keys
-- Empty temp.keys (a new run on the same connection).
DELETE FROM temp.keys

-- name: count_work
-- Rows of this run's diff (temp.work).
SELECT count(*) FROM temp.work

-- name: note_unmatched
-- One edge this run did not find (temp.unmatched). :graph, :uuid
INSERT OR IGNORE INTO temp.unmatched VALUES (:graph, :uuid)

-- name: create_foreign_props
-- temp.foreign_props: edges without trust_score holding properties sync owns, as a full scan read them.
CREATE TEMP TABLE IF NOT EXISTS foreign_props (graph TEXT, uuid TEXT, trust_score, trust_status, trust_run_id,
    trust_updated_at, memory_type, sensitivity, scope, PRIMARY KEY (graph, uuid))

-- name: note_foreign_props
-- One such edge. :graph, :uuid, :trust_score, :trust_status, :trust_run_id, :trust_updated_at,
-- :memory_type, :sensitivity, :scope
INSERT OR REPLACE INTO temp.foreign_props VALUES (:graph, :uuid, :trust_score, :trust_status, :trust_run_id,
    :trust_updated_at, :memory_type, :sensitivity, :scope)

-- name: new_guard_edges
-- temp.guard_edges: the invalidated edges the guard joins with the review rows (RunTables drops it).
CREATE TEMP TABLE IF NOT EXISTS guard_edges (graph TEXT, uuid TEXT, PRIMARY KEY (graph, uuid))

-- name: clear_guard_edges
-- Empty temp.guard_edges (a new read).
DELETE FROM temp.guard_edges

-- name: note_guard_edge
-- One invalidated edge. :graph, :uuid
INSERT OR IGNORE INTO temp.guard_edges VALUES (:graph, :uuid)

-- name: copy_guard_edges
-- The state store's record of one graph's invalidated edges into temp.guard_edges. :graph_key, :graph
INSERT OR IGNORE INTO temp.guard_edges SELECT graph, uuid FROM sync_guard_edges WHERE graph_key = :graph_key AND graph = :graph

-- name: guard_figures
-- The change check's figures of the record of one graph: edges holding expired_at, edges holding
-- invalid_at, the sum of the first's tags. :graph_key, :graph
SELECT total(expired), total(invalid), coalesce(sum(CASE WHEN expired THEN tag END), 0)
FROM sync_guard_edges WHERE graph_key = :graph_key AND graph = :graph

-- name: remember_invalidated
-- One invalidated edge into the record, with what the change check counts of it.
-- :graph_key, :graph, :uuid, :expired, :invalid, :tag
INSERT OR REPLACE INTO sync_guard_edges VALUES (:graph_key, :graph, :uuid, :expired, :invalid, :tag)

-- name: forget_invalidated
-- One edge out of the record (made valid again by the guard's restore). :graph_key, :graph, :uuid
DELETE FROM sync_guard_edges WHERE graph_key = :graph_key AND graph = :graph AND uuid = :uuid

-- name: forget_guard_graph
-- The record of one graph's invalidated edges dropped (read again in full, or the graph is gone). :graph_key, :graph
DELETE FROM sync_guard_edges WHERE graph_key = :graph_key AND graph = :graph

-- name: forget_guard_mark
-- The latest expired_at seen in one graph dropped (the graph is gone). :graph_key, :graph
DELETE FROM sync_guard_marks WHERE graph_key = :graph_key AND graph = :graph

-- name: guard_mark
-- The latest expired_at the last read of one graph saw (JSON, as the graph stored it), if any. :graph_key, :graph
SELECT latest_json FROM sync_guard_marks WHERE graph_key = :graph_key AND graph = :graph

-- name: set_guard_mark
-- The latest expired_at this read saw (JSON; NULL: none yet). :graph_key, :graph, :latest_json
INSERT OR REPLACE INTO sync_guard_marks VALUES (:graph_key, :graph, :latest_json)

-- name: trusted_invalidated_in_copy
-- The invalidated edges (temp.guard_edges) a usable row of the state store's copy of the review DB
-- in one of :statuses (JSON list) points at, with the rows' ids and statuses, in (graph, uuid)
-- order (CROSS JOIN: a loop over the invalidated edges, each looked up, never a scan of every row). :source, :statuses
SELECT g.graph, g.uuid, c.id, c.status FROM temp.guard_edges g
CROSS JOIN sync_candidates c INDEXED BY sync_candidates_edge ON c.source = :source AND c.graph = g.graph AND c.edge_uuid = g.uuid
WHERE c.reason IS NULL AND c.status IN (SELECT value FROM json_each(:statuses))
ORDER BY g.graph, g.uuid

-- name: trusted_invalidated_in_review
-- The same over verify's read of the review DB as it is (temp.review_rows). :source, :statuses
SELECT g.graph, g.uuid, c.id, c.status FROM temp.guard_edges g
CROSS JOIN temp.review_rows c ON c.source = :source AND c.graph = g.graph AND c.edge_uuid = g.uuid
WHERE c.reason IS NULL AND c.status IN (SELECT value FROM json_each(:statuses))
ORDER BY g.graph, g.uuid
