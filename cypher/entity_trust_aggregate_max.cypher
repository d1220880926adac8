// Full re-aggregation of Entity trust for uuids in [$lo, $hi), in the graph: trust_score = max
// of the trust_score of its RELATES_TO edges (removed when none has one), trust_run_id = $run_id.
// Writes only entities whose value changes; returns each with its previous values.
// Parameters: $lo, $hi (strings), $run_id (string).
MATCH (n:Entity)
WHERE n.uuid >= $lo AND n.uuid < $hi
OPTIONAL MATCH (n)-[r:RELATES_TO]-()
WHERE r.trust_score IS NOT NULL
WITH n, max(r.trust_score) AS agg
WITH n, agg, n.trust_score AS old_score, n.trust_run_id AS old_run_id
WHERE (agg IS NULL) <> (old_score IS NULL) OR abs(agg - old_score) > 1e-9
SET n.trust_score = agg, n.trust_run_id = CASE WHEN agg IS NULL THEN NULL ELSE $run_id END
RETURN n.uuid AS uuid, old_score, old_run_id, agg AS trust_score
