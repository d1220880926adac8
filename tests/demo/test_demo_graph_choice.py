"""``graph-trust demo`` loads its sample only into a graph named on its command line (``--graph``),
else into its own embedded graph: never into the graph the environment (``NEO4J_URI``) or a
configuration file points at, which may be someone's production graph. Its output says which
graph it used. The traps are embedded graph paths: a graph loaded there would create them."""

from __future__ import annotations

import json

from cli_helpers import run_cli

from graph_trust.config import DEFAULT_GRAPH


def test_the_demo_never_loads_into_a_graph_it_was_not_given(tmp_path):
    env_trap, config_trap = tmp_path / "env-trap", tmp_path / "config-trap"
    (tmp_path / "graph-trust.yaml").write_text(json.dumps({"graph": {"uri": f"embedded:{config_trap}",
                                                                     "database": "prod"}}))
    env = {"NEO4J_URI": f"embedded:{env_trap}", "NEO4J_DATABASE": "prod"}

    r = run_cli("demo", "--limit", "2", env=env, cwd=tmp_path, timeout=600)
    assert r.code == 0, r.err
    assert not env_trap.exists() and not config_trap.exists()
    first = r.out.splitlines()[0]
    assert first.startswith(f"graph {DEFAULT_GRAPH} (the demo's own; --graph URI loads the sample elsewhere), embedder hashing: "), first
    # the other commands would look at NEO4J_URI's graph: the hint names the demo's
    assert r.out.rstrip().endswith(f'Try: graph-trust search "..." --graph {DEFAULT_GRAPH} --explain'), r.out

    named = tmp_path / "named"
    r = run_cli("demo", "--limit", "2", "--json", "--graph", f"embedded:{named}", env=env, cwd=tmp_path, timeout=600)
    assert r.code == 0, r.err
    assert r.json()["graph"] == f"embedded:{named}" and r.json()["load"]["edges_created"] > 400
    assert named.exists() and not env_trap.exists() and not config_trap.exists()
