// Benchmarks only: every RELATES_TO edge's uuid and fact embedding (the exact numpy scan that
// recall is measured against). Parameters: none.
MATCH ()-[e:RELATES_TO]->() WHERE e.fact_embedding IS NOT NULL
RETURN e.uuid AS uuid, e.fact_embedding AS v
