// Entity uuids in [$lo, $hi) (uses the Entity uuid index). Parameters: $lo, $hi (strings).
MATCH (n:Entity)
WHERE n.uuid >= $lo AND n.uuid < $hi
RETURN n.uuid AS uuid
