// graph-trust eval --review-budget: rewrite RELATES_TO edges by uuid, in the order given, so every
// compared graph re-indexed the same edges in the same order after its sync (FalkorDB's fulltext
// index gives a rewritten edge a new place among equal BM25 scores). Sets only eval_touched.
// Parameters: $uuids (list of strings, the order to rewrite in), $n (integer, stored).
UNWIND $uuids AS u
MATCH ()-[e:RELATES_TO {uuid: u}]->()
SET e.eval_touched = $n
RETURN count(e) AS matched
