"""Every usage error of every command is one line ``error: ...`` with exit code 2 and the hint to
``--help`` on the same line (docs/errors.md): an unknown option, a missing argument, an option
without its value, a bad choice, a value of the wrong type or out of range, an unknown command.

The cases are drawn from the commands themselves (click's own description of each command and
parameter), so a command or option added later is covered without touching this file. Usage
errors stop in argument parsing, before a command does anything, so most cases run in-process;
a few run the real ``graph-trust`` in a subprocess.
"""

from __future__ import annotations

import math

import click
import pytest
from cli_helpers import run_cli

from graph_trust.cli.main import cli, main


def _commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    """Every command and group under ``group`` with its path of names (groups first)."""
    ctx = click.Context(group, info_name="graph-trust")
    out: list = [(path, group)]
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        out += _commands(cmd, (*path, name)) if isinstance(cmd, click.Group) else [((*path, name), cmd)]
    return out


COMMANDS = _commands(cli)
LEAVES = [(path, cmd) for path, cmd in COMMANDS if not isinstance(cmd, click.Group)]


def _good(param: click.Parameter) -> str:
    """A value ``param`` accepts (for the arguments that must come before the faulty one)."""
    t = param.type
    if isinstance(t, click.Choice):
        return str(t.choices[0])
    if isinstance(t, click.IntRange | click.FloatRange):
        return str(t.min if t.min is not None else 1)
    return "x"


def _bad_values(param: click.Option | click.Argument) -> list[tuple[str, str]]:
    """(value, what the error must say) for every kind of bad value the parameter's type refuses."""
    t = param.type
    if isinstance(t, click.Choice):
        return [("no-such-choice", "is not one of")]
    cases = []
    if isinstance(t, click.IntRange | click.FloatRange | click.types.IntParamType | click.types.FloatParamType):
        cases.append(("not-a-number", "is not a valid"))
    if isinstance(t, click.IntRange | click.FloatRange):
        step = 1 if isinstance(t, click.IntRange) else 0.5
        if t.min is not None:
            cases.append((str(t.min - step), "is not in the range"))
        if t.max is not None and not math.isinf(t.max):
            cases.append((str(t.max + step), "is not in the range"))
    return cases


def _cases() -> list:
    cases = []
    for path, _cmd in COMMANDS:
        name = " ".join(("graph-trust", *path))
        cases.append(pytest.param([*path, "--no-such-option"], name, "No such option '--no-such-option'",
                                  id=f"{name}: unknown option"))
    cases.append(pytest.param(["no-such-command"], "graph-trust", "No such command 'no-such-command'",
                              id="graph-trust: unknown command"))
    for path, cmd in LEAVES:
        name = " ".join(("graph-trust", *path))
        args = [p for p in cmd.params if isinstance(p, click.Argument)]
        required = [p for p in args if p.required]
        given = [_good(p) for p in required]
        for k, p in enumerate(required):
            cases.append(pytest.param([*path, *given[:k]], name, f"Missing argument '{p.make_metavar(click.Context(cmd))}'",
                                      id=f"{name}: missing {p.name}"))
        for k, p in enumerate(required):
            for value, says in _bad_values(p):
                cases.append(pytest.param([*path, *given[:k], value, *given[k + 1:]], name, says,
                                          id=f"{name}: {p.name}={value}"))
        for opt in (p for p in cmd.params if isinstance(p, click.Option)):
            flag = max(opt.opts, key=len)
            if opt.is_flag or opt.count:
                continue
            cases.append(pytest.param([*path, *given, flag], name, f"Option '{flag}' requires an argument",
                                      id=f"{name}: {flag} without a value"))
            for value, says in _bad_values(opt):
                cases.append(pytest.param([*path, *given, flag, value], name, (f"Invalid value for '{flag}'", value, says),
                                          id=f"{name}: {flag} {value}"))
    return cases


CASES = _cases()


def test_the_cases_cover_every_kind_of_usage_error():
    """Each kind occurs (a command losing its options would otherwise shrink the test silently)."""
    ids = " | ".join(c.id for c in CASES)
    for kind in ("unknown option", "unknown command", "missing ", "without a value", "not-a-number",
                 "no-such-choice"):
        assert kind in ids, kind
    assert len(LEAVES) >= 20


@pytest.mark.parametrize(("argv", "command", "says"), CASES)
def test_a_usage_error_is_one_line_with_the_help_hint(argv, command, says, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2, err
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("error: ") and all(s in err for s in ([says] if isinstance(says, str) else says)), err
    assert err.rstrip("\n").endswith(f" Try '{command} --help' for help."), err


@pytest.mark.parametrize("argv", [["sync", "--no-such-option"], ["vote", "fact-1", "maybe"],
                                  ["search", "q", "--limit", "0"], ["rollback"]])
def test_the_real_command_says_it_in_one_line(argv):
    res = run_cli(*argv)
    assert res.code == 2 and res.out == ""
    assert res.err.count("\n") == 1 and res.err.startswith("error: ") and "--help' for help." in res.err, res.err


def test_a_group_without_its_command_still_shows_its_help(capsys):
    """``graph-trust`` alone (or a group alone) prints the help: the way in, not an error line."""
    with pytest.raises(SystemExit):
        main([])
    out, err = capsys.readouterr()
    assert "Commands:" in out + err and "sync" in out + err
