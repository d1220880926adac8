// The stored name embeddings of the Entity nodes whose internal id is in [$lo, $hi) (FalkorDB
// seeks id ranges): the exact scan a vector index's recall is measured against reads every entity
// range by range, and the exact
// vector store is built from (with each entity's group, creation time, name and summary). Parameters: $lo, $hi (integers).
MATCH (n:Entity)
WHERE id(n) >= $lo AND id(n) < $hi AND n.name_embedding IS NOT NULL
RETURN n.uuid AS uuid, n.name_embedding AS v, n.group_id AS group_id,
       n.created_at AS created_at, n.name AS name, n.summary AS summary
