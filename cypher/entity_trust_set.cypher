// Write trust_score and trust_run_id on Entity nodes matched by uuid.
// Parameters: $rows, a list of maps {uuid, trust_score, trust_run_id}. Returns matched.
UNWIND $rows AS row
MATCH (n:Entity {uuid: row.uuid})
SET n.trust_score = row.trust_score, n.trust_run_id = row.trust_run_id
RETURN count(n) AS matched
