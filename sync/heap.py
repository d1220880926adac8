"""Moved to :mod:`graph_trust.sync.gc_freeze`; kept so existing imports work (the same module object)."""

import sys

from graph_trust.sync import gc_freeze

sys.modules[__name__] = gc_freeze
