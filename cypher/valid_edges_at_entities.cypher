// The guard: the valid RELATES_TO edges (no invalid_at, no expired_at) with a valid_at touching
// the given entities, either direction: where the edge that superseded an invalidated one is
// looked for. Parameters: $uuids (list of strings: entity uuids).
MATCH (a:Entity)-[r:RELATES_TO]-(b)
WHERE a.uuid IN $uuids AND r.invalid_at IS NULL AND r.expired_at IS NULL AND r.valid_at IS NOT NULL
RETURN DISTINCT r.uuid AS uuid, r.name AS name, r.fact AS fact, r.valid_at AS valid_at,
       startNode(r).uuid AS source_uuid, endNode(r).uuid AS target_uuid
