// The $k Entity nodes nearest to $search_vector by the vector index (approximate), then
// scored exactly and filtered as graphiti-core's node_similarity_search does: its filter
// conditions, cosine expression and return clause are filled in from graphiti-core
// (/*filters*/, /*score*/, /*returns*/), their values being parameters too.
// Returns Graphiti's fields plus score, best first, equal scores by uuid (the documented tie key).
// Parameters: $k (integer), $search_vector, $min_score, $limit, and the parameters of
// graphiti-core's filters ($group_ids, ...).
CALL db.index.vector.queryNodes('entity_name_embedding', $k, $search_vector)
YIELD node AS n
WITH n
WHERE true /*filters*/
WITH n, /*score*/ AS score
WHERE score > $min_score
RETURN /*returns*/, score
ORDER BY score DESC, uuid
LIMIT $limit
