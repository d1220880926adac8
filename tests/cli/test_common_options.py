"""What the README promises: every command takes --graph URI, --config FILE, --json and --debug
(the click tree walked, so a new command is checked too), and `review init` runs with --debug."""

from __future__ import annotations

import click
from cli_helpers import run_cli

from graph_trust.cli.main import cli

COMMON = {"--graph", "--config", "--json", "--debug"}


def _leaves(group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()):
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if isinstance(cmd, click.Group):
            yield from _leaves(cmd, ctx, (*path, name))
        else:
            yield (*path, name), cmd


def test_every_command_takes_the_common_options():
    with click.Context(cli) as ctx:
        leaves = list(_leaves(cli, ctx))
    assert len(leaves) > 25 and ("review", "init") in [p for p, _ in leaves]
    missing = {" ".join(p): sorted(COMMON - {o for prm in cmd.params for o in prm.opts}) for p, cmd in leaves}
    assert {k: v for k, v in missing.items() if v} == {}


def test_review_init_takes_debug_and_json(tmp_path):
    db = tmp_path / "r.sqlite3"
    r = run_cli("review", "init", str(db), "--debug", "--json", env={"GRAPH_TRUST_STATE_DIR": str(tmp_path / "s")})
    assert r.code == 0 and r.json()["path"].endswith("r.sqlite3"), r.err
