// Range index on Entity.uuid ("already indexed" when it exists is success). Parameters: none.
CREATE INDEX FOR (n:Entity) ON (n.uuid)
