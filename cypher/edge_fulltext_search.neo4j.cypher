// graphiti-core's BM25 search over facts (edge_fulltext_search), with the best $limit rows taken
// before graphiti-core's return clause builds their fields instead of after: the same rows reach
// the same sort in the same order, so the result is the same. /*filters*/ and /*returns*/ are
// graphiti-core's. Parameters: $query (graphiti-core's fulltext query), $limit, $group_ids and
// the parameters of graphiti-core's filters ($edge_types, $valid_at_0, ...).
CALL db.index.fulltext.queryRelationships("edge_name_and_fact", $query, {limit: $limit})
YIELD relationship AS rel, score
MATCH (n:Entity)-[e:RELATES_TO {uuid: rel.uuid}]->(m:Entity)
WHERE true /*filters*/
WITH e, score, n, m
ORDER BY score DESC
LIMIT $limit
RETURN /*returns*/
