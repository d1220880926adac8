"""The confidence model: seven factors as pure functions, their composite, contradiction
resolution and weight learning.

Every factor maps its inputs into [0, 1]. Each module has scalar helpers (operator commands)
and, where sync scores many facts at once, a numpy form over arrays (same formula, same
results). Records live in the review DB (``graph_trust.sync.confidence.store``); nothing here
reads or writes them.
"""
