// Range index on RELATES_TO.invalid_at (Graphiti creates the same one): the guard's change check
// (edges_invalidated_summary) counts the edges holding invalid_at from it. FalkorDB answers
// "already indexed" when it exists; the caller treats that as success. Parameters: none.
CREATE INDEX FOR ()-[r:RELATES_TO]-() ON (r.invalid_at)
