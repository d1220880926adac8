// The $k RELATES_TO edges nearest to $search_vector by the vector index (approximate), then
// scored exactly and filtered as graphiti-core's edge_similarity_search does: its filter
// conditions, cosine expression and return clause are filled in from graphiti-core
// (/*filters*/, /*score*/, /*returns*/), their values being parameters too.
// Returns Graphiti's fields plus score, best first, equal scores by uuid (the documented tie key).
// Parameters: $k (integer), $search_vector, $min_score, $limit, and the parameters of
// graphiti-core's filters ($group_ids, $edge_types, $valid_at_0, ...).
CALL db.index.vector.queryRelationships('relates_to_fact_embedding', $k, $search_vector)
YIELD relationship AS e
WITH e, startNode(e) AS n, endNode(e) AS m
WHERE n:Entity AND m:Entity /*filters*/
WITH DISTINCT e, n, m, /*score*/ AS score
WHERE score > $min_score
RETURN /*returns*/, score
ORDER BY score DESC, uuid
LIMIT $limit
