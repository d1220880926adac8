// Edges sync owns, those carrying trust_score or trust_run_id (a labels-only edge: no score), whose
// uuid lies in [$lo, $hi) (uses the uuid range index), with every trust property sync owns and the
// endpoints. Labels set by hand on an edge without either are not sync's and not read here.
// Parameters: $lo, $hi (strings).
MATCH ()-[r:RELATES_TO]->()
WHERE r.uuid >= $lo AND r.uuid < $hi
  AND (r.trust_score IS NOT NULL OR r.trust_run_id IS NOT NULL)
RETURN r.uuid AS uuid, startNode(r).uuid AS source_uuid, endNode(r).uuid AS target_uuid,
       r.trust_score AS trust_score, r.trust_status AS trust_status, r.trust_run_id AS trust_run_id,
       r.trust_updated_at AS trust_updated_at, r.memory_type AS memory_type,
       r.sensitivity AS sensitivity, r.scope AS scope
