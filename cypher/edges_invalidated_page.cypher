// The guard: one page of RELATES_TO edges Graphiti invalidated (invalid_at or expired_at set), in
// uuid order (keyset paging), with their endpoints. Values come back as the graph stores them
// (FalkorDB: ISO strings; Neo4j: DateTime).
// Parameters: $after (string: last uuid of the previous page, "" for the first), $limit (int).
MATCH (s)-[r:RELATES_TO]->(t)
WHERE r.uuid > $after AND (r.invalid_at IS NOT NULL OR r.expired_at IS NOT NULL)
RETURN r.uuid AS uuid, r.group_id AS group_id, r.name AS name, r.fact AS fact,
       r.invalid_at AS invalid_at, r.expired_at AS expired_at,
       s.uuid AS source_uuid, t.uuid AS target_uuid
ORDER BY r.uuid
LIMIT $limit
