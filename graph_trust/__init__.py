"""graph-trust: trust-boosted search for Graphiti knowledge graphs, and its nightly sync job."""

import os as _os

# Graphiti's telemetry stays off unless the user turned it on explicitly.
_os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

__version__ = "0.1.0"
