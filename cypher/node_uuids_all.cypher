// Every Entity node's uuid: the exact vector store compares them with its own when the graph's
// entity count is not the one it expects (entities deleted, or written with an older created_at).
// Parameters: none.
MATCH (n:Entity)
RETURN n.uuid AS uuid
