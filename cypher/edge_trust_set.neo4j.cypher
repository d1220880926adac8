// Write trust properties on RELATES_TO edges matched by uuid (a null value removes the property).
// Bolt servers: one index lookup for the whole list (`r.uuid IN $uuids`; ArcadeDB uses its uuid
// index only for a parameter list, not for `UNWIND ... {uuid: row.uuid}`), values by uuid.
// Parameters: $uuids (list of strings), $by_uuid (map uuid -> {trust_score, trust_status,
// trust_run_id, trust_updated_at, memory_type, sensitivity, scope}). Returns matched.
MATCH ()-[r:RELATES_TO]->()
WHERE r.uuid IN $uuids
WITH r, $by_uuid[r.uuid] AS row
SET r.trust_score = row.trust_score,
    r.trust_status = row.trust_status,
    r.trust_run_id = row.trust_run_id,
    r.trust_updated_at = row.trust_updated_at,
    r.memory_type = row.memory_type,
    r.sensitivity = row.sensitivity,
    r.scope = row.scope
RETURN count(r) AS matched
