// The stored fact embeddings of the RELATES_TO edges leaving the nodes whose internal id is in
// [$lo, $hi) (FalkorDB seeks id ranges): the exact scan a vector index's recall is measured
// against reads every edge range by range, each once (by its source node), and the exact vector
// store is built from (with each edge's group, creation time, name and fact). Parameters: $lo, $hi (integers).
MATCH (n)
WHERE id(n) >= $lo AND id(n) < $hi
MATCH (n)-[e:RELATES_TO]->()
WHERE e.fact_embedding IS NOT NULL
RETURN e.uuid AS uuid, e.fact_embedding AS v, e.group_id AS group_id,
       e.created_at AS created_at, e.name AS name, e.fact AS fact
