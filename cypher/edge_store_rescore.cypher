// The exact vector store's candidates (RELATES_TO edges by uuid) scored again by graphiti-core's
// own cosine expression on their stored embedding and filtered by graphiti-core's own filter
// conditions: an edge deleted since the store was built is not found, a re-embedded one is scored
// by its current embedding. /*filters*/ and /*score*/ are graphiti-core's.
// Parameters: $uuids (list of strings), $search_vector, and the parameters of graphiti-core's
// filters. The filters are returned as a value (passes), not applied in WHERE: FalkorDB answers a
// WHERE on valid_at through its range index, which lets edges past a window's upper bound
// through; the caller keeps the rows that pass and score above $min_score.
// (The uuid is matched on the relationship alone, where FalkorDB seeks its uuid index; with
// labelled end nodes in the pattern it scans the graph per uuid.)
MATCH ()-[e:RELATES_TO]->()
WHERE e.uuid IN $uuids
WITH e, startNode(e) AS n, endNode(e) AS m
WHERE n:Entity AND m:Entity
WITH DISTINCT e, n, m, /*score*/ AS score, (true /*filters*/) AS passes
RETURN e.uuid AS uuid, score, passes
