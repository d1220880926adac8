// Range index on RELATES_TO.invalid_at (same name and schema as Graphiti's own, so it is a no-op
// when Graphiti created it): the guard's change check (edges_invalidated_summary) counts the
// edges holding invalid_at from it. Idempotent. Parameters: none.
CREATE INDEX invalid_at_edge_index IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.invalid_at)
