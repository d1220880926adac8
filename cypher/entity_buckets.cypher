// How many Entity nodes there are per uuid bucket (first $prefix characters).
// Parameters: $prefix (integer).
MATCH (n:Entity)
RETURN substring(n.uuid, 0, $prefix) AS bucket, count(n) AS n
