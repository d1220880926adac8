// The stored fact embeddings of the RELATES_TO edges whose uuid is in [$lo, $hi) (a range scan of
// the uuid index): the exact scan a vector index's recall is measured against reads every edge
// range by range, and the exact
// vector store is built from (with each edge's group, creation time, name and fact). Parameters: $lo, $hi (strings).
MATCH ()-[e:RELATES_TO]->()
WHERE e.uuid >= $lo AND e.uuid < $hi AND e.fact_embedding IS NOT NULL
RETURN e.uuid AS uuid, e.fact_embedding AS v, e.group_id AS group_id,
       e.created_at AS created_at, e.name AS name, e.fact AS fact
