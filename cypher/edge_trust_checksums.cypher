// Per-bucket checksums of the edges carrying trust_score (bucket = first $prefix characters of
// the uuid). Compared with the state store's copy to find drift without reading every edge.
// Parameters: $prefix (integer).
MATCH ()-[r:RELATES_TO]->()
WHERE r.trust_score IS NOT NULL
RETURN substring(r.uuid, 0, $prefix) AS bucket, count(r) AS n, sum(r.trust_score) AS score_sum,
       sum(size(coalesce(r.trust_status, '')) + size(coalesce(r.memory_type, ''))
           + size(coalesce(r.sensitivity, '')) + size(coalesce(r.scope, ''))) AS text_len
