// Vector indexes of this FalkorDB graph: one row per indexed label or relationship type, with
// the index type of each property, its options (dimension, similarityFunction, M, ...) and its
// status (OPERATIONAL, or UNDER CONSTRUCTION while FalkorDB fills a new index in the background).
// Parameters: none.
CALL db.indexes() YIELD label, types, entitytype, options, status
RETURN label, types, entitytype, options, status
