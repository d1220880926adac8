// Benchmarks only: drop the Entity.name_embedding vector index (to rebuild it with other HNSW
// parameters on a kept graph). Parameters: none.
DROP INDEX entity_name_embedding IF EXISTS
