// A review decision on an edge no candidate cites: each RELATES_TO edge by uuid with its fact,
// relation name, group and its endpoints' names (absent uuids: no row; one indexed look-up per uuid).
// Parameters: $uuids (list of strings).
UNWIND $uuids AS u
MATCH ()-[r:RELATES_TO {uuid: u}]->()
RETURN r.uuid AS uuid, r.group_id AS group_id, startNode(r).name AS subject, r.name AS predicate,
       endNode(r).name AS object, r.fact AS fact
