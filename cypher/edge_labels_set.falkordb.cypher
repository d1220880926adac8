// Write an unscored state on RELATES_TO edges matched by uuid: every property sync owns is removed,
// then the given ones other than trust_score are set (a null value leaves the property absent). Sync
// writes a labels-only edge this way: sensitivity and scope with trust_run_id and trust_updated_at
// (the run that wrote the labels: the mark that sync owns them), no trust_score, trust_status nor
// memory_type. A rollback restores the exact properties an edge held without a trust_score.
// FalkorDB: UNWIND over the rows, each looked up through the uuid index.
// Parameters: $rows, a list of maps {uuid, trust_status, trust_run_id, trust_updated_at,
// memory_type, sensitivity, scope}. Returns matched: edges written.
// Everything is removed first, then set: one SET that removes some properties (a null value) and
// sets others leaves FalkorDB with wrong values (see edge_trust_set).
UNWIND $rows AS row
MATCH ()-[r:RELATES_TO {uuid: row.uuid}]->()
REMOVE r.trust_score, r.trust_status, r.trust_run_id, r.trust_updated_at, r.memory_type, r.sensitivity, r.scope
SET r.trust_status = row.trust_status,
    r.trust_run_id = row.trust_run_id,
    r.trust_updated_at = row.trust_updated_at,
    r.memory_type = row.memory_type,
    r.sensitivity = row.sensitivity,
    r.scope = row.scope
RETURN count(r) AS matched
