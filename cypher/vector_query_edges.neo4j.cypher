// The $k RELATES_TO edges nearest to $search_vector by the relationship vector index
// (approximate), nearest first. score is (1 + cosine) / 2. Parameters: $k, $search_vector.
CALL db.index.vector.queryRelationships('relates_to_fact_embedding', $k, $search_vector)
YIELD relationship, score
RETURN relationship.uuid AS uuid, score
