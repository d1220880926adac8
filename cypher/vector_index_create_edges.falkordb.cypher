// HNSW vector index on RELATES_TO.fact_embedding with cosine distance. FalkorDB answers
// "already indexed" when it exists; the caller treats that as success.
// Parameters: $dimension, $m, $ef_construction, $ef_runtime (integers).
CREATE VECTOR INDEX FOR ()-[e:RELATES_TO]-() ON (e.fact_embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine', M: $m,
         efConstruction: $ef_construction, efRuntime: $ef_runtime}
