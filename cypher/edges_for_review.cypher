// A review decision on an edge no candidate cites: each RELATES_TO edge by uuid with its fact,
// relation name, group and its endpoints' names (absent uuids: no row). Parameters: $uuids (list of strings).
MATCH (s:Entity)-[r:RELATES_TO]->(t:Entity)
WHERE r.uuid IN $uuids
RETURN r.uuid AS uuid, r.group_id AS group_id, s.name AS subject, r.name AS predicate, t.name AS object,
       r.fact AS fact
