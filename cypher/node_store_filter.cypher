// Which of the given Entity nodes (the BM25 candidates graph-trust ranks itself) still exist and
// pass graphiti-core's own filter conditions (/*filters*/), returned as a value (passes).
// Parameters: $uuids (list of strings) and the parameters of graphiti-core's filters
// ($group_ids, node labels, ...).
UNWIND $uuids AS u
MATCH (n:Entity {uuid: u})
WITH DISTINCT n, (true /*filters*/) AS passes
RETURN n.uuid AS uuid, passes
