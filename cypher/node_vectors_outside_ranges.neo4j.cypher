// The stored name embeddings of the Entity nodes a read by hex uuid prefixes misses: those whose
// uuid does not start with $width hex characters (or has none), and how many entities hold an
// embedding at all (to check that the read saw every one). Parameters: $width (integer), $hex
// (list of the 16 lowercase hex characters).
MATCH (n:Entity)
WHERE n.name_embedding IS NOT NULL
WITH n, n.uuid IS NULL OR NOT all(i IN range(0, $width - 1) WHERE substring(n.uuid, i, 1) IN $hex) AS outside
WITH collect(CASE WHEN outside THEN {uuid: n.uuid, v: n.name_embedding, group_id: n.group_id,
                             created_at: n.created_at, name: n.name, summary: n.summary} END) AS rows, count(n) AS total
RETURN rows, total
