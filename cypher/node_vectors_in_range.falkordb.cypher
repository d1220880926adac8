// The stored name embeddings of the Entity nodes whose internal id is in [$lo, $hi) (FalkorDB
// seeks id ranges): the exact scan a vector index's recall is measured against reads every entity
// range by range. Parameters: $lo, $hi (integers).
MATCH (n:Entity)
WHERE id(n) >= $lo AND id(n) < $hi AND n.name_embedding IS NOT NULL
RETURN n.uuid AS uuid, n.name_embedding AS v
