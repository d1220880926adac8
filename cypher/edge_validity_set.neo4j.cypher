// The guard: set invalid_at and expired_at of RELATES_TO edges matched by uuid (a null value
// removes the property; a restore writes nulls, a rollback the values read before it, DateTime
// values as DateTime). Bolt servers: one index lookup for the whole list, values by uuid.
// Parameters: $uuids (list of strings), $by_uuid (map uuid -> {invalid_at, expired_at}).
// Returns matched.
MATCH ()-[r:RELATES_TO]->()
WHERE r.uuid IN $uuids
WITH r, $by_uuid[r.uuid] AS row
SET r.invalid_at = row.invalid_at,
    r.expired_at = row.expired_at
RETURN count(r) AS matched
