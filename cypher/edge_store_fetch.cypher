// Graphiti's fields of the RELATES_TO edges the exact vector store's stage returns, by uuid
// (/*returns*/ is graphiti-core's return clause). Parameters: $uuids (list of strings).
// (The uuid is matched on the relationship alone, where FalkorDB seeks its uuid index; with
// labelled end nodes in the pattern it scans the graph per uuid.)
MATCH ()-[e:RELATES_TO]->()
WHERE e.uuid IN $uuids
WITH e, startNode(e) AS n, endNode(e) AS m
WHERE n:Entity AND m:Entity
RETURN /*returns*/
