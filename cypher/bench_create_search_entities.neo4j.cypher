// Benchmarks only: create Entity nodes shaped like graphiti-core's save query, with a name
// embedding (the search benchmarks' graphs; bench/synth.py).
// Parameters: $nodes (list of maps {uuid, name, group_id, summary, created_at, name_embedding}).
UNWIND $nodes AS n
CREATE (e:Entity {uuid: n.uuid, name: n.name, group_id: n.group_id, labels: ['Entity'],
                  summary: n.summary, created_at: n.created_at, name_embedding: n.name_embedding})
