// Range index on RELATES_TO.expired_at (Graphiti creates the same one): the guard's change check
// (edges_invalidated_summary) and its read of what was invalidated since the last run
// (edges_expired_since) are index range scans. FalkorDB answers "already indexed" when it
// exists; the caller treats that as success. Parameters: none.
CREATE INDEX FOR ()-[r:RELATES_TO]-() ON (r.expired_at)
