// The stored fact embeddings (with group, creation time, name and fact) of the RELATES_TO edges with the
// given uuids: the exact vector store adds edges written after it was built.
// Parameters: $uuids (list of strings).
UNWIND $uuids AS u
MATCH ()-[e:RELATES_TO {uuid: u}]->()
RETURN e.uuid AS uuid, e.group_id AS group_id, e.created_at AS created_at, e.fact_embedding AS v,
       e.name AS name, e.fact AS fact
