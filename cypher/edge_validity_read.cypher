// The guard: invalid_at and expired_at of RELATES_TO edges by uuid, as stored, with what a report
// shows of the edge (absent uuids: no row). Parameters: $uuids (list of strings).
MATCH ()-[r:RELATES_TO]->()
WHERE r.uuid IN $uuids
RETURN r.uuid AS uuid, r.invalid_at AS invalid_at, r.expired_at AS expired_at,
       startNode(r).uuid AS source_uuid, endNode(r).uuid AS target_uuid,
       r.group_id AS group_id, r.name AS name, r.fact AS fact
