"""The review side: the review DB's connection on SQLite or PostgreSQL (:mod:`.db`), its review
tables (:mod:`.schema`), review decisions with their audit trail (:mod:`.decisions`), agents'
flags (:mod:`.flags`), the retrieval log (:mod:`.log`) and the review queue (:mod:`.queue`, its
rules in :mod:`.rules`), and what the sync job hands the demo and the evaluation (:mod:`.hooks`).

It sits beside search and sync: it imports the graph layer, config and errors, never search or
sync; :mod:`graph_trust.api` wires it to them.
"""
