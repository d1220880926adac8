// The guard: invalid_at and expired_at of RELATES_TO edges by uuid, as stored (absent uuids: no
// row). Parameters: $uuids (list of strings).
MATCH ()-[r:RELATES_TO]->()
WHERE r.uuid IN $uuids
RETURN r.uuid AS uuid, r.invalid_at AS invalid_at, r.expired_at AS expired_at,
       startNode(r).uuid AS source_uuid, endNode(r).uuid AS target_uuid
