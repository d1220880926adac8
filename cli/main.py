"""Entry point: ``graph-trust``. Maps typed errors to one line and a documented exit code.

Exit codes: 0 ok; 1 drift found (verify); 2 usage, config, input or connection error;
3 a run failed part-way (state consistent, rerun to converge).
"""

from __future__ import annotations

import importlib
import logging
import sys
import traceback

import click

from graph_trust import __version__
from graph_trust.cli.signals import sigterm_interrupts, terminated
from graph_trust.errors import GraphTrustError, scrub

# (module under graph_trust.cli, attribute) for every command; modules import lazily.
COMMANDS = [
    ("demo", "demo"),
    ("search", "search"),
    ("calibrate", "calibrate"),
    ("init", "init"),
    ("index", "index"),
    ("sync", "sync"),
    ("sync", "verify"),
    ("sync", "runs"),
    ("sync", "rollback"),
    ("sync", "prune"),
    ("review", "review"),
    ("relink", "relink"),
    ("context", "context"),
    ("audit", "audit"),
    ("mcp", "mcp"),
    ("confidence", "confidence"),
    ("confidence", "verify-fact"),
    ("confidence", "record-usage"),
    ("confidence", "vote"),
    ("confidence", "contradictions"),
    ("confidence", "stale"),
    ("confidence", "credibility"),
    ("eval", "eval"),
]


class LazyGroup(click.Group):
    """Registers the commands above; a module that is missing simply is not listed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for _, name in COMMANDS if self.get_command(ctx, name) is not None]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        for module, attr in COMMANDS:
            if attr == name:
                try:
                    mod = importlib.import_module(f"graph_trust.cli.{module}")
                except ModuleNotFoundError as exc:
                    if exc.name == f"graph_trust.cli.{module}":
                        return None
                    raise
                return getattr(mod, attr, None)
        return None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="graph-trust")
def cli() -> None:
    """Trust-boosted search for Graphiti knowledge graphs, and the nightly job that decides
    which facts are verified.

    \b
    Start here:
      graph-trust demo                      load a sample graph, sync its review DB, compare ranks
      graph-trust search "backup schedule"  trust-boosted search (--explain for why)
      graph-trust sync --review-db rev.db   nightly: review decisions -> trust_score
      graph-trust calibrate                 what a given trust weight can overtake

    Every command takes --graph URI (default embedded:.graph-trust/graph), --config FILE,
    --json and --debug. Exit codes: 0 ok, 1 drift, 2 usage/config/connection error,
    3 run failed part-way.
    """


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    args = sys.argv[1:] if argv is None else argv
    with sigterm_interrupts():
        _main(args)


def _main(args: list[str]) -> None:
    debug = "--debug" in args
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, _Scrubbed) for f in handler.filters):
            handler.addFilter(_Scrubbed())
    if not debug:
        for noisy in ("graphiti_core", "neo4j", "httpx"):
            logging.getLogger(noisy).setLevel(logging.CRITICAL)
    try:
        rv = cli.main(args=args, prog_name="graph-trust", standalone_mode=False)
    except GraphTrustError as exc:
        if debug:
            _traceback()
        click.echo(scrub(f"error: {exc}"), err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:  # click's form of Ctrl-C (and so of SIGTERM)
        click.echo("terminated" if terminated() else "aborted", err=True)
        sys.exit(143 if terminated() else 130)
    except click.exceptions.NoArgsIsHelpError as exc:  # a group given no command: its help, not an error
        exc.show()
        sys.exit(exc.exit_code)
    except click.ClickException as exc:  # usage errors (unknown option, missing argument, bad value ...)
        click.echo(scrub(usage_error_line(exc, args)), err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("terminated" if terminated() else "interrupted", err=True)
        sys.exit(143 if terminated() else 130)
    except Exception as exc:  # noqa: BLE001 - last resort: one line, traceback under --debug
        if debug:
            _traceback()
        click.echo(scrub(f"error: unexpected {type(exc).__name__}: {exc} (rerun with --debug for details)"), err=True)
        sys.exit(2)
    sys.exit(rv if isinstance(rv, int) else 0)


def _traceback() -> None:
    """The current exception's traceback on stderr, without secrets."""
    sys.stderr.write(scrub(traceback.format_exc()))


class _Scrubbed(logging.Filter):
    """Log records without secrets (their message formatted, then scrubbed)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = scrub(message)
        if record.exc_info and record.exc_text is None and record.exc_info[0] is not None:
            record.exc_text = scrub("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
        if clean != message:
            record.msg, record.args = clean, None
        return True


def usage_error_line(exc: click.ClickException, args: list[str]) -> str:
    """One line: ``error: <what is wrong> Try '<command> --help' for help.`` (click's own form
    takes four lines: usage, hint, a blank line, then the error)."""
    line = "error: " + " ".join(exc.format_message().split())
    if isinstance(exc, click.UsageError):
        ctx = exc.ctx  # (None for an option missing its value: the command is found from the arguments)
        line += f" Try '{ctx.command_path if ctx is not None else _command_path(args)} --help' for help."
    return line


def _command_path(args: list[str]) -> str:
    """``graph-trust`` and the (sub)command names ``args`` start with."""
    path, cmd = ["graph-trust"], cli
    ctx = click.Context(cli, info_name="graph-trust")
    for arg in args:
        if not isinstance(cmd, click.Group):
            break
        if arg.startswith("-"):
            continue
        sub = cmd.get_command(ctx, arg)
        if sub is None:
            break
        path.append(arg)
        cmd = sub
    return " ".join(path)
