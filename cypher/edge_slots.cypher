// The review queue's contested slots: for RELATES_TO edges by uuid (one indexed look-up each), every
// edge (them included) leaving the same subject entity with the same relation name, with its object
// and whether it is still valid. Parameters: $uuids (list of strings).
UNWIND $uuids AS u
MATCH ()-[e:RELATES_TO {uuid: u}]->()
WITH DISTINCT startNode(e) AS s, e.name AS rel
MATCH (s)-[o:RELATES_TO]->(t)
WHERE o.name = rel
RETURN o.uuid AS uuid, o.group_id AS group_id, s.uuid AS subject_uuid, rel AS predicate, t.uuid AS object_uuid,
       t.name AS object, o.invalid_at IS NULL AND o.expired_at IS NULL AS valid
