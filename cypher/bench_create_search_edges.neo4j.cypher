// Benchmarks only: create RELATES_TO edges shaped like graphiti-core's FalkorDB save query, with
// a fact embedding and, where given, a trust_score (the search benchmarks' graphs; bench/synth.py).
// Parameters: $edges (list of maps {uuid, source_uuid, target_uuid, name, fact, group_id,
// created_at, fact_embedding, trust_score (null: none)}).
UNWIND $edges AS e
MATCH (s:Entity {uuid: e.source_uuid})
MATCH (t:Entity {uuid: e.target_uuid})
CREATE (s)-[r:RELATES_TO {uuid: e.uuid, name: e.name, fact: e.fact, group_id: e.group_id, episodes: [],
                          created_at: e.created_at, valid_at: e.created_at,
                          fact_embedding: e.fact_embedding}]->(t)
SET r.trust_score = e.trust_score
