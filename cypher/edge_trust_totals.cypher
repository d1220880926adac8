// Whole-graph totals of the edges sync owns (carrying trust_score or trust_run_id: a labels-only
// edge has no score), one row per distinct combination of the
// text properties sync owns: how many edges hold it and the sum of their trust_score. A normal
// run compares these with the state store's copy and drills down to per-bucket checksums
// (edge_trust_checksums) only when they differ. Parameters: none.
MATCH ()-[r:RELATES_TO]->()
WHERE r.trust_score IS NOT NULL OR r.trust_run_id IS NOT NULL
RETURN r.trust_status AS trust_status, r.memory_type AS memory_type, r.sensitivity AS sensitivity,
       r.scope AS scope, count(r) AS n, sum(r.trust_score) AS score_sum
