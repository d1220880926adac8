// The $k RELATES_TO edges nearest to $search_vector by the HNSW index (approximate), nearest
// first. score is the cosine distance (1 - cosine). Parameters: $k (integer), $search_vector.
CALL db.idx.vector.queryRelationships('RELATES_TO', 'fact_embedding', $k, vecf32($search_vector))
YIELD relationship, score
RETURN relationship.uuid AS uuid, score
