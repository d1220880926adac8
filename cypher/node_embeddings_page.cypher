// One page of stored Entity.name_embedding values (to read their dimensions).
// Parameters: $skip, $limit (integers).
MATCH (n:Entity) WHERE n.name_embedding IS NOT NULL
RETURN n.name_embedding AS v SKIP $skip LIMIT $limit
