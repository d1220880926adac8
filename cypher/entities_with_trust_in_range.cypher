// Entity nodes carrying trust_score with uuid in [$lo, $hi): their trust properties (what a
// full re-aggregation of the range may replace, journaled before it writes).
// Parameters: $lo, $hi (strings).
MATCH (n:Entity)
WHERE n.uuid >= $lo AND n.uuid < $hi AND n.trust_score IS NOT NULL
RETURN n.uuid AS uuid, n.trust_score AS trust_score, n.trust_run_id AS trust_run_id
