// One page of stored RELATES_TO.fact_embedding values (to read their dimensions; FalkorDB has
// no function giving a vector's length). Parameters: $skip, $limit (integers).
MATCH ()-[e:RELATES_TO]->() WHERE e.fact_embedding IS NOT NULL
RETURN e.fact_embedding AS v SKIP $skip LIMIT $limit
