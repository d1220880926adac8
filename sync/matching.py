"""Moved to :mod:`graph_trust.sync.relink.matching`; kept so existing imports work (the same module object)."""

import sys

from graph_trust.sync.relink import matching

sys.modules[__name__] = matching
