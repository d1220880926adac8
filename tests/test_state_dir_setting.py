"""``state_dir`` (``GRAPH_TRUST_STATE_DIR``) naming a file, or a path under a file: one line naming
the setting, where its value came from and the fix, exit code 2, for every command that keeps
state, before anything is written; from Python a ConfigError saying the same."""

from __future__ import annotations

import pytest
from cli_helpers import run_cli

from graph_trust.cli.main import main
from graph_trust.config import load_settings
from graph_trust.errors import ConfigError

FIX = "is a file, not a directory: set state_dir (GRAPH_TRUST_STATE_DIR) to a directory, or move the file away"


@pytest.fixture
def a_file(tmp_path):
    f = tmp_path / "not-a-dir"
    f.write_text("something else\n")
    return f


@pytest.mark.parametrize("under", [False, True], ids=["the file", "a path under it"])
def test_settings_name_the_setting_and_the_fix(a_file, under):
    value = str(a_file / "state" if under else a_file)
    with pytest.raises(ConfigError) as err:
        load_settings(environ={"GRAPH_TRUST_STATE_DIR": value})
    text = str(err.value)
    assert text.startswith(f"config key state_dir: {a_file} {FIX}") and "environment variable GRAPH_TRUST_STATE_DIR" in text
    with pytest.raises(ConfigError, match="config file"):
        load_settings(environ={"GRAPH_TRUST_CONFIG": str(_config(a_file.parent, value))})


def _config(root, value):
    path = root / "graph-trust.yaml"
    path.write_text(f"state_dir: {value}\n")
    return path


@pytest.mark.parametrize("argv", [["runs"], ["prune"], ["audit"], ["sync", "--review-db", "r.sqlite3"],
                                  ["verify", "--review-db", "r.sqlite3"], ["rollback", "sync-x"]])
def test_every_command_says_it_in_one_line(argv, a_file, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GRAPH_TRUST_STATE_DIR", str(a_file))
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"error: config key state_dir: {a_file} {FIX}"), err
    assert a_file.read_text() == "something else\n"


def test_the_real_command(a_file, tmp_path):
    r = run_cli("runs", env={"GRAPH_TRUST_STATE_DIR": str(a_file / "deeper")}, cwd=tmp_path)
    assert r.code == 2 and r.err.count("\n") == 1 and FIX in r.err and "FileExistsError" not in r.err, r.err
