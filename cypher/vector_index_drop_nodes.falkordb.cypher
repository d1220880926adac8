// Drop the HNSW vector index on Entity.name_embedding (graph-trust index rebuild; FalkorDB drops
// it in the background and lists it until done). An absent index is an error the caller treats
// as done. Parameters: none.
DROP VECTOR INDEX FOR (n:Entity) ON (n.name_embedding)
