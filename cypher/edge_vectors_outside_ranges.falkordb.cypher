// Nothing lies outside the node id ranges of a full read (they run from 0 past the largest id):
// no rows, and how many edges hold a fact embedding (to check that the read saw every one).
// Parameters: $width, $hex (unused here; the neo4j dialect's uuid ranges need them).
MATCH ()-[e:RELATES_TO]->()
WHERE e.fact_embedding IS NOT NULL
RETURN [] AS rows, count(e) AS total
