"""Bundled demo data: sample graph and review DB."""
