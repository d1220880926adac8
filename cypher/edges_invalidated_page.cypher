// The guard: one page of the uuids of RELATES_TO edges Graphiti invalidated (invalid_at or
// expired_at set), in uuid order (keyset paging). Only the uuid: the few the review DB vouches for
// are read in full afterwards (edge_validity_read), so reading every invalidated edge stays cheap.
// Parameters: $after (string: last uuid of the previous page, "" for the first), $limit (int).
MATCH ()-[r:RELATES_TO]->()
WHERE r.uuid > $after AND (r.invalid_at IS NOT NULL OR r.expired_at IS NOT NULL)
RETURN r.uuid AS uuid
ORDER BY r.uuid
LIMIT $limit
