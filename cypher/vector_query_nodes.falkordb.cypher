// The $k Entity nodes nearest to $search_vector by the HNSW index (approximate), nearest first.
// score is the cosine distance (1 - cosine). Parameters: $k (integer), $search_vector.
CALL db.idx.vector.queryNodes('Entity', 'name_embedding', $k, vecf32($search_vector))
YIELD node, score
RETURN node.uuid AS uuid, score
