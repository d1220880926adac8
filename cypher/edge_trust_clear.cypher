// Remove every trust property sync owns from RELATES_TO edges matched by uuid (one index
// lookup for the list). Parameters: $uuids (list of strings). Returns matched: edges cleared.
MATCH ()-[r:RELATES_TO]->()
WHERE r.uuid IN $uuids
REMOVE r.trust_score, r.trust_status, r.trust_run_id, r.trust_updated_at,
       r.memory_type, r.sensitivity, r.scope
RETURN count(r) AS matched
