// This graph's trust-state token (no row before the first write of trust state).
// Parameters: $marker (text, the marker's name).
MATCH (m:GraphTrustState {name: $marker})
RETURN m.token AS token
