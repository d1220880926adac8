// The RELATES_TO edges created after $since (Graphiti's range index on created_at): what
// the exact vector store checks at each search for edges Graphiti wrote after it was built.
// Parameters: $since (a datetime; FalkorDB compares Graphiti's ISO strings).
MATCH ()-[e:RELATES_TO]->()
WHERE e.created_at > $since
RETURN e.uuid AS uuid, e.created_at AS created_at
