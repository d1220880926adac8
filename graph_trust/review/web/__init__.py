"""The review page (``graph-trust review serve``): :mod:`.app` with its templates and static files."""
