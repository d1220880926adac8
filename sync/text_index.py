"""Moved to :mod:`graph_trust.sync.relink.text_index`; kept so existing imports work (the same module object)."""

import sys

from graph_trust.sync.relink import text_index

sys.modules[__name__] = text_index
