// The stored name embeddings of the Entity nodes whose uuid is in [$lo, $hi) (a range scan of the
// uuid index): the exact scan a vector index's recall is measured against reads every entity
// range by range, and the exact
// vector store is built from (with each entity's group, creation time, name and summary). Parameters: $lo, $hi (strings).
MATCH (n:Entity)
WHERE n.uuid >= $lo AND n.uuid < $hi AND n.name_embedding IS NOT NULL
RETURN n.uuid AS uuid, n.name_embedding AS v, n.group_id AS group_id,
       n.created_at AS created_at, n.name AS name, n.summary AS summary
