// The $k Entity nodes nearest to $search_vector by the node vector index (approximate), nearest
// first. score is (1 + cosine) / 2. Parameters: $k (integer), $search_vector.
CALL db.index.vector.queryNodes('entity_name_embedding', $k, $search_vector)
YIELD node, score
RETURN node.uuid AS uuid, score
