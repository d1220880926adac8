// For each Entity uuid: its current trust properties and the trust_score of every distinct
// RELATES_TO edge touching it that carries one above 0 (a rejected or expired edge, scored 0,
// is no evidence for its entities; absent uuids: no row). Parameters: $uuids.
UNWIND $uuids AS u
MATCH (n:Entity {uuid: u})
OPTIONAL MATCH (n)-[r:RELATES_TO]-()
WHERE r.trust_score > 0
WITH u, n, collect(DISTINCT r) AS rels
RETURN u AS uuid, n.trust_score AS trust_score, n.trust_run_id AS trust_run_id,
       [x IN rels | x.trust_score] AS scores
