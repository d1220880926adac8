// Range index on RELATES_TO.uuid. FalkorDB answers "already indexed" when it exists; the caller
// treats that as success. Parameters: none.
CREATE INDEX FOR ()-[r:RELATES_TO]-() ON (r.uuid)
