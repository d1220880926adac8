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

-- name: unknown_label_counts
-- Per sensitivity label (lower-cased, trimmed) of this source's usable candidates: how many rows
-- carry it and the smallest row id. :source
SELECT lower(trim(sensitivity)), count(*), min(id) FROM sync_candidates
WHERE source = :source AND reason IS NULL AND sensitivity IS NOT NULL AND trim(sensitivity) <> ''
GROUP BY 1

-- name: journal_counts_sync
-- A sync run's counters from its journal, in runs.counts.COUNTERS["sync"] order: batches journaled,
-- edges set (applied with a new trust_score), edges cleared (applied without one: the applied edge
-- rows less those set), entities updated, invalidations the guard restored, rows still pending.
-- The JSON is parsed once per applied edge row and for no other row (CASE evaluates lazily). :run_id
SELECT coalesce(count(DISTINCT batch), 0), coalesce(sum(scored), 0), coalesce(sum(edge) - sum(scored), 0),
       coalesce(sum(state = 'applied' AND kind = 'entity'), 0),
       coalesce(sum(state = 'applied' AND kind = 'validity'), 0),
       coalesce(sum(state = 'pending'), 0)
FROM (SELECT batch, state, kind, state = 'applied' AND kind = 'edge' AS edge,
             CASE WHEN state = 'applied' AND kind = 'edge'
                  THEN json_extract(new_json, '$.trust_score') IS NOT NULL ELSE 0 END AS scored
      FROM sync_journal WHERE run_id = :run_id)

-- name: journal_counts_rollback
-- A rollback's counters from its journal, in runs.counts.COUNTERS["rollback"] order: edges,
-- entities and invalidations restored, rows still pending. :run_id
SELECT coalesce(sum(state = 'applied' AND kind = 'edge'), 0),
       coalesce(sum(state = 'applied' AND kind = 'entity'), 0),
       coalesce(sum(state = 'applied' AND kind = 'validity'), 0),
       coalesce(sum(state = 'pending'), 0)
FROM sync_journal WHERE run_id = :run_id

-- name: shadow_edges_without_ends
-- The shadow's edges of one graph in one uuid range [:lo, :hi) with an endpoint not on record.
-- :graph_key, :graph, :lo, :hi
SELECT uuid FROM sync_shadow WHERE graph_key = :graph_key AND graph = :graph AND uuid >= :lo AND uuid < :hi
AND (source_uuid IS NULL OR target_uuid IS NULL)

-- name: shadow_in_range
-- What the shadow holds of one graph's edges in one uuid range [:lo, :hi): uuid, then the columns
-- state.EDGE_PROPS and state.ENDPOINTS in order. :graph_key, :graph, :lo, :hi
SELECT uuid, trust_score, trust_status, trust_run_id, trust_updated_at, memory_type, sensitivity, scope,
       source_uuid, target_uuid
FROM sync_shadow WHERE graph_key = :graph_key AND graph = :graph AND uuid >= :lo AND uuid < :hi

-- name: desired_in_range
-- The edges of one graph in one uuid range [:lo, :hi) this source gives trust to. :source, :graph, :lo, :hi
SELECT uuid FROM sync_desired WHERE source = :source AND graph = :graph AND uuid >= :lo AND uuid < :hi

-- name: clear_dirty_graph
-- Every entity of one graph was re-aggregated: none is dirty any more. :graph_key, :graph
DELETE FROM sync_dirty WHERE graph_key = :graph_key AND graph = :graph

-- name: dirty_graphs
-- The graphs with dirty entities. :graph_key
SELECT DISTINCT graph FROM sync_dirty WHERE graph_key = :graph_key

-- name: dirty_count
-- How many entities are dirty. :graph_key
SELECT count(*) FROM sync_dirty WHERE graph_key = :graph_key

-- name: dirty_after
-- The next :limit dirty entities of one graph after uuid :after, by uuid. :graph_key, :graph, :after, :limit
SELECT uuid FROM sync_dirty WHERE graph_key = :graph_key AND graph = :graph AND uuid > :after ORDER BY uuid LIMIT :limit

-- name: shadow_checksums
-- Per bucket (the first :prefix characters of the uuid) and combination of the owned text
-- properties, the shadow's count of one graph's edges and their trust_score sum. :prefix, :graph_key, :graph
SELECT substr(uuid, 1, :prefix), trust_status, memory_type, sensitivity, scope, count(*), total(trust_score)
FROM sync_shadow WHERE graph_key = :graph_key AND graph = :graph GROUP BY 1, 2, 3, 4, 5

-- name: shadow_totals
-- The same for the whole graph (no bucket). :graph_key, :graph
SELECT trust_status, memory_type, sensitivity, scope, count(*), total(trust_score) FROM sync_shadow
WHERE graph_key = :graph_key AND graph = :graph GROUP BY 1, 2, 3, 4

-- name: drop_shadow_range
-- The shadow's rows of one graph's uuid range [:lo, :hi) (replaced by a re-read). :graph_key, :graph, :lo, :hi
DELETE FROM sync_shadow WHERE graph_key = :graph_key AND graph = :graph AND uuid >= :lo AND uuid < :hi

-- name: upsert_shadow
-- One edge's trust properties as the graph holds them now; its endpoints only when given (a write
-- knows none). Positional: graph_key, graph, uuid, then state.EDGE_PROPS, then state.ENDPOINTS.
INSERT INTO sync_shadow (graph_key, graph, uuid, trust_score, trust_status, trust_run_id, trust_updated_at,
    memory_type, sensitivity, scope, source_uuid, target_uuid)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (graph_key, graph, uuid) DO UPDATE SET
    trust_score = excluded.trust_score, trust_status = excluded.trust_status, trust_run_id = excluded.trust_run_id,
    trust_updated_at = excluded.trust_updated_at, memory_type = excluded.memory_type,
    sensitivity = excluded.sensitivity, scope = excluded.scope,
    source_uuid = coalesce(excluded.source_uuid, source_uuid), target_uuid = coalesce(excluded.target_uuid, target_uuid)

-- name: drop_shadow_edge
-- One edge left the shadow (it carries no trust_score any more). Positional: graph_key, graph, uuid.
DELETE FROM sync_shadow WHERE graph_key = ? AND graph = ? AND uuid = ?

-- name: journal_touched
-- Whether this run's journal holds rows it applied or may have applied (anything to roll back). :run_id
SELECT 1 FROM sync_journal WHERE run_id = :run_id AND state IN ('applied', 'pending') LIMIT 1

-- name: rollback_conflicts
-- Later runs (not rolled back, nor rollbacks of runs since rolled back) that changed a property
-- this run changed: run id, kind, elements in common, in run order. :run, :seq
SELECT j2.run_id, r2.kind, count(*) AS n
FROM sync_journal j1
JOIN sync_journal j2 ON j2.graph_key = j1.graph_key AND j2.kind = j1.kind AND j2.graph = j1.graph
                     AND j2.uuid = j1.uuid AND j2.state = 'applied'
JOIN sync_runs r2 ON r2.run_id = j2.run_id
WHERE j1.run_id = :run AND j1.state = 'applied' AND r2.seq > :seq AND r2.status != 'rolled_back'
  AND NOT (r2.kind = 'rollback' AND r2.target_run IN (SELECT run_id FROM sync_runs WHERE status = 'rolled_back'))
GROUP BY j2.run_id, r2.kind ORDER BY min(r2.seq)

-- name: applied_changes
-- What a run applied: graph, kind, uuid and the previous values (JSON), by kind, graph, uuid. :run_id
SELECT graph, kind, uuid, old_json FROM sync_journal WHERE run_id = :run_id AND state = 'applied'
ORDER BY kind, graph, uuid

-- name: mark_rolled_back
-- This run was rolled back. :run_id
UPDATE sync_runs SET status = 'rolled_back' WHERE run_id = :run_id

-- name: confidences
-- The confidence of each of this source's candidates as the last run stored it: id, confidence. :source
SELECT id, confidence FROM sync_confidence WHERE source = :source

-- name: forget_confidence
-- One candidate left the review DB: its confidence goes. Positional: source, id.
DELETE FROM sync_confidence WHERE source = ? AND id = ?

-- name: store_confidence
-- One candidate's confidence now. Positional: source, id, confidence.
INSERT OR REPLACE INTO sync_confidence VALUES (?, ?, ?)

-- name: create_conf_edges
-- temp.conf_edges: the edges whose winner's confidence may have moved (RunTables).
CREATE TEMP TABLE IF NOT EXISTS conf_edges (source TEXT, graph TEXT, uuid TEXT, PRIMARY KEY (source, graph, uuid))

-- name: clear_conf_edges
-- Empty temp.conf_edges.
DELETE FROM temp.conf_edges

-- name: note_conf_edges
-- The edges the candidates of :ids (JSON list) cite. :ids, :source
INSERT OR IGNORE INTO temp.conf_edges SELECT c.source, c.graph, c.edge_uuid FROM json_each(:ids) j
CROSS JOIN sync_candidates c ON c.source = :source AND c.id = j.value WHERE c.edge_uuid IS NOT NULL

-- name: touch_conf_edges
-- Those edges are compared by the next run.
INSERT OR IGNORE INTO sync_touched SELECT * FROM temp.conf_edges

-- name: forget_desired_of_conf_edges
-- Their desired state goes (recomputed next: blended_desired_of_conf_edges).
DELETE FROM sync_desired WHERE (source, graph, uuid) IN (SELECT * FROM temp.conf_edges)

-- name: writing_graphs
-- Each graph's key and its newest run's display name, by key.
SELECT graph_key, graph FROM sync_runs WHERE seq IN (SELECT max(seq) FROM sync_runs GROUP BY graph_key) ORDER BY graph_key

-- name: vacuum
-- Rewrite the file to return the space pruned runs held.
VACUUM

-- name: checkpoint_truncate
-- Copy the write-ahead log into the file and truncate the log.
PRAGMA wal_checkpoint(TRUNCATE)

-- name: prune_boundary
-- The seq of one graph's :offset-th newest writing (not dry) run, if it has that many. :graph_key, :offset
SELECT seq FROM sync_runs WHERE graph_key = :graph_key AND dry_run = 0 ORDER BY seq DESC LIMIT 1 OFFSET :offset

-- name: runs_before
-- One graph's runs before :seq whose journal is not pruned yet: run id, status, by seq. :graph_key, :seq
SELECT run_id, status FROM sync_runs WHERE graph_key = :graph_key AND seq < :seq
AND run_id NOT IN (SELECT run_id FROM sync_pruned) ORDER BY seq

-- name: runs_with_pending_rows
-- Runs of one graph with journal rows not yet settled. :graph_key
SELECT DISTINCT run_id FROM sync_journal WHERE graph_key = :graph_key AND state = 'pending'

-- name: journal_rows
-- How many journal rows a run has. :run_id
SELECT count(*) FROM sync_journal WHERE run_id = :run_id

-- name: quarantine_rows
-- How many quarantine rows a run has. :run_id
SELECT count(*) FROM sync_quarantine WHERE run_id = :run_id

-- name: delete_journal
-- Delete a run's journal. :run_id
DELETE FROM sync_journal WHERE run_id = :run_id

-- name: delete_quarantine
-- Delete a run's quarantine rows. :run_id
DELETE FROM sync_quarantine WHERE run_id = :run_id

-- name: mark_pruned
-- A run's journal was deleted now (it can no longer be rolled back). :run_id, :at
INSERT INTO sync_pruned VALUES (:run_id, :at)

-- Templates: a statement holding {placeholders} is completed by its caller with the fragments
-- below (part_*, by name) or with the review DB's own SELECT and names (graph_trust.sync.review_db).

-- name: part_none
-- Fragment: nothing (a placeholder a mode leaves empty).

-- name: part_desired
-- Fragment: the desired state per edge of the candidates {rows} selects (alias c) under {where}:
-- the winner (scored statuses first, then highest score, then status name, then id) gives score,
-- status and memory_type; its sensitivity and scope are the strictest of all the edge's usable rows
-- whatever their status (graph_trust.sync.labels), so no decision loosens them. An edge whose rows
-- all have an unscored status (tier null) is labels only: score, status and memory_type NULL, the
-- labels kept (no row when it has none either: nothing to write). {score}, {confidence} and {join}
-- come from the trust mode (part_score_tiers, or part_score_blended with part_confidence_blended
-- and part_join_blended). :source (and :cw blended)
SELECT :source, graph, edge_uuid, {score}, CASE WHEN score IS NULL THEN NULL ELSE status END AS status,
       CASE WHEN score IS NULL THEN NULL ELSE memory_type END AS memory_type, sensitivity, scope FROM (
    SELECT c.graph, c.edge_uuid, c.id, c.status, t.score, c.memory_type,
           strictest_sensitivity(c.sensitivity) OVER edge AS sensitivity, joined_scope(c.scope) OVER edge AS scope {confidence},
           row_number() OVER (PARTITION BY c.graph, c.edge_uuid
                              ORDER BY t.score IS NULL, t.score DESC, c.status, c.id) AS rn
    FROM {rows} JOIN temp.tiers t ON t.status = c.status {join}
    WHERE c.source = :source AND c.reason IS NULL AND c.edge_uuid IS NOT NULL {where}
    WINDOW edge AS (PARTITION BY c.graph, c.edge_uuid)
) WHERE rn = 1 AND (score IS NOT NULL OR sensitivity IS NOT NULL OR scope IS NOT NULL)

-- name: part_score_tiers
-- Fragment (tiers mode): the winner's tier is the score.
score

-- name: part_score_blended
-- Fragment (sync.trust_mode: confidence): the winner's tier times 1 - w + w * confidence (:cw is w,
-- sync.confidence_weight; the winner's own confidence, from sync_confidence). Only a positive tier
-- is blended: 0 (rejected, expired) stays 0; a candidate without a confidence row keeps its tier.
CASE WHEN score > 0 THEN score * (1 - :cw + :cw * coalesce(confidence, 1.0)) ELSE score END AS score

-- name: part_confidence_blended
-- Fragment: the candidate's confidence, as a column.
, f.confidence

-- name: part_join_blended
-- Fragment: each candidate's confidence row, if any.
LEFT JOIN sync_confidence f ON f.source = c.source AND f.id = c.id

-- name: part_all_rows
-- Fragment: every candidate of the source.
sync_candidates c

-- name: part_touched_rows
-- Fragment: the candidates on touched edges (CROSS JOIN: a loop over the few touched edges;
-- INDEXED BY: the planner would otherwise seek by the primary key's first column alone, a scan
-- of the source's every row per edge).
sync_touched x CROSS JOIN sync_candidates c INDEXED BY sync_candidates_edge ON c.source = x.source
AND c.graph = x.graph AND c.edge_uuid = x.uuid

-- name: part_conf_edge_rows
-- Fragment: the candidates on the edges whose winner's confidence may have moved (temp.conf_edges).
temp.conf_edges x CROSS JOIN sync_candidates c INDEXED BY sync_candidates_edge
ON c.source = x.source AND c.graph = x.graph AND c.edge_uuid = x.uuid

-- name: part_review_rows
-- Fragment: verify's fresh read of the review DB (temp.review_rows).
temp.review_rows c

-- name: part_graph_range
-- Fragment: the candidates of one graph in one edge uuid range [:lo, :hi) (desired.bounds). :graph, :lo, :hi
AND c.graph = :graph AND c.edge_uuid >= :lo AND c.edge_uuid < :hi

-- name: desired_rows
-- Template: the desired state per edge (part_desired and its parts).
{desired}

-- name: insert_desired
-- Template: the desired state per edge into sync_desired (part_desired and its parts).
INSERT INTO sync_desired {desired}

-- name: drop_exact_desired
-- temp.desired goes (RunTables).
DROP TABLE IF EXISTS temp.desired

-- name: create_exact_desired
-- Template: temp.desired (graph, edge_uuid, score, status, memory_type, sensitivity, scope): the
-- desired state verify's fresh read gives (part_desired over part_review_rows).
CREATE TEMP TABLE desired AS SELECT graph, edge_uuid, score, status, memory_type, sensitivity, scope FROM ({desired})

-- name: index_exact_desired
-- temp.desired by edge.
CREATE INDEX temp.desired_key ON desired (graph, edge_uuid)

-- name: part_fast_path
-- Fragment: whether SQLite can take a review row as it is (well-formed evidence whose first element
-- names a non-blank evidence_id, a known status, no BLOB in a text column); the others go through
-- evidence.edge_uuid_of / desired.parse_row in Python, which decides and gives the quarantine
-- reason. It accepts a subset of what Python accepts and extracts the same uuid ('$[0].evidence_id'
-- is text only when the document is a list whose element 0 is an object).
(CASE WHEN typeof(evidence_refs_json) = 'text' AND json_valid(evidence_refs_json)
                    AND instr(evidence_refs_json, '\u0000') = 0 THEN
    CASE WHEN json_type(evidence_refs_json, '$[0].evidence_id') = 'text'
    THEN length(trim(json_extract(evidence_refs_json, '$[0].evidence_id'), ' ' || char(9, 10, 13, 11, 12))) > 0
         AND typeof(status) = 'text' AND status IN (SELECT status FROM temp.tiers)
         AND 'blob' NOT IN (typeof(id), typeof(group_id), typeof(memory_type), typeof(sensitivity), typeof(scope))
    ELSE 0 END
ELSE 0 END)

-- name: part_upsert
-- Fragment: a changed row is updated in place (an index entry is rewritten only when its columns
-- change), not deleted and inserted again as INSERT OR REPLACE would: a 1% change touches fewer pages.
ON CONFLICT (source, id) DO UPDATE SET graph = excluded.graph, edge_uuid = excluded.edge_uuid,
status = excluded.status, memory_type = excluded.memory_type, sensitivity = excluded.sensitivity,
scope = excluded.scope, reason = excluded.reason, raw_status = excluded.raw_status,
raw_evidence_refs_json = excluded.raw_evidence_refs_json, raw_group_id = excluded.raw_group_id,
raw_memory_type = excluded.raw_memory_type, raw_sensitivity = excluded.raw_sensitivity, raw_scope = excluded.raw_scope

-- name: count_review_rows
-- Template: the rows {inner} (the review DB's SELECT) gives, and those with an id.
SELECT count(*), count(id) FROM ({inner})

-- name: copy_fast
-- Template: upsert into {table} (sync_candidates or temp.review_rows) the rows of {inner} SQLite can
-- take as they are ({fast}: part_fast_path; {upsert}: part_upsert). The group names the graph unless
-- the groups share one (:shared_graph) or it has none (then :db). :source, :shared_graph, :db
INSERT INTO {table} (source, id, graph, edge_uuid, status, memory_type, sensitivity, scope, reason,
    raw_status, raw_evidence_refs_json, raw_group_id, raw_memory_type, raw_sensitivity, raw_scope)
SELECT :source, CAST(id AS TEXT),
    CASE WHEN :shared_graph OR group_id IS NULL OR CAST(group_id AS TEXT) = '' THEN :db ELSE CAST(group_id AS TEXT) END,
    json_extract(evidence_refs_json, '$[0].evidence_id'), status,
    CASE WHEN memory_type IS NULL THEN NULL ELSE CAST(memory_type AS TEXT) END,
    CASE WHEN sensitivity IS NULL THEN NULL ELSE CAST(sensitivity AS TEXT) END,
    CASE WHEN scope IS NULL THEN NULL ELSE CAST(scope AS TEXT) END, NULL,
    status, evidence_refs_json, group_id, memory_type, sensitivity, scope
FROM ({inner}) WHERE {fast} {upsert}

-- name: slow_rows
-- Template: the rows of {inner} the fast path leaves to Python ({fast}); :limit -1: all, 0: none.
SELECT * FROM ({inner}) WHERE NOT {fast} LIMIT :limit

-- name: copy_slow
-- Template: one row parsed in Python into {table} ({upsert}: part_upsert). Positional: source, id,
-- graph, edge_uuid, status, memory_type, sensitivity, scope, reason, then the raw values as read
-- (status, evidence_refs_json, group_id, memory_type, sensitivity, scope).
INSERT INTO {table} (source, id, graph, edge_uuid, status, memory_type, sensitivity, scope, reason,
    raw_status, raw_evidence_refs_json, raw_group_id, raw_memory_type, raw_sensitivity, raw_scope)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) {upsert}

-- name: repeated_review_ids
-- Template: the ids ({id}: the review DB's id column) on more than one row of the review table
-- ({review_table}), with how many.
SELECT CAST({id} AS TEXT), count(*) FROM review.{review_table} WHERE {id} IS NOT NULL
GROUP BY 1 HAVING count(*) > 1

-- name: touch_candidate_edge
-- The edge a candidate gave trust to is compared again. Positional: source, id.
INSERT OR IGNORE INTO sync_touched SELECT source, graph, edge_uuid FROM sync_candidates
WHERE source = ? AND id = ? AND edge_uuid IS NOT NULL

-- name: quarantine_repeated_id
-- Template: an id on several review rows is quarantined in {table} with the reason; every other
-- column is cleared (which row was copied last must not show). Positional: reason, source, id.
UPDATE {table} SET graph = NULL, edge_uuid = NULL, status = NULL, memory_type = NULL, sensitivity = NULL,
    scope = NULL, raw_status = NULL, raw_evidence_refs_json = NULL, raw_group_id = NULL, raw_memory_type = NULL,
    raw_sensitivity = NULL, raw_scope = NULL, reason = ?
WHERE source = ? AND id = ?

-- name: source_refresh
-- When this source's copy was last refreshed, with which tiers, and whether a full diff is pending. :source
SELECT refreshed_at, tiers_hash, full_diff_pending FROM sync_sources WHERE source = :source

-- name: forget_candidates
-- This source's copy of the review DB goes (read again in full). :source
DELETE FROM sync_candidates WHERE source = :source

-- name: drop_changed
-- temp.changed goes (RunTables).
DROP TABLE IF EXISTS temp.changed

-- name: create_changed
-- Template: temp.changed: the review rows of {scan} whose content differs from the copy's, or that
-- it lacks, whatever their updated_at. A row is unchanged when each column sync reads equals the
-- copy's raw_* value, compared as SQLite compares values (IS: 1 and '1' differ) and of the same
-- type (IS holds 0 and 0.0 equal, but they read as '0' and '0.0'): plain column comparisons, one
-- primary-key lookup per row. :source
CREATE TEMP TABLE changed AS SELECT * FROM ({scan}) x WHERE NOT EXISTS (SELECT 1 FROM sync_candidates s
WHERE s.source = :source AND s.id = CAST(x.id AS TEXT)
  AND +s.raw_status IS +x.status AND typeof(s.raw_status) = typeof(x.status)
  AND +s.raw_evidence_refs_json IS +x.evidence_refs_json AND typeof(s.raw_evidence_refs_json) = typeof(x.evidence_refs_json)
  AND +s.raw_group_id IS +x.group_id AND typeof(s.raw_group_id) = typeof(x.group_id)
  AND +s.raw_memory_type IS +x.memory_type AND typeof(s.raw_memory_type) = typeof(x.memory_type)
  AND +s.raw_sensitivity IS +x.sensitivity AND typeof(s.raw_sensitivity) = typeof(x.sensitivity)
  AND +s.raw_scope IS +x.scope AND typeof(s.raw_scope) = typeof(x.scope))

-- name: drop_gone
-- temp.gone goes (RunTables).
DROP TABLE IF EXISTS temp.gone

-- name: create_gone
-- temp.gone: the ids of candidates that left the review DB.
CREATE TEMP TABLE gone (id TEXT)

-- name: count_review_ids
-- Template: the review table's ({review_table}) ids ({ids}: * when unique, else DISTINCT and the id).
SELECT count({ids}) FROM review.{review_table}

-- name: count_new_changed
-- The changed rows the copy lacks (distinct ids; one primary-key lookup per row). :source
SELECT count(DISTINCT CAST(x.id AS TEXT)) FROM temp.changed x WHERE NOT EXISTS
(SELECT 1 FROM sync_candidates WHERE source = :source AND id = CAST(x.id AS TEXT))

-- name: note_gone
-- Template: the copy's ids the review table ({review_table}, ids {id}) no longer has. :source
INSERT INTO temp.gone SELECT id FROM sync_candidates WHERE source = :source AND id NOT IN
(SELECT {id} FROM review.{review_table})

-- name: count_gone
-- How many candidates left the review DB.
SELECT count(*) FROM temp.gone

-- name: reread_repeated
-- Template: the rows of {inner} whose id was quarantined as repeated (reason LIKE :repeated), not
-- yet in temp.changed: read again (they may be unique now). :source, :repeated
INSERT INTO temp.changed SELECT * FROM ({inner}) x
WHERE CAST(x.id AS TEXT) IN (SELECT id FROM sync_candidates WHERE source = :source AND reason LIKE :repeated)
AND NOT EXISTS (SELECT 1 FROM temp.changed t WHERE CAST(t.id AS TEXT) = CAST(x.id AS TEXT))

-- name: touch_changed
-- The edges the copy's changed rows point at are compared by the next run. :source
INSERT OR IGNORE INTO sync_touched SELECT :source, graph, edge_uuid FROM sync_candidates
WHERE source = :source AND edge_uuid IS NOT NULL AND id IN (SELECT CAST(id AS TEXT) FROM temp.changed)

-- name: touch_gone
-- The edges the candidates that left pointed at are compared by the next run. :source
INSERT OR IGNORE INTO sync_touched SELECT :source, graph, edge_uuid FROM sync_candidates
WHERE source = :source AND edge_uuid IS NOT NULL AND id IN (SELECT id FROM temp.gone)

-- name: forget_gone
-- The candidates that left the review DB leave the copy. :source
DELETE FROM sync_candidates WHERE source = :source AND id IN (SELECT id FROM temp.gone)

-- name: forget_desired
-- This source's desired state goes (recomputed for every edge). :source
DELETE FROM sync_desired WHERE source = :source

-- name: forget_touched
-- This source's touched edges go (a full re-read compares every edge). :source
DELETE FROM sync_touched WHERE source = :source

-- name: forget_desired_of_touched
-- The touched edges' desired state goes (recomputed next). :source
DELETE FROM sync_desired WHERE (source, graph, uuid) IN (SELECT source, graph, uuid FROM sync_touched WHERE source = :source)

-- name: record_refresh
-- This source's copy was refreshed at :at with the tiers :tiers_hash; :pending: a full diff is due.
-- :source, :at, :tiers_hash, :pending, :graph_key
INSERT OR REPLACE INTO sync_sources VALUES (:source, :at, :tiers_hash, :pending, :graph_key)

-- name: attach_review
-- The review DB read-only as schema review. :uri
ATTACH DATABASE :uri AS review

-- name: detach_review
-- The review DB detached.
DETACH DATABASE review

-- name: drop_review_rows
-- temp.review_rows goes (RunTables).
DROP TABLE IF EXISTS temp.review_rows

-- name: create_review_rows
-- temp.review_rows: verify's fresh read of the review DB, as sync_candidates' columns.
CREATE TEMP TABLE review_rows AS SELECT * FROM sync_candidates LIMIT 0

-- name: index_review_rows
-- temp.review_rows by (source, id), for the upsert.
CREATE UNIQUE INDEX temp.review_rows_key ON review_rows (source, id)

-- name: range_end
-- The edge uuid :size candidates after :lo in one graph (desired.desired_ranges). :source, :graph, :lo, :size
SELECT edge_uuid FROM sync_candidates WHERE source = :source AND graph = :graph AND edge_uuid >= :lo
ORDER BY edge_uuid LIMIT 1 OFFSET :size

-- name: next_edge
-- The first edge uuid after :lo in one graph. :source, :graph, :lo
SELECT min(edge_uuid) FROM sync_candidates WHERE source = :source AND graph = :graph AND edge_uuid > :lo

-- name: forget_desired_range
-- The desired state of one graph's edges in [:lo, :hi) goes (recomputed next). :source, :graph, :lo, :hi
DELETE FROM sync_desired WHERE source = :source AND graph = :graph AND uuid >= :lo AND uuid < :hi

-- name: touch_edge
-- One edge is compared by the next run of every source on this graph. Positional: graph, uuid, graph_key.
INSERT OR IGNORE INTO sync_touched SELECT source, ?, ? FROM sync_sources WHERE graph_key = ?

-- name: full_diff_done
-- A run compared every edge after a full re-read: later runs may go incremental. :source
UPDATE sync_sources SET full_diff_pending = 0 WHERE source = :source

-- name: count_quarantined
-- How many of this source's candidates are quarantined. :source
SELECT count(*) FROM sync_candidates INDEXED BY sync_candidates_quarantined WHERE source = :source AND reason IS NOT NULL

-- name: quarantined_rows
-- The first :limit (-1: all) of them: id, reason, by id. :source, :limit
SELECT id, reason FROM sync_candidates INDEXED BY sync_candidates_quarantined
WHERE source = :source AND reason IS NOT NULL ORDER BY id LIMIT :limit

-- name: create_tiers
-- temp.tiers: the policy's tiers (status, score; NULL: unscored) (RunTables).
CREATE TEMP TABLE IF NOT EXISTS tiers (status TEXT PRIMARY KEY, score REAL)

-- name: clear_tiers
-- Empty temp.tiers.
DELETE FROM temp.tiers

-- name: add_tier
-- One tier. Positional: status, score.
INSERT INTO temp.tiers VALUES (?, ?)

-- name: part_changed_rows
-- Fragment: the review rows a refresh reads again (temp.changed).
SELECT * FROM temp.changed

-- name: drop_work
-- temp.work goes (RunTables).
DROP TABLE IF EXISTS temp.work

-- name: drop_unmatched
-- temp.unmatched goes (RunTables).
DROP TABLE IF EXISTS temp.unmatched

-- name: create_unmatched
-- temp.unmatched: the edges this run did not find.
CREATE TEMP TABLE unmatched (graph TEXT, uuid TEXT, PRIMARY KEY (graph, uuid))

-- name: keys_of_touched
-- temp.keys gets this source's touched edges as of now (the run clears these when done, not those
-- touched meanwhile). :source
INSERT OR IGNORE INTO temp.keys SELECT graph, uuid FROM sync_touched WHERE source = :source

-- name: keys_of_unmatched
-- temp.keys gets the edges the last run did not find (retried). :source
INSERT OR IGNORE INTO temp.keys SELECT graph, uuid FROM sync_unmatched WHERE source = :source

-- name: create_work_empty
-- temp.work, empty: filled range by range as the edges are written (work_of_range).
CREATE TEMP TABLE work (graph TEXT, uuid TEXT, trust_score, trust_status, memory_type, sensitivity, scope)

-- name: create_work_of_keys
-- temp.work: the keys (temp.keys) whose desired trust differs from the shadow's (or that have no
-- trust yet; a labels-only row has a NULL trust_score and its labels), and those the shadow holds
-- but no longer desired (all columns NULL: to clear), in
-- (graph, uuid) order: rowids follow it, so a batch is a rowid range (JournaledWriter.begin_work_edges).
-- :source, :graph_key
CREATE TEMP TABLE work AS
SELECT k.graph AS graph, k.uuid AS uuid, d.trust_score, d.trust_status, d.memory_type, d.sensitivity, d.scope
FROM temp.keys k
LEFT JOIN sync_desired d ON d.source = :source AND d.graph = k.graph AND d.uuid = k.uuid
LEFT JOIN sync_shadow s ON s.graph_key = :graph_key AND s.graph = k.graph AND s.uuid = k.uuid
WHERE (d.uuid IS NOT NULL AND (s.uuid IS NULL OR (s.trust_score IS NULL) <> (d.trust_score IS NULL)
       OR abs(s.trust_score - d.trust_score) > 1e-9 OR s.trust_status IS NOT d.trust_status OR s.memory_type IS NOT d.memory_type
       OR s.sensitivity IS NOT d.sensitivity OR s.scope IS NOT d.scope))
   OR (d.uuid IS NULL AND s.uuid IS NOT NULL)
ORDER BY k.graph, k.uuid

-- name: work_of_range
-- temp.work gets one graph's uuid range [:lo, :hi) (everything mode): the desired edges whose trust
-- differs from the shadow's, and the shadow's edges no longer desired (to clear), in uuid order.
-- :graph_key, :source, :graph, :lo, :hi
INSERT INTO temp.work SELECT * FROM (
    SELECT d.graph, d.uuid, d.trust_score, d.trust_status, d.memory_type, d.sensitivity, d.scope FROM sync_desired d
    LEFT JOIN sync_shadow s ON s.graph_key = :graph_key AND s.graph = d.graph AND s.uuid = d.uuid
    WHERE d.source = :source AND d.graph = :graph AND d.uuid >= :lo AND d.uuid < :hi
      AND (s.uuid IS NULL OR (s.trust_score IS NULL) <> (d.trust_score IS NULL)
           OR abs(s.trust_score - d.trust_score) > 1e-9 OR s.trust_status IS NOT d.trust_status
           OR s.memory_type IS NOT d.memory_type OR s.sensitivity IS NOT d.sensitivity OR s.scope IS NOT d.scope)
    UNION ALL
    SELECT s.graph, s.uuid, NULL, NULL, NULL, NULL, NULL FROM sync_shadow s
    WHERE s.graph_key = :graph_key AND s.graph = :graph AND s.uuid >= :lo AND s.uuid < :hi AND NOT EXISTS (
        SELECT 1 FROM sync_desired d WHERE d.source = :source AND d.graph = s.graph AND d.uuid = s.uuid)
) ORDER BY uuid

-- name: work_after
-- temp.work's rows after rowid :after, by rowid: rowid, graph, uuid, then work.WORK_COLS. :after
SELECT rowid, graph, uuid, trust_score, trust_status, memory_type, sensitivity, scope FROM temp.work
WHERE rowid > :after ORDER BY rowid

-- name: unsupported_trusted
-- The shadow's trusted edges no scored candidate of this source supports (what a full diff would
-- clear of trust). :graph_key, :source
SELECT count(*) FROM sync_shadow s WHERE s.graph_key = :graph_key AND s.trust_score IS NOT NULL AND NOT EXISTS (SELECT 1 FROM
sync_candidates c INDEXED BY sync_candidates_edge JOIN temp.tiers t ON t.status = c.status WHERE c.source = :source
AND c.graph = s.graph AND c.edge_uuid = s.uuid AND c.reason IS NULL AND t.score IS NOT NULL)

-- name: work_clears
-- Rows of temp.work that clear trust: no trust_score on an edge whose shadow holds one (labels-only
-- rows included: the edge loses its trust). :graph_key
SELECT count(*) FROM temp.work w JOIN sync_shadow s ON s.graph_key = :graph_key AND s.graph = w.graph
AND s.uuid = w.uuid WHERE w.trust_score IS NULL AND s.trust_score IS NOT NULL

-- name: work_sets
-- Rows of temp.work that set trust.
SELECT count(*) FROM temp.work WHERE trust_score IS NOT NULL

-- name: shadow_count
-- The shadow's trusted edges (labels-only ones left out). :graph_key
SELECT count(*) FROM sync_shadow WHERE graph_key = :graph_key AND trust_score IS NOT NULL

-- name: stream_bound
-- An upper bound of the rows an everything-mode diff yields: this source's candidates with an edge
-- plus the shadow's edges. :source, :graph_key
SELECT (SELECT count(*) FROM sync_candidates WHERE source = :source AND edge_uuid IS NOT NULL)
     + (SELECT count(*) FROM sync_shadow WHERE graph_key = :graph_key)

-- name: desired_count
-- The edges this source gives trust to (labels-only ones left out). :source
SELECT count(*) FROM sync_desired WHERE source = :source AND trust_score IS NOT NULL

-- name: settle_batch
-- A journaled batch landed: its rows become applied. :run_id, :batch
UPDATE sync_journal SET state = 'applied' WHERE run_id = :run_id AND batch = :batch

-- name: void_in_batch
-- One element of a batch was not in the graph: its row becomes void. Positional: run_id, batch, uuid.
UPDATE sync_journal SET state = 'void' WHERE run_id = ? AND batch = ? AND uuid = ?

-- name: void_batch
-- Every row of a batch becomes void (an entity range marker, replaced by the changes it found). :run_id, :batch
UPDATE sync_journal SET state = 'void' WHERE run_id = :run_id AND batch = :batch

-- name: journal_work
-- Journal temp.work's rows :lo..:hi (rowids) as pending edge changes of batch :batch: the previous
-- values from the shadow or temp.foreign_props (else :absent), the new ones from the row and the run
-- (:absent when it clears; a labels-only row: its labels with the run's id and time, no trust). JSON
-- objects with sorted keys, as writer.journal_json writes them.
-- :run, :batch, :graph_key, :now, :absent, :lo, :hi
INSERT INTO sync_journal (run_id, batch, graph_key, graph, kind, uuid, old_json, new_json, state)
SELECT :run, :batch, :graph_key, w.graph, 'edge', w.uuid,
       CASE WHEN s.uuid IS NOT NULL THEN json_object('memory_type', s.memory_type, 'scope', s.scope,
                'sensitivity', s.sensitivity, 'trust_run_id', s.trust_run_id, 'trust_score', s.trust_score,
                'trust_status', s.trust_status, 'trust_updated_at', s.trust_updated_at)
            WHEN f.uuid IS NOT NULL THEN json_object('memory_type', f.memory_type, 'scope', f.scope,
                'sensitivity', f.sensitivity, 'trust_run_id', f.trust_run_id, 'trust_score', f.trust_score,
                'trust_status', f.trust_status, 'trust_updated_at', f.trust_updated_at)
            ELSE :absent END,
       CASE WHEN w.trust_score IS NULL AND w.sensitivity IS NULL AND w.scope IS NULL THEN :absent
            WHEN w.trust_score IS NULL THEN json_object('memory_type', NULL, 'scope', w.scope,
                'sensitivity', w.sensitivity, 'trust_run_id', :run, 'trust_score', NULL, 'trust_status', NULL,
                'trust_updated_at', :now)
            ELSE json_object('memory_type', w.memory_type, 'scope', w.scope, 'sensitivity', w.sensitivity,
                'trust_run_id', :run, 'trust_score', w.trust_score, 'trust_status', w.trust_status,
                'trust_updated_at', :now) END,
       'pending'
FROM temp.work w
LEFT JOIN sync_shadow s ON s.graph_key = :graph_key AND s.graph = w.graph AND s.uuid = w.uuid
LEFT JOIN temp.foreign_props f ON f.graph = w.graph AND f.uuid = w.uuid
WHERE w.rowid BETWEEN :lo AND :hi

-- name: shadow_from_work
-- The shadow follows temp.work's rows :lo..:hi that set trust or labels only (both with the run's id
-- and time), but those of :missing (JSON list of uuids the graph did not have). :graph_key, :run, :now, :lo, :hi, :missing
INSERT INTO sync_shadow (graph_key, graph, uuid, trust_score, trust_status, trust_run_id, trust_updated_at,
    memory_type, sensitivity, scope)
SELECT :graph_key, graph, uuid, trust_score, trust_status, :run, :now, memory_type, sensitivity, scope FROM temp.work
WHERE rowid BETWEEN :lo AND :hi AND (trust_score IS NOT NULL OR sensitivity IS NOT NULL OR scope IS NOT NULL)
AND uuid NOT IN (SELECT value FROM json_each(:missing))
ON CONFLICT (graph_key, graph, uuid) DO UPDATE SET trust_score = excluded.trust_score,
    trust_status = excluded.trust_status, trust_run_id = excluded.trust_run_id,
    trust_updated_at = excluded.trust_updated_at, memory_type = excluded.memory_type,
    sensitivity = excluded.sensitivity, scope = excluded.scope

-- name: shadow_cleared_from_work
-- The edges temp.work's rows :lo..:hi cleared leave the shadow (but those of :missing).
-- :graph_key, :graph, :lo, :hi, :missing
DELETE FROM sync_shadow WHERE graph_key = :graph_key AND graph = :graph
AND uuid NOT IN (SELECT value FROM json_each(:missing)) AND uuid IN (
    SELECT uuid FROM temp.work WHERE rowid BETWEEN :lo AND :hi AND trust_score IS NULL AND sensitivity IS NULL
    AND scope IS NULL)

-- name: undirty_entity
-- One entity was re-aggregated. Positional: graph_key, graph, uuid.
DELETE FROM sync_dirty WHERE graph_key = ? AND graph = ? AND uuid = ?

-- name: undirty_range
-- The entities of one uuid range [:lo, :hi) were re-aggregated. :graph_key, :graph, :lo, :hi
DELETE FROM sync_dirty WHERE graph_key = :graph_key AND graph = :graph AND uuid >= :lo AND uuid < :hi

-- name: add_journal
-- One journal row. Positional: run_id, batch, graph_key, graph, kind, uuid, old_json, new_json, state.
INSERT INTO sync_journal (run_id, batch, graph_key, graph, kind, uuid, old_json, new_json, state)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)

-- name: mark_dirty
-- One entity must be re-aggregated. Positional: graph_key, graph, uuid.
INSERT OR IGNORE INTO sync_dirty VALUES (?, ?, ?)

-- name: pending_rows
-- One graph's pending journal rows, in order (writer.PendingRow). :graph_key
SELECT seq, run_id, batch, graph, kind, uuid, old_json, new_json FROM sync_journal
WHERE graph_key = :graph_key AND state = 'pending' ORDER BY seq

-- name: settle_row
-- One journal row read back: :state is applied or void. :state, :seq
UPDATE sync_journal SET state = :state WHERE seq = :seq

-- name: exact_desired_graphs
-- The graphs verify's fresh read gives trust in (temp.desired).
SELECT DISTINCT graph FROM temp.desired

-- name: shadow_graphs
-- The graphs of the shadow. :graph_key
SELECT DISTINCT graph FROM sync_shadow WHERE graph_key = :graph_key

-- name: review_rows_graphs
-- The graphs verify's fresh read names (temp.review_rows).
SELECT DISTINCT graph FROM temp.review_rows WHERE graph IS NOT NULL

-- name: copy_differs
-- The ids of rows the state store's copy has otherwise than verify's fresh read (temp.review_rows):
-- differing, missing from either, by id. :s
SELECT r.id FROM temp.review_rows r LEFT JOIN sync_candidates c ON c.source = r.source AND c.id = r.id
WHERE c.id IS NULL OR c.graph IS NOT r.graph OR c.edge_uuid IS NOT r.edge_uuid OR c.status IS NOT r.status
   OR c.memory_type IS NOT r.memory_type OR c.sensitivity IS NOT r.sensitivity OR c.scope IS NOT r.scope
   OR c.reason IS NOT r.reason
UNION SELECT c.id FROM sync_candidates c WHERE c.source = :s AND NOT EXISTS
(SELECT 1 FROM temp.review_rows r WHERE r.source = c.source AND r.id = c.id) ORDER BY 1

-- name: review_rows_quarantined
-- How many rows of verify's fresh read are quarantined.
SELECT count(*) FROM temp.review_rows WHERE reason IS NOT NULL

-- name: drop_want
-- temp.want goes (RunTables).
DROP TABLE IF EXISTS temp.want

-- name: create_want
-- temp.want: each entity's trust as verify computes it from the graph's trusted edges.
CREATE TEMP TABLE want (uuid TEXT PRIMARY KEY, score REAL)

-- name: fill_want
-- temp.want of one graph: trust_aggregate (verify's aggregate function) of the scores of temp.actual's
-- edges at each entity; each edge once per endpoint, a self-loop once. :g
INSERT INTO temp.want SELECT entity, trust_aggregate(score) FROM (SELECT source_uuid AS entity,
trust_score AS score FROM temp.actual WHERE graph = :g UNION ALL SELECT target_uuid, trust_score
FROM temp.actual WHERE graph = :g AND target_uuid IS NOT source_uuid) WHERE entity IS NOT NULL
GROUP BY entity

-- name: drop_have
-- temp.have goes (RunTables).
DROP TABLE IF EXISTS temp.have

-- name: create_have
-- temp.have: each trusted entity's trust as the graph holds it.
CREATE TEMP TABLE have (uuid TEXT PRIMARY KEY, score REAL)

-- name: note_have
-- One entity's trust as the graph holds it. Positional: uuid, score.
INSERT OR REPLACE INTO temp.have VALUES (?, ?)

-- name: have_and_want
-- Each trusted entity's trust held and computed (NULL: none), by uuid.
SELECT h.uuid, h.score, w.score FROM temp.have h LEFT JOIN temp.want w ON w.uuid = h.uuid ORDER BY h.uuid

-- name: want_lacking
-- The entities that should hold trust and hold none, by uuid: uuid, score.
SELECT w.uuid, w.score FROM temp.want w WHERE w.score IS NOT NULL AND NOT EXISTS
(SELECT 1 FROM temp.have h WHERE h.uuid = w.uuid) ORDER BY w.uuid

-- name: drop_actual
-- temp.actual goes (RunTables).
DROP TABLE IF EXISTS temp.actual

-- name: create_actual
-- temp.actual: every edge sync owns (trust_score or trust_run_id: labels-only edges included), as the
-- graph holds it, with its endpoints.
CREATE TEMP TABLE actual (graph TEXT, uuid TEXT, trust_score, trust_status, trust_run_id, trust_updated_at,
    memory_type, sensitivity, scope, source_uuid TEXT, target_uuid TEXT, PRIMARY KEY (graph, uuid))

-- name: note_actual
-- One such edge. Positional: graph, uuid, then state.EDGE_PROPS, then source_uuid, target_uuid.
INSERT OR REPLACE INTO temp.actual VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)

-- name: actual_differs
-- The edges whose trust may differ from the desired (values compared as stored: a superset of what
-- writer.props_equal, which compares text, finds): graph, uuid, state.EDGE_PROPS as held, then the
-- desired score, status, memory_type, sensitivity, scope (NULL score: labels only), then whether any
-- is desired, by graph, uuid.
SELECT a.graph, a.uuid, a.trust_score, a.trust_status, a.trust_run_id, a.trust_updated_at, a.memory_type,
       a.sensitivity, a.scope, d.score, d.status, d.memory_type, d.sensitivity, d.scope, d.edge_uuid IS NOT NULL
FROM temp.actual a LEFT JOIN temp.desired d ON d.graph = a.graph AND d.edge_uuid = a.uuid
WHERE d.edge_uuid IS NULL OR (a.trust_score IS NULL) <> (d.score IS NULL) OR abs(a.trust_score - d.score) > 1e-9
   OR a.trust_status IS NOT d.status OR a.memory_type IS NOT d.memory_type
   OR a.sensitivity IS NOT d.sensitivity OR a.scope IS NOT d.scope ORDER BY a.graph, a.uuid

-- name: desired_missing
-- The desired edges sync does not own in the graph (neither trust_score nor trust_run_id; labels set
-- by hand do not count): graph, uuid, score (NULL: labels only), by graph, uuid.
SELECT d.graph, d.edge_uuid, d.score FROM temp.desired d WHERE NOT EXISTS
(SELECT 1 FROM temp.actual a WHERE a.graph = d.graph AND a.uuid = d.edge_uuid) ORDER BY d.graph, d.edge_uuid

-- name: drop_unmatched_edges
-- temp.unmatched_edges goes (RunTables).
DROP TABLE IF EXISTS temp.unmatched_edges

-- name: create_unmatched_edges
-- temp.unmatched_edges: the desired edges the graph does not have.
CREATE TEMP TABLE unmatched_edges (graph TEXT, uuid TEXT, PRIMARY KEY (graph, uuid))

-- name: note_unmatched_edge
-- One of them. Positional: graph, uuid.
INSERT INTO temp.unmatched_edges VALUES (?, ?)

-- name: unmatched_scored_rows
-- Scored usable rows of verify's fresh read citing those edges (CROSS JOIN: one pass over the rows,
-- each looked up in the unmatched edges' key).
SELECT count(*) FROM temp.review_rows c CROSS JOIN temp.unmatched_edges u ON
u.graph = c.graph AND u.uuid = c.edge_uuid JOIN temp.tiers t ON t.status = c.status
WHERE c.reason IS NULL AND t.score IS NOT NULL

-- name: create_relink_runs
-- relink_runs: one row per relink run (created on relink's first use).
CREATE TABLE IF NOT EXISTS relink_runs (
    run_id TEXT PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT, status TEXT NOT NULL,
    review_db TEXT NOT NULL, table_name TEXT NOT NULL, id_column TEXT NOT NULL,
    evidence_column TEXT NOT NULL, counts_json TEXT, updated_column TEXT
)

-- name: create_relink_journal
-- relink_journal: the evidence JSON each relink run replaced, and with what.
CREATE TABLE IF NOT EXISTS relink_journal (
    run_id TEXT NOT NULL, seq INTEGER NOT NULL, candidate_id TEXT NOT NULL,
    old_json TEXT NOT NULL, new_json TEXT NOT NULL, PRIMARY KEY (run_id, seq)
)

-- name: begin
-- Open a transaction.
BEGIN

-- name: add_relink_run
-- A relink run starts (pending). Positional: run_id, started_at, review_db, table_name, id_column,
-- evidence_column, counts_json, updated_column.
INSERT INTO relink_runs VALUES (?, ?, NULL, 'pending', ?, ?, ?, ?, ?, ?)

-- name: add_relink_journal
-- One evidence change of a relink run. Positional: run_id, seq, candidate_id, old_json, new_json.
INSERT INTO relink_journal VALUES (?, ?, ?, ?, ?)

-- name: finish_relink_run
-- A relink run ends with :status. :status, :at, :run_id
UPDATE relink_runs SET status = :status, finished_at = :at WHERE run_id = :run_id

-- name: relink_run
-- One relink run (relink_journal.RUN_KEYS order). :run_id
SELECT run_id, started_at, finished_at, status, review_db, table_name, id_column, evidence_column, counts_json,
       updated_column
FROM relink_runs WHERE run_id = :run_id

-- name: relink_run_ids
-- Every relink run, oldest first.
SELECT run_id FROM relink_runs ORDER BY started_at, run_id

-- name: relink_journal_of
-- A relink run's changes, in order: candidate id, old JSON, new JSON. :run_id
SELECT candidate_id, old_json, new_json FROM relink_journal WHERE run_id = :run_id ORDER BY seq

-- name: later_relink_runs
-- The successful relink runs of the same review DB started no earlier than this one (but it). :started_at, :run_id, :review_db
SELECT DISTINCT r.run_id FROM relink_runs r JOIN relink_journal j ON j.run_id = r.run_id
WHERE r.started_at >= :started_at AND r.run_id != :run_id AND r.review_db = :review_db AND r.status = 'ok'

-- name: relink_used
-- Whether relink ever ran on this state store (its table exists).
SELECT 1 FROM sqlite_master WHERE name = 'relink_runs'

-- name: newest_relink_runs
-- The newest :limit relink runs: run_id, started_at, finished_at, status, counts_json. :limit
SELECT run_id, started_at, finished_at, status, counts_json FROM relink_runs ORDER BY started_at DESC LIMIT :limit

-- name: set_busy_timeout
-- Template: wait up to {ms} milliseconds for another writer's lock.
PRAGMA busy_timeout = {ms}

-- name: use_wal
-- Readers and one writer at once (write-ahead log).
PRAGMA journal_mode = WAL

-- name: sync_normal
-- fsync at checkpoints only (safe in WAL mode: a crash loses no committed transaction's integrity).
PRAGMA synchronous = NORMAL

-- name: set_autocheckpoint
-- Template: a commit leaving more than {pages} pages in the log copies them into the file.
PRAGMA wal_autocheckpoint = {pages}

-- name: set_cache
-- A 32 MiB page cache: indexes of 100k+ rows stay hot.
PRAGMA cache_size = -32768

-- name: candidates_table_sql
-- How sync_candidates was declared (to tell a copy made before content comparison).
SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'sync_candidates'

-- name: begin_immediate
-- Open a write transaction now.
BEGIN IMMEDIATE

-- name: commit
-- Commit.
COMMIT

-- name: rollback
-- Roll back.
ROLLBACK

-- name: drop_candidates_table
-- The old copy of the review DB goes (read again in full).
DROP TABLE sync_candidates

-- name: desired_table_sql
-- How sync_desired was declared (to tell a table made before labels-only edges: trust_score NOT NULL).
SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'sync_desired'

-- name: drop_desired_table
-- The old desired state goes (recomputed from a full re-read).
DROP TABLE sync_desired

-- name: forget_sources
-- Every source's refresh record goes (the next run re-reads everything).
DELETE FROM sync_sources

-- name: table_columns
-- Template: the columns of table {table}.
PRAGMA table_info({table})

-- name: add_column
-- Template: add column {column} of type {kind} to {table} (a state store made by an earlier version).
ALTER TABLE {table} ADD COLUMN {column} {kind}

-- name: checkpoint_passive
-- Copy the write-ahead log into the file without blocking anyone.
PRAGMA wal_checkpoint(PASSIVE)

-- name: next_run_seq
-- The next run's sequence number.
SELECT coalesce(max(seq), 0) + 1 FROM sync_runs

-- name: add_run
-- A run starts (running). :run_id, :seq, :kind, :graph_key, :graph, :started_at, :dry_run, :full,
-- :config_hash, :pid, :target_run
INSERT INTO sync_runs (run_id, seq, kind, graph_key, graph, started_at, status, dry_run, full, config_hash, pid,
    target_run)
VALUES (:run_id, :seq, :kind, :graph_key, :graph, :started_at, 'running', :dry_run, :full, :config_hash, :pid,
    :target_run)

-- name: finish_run
-- A run ends. :status, :ended_at, :counts_json, :error, :run_id
UPDATE sync_runs SET status = :status, ended_at = :ended_at, counts_json = :counts_json, error = :error
WHERE run_id = :run_id

-- name: update_running_counts
-- A running run's counters so far. :counts_json, :run_id
UPDATE sync_runs SET counts_json = :counts_json WHERE run_id = :run_id AND status = 'running'

-- name: run_counts
-- A run's stored counters (JSON). :run_id
SELECT counts_json FROM sync_runs WHERE run_id = :run_id

-- name: set_run_counts
-- A run's counters, counted again. :counts_json, :run_id
UPDATE sync_runs SET counts_json = :counts_json WHERE run_id = :run_id

-- name: run_kind
-- A run's kind and whether it was a dry run. :run_id
SELECT kind, dry_run FROM sync_runs WHERE run_id = :run_id

-- name: run_row
-- One run, and when graph-trust prune deleted its journal (NULL: never). :run_id
SELECT r.*, p.pruned_at AS journal_pruned_at FROM sync_runs r LEFT JOIN sync_pruned p USING (run_id)
WHERE r.run_id = :run_id

-- name: run_rows
-- The newest :limit runs, newest first, with when their journal was pruned. :limit
SELECT r.*, p.pruned_at AS journal_pruned_at FROM sync_runs r LEFT JOIN sync_pruned p USING (run_id)
ORDER BY r.seq DESC LIMIT :limit

-- name: run_rows_of_graph
-- The same for one graph. :graph_key, :limit
SELECT r.*, p.pruned_at AS journal_pruned_at FROM sync_runs r LEFT JOIN sync_pruned p USING (run_id)
WHERE r.graph_key = :graph_key ORDER BY r.seq DESC LIMIT :limit

-- name: last_ok_start
-- When this graph's last successful (not dry) sync started. :graph_key
SELECT started_at FROM sync_runs WHERE graph_key = :graph_key AND kind = 'sync' AND status = 'ok' AND dry_run = 0
ORDER BY seq DESC LIMIT 1

-- name: unfinished_runs
-- Runs still marked running for this graph, in order. :graph_key
SELECT run_id FROM sync_runs WHERE graph_key = :graph_key AND status = 'running' ORDER BY seq

-- name: add_quarantine
-- One candidate a run could not use, with the reason. Positional: run_id, candidate_id, reason.
INSERT INTO sync_quarantine VALUES (?, ?, ?)

-- name: distinct_graphs
-- Template: the distinct graphs of {table} where {key} = :v, as index seeks (one per graph) on the
-- table's ({key}, graph, uuid) primary key instead of a scan of every row. :v
WITH RECURSIVE d(graph) AS (SELECT (SELECT min(graph) FROM {table} WHERE {key} = :v) UNION ALL
SELECT (SELECT min(graph) FROM {table} WHERE {key} = :v AND graph > d.graph) FROM d
WHERE d.graph IS NOT NULL) SELECT graph FROM d WHERE graph IS NOT NULL

-- name: drop_temp_table
-- Template: one of a run's temporary tables ({table}) goes.
DROP TABLE IF EXISTS temp.{table}
