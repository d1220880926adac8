// What review decided, as slot rows: for every RELATES_TO edge whose trust_status is one of
// $statuses (sync writes the review DB's status there), its subject entity, relation name, target
// entity and status, and the two entities' names. Which relations hold one value is learned from these (graph_trust.search.slots).
// Parameters: $statuses (list of strings: the verified and rejected statuses).
MATCH (s)-[e:RELATES_TO]->(t)
WHERE e.trust_status IN $statuses
RETURN s.uuid AS subject, e.name AS relation, t.uuid AS object, e.trust_status AS status,
       s.name AS subject_name, t.name AS object_name
