// The guard: one page of the RELATES_TO edges Graphiti invalidated (invalid_at or expired_at set),
// in uuid order (keyset paging), with what the change check counts of each (see
// edges_invalidated_summary): expired and invalid (1: the value is counted there; FalkorDB keeps
// Graphiti's datetimes as ISO text) and tag (the internal id modulo the same prime). Only these: the few edges
// the review DB vouches for are read in full afterwards (edge_validity_read).
// Parameters: $after (string: last uuid of the previous page, "" for the first), $limit (int).
MATCH ()-[r:RELATES_TO]->()
WHERE r.uuid > $after AND (r.invalid_at IS NOT NULL OR r.expired_at IS NOT NULL)
RETURN r.uuid AS uuid, CASE WHEN r.expired_at >= '' THEN 1 ELSE 0 END AS expired,
       CASE WHEN r.invalid_at >= '' THEN 1 ELSE 0 END AS invalid, id(r) % 1000003 AS tag
ORDER BY r.uuid
LIMIT $limit
