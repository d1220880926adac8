"""Cypher statements sent by graph-trust, one file per statement (package data)."""
