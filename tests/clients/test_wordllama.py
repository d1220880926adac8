"""search.embedder: wordllama: loads from the installed wheel without touching the network,
makes unit 256-dim vectors that match paraphrases, fails with one clear error when its package or
files are missing, and a graph built with one embedder is never searched with another."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("wordllama")  # the wordllama extra (in the test extra: CI runs these)

from builders import sample_as_group  # noqa: E402

from graph_trust import api  # noqa: E402
from graph_trust.clients import wordllama as wl
from graph_trust.clients.factory import embedder_named, make_embedder
from graph_trust.clients.hashing import HashingEmbedder  # noqa: E402
from graph_trust.demo.sample import load_sample  # noqa: E402
from graph_trust.errors import ConfigError  # noqa: E402
from graph_trust.graph.connection import open_graph  # noqa: E402

# Run in a fresh interpreter: every way out to the network raises and is recorded, HOME is an empty
# folder (no ~/.cache/wordllama), the Hugging Face libraries are told to stay offline.
GUARD = """
import json, socket, sys
attempts = []
def blocked(*args, **kwargs):
    attempts.append(repr(args[:2]))
    raise OSError("network blocked by the test")
socket.getaddrinfo = blocked
socket.create_connection = blocked
socket.socket.connect = blocked
socket.socket.connect_ex = blocked
"""


def _offline_run(code: str, tmp_path) -> dict:
    env = {**os.environ, "HOME": str(tmp_path), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-c", GUARD + code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_loads_from_the_wheel_without_any_network_attempt(tmp_path):
    out = _offline_run("""
from graph_trust.clients.factory import embedder_named
v = embedder_named("wordllama").embed(["billing-db is backed up nightly at 3am UTC"])
print(json.dumps({"attempts": attempts, "shape": list(v.shape)}))
""", tmp_path)
    assert out == {"attempts": [], "shape": [1, 256]}


def test_the_guard_catches_a_download_wordllamas_default_load_would_make(tmp_path):
    """The check above can fail: WordLlama.load() with its defaults looks for the tokenizer in a
    folder the wheel does not have, then tries to download it."""
    out = _offline_run("""
from wordllama import WordLlama
try:
    WordLlama.load()
    loaded = True
except Exception:
    loaded = False
print(json.dumps({"attempts": len(attempts), "loaded": loaded}))
""", tmp_path)
    assert out["attempts"] > 0 and out["loaded"] is False


def test_missing_files_are_one_config_error_naming_the_fix(monkeypatch):
    wl.load_model.cache_clear()
    monkeypatch.setattr(wl, "WEIGHTS", wl.WEIGHTS.with_name("l2_supercat_999.safetensors"))
    try:
        with pytest.raises(ConfigError, match=r"search\.embedder.*l2_supercat_999\.safetensors.*never downloads.*"
                                              r"pip install --force-reinstall"):
            wl.WordLlamaEmbedder()
    finally:
        wl.load_model.cache_clear()


def test_missing_package_is_one_config_error_naming_the_extra(monkeypatch):
    wl.load_model.cache_clear()
    monkeypatch.setitem(sys.modules, "wordllama", None)  # import wordllama raises ImportError
    try:
        with pytest.raises(ConfigError, match=r"pip install 'graph-trust\[wordllama\]'"):
            embedder_named("wordllama")
    finally:
        wl.load_model.cache_clear()


def test_importing_wordllama_leaves_logging_alone():
    """wordllama.inference calls logging.basicConfig(level=INFO) on import: undone."""
    code = ("import logging; from graph_trust.clients.wordllama import load_model; load_model(); "
            "r = logging.getLogger(); print(len(r.handlers), r.level)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0", str(logging.WARNING)]


def test_settings_name_it():
    from graph_trust.config import load_settings

    s = load_settings(environ={"GRAPH_TRUST_EMBEDDER": "wordllama"})
    assert s.search.embedder == "wordllama"
    assert type(make_embedder(s)) is wl.WordLlamaEmbedder
    assert "wordllama" in api.BUILTIN_EMBEDDERS


WORDS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(WORDS, min_size=1, max_size=12))
def test_vectors_are_unit_or_zero_and_do_not_depend_on_the_batch(texts):
    e = wl.WordLlamaEmbedder()
    batch = e.embed(texts)
    assert batch.shape == (len(texts), wl.DIM) and batch.dtype == np.float32
    norms = np.linalg.norm(batch, axis=1)
    assert np.all((np.abs(norms - 1) < 1e-5) | (norms == 0))
    for i, t in enumerate(texts):  # alone or in a batch (padded to its longest text): the same vector
        assert np.allclose(e.embed([t])[0], batch[i], atol=1e-6)
    one = asyncio.run(e.create([texts[0]]))
    assert np.allclose(one, batch[0], atol=1e-6) and asyncio.run(e.create(texts[0])) == one
    assert np.allclose(asyncio.run(e.create_batch(texts)), batch, atol=1e-6)


def test_empty_text_is_the_zero_vector_and_bad_input_a_type_error():
    e = wl.WordLlamaEmbedder()
    assert not e.embed([""]).any()
    with pytest.raises(TypeError, match="sequence of texts"):
        e.embed("one string")
    with pytest.raises(TypeError, match="at index 1"):
        e.embed(["a", 3])
    with pytest.raises(TypeError, match="WordLlamaEmbedder embeds text"):
        asyncio.run(e.create([1, 2, 3]))


def test_paraphrases_score_above_unrelated_facts_unlike_the_hashing_embedder():
    query = "when does the billing database backup run"
    answer = "billing-db is backed up nightly at 3am UTC"
    others = ["the payments api is owned by team orion", "auth-service listens on port 8443 with TLS",
              "alice is on call for team-data this week", "log-shipper runs on cron-host"]
    v = wl.WordLlamaEmbedder().embed([query, answer, *others])
    sims = v[1:] @ v[0]
    assert sims[0] > 0.35 and sims[0] > sims[1:].max() + 0.2
    h = HashingEmbedder().embed([query, answer])
    assert float(h[1] @ h[0]) < sims[0]  # lexical: "backup" vs "backed up", "database" vs "db"


async def test_search_on_a_graph_embedded_by_wordllama(settings):
    group = f"ops_{settings.graph.database}"
    async with open_graph(settings) as conn:
        await load_sample(conn.driver, wl.WordLlamaEmbedder(), data=sample_as_group(group))
        await conn.for_group(group).settle()
    settings.search.embedder = "wordllama"
    res = await api.search(settings, "when does the billing database backup run", groups=[group], limit=5)
    assert res.edges and any("backup" in e.fact.lower() for e in res.edges[:3])
    assert any(x.cosine_rank for x in res.edge_explanations)  # the cosine list contributed
