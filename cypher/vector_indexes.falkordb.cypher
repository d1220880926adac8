// Vector indexes of this FalkorDB graph: one row per indexed label or relationship type, with
// the index type of each property and its options (dimension, similarityFunction, M, ...).
// Parameters: none.
CALL db.indexes() YIELD label, types, entitytype, options
RETURN label, types, entitytype, options
