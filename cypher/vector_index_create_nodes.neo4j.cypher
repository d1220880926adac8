// Node vector index on Entity.name_embedding (Neo4j 5), cosine similarity, HNSW. Idempotent.
// Parameters: $dimension, $m, $ef_construction (integers); $ef_runtime unused.
CREATE VECTOR INDEX entity_name_embedding IF NOT EXISTS
FOR (n:Entity) ON (n.name_embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine',
                       `vector.hnsw.m`: $m, `vector.hnsw.ef_construction`: $ef_construction}}
