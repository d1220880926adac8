"""The evidence rewrite: element 0's evidence_id changes, every other byte stays."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_trust.sync.relink import relinked_evidence_json

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                      max_leaves=8)


def _after_first(text: str) -> str:
    i = text.index("[") + 1
    while text[i].isspace():
        i += 1
    return text[json.JSONDecoder().raw_decode(text, i)[1]:]


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.text(max_size=8).filter(lambda k: k not in ("evidence_id", "previous_evidence_ids")), values, max_size=4),
    st.lists(values, max_size=3),
    st.text(min_size=1, max_size=40),
    st.text(min_size=1, max_size=40),
    st.sampled_from([(", ", ": "), (",", ":")]),
    st.booleans(),
    st.sampled_from(["", " ", "\n  "]),
)
def test_rewrite_changes_only_element_0(extra, rest, old, new, seps, ascii_only, pad):
    first = {"evidence_id": old, **extra}
    text = pad + "[" + pad + json.dumps(first, separators=seps, ensure_ascii=ascii_only)
    for r in rest:
        text += seps[0] + json.dumps(r, separators=seps, ensure_ascii=ascii_only)
    text += pad + "]" + pad
    out = relinked_evidence_json(text, new)
    a, b = json.loads(text), json.loads(out)
    assert b[0]["evidence_id"] == new
    assert b[0]["previous_evidence_ids"] == ([old] if old != new else [])
    assert {k: v for k, v in b[0].items() if k not in ("evidence_id", "previous_evidence_ids")} == extra
    assert list(b[0])[: len(a[0])] == list(a[0])  # key order kept, new key last
    assert b[1:] == a[1:]
    assert _after_first(out) == _after_first(text)  # every byte after element 0
    assert out.startswith(text[: text.index("{")])  # and before it


def test_rewrite_keeps_style_and_appends_to_existing_history():
    compact = '[{"evidence_id":"b","previous_evidence_ids":["a"],"n":"Zoë"}]'
    assert relinked_evidence_json(compact, "c") == '[{"evidence_id":"c","previous_evidence_ids":["a","b"],"n":"Zoë"}]'
    spaced = '[{"evidence_id": "a", "n": "Zo\\u00eb"}, {"x": 1e-7}]'
    assert relinked_evidence_json(spaced, "b") == '[{"evidence_id": "b", "n": "Zo\\u00eb", "previous_evidence_ids": ["a"]}, {"x": 1e-7}]'


@pytest.mark.parametrize("bad", ['{"evidence_id": "a"}', "[]", '["a"]', '[{"x": 1}]', '[{"evidence_id": 3}]'])
def test_rewrite_refuses_what_sync_would_quarantine(bad):
    with pytest.raises(ValueError):
        relinked_evidence_json(bad, "b")
