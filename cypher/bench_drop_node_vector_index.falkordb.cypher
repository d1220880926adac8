// Benchmarks only: drop the Entity.name_embedding vector index (to rebuild it with other HNSW
// parameters on a kept graph). Parameters: none.
DROP VECTOR INDEX FOR (n:Entity) ON (n.name_embedding)
