// Every RELATES_TO edge's uuid: the exact vector store compares them with its own when the
// graph's edge count is not the one it expects (edges deleted, or written with an older created_at).
// Parameters: none.
MATCH ()-[e:RELATES_TO]->()
RETURN e.uuid AS uuid
