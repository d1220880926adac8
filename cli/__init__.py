"""The ``graph-trust`` command: thin click commands over the library."""
