// Benchmarks only: drop the RELATES_TO.fact_embedding vector index (to rebuild it with other HNSW
// parameters on a kept graph). Parameters: none.
DROP VECTOR INDEX FOR ()-[e:RELATES_TO]-() ON (e.fact_embedding)
