// The largest internal node id of the graph (null when it has no node): where FalkorDB's node id
// ranges of a full read end. Parameters: none.
MATCH (n) RETURN max(id(n)) AS n
