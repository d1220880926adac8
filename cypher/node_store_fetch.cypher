// Graphiti's fields of the Entity nodes the exact vector store's stage returns, by uuid
// (/*returns*/ is graphiti-core's return clause). Parameters: $uuids (list of strings).
UNWIND $uuids AS u
MATCH (n:Entity {uuid: u})
RETURN /*returns*/
