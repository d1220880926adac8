// Drop the Entity.name_embedding vector index (graph-trust index rebuild); a no-op when it does
// not exist. Parameters: none.
DROP INDEX entity_name_embedding IF EXISTS
