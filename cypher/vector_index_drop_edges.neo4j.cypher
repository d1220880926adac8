// Drop the RELATES_TO.fact_embedding vector index (graph-trust index rebuild); a no-op when it
// does not exist. Parameters: none.
DROP INDEX relates_to_fact_embedding IF EXISTS
