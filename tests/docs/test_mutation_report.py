"""docs/mutation_report.py reads docs/mutation_equivalents.txt: every entry parses, and a mutated
line that itself contains " | " (a union type) keeps its whole text."""

from __future__ import annotations

import importlib.util

from paths import REPO


def _report(monkeypatch, tmp_path, text: str):
    spec = importlib.util.spec_from_file_location("mutation_report", REPO / "docs" / "mutation_report.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    f = tmp_path / "eq.txt"
    f.write_text(text)
    monkeypatch.setattr(mod, "EQUIVALENTS", f)
    return mod


def test_a_changed_line_with_a_pipe_is_kept_whole(monkeypatch, tmp_path):
    mod = _report(monkeypatch, tmp_path,
                  "# comment\n"
                  "m.x_f__mutmut_3 | def f(a: datetime | None = None): | the default is never used\n"
                  "m.x_g__mutmut_1 | return a > 0 | a is never 0\n")
    assert mod.equivalents() == {
        "m.x_f__mutmut_3": ("def f(a: datetime | None = None):", "the default is never used"),
        "m.x_g__mutmut_1": ("return a > 0", "a is never 0"),
    }


def test_the_shipped_equivalents_file_parses_with_a_reason_for_each(monkeypatch, tmp_path):
    text = (REPO / "docs" / "mutation_equivalents.txt").read_text()
    mod = _report(monkeypatch, tmp_path, text)
    eq = mod.equivalents()
    assert eq and all(line and reason for line, reason in eq.values())
    assert all("__mutmut_" in name for name in eq)
