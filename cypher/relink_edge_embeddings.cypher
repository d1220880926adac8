// Relink: the fact embeddings of the given RELATES_TO edges (only the few that need scoring).
// Parameters: $uuids (list of strings: edge uuids).
UNWIND $uuids AS u
MATCH ()-[r:RELATES_TO {uuid: u}]->()
RETURN r.uuid AS uuid, r.fact_embedding AS embedding
