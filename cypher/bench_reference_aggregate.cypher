// Benchmarks only: the reference design's entity aggregation (seeds/002) as one statement, with
// no journal and no incremental path: every Entity with a RELATES_TO edge carrying trust gets
// trust_score = the max of those edges' trust_score. Parameters: none.
MATCH (n:Entity)-[r:RELATES_TO]-()
WHERE r.trust_score IS NOT NULL
WITH n, max(r.trust_score) AS max_trust
SET n.trust_score = max_trust
