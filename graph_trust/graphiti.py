"""Moved to :mod:`graph_trust.trust_search` (the trust search plugin); kept so existing imports work.

``graph_trust.graphiti`` is that same module object, so every name, including ones tests patch, is shared.
"""

import sys

from graph_trust import trust_search as _moved

sys.modules[__name__] = _moved
