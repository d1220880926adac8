// The review queue's slots: for RELATES_TO edges by uuid (one indexed look-up each), every edge
// leaving their subject entities (them included), with its relation name, its object, whether it
// is still valid, and its valid_at and created_at (the competitor order's stamp): the
// contested-slot rule groups them by subject and relation.
// Parameters: $uuids (list of strings).
UNWIND $uuids AS u
MATCH (s)-[e:RELATES_TO {uuid: u}]->()
WITH DISTINCT s
MATCH (s)-[o:RELATES_TO]->(t)
RETURN o.uuid AS uuid, o.group_id AS group_id, s.uuid AS subject_uuid, o.name AS predicate, t.uuid AS object_uuid,
       t.name AS object, o.invalid_at IS NULL AND o.expired_at IS NULL AS valid, o.valid_at AS valid_at,
       o.created_at AS created_at
