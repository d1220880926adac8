// Relink: one page of RELATES_TO edges with their endpoint names, in uuid order (keyset paging).
// Parameters: $after (string: last uuid of the previous page, "" for the first page),
//             $group_ids (list of strings or null: only edges of these groups; null = all),
//             $limit (int: page size).
// Embeddings are not read here (see relink_edge_embeddings): a 100k-edge scan stays small.
// No labels on the endpoints on purpose: Graphiti's RELATES_TO always joins Entity nodes, and
// on FalkorDB `(s:Entity)` makes the planner label-scan every node per edge (100x slower).
MATCH (s)-[r:RELATES_TO]->(t)
WHERE r.uuid > $after AND ($group_ids IS NULL OR r.group_id IN $group_ids)
RETURN r.uuid AS uuid, r.group_id AS group_id, r.name AS name, r.fact AS fact,
       s.name AS source_name, t.name AS target_name
ORDER BY r.uuid
LIMIT $limit
