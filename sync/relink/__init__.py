"""``graph-trust relink``: point orphaned review candidates back at edges after a migration.

Modules, one job each: :mod:`~graph_trust.sync.relink.command` (the run: find orphans, read the
groups' edges, match, write), :mod:`~graph_trust.sync.relink.matching` (the pure matching core),
:mod:`~graph_trust.sync.relink.text_index` (BM25), :mod:`~graph_trust.sync.relink.graph_read`
(the graph reads), :mod:`~graph_trust.sync.relink.embedding_check` (may stored vectors be
compared?), :mod:`~graph_trust.sync.relink.report`, :mod:`~graph_trust.sync.relink.evidence_json`
(the one-field rewrite) and :mod:`~graph_trust.sync.relink.store` (the review-DB write, its
journal in the state store, and rollback). See docs/relink.md.
"""

from graph_trust.sync.relink.command import CHUNK, MatchOptions, match_all, relink, rollback_relink
from graph_trust.sync.relink.embedding_check import PROBE_MIN_COSINE, PROBE_SAMPLE, EmbeddingCheck, graphiti_text
from graph_trust.sync.relink.evidence_json import relinked_evidence_json
from graph_trust.sync.relink.graph_read import (
           EXISTS_BATCH,
           PAGE_SIZE,
           fetch_embeddings,
           orphaned_ids,
           read_edge_indexes,
)
from graph_trust.sync.relink.report import RelinkReport, report_counts
from graph_trust.sync.relink.store import RUN_KIND

__all__ = ["CHUNK", "RUN_KIND", "EXISTS_BATCH", "PAGE_SIZE", "PROBE_MIN_COSINE", "PROBE_SAMPLE", "EmbeddingCheck", "MatchOptions",
           "RelinkReport", "fetch_embeddings", "graphiti_text", "match_all", "orphaned_ids", "read_edge_indexes",
           "relink", "relinked_evidence_json", "report_counts", "rollback_relink"]
