// Relationship vector index on RELATES_TO.fact_embedding (Neo4j 5.18+), cosine similarity, HNSW.
// Idempotent. efRuntime has no index setting in Neo4j (the query's k bounds the search).
// Parameters: $dimension, $m, $ef_construction (integers); $ef_runtime unused.
CREATE VECTOR INDEX relates_to_fact_embedding IF NOT EXISTS
FOR ()-[e:RELATES_TO]-() ON (e.fact_embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine',
                       `vector.hnsw.m`: $m, `vector.hnsw.ef_construction`: $ef_construction}}
