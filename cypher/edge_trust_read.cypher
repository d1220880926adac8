// Current trust properties and endpoints of RELATES_TO edges by uuid (one index lookup for the
// list; absent uuids: no row). Parameters: $uuids (list of strings).
MATCH ()-[r:RELATES_TO]->()
WHERE r.uuid IN $uuids
RETURN r.uuid AS uuid, startNode(r).uuid AS source_uuid, endNode(r).uuid AS target_uuid,
       r.trust_score AS trust_score, r.trust_status AS trust_status, r.trust_run_id AS trust_run_id,
       r.trust_updated_at AS trust_updated_at, r.memory_type AS memory_type,
       r.sensitivity AS sensitivity, r.scope AS scope
