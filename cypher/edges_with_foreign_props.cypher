// Edges sync does not own (neither trust_score nor trust_run_id: those are read with
// edges_with_trust) that still hold a property sync writes (set by someone else, e.g. labels set by
// hand), so a full sync journals their exact previous values before a review row's write replaces
// them. Usually none. Parameters: none.
MATCH ()-[r:RELATES_TO]->()
WHERE r.trust_score IS NULL AND r.trust_run_id IS NULL
  AND (r.trust_status IS NOT NULL OR r.trust_updated_at IS NOT NULL OR r.memory_type IS NOT NULL
       OR r.sensitivity IS NOT NULL OR r.scope IS NOT NULL)
RETURN r.uuid AS uuid, r.trust_status AS trust_status, r.trust_run_id AS trust_run_id,
       r.trust_updated_at AS trust_updated_at, r.memory_type AS memory_type,
       r.sensitivity AS sensitivity, r.scope AS scope
