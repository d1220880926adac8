// For each Entity with uuid in [$lo, $hi) (uses the Entity uuid index): its trust_score and the
// trust_score of every distinct RELATES_TO edge touching it that carries one (what `verify`
// compares, one uuid range per query). Parameters: $lo, $hi (strings).
MATCH (n:Entity)
WHERE n.uuid >= $lo AND n.uuid < $hi
OPTIONAL MATCH (n)-[r:RELATES_TO]-()
WHERE r.trust_score IS NOT NULL
WITH n, collect(DISTINCT r) AS rels
RETURN n.uuid AS uuid, n.trust_score AS trust_score, [x IN rels | x.trust_score] AS scores
