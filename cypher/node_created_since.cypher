// The Entity nodes created after $since (Graphiti's range index on created_at): what the
// exact vector store checks at each search for entities Graphiti wrote after it was built.
// Parameters: $since (a datetime; FalkorDB compares Graphiti's ISO strings).
MATCH (n:Entity)
WHERE n.created_at > $since
RETURN n.uuid AS uuid, n.created_at AS created_at
