// Benchmarks only: create Entity nodes shaped like graphiti-core's (uuid, name, group_id,
// labels, summary, created_at; no name_embedding: relink does not read it).
// Parameters: $nodes (list of maps {uuid, name, group_id, summary, created_at}).
UNWIND $nodes AS n
CREATE (e:Entity {uuid: n.uuid, name: n.name, group_id: n.group_id, labels: ['Entity'],
                  summary: n.summary, created_at: n.created_at})
