// Benchmarks only: create RELATES_TO edges shaped like graphiti-core's FalkorDB save query
// (uuid, name, fact, group_id, episodes, created_at, valid_at; fact_embedding as vecf32, left
// out when null: the sync benchmark does not read embeddings).
// Parameters: $edges (list of maps {uuid, source_uuid, target_uuid, name, fact, group_id,
// created_at, fact_embedding}).
UNWIND $edges AS e
MATCH (s:Entity {uuid: e.source_uuid})
MATCH (t:Entity {uuid: e.target_uuid})
CREATE (s)-[r:RELATES_TO {uuid: e.uuid, name: e.name, fact: e.fact, group_id: e.group_id,
                          episodes: [], created_at: e.created_at, valid_at: e.created_at}]->(t)
FOREACH (v IN CASE WHEN e.fact_embedding IS NULL THEN [] ELSE [e.fact_embedding] END |
    SET r.fact_embedding = vecf32(v))
