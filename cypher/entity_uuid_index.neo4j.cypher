// Range index on Entity.uuid (same name and schema as Graphiti's own). Idempotent.
// Parameters: none.
CREATE INDEX entity_uuid IF NOT EXISTS FOR (n:Entity) ON (n.uuid)
