// Remove trust_score and trust_run_id from Entity nodes matched by uuid.
// Parameters: $uuids (list of strings). Returns matched.
UNWIND $uuids AS u
MATCH (n:Entity {uuid: u})
REMOVE n.trust_score, n.trust_run_id
RETURN count(n) AS matched
