// Full re-aggregation of Entity trust for uuids in [$lo, $hi), in the graph, for entities with at
// least one RELATES_TO edge carrying trust above 0 (a rejected or expired
// edge, scored 0, is no evidence for its entities): trust_score = 1 - prod(1 - s) over the trust_score s of its distinct RELATES_TO edges,
// trust_run_id = $run_id, written only where the value changes. Returns every such entity
// (changed or not, with its previous values) so the caller can clear the entities that had
// trust and have no such edge any more (entity_trust_clear).
// Parameters: $lo, $hi (strings), $run_id (string).
MATCH (n:Entity)-[r:RELATES_TO]-()
WHERE n.uuid >= $lo AND n.uuid < $hi AND r.trust_score > 0
WITH n, collect(DISTINCT r) AS rels
WITH n, 1.0 - reduce(p = 1.0, x IN rels | p * (1.0 - x.trust_score)) AS agg
WITH n, agg, n.trust_score AS old_score, n.trust_run_id AS old_run_id
WITH n, agg, old_score, old_run_id, old_score IS NULL OR abs(agg - old_score) > 1e-9 AS changed
FOREACH (_ IN CASE WHEN changed THEN [1] ELSE [] END | SET n.trust_score = agg, n.trust_run_id = $run_id)
RETURN n.uuid AS uuid, changed, old_score, old_run_id, agg AS trust_score
