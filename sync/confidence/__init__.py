"""Confidence into trust (``sync.trust_mode: confidence``): the confidence tables' schema, the
set-wise read of the factors' inputs, the store, its cache, learned weights, the trust sync
writes and the operator tools."""
