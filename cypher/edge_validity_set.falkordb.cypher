// The guard: set invalid_at and expired_at of RELATES_TO edges matched by uuid (a null value
// removes the property; a restore writes nulls, a rollback the values read before it).
// FalkorDB: UNWIND over the rows, each looked up through the uuid index; both properties are
// removed first, then set (see edge_trust_set: one SET mixing nulls and values goes wrong).
// Parameters: $rows, a list of maps {uuid, invalid_at, expired_at}. Returns matched.
UNWIND $rows AS row
MATCH ()-[r:RELATES_TO {uuid: row.uuid}]->()
REMOVE r.invalid_at, r.expired_at
SET r.invalid_at = row.invalid_at,
    r.expired_at = row.expired_at
RETURN count(r) AS matched
