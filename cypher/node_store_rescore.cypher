// The exact vector store's candidates (Entity nodes by uuid) scored again by graphiti-core's own
// cosine expression on their stored embedding and filtered by graphiti-core's own filter
// conditions: an entity deleted since the store was built is not found, a re-embedded one is
// scored by its current embedding. /*filters*/ and /*score*/ are graphiti-core's.
// Parameters: $uuids (list of strings), $search_vector, and the parameters of
// graphiti-core's filters ($group_ids, labels, ...).
// The filters are returned as a value (passes), not applied in WHERE: FalkorDB answers a
// WHERE on valid_at through its range index, which lets edges past a window's upper bound
// through; the caller keeps the rows that pass and score above $min_score.
UNWIND $uuids AS u
MATCH (n:Entity {uuid: u})
WITH DISTINCT n, /*score*/ AS score, (true /*filters*/) AS passes
RETURN n.uuid AS uuid, score, passes
