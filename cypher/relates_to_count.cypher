// How many RELATES_TO edges this graph holds (the auto cosine stage's size test).
// Parameters: none.
MATCH ()-[e:RELATES_TO]->() RETURN count(e) AS n
