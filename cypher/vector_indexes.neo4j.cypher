// Vector indexes (Neo4j 5): name, the label or relationship type and property each covers, its
// options, its state (ONLINE once populated) and how far it is populated. ArcadeDB's Bolt
// endpoint rejects this statement (it has no such indexes). Parameters: none.
SHOW VECTOR INDEXES YIELD name, entityType, labelsOrTypes, properties, options, state, populationPercent
RETURN name, entityType, labelsOrTypes, properties, options, state, populationPercent
