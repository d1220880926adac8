// The guard's change check, from the expired_at and invalid_at range indexes (no scan of every
// edge): how many RELATES_TO edges hold expired_at, the sum of their tags (the edge's internal id
// modulo a prime: which edges they are, so one made valid again and another invalidated between
// two runs still moves it), the latest expired_at, and how many hold invalid_at. A normal run
// compares these with the same figures of the invalidated edges the state store knows, and reads
// the graph only when they differ. FalkorDB keeps Graphiti's datetimes as ISO text: `>= ''` (the
// least text) is the index range holding every one of them. Parameters: none.
MATCH ()-[r:RELATES_TO]->()
WHERE r.expired_at >= ''
WITH count(r) AS expired, sum(id(r) % 1000003) AS tag_sum, max(r.expired_at) AS latest
OPTIONAL MATCH ()-[v:RELATES_TO]->()
WHERE v.invalid_at >= ''
RETURN expired, tag_sum, latest, count(v) AS invalid
