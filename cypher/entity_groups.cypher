// The distinct group_id values of Graphiti entities (Neo4j keeps all groups in one database).
// Parameters: none.
MATCH (n:Entity) WHERE n.group_id IS NOT NULL RETURN DISTINCT n.group_id AS group_id ORDER BY group_id
