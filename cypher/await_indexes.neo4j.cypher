// Wait (up to $timeout_s seconds) until every index is online, so a vector index just created
// answers the first search. Neo4j only. Parameters: $timeout_s (integer).
CALL db.awaitIndexes($timeout_s)
