// Which of the given RELATES_TO edges (the BM25 candidates graph-trust ranks itself) still exist
// and pass graphiti-core's own filter conditions (/*filters*/), returned as a value (passes):
// FalkorDB answers a WHERE on valid_at through its range index, which lets edges past a window's
// upper bound through. Parameters: $uuids (list of strings) and the parameters of graphiti-core's
// filters ($group_ids, $edge_types, $valid_at_0, ...).
// (The uuid is matched on the relationship alone, where FalkorDB seeks its uuid index; with
// labelled end nodes in the pattern it scans the graph per uuid.)
MATCH ()-[e:RELATES_TO]->()
WHERE e.uuid IN $uuids
WITH e, startNode(e) AS n, endNode(e) AS m
WHERE n:Entity AND m:Entity
WITH DISTINCT e, n, m, (true /*filters*/) AS passes
RETURN e.uuid AS uuid, passes
