// Does this graph hold any Graphiti entity? Used to list groups (FalkorDB: one graph per group).
// Parameters: none.
MATCH (n:Entity) RETURN 1 AS found LIMIT 1
