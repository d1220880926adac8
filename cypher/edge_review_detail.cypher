// The review page's fact: each RELATES_TO edge by uuid (one indexed look-up each; absent uuids: no
// row) with its endpoints, relation, fact, the episodes it came from (uuids), its times and its trust.
// Parameters: $uuids (list of strings).
UNWIND $uuids AS u
MATCH (s)-[r:RELATES_TO {uuid: u}]->(t)
RETURN r.uuid AS uuid, r.group_id AS group_id, s.uuid AS subject_uuid, s.name AS subject, r.name AS predicate,
       t.uuid AS object_uuid, t.name AS object, r.fact AS fact, r.episodes AS episodes, r.created_at AS created_at,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.expired_at AS expired_at,
       r.trust_score AS trust_score, r.trust_status AS trust_status
