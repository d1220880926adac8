// Per-bucket checksums of the edges sync owns, those carrying trust_score or trust_run_id (a
// labels-only edge counts with no score) (bucket = first $prefix characters of
// the uuid): one row per bucket and distinct combination of the owned text properties, with how
// many edges hold it and the sum of their trust_score. Compared with the state store's copy to
// find the buckets that drifted without reading every edge. Parameters: $prefix (integer).
MATCH ()-[r:RELATES_TO]->()
WHERE r.trust_score IS NOT NULL OR r.trust_run_id IS NOT NULL
RETURN substring(r.uuid, 0, $prefix) AS bucket, r.trust_status AS trust_status, r.memory_type AS memory_type,
       r.sensitivity AS sensitivity, r.scope AS scope, count(r) AS n, sum(r.trust_score) AS score_sum
