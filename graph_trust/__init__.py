"""graph-trust: trust-boosted search for Graphiti knowledge graphs, and its nightly sync job.

Importing the package hands config the checks of setting values whose rules live in the
package that reads them (config imports only errors, so every package may import it)."""

import os as _os

# Graphiti's telemetry stays off unless the user turned it on explicitly.
_os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from graph_trust import config as _config  # noqa: E402 - (after the telemetry default)
from graph_trust.access.sensitivity import SensitivityScale as _SensitivityScale  # noqa: E402
from graph_trust.confidence.composite import check_weights as _check_weights  # noqa: E402
from graph_trust.context.redact import check_replacement as _check_replacement  # noqa: E402
from graph_trust.review.db import parse_location as _parse_location  # noqa: E402
from graph_trust.search.slots import relation_key as _relation_key  # noqa: E402

_config.install_checks(relation_key=_relation_key, sensitivity_scale=_SensitivityScale.of,
                       redaction_replacement=_check_replacement, review_address=_parse_location,
                       confidence_weights=_check_weights)

__version__ = "0.1.0"
