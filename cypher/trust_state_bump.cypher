// Replace this graph's trust-state token (one GraphTrustState node per graph): run after every
// write of trust state (graph_trust.graph.trust_state), so a cache keyed on the token never
// serves an answer computed before the write.
// Parameters: $marker (text, the marker's name), $token (text, fresh for each write), $at (ISO-8601 text).
MERGE (m:GraphTrustState {name: $marker})
SET m.token = $token, m.updated_at = $at
RETURN m.token AS token
