"""``python -m graph_trust`` is the ``graph-trust`` command."""

from graph_trust.cli.main import main

main()
