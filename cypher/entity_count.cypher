// How many Entity nodes this graph holds (the auto cosine stage's size test).
// Parameters: none.
MATCH (n:Entity) RETURN count(n) AS n
