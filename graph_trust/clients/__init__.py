"""The clients Graphiti is built with offline: the deterministic hashing embedder, the offline
LLM and cross-encoder stand-ins, and the one factory for the configured embedder."""
