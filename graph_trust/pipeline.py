"""Moved to :mod:`graph_trust.agent_context` (an agent's context (search, trust stages, format)); kept so existing imports work.

``graph_trust.pipeline`` is that same module object, so every name, including ones tests patch, is shared.
"""

import sys

from graph_trust import agent_context as _moved

sys.modules[__name__] = _moved
