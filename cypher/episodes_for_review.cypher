// The review page's provenance: each Episodic node by uuid (absent uuids: no row) with what it says
// and where it came from. Parameters: $uuids (list of strings).
UNWIND $uuids AS u
MATCH (e:Episodic {uuid: u})
RETURN e.uuid AS uuid, e.group_id AS group_id, e.name AS name, e.source AS source,
       e.source_description AS source_description, e.content AS content, e.valid_at AS valid_at,
       e.created_at AS created_at
