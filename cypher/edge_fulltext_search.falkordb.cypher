// graphiti-core's BM25 search over facts (edge_fulltext_search), with the best $limit rows taken
// before graphiti-core's return clause builds their fields instead of after: the same rows reach
// the same sort in the same order, so the result is the same, without building the fields (the
// whole property map, embedding included) of every match. /*filters*/ and /*returns*/ are
// graphiti-core's. Parameters: $query (graphiti-core's fulltext query), $limit, $group_ids and
// the parameters of graphiti-core's filters ($edge_types, $valid_at_0, ...).
CALL db.idx.fulltext.queryRelationships('RELATES_TO', $query)
YIELD relationship AS rel, score
WITH rel AS e, score, startNode(rel) AS n, endNode(rel) AS m
WHERE n:Entity AND m:Entity /*filters*/
WITH e, score, n, m
ORDER BY score DESC
LIMIT $limit
RETURN /*returns*/
