// The guard: the RELATES_TO edges whose expired_at is at or after $since (an index range scan),
// with what the change check counts of each: expired (1: counted by edges_invalidated_summary),
// invalid (1: holds invalid_at as text), tag (the internal id modulo the same prime).
// Parameters: $since (the latest expired_at the previous read saw, as the graph stored it).
MATCH ()-[r:RELATES_TO]->()
WHERE r.expired_at >= $since
RETURN r.uuid AS uuid, 1 AS expired, CASE WHEN r.invalid_at >= '' THEN 1 ELSE 0 END AS invalid,
       id(r) % 1000003 AS tag
