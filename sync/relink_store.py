"""Moved to :mod:`graph_trust.sync.relink.store`; kept so existing imports work (the same module object)."""

import sys

from graph_trust.sync.relink import store

sys.modules[__name__] = store
