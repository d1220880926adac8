// Labels and types of the indexes that exist in this FalkorDB graph (FalkorDB indexes are unnamed).
// Parameters: none.
CALL db.indexes() YIELD label, properties, types, entitytype RETURN label, properties, types, entitytype
