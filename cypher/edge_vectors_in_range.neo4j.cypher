// The stored fact embeddings of the RELATES_TO edges whose uuid is in [$lo, $hi) (a range scan of
// the uuid index): the exact scan a vector index's recall is measured against reads every edge
// range by range. Parameters: $lo, $hi (strings).
MATCH ()-[e:RELATES_TO]->()
WHERE e.uuid >= $lo AND e.uuid < $hi AND e.fact_embedding IS NOT NULL
RETURN e.uuid AS uuid, e.fact_embedding AS v
