// The guard's change check, from the expired_at and invalid_at range indexes (no scan of every
// edge): how many RELATES_TO edges hold expired_at, the sum of their tags (the length of the
// edge's fact: Neo4j 5 deprecates the internal id()), the latest expired_at, and how many hold
// invalid_at. A normal run compares these with the same figures of the invalidated edges the
// state store knows, and reads the graph only when they differ. Parameters: none.
MATCH ()-[r:RELATES_TO]->()
WHERE r.expired_at IS NOT NULL
WITH count(r) AS expired, sum(size(r.fact)) AS tag_sum, max(r.expired_at) AS latest
OPTIONAL MATCH ()-[v:RELATES_TO]->()
WHERE v.invalid_at IS NOT NULL
RETURN expired, tag_sum, latest, count(v) AS invalid
