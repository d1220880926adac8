// Names of the indexes that exist (Neo4j 5; ArcadeDB's Bolt endpoint answers it too).
// Parameters: none.
SHOW INDEXES YIELD name RETURN name
