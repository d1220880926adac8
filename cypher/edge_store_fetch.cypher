// Graphiti's fields of the RELATES_TO edges the exact vector store's stage returns, by uuid
// (/*returns*/ is graphiti-core's return clause). Parameters: $uuids (list of strings).
UNWIND $uuids AS u
MATCH (n:Entity)-[e:RELATES_TO {uuid: u}]->(m:Entity)
RETURN /*returns*/
