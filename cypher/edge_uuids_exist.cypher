// Which of the given uuids belong to an existing RELATES_TO edge (uses the relationship uuid index).
// Parameters: $uuids (list of strings).
UNWIND $uuids AS u
MATCH ()-[r:RELATES_TO {uuid: u}]->()
RETURN DISTINCT r.uuid AS uuid
