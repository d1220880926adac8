// Nothing lies outside the node id ranges of a full read (they run from 0 past the largest id):
// no rows, and how many entities hold a name embedding (to check that the read saw every one).
// Parameters: $width, $hex (unused here; the neo4j dialect's uuid ranges need them).
MATCH (n:Entity)
WHERE n.name_embedding IS NOT NULL
RETURN [] AS rows, count(n) AS total
