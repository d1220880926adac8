// Write trust properties on RELATES_TO edges matched by uuid (a null value removes the property).
// FalkorDB: UNWIND over the rows, each looked up through the uuid index.
// Parameters: $rows, a list of maps {uuid, trust_score, trust_status, trust_run_id,
// trust_updated_at, memory_type, sensitivity, scope}. Returns matched: edges written.
// The optional properties are removed first, then set: one SET that removes some properties (a
// null value) and sets others leaves FalkorDB with wrong values (setting memory_type = null,
// sensitivity = 'high', scope = null on an edge holding all three kept scope and dropped
// sensitivity; tests/test_sync_faults.py checks every combination).
UNWIND $rows AS row
MATCH ()-[r:RELATES_TO {uuid: row.uuid}]->()
REMOVE r.memory_type, r.sensitivity, r.scope
SET r.trust_score = row.trust_score,
    r.trust_status = row.trust_status,
    r.trust_run_id = row.trust_run_id,
    r.trust_updated_at = row.trust_updated_at,
    r.memory_type = row.memory_type,
    r.sensitivity = row.sensitivity,
    r.scope = row.scope
RETURN count(r) AS matched
