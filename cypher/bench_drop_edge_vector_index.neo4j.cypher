// Benchmarks only: drop the RELATES_TO.fact_embedding vector index (to rebuild it with other HNSW
// parameters on a kept graph). Parameters: none.
DROP INDEX relates_to_fact_embedding IF EXISTS
