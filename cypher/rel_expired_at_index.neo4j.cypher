// Range index on RELATES_TO.expired_at (same name and schema as Graphiti's own, so it is a no-op
// when Graphiti created it): the guard's change check (edges_invalidated_summary) and its read of
// what was invalidated since the last run (edges_expired_since) use it. Idempotent.
// Parameters: none.
CREATE INDEX expired_at_edge_index IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.expired_at)
