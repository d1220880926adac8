// The review queue's slots: one page of every RELATES_TO edge, in uuid order (keyset paging),
// with its subject, relation name, object, whether it is still valid, and its valid_at and
// created_at (the competitor order's stamp and the fact's age): the queue ranks every fact of the
// graph, the ones no search returned yet included, and groups them by subject and relation.
// No labels on the endpoints on purpose (see relink_edges_page: FalkorDB would label-scan).
// Parameters: $after (string: last uuid of the previous page, "" for the first page),
//             $limit (int: page size).
MATCH (s)-[o:RELATES_TO]->(t)
WHERE o.uuid > $after
RETURN o.uuid AS uuid, o.group_id AS group_id, s.uuid AS subject_uuid, o.name AS predicate, t.uuid AS object_uuid,
       t.name AS object, o.invalid_at IS NULL AND o.expired_at IS NULL AS valid, o.valid_at AS valid_at,
       o.created_at AS created_at
ORDER BY o.uuid
LIMIT $limit
