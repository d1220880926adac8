// Exact cosine score of the given Entity nodes, on graphiti-core's scale and with its group and
// min-score filters (as its node_similarity_search computes them), best first.
// Parameters: $uuids (list), $group_ids (list or null), $search_vector, $min_score.
UNWIND $uuids AS u
MATCH (n:Entity {uuid: u})
WHERE $group_ids IS NULL OR n.group_id IN $group_ids
WITH n, (2 - vec.cosineDistance(n.name_embedding, vecf32($search_vector))) / 2 AS score
WHERE score > $min_score
RETURN n.uuid AS uuid, labels(n) AS labels, score
ORDER BY score DESC
