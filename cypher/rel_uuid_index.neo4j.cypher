// Range index on RELATES_TO.uuid (same name and schema as Graphiti's own, so it is a no-op when
// Graphiti created it). Without it every sync lookup scans all relationships. Idempotent.
// Parameters: none.
CREATE INDEX relation_uuid IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.uuid)
