// The stored fact embeddings of the RELATES_TO edges a read by hex uuid prefixes misses: those
// whose uuid does not start with $width hex characters (or has none), and how many edges hold an
// embedding at all (to check that the read saw every one). Parameters: $width (integer), $hex
// (list of the 16 lowercase hex characters).
MATCH ()-[e:RELATES_TO]->()
WHERE e.fact_embedding IS NOT NULL
WITH e, e.uuid IS NULL OR NOT all(i IN range(0, $width - 1) WHERE substring(e.uuid, i, 1) IN $hex) AS outside
WITH collect(CASE WHEN outside THEN {uuid: e.uuid, v: e.fact_embedding, group_id: e.group_id,
                             created_at: e.created_at, name: e.name, fact: e.fact} END) AS rows, count(e) AS total
RETURN rows, total
