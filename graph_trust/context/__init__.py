"""The stages after search: the retrieval policy for agents and its payload.

:func:`graph_trust.context.policy.apply_policy` is the pure pipeline (score threshold,
redaction, clipping, dedup, interleaving, token budget); :mod:`graph_trust.context.service`
wires it behind trust search and the trust stages (:func:`get_context`).
"""
