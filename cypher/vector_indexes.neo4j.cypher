// Vector indexes (Neo4j 5): name, the label or relationship type and property each covers, and
// its options. ArcadeDB's Bolt endpoint rejects this statement (it has no such indexes).
// Parameters: none.
SHOW VECTOR INDEXES YIELD name, entityType, labelsOrTypes, properties, options
RETURN name, entityType, labelsOrTypes, properties, options
