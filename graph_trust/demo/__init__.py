"""The bundled sample graph and review DB (``sample``) and ``graph-trust demo`` (``run``)."""
