// The embedder check of search: a few RELATES_TO edges with their fact and stored
// fact_embedding, re-embedded with the query embedder to tell whether it built the graph.
// Parameters: $group_ids (list of strings, or null: every group), $limit (integer).
MATCH ()-[e:RELATES_TO]->()
WHERE e.fact_embedding IS NOT NULL AND e.fact IS NOT NULL
  AND ($group_ids IS NULL OR e.group_id IN $group_ids)
RETURN e.uuid AS uuid, e.fact AS fact, e.fact_embedding AS embedding
LIMIT $limit
