"""The graph layer: addresses, the embedded server, connections, the group router, Cypher
loading, schema set-up and every backend difference (``backends/``). Search, context and sync
build on it; it imports none of them (``tests/graph/test_graph_layer_imports.py``)."""
