// HNSW vector index on Entity.name_embedding with cosine distance. FalkorDB answers
// "already indexed" when it exists; the caller treats that as success.
// Parameters: $dimension, $m, $ef_construction, $ef_runtime (integers).
CREATE VECTOR INDEX FOR (n:Entity) ON (n.name_embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine', M: $m,
         efConstruction: $ef_construction, efRuntime: $ef_runtime}
