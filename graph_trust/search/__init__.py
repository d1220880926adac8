"""Trust search: Graphiti's candidates fused with RRF, boosted by trust and ordered by the
ranking rules (``trust_search``, ``fusion``, ``rules``, and ``pool_facts``: what the rules read
about a pool), the cosine stage (``cosine``), the composite rank (``composite``), calibration,
records, and the settings-driven search (``ranked``, ``session``).
It builds on the graph layer and never imports sync or access."""
