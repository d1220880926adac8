// The stored name embeddings (with group, creation time, name and summary) of the Entity nodes
// with the given uuids: the exact vector store adds entities written after it was built.
// Parameters: $uuids (list of strings).
UNWIND $uuids AS u
MATCH (n:Entity {uuid: u})
RETURN n.uuid AS uuid, n.group_id AS group_id, n.created_at AS created_at, n.name_embedding AS v,
       n.name AS name, n.summary AS summary
