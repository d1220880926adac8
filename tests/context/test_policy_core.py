"""The retrieval policy's pure stages: dedup, interleaving, clipping, budget, redaction, payload."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from graph_trust.config import PolicySettings
from graph_trust.context.budget import enforce_budget, fit_prefix
from graph_trust.context.clip import ELLIPSIS, clip
from graph_trust.context.dedup import dedup, normalize, normalized_hash
from graph_trust.context.interleave import interleave
from graph_trust.context.payload import Metadata, Payload, format_for_system_prompt
from graph_trust.context.policy import Candidate, apply_policy
from graph_trust.context.redact import DEFAULT_PATTERNS, Redactor
from graph_trust.context.tokens import chars4, token_counter
from graph_trust.errors import ConfigError

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def cand(i: int | str, text: str, score: float = 0.9, hours_ago: float = 1.0, **kw) -> Candidate:
    return Candidate(id=str(i), text=text, score=score, timestamp=NOW - timedelta(hours=hours_ago), group="g", **kw)


def words(text: str) -> int:
    """A real (if simple) counter: whitespace-separated words, at least 1 for non-empty text."""
    return len(text.split()) or (1 if text else 0)


# ---- the reference's three unit tests -------------------------------------------------------

def test_dedup_removes_exact_and_case_variants():
    items = [cand(1, "Hello world"), cand(2, "Hello world"), cand(3, "HELLO WORLD"), cand(4, "Hello world!")]
    kept, removed = dedup(items, lambda c: c.text)
    assert len(kept) == 1 and removed == 3
    memories, stats = apply_policy(items, PolicySettings())
    assert len(memories) == 1 and stats.duplicates_removed == 3 and stats.dedup_ratio == pytest.approx(0.75)


def test_token_budget_enforced_strictly_on_10000_large_memories():
    rng = random.Random(7)
    texts = [" ".join(rng.choice(["alpha", "beta", "gamma", "δέλτα", "東京"]) for _ in range(rng.randint(50, 400)))
             for _ in range(10_000)]
    fitted, cut = enforce_budget(texts, 1500, chars4)
    assert sum(n for _, n in fitted) <= 1500 and sum(chars4(t) for t, _ in fitted) <= 1500
    assert cut and fitted[-1][0].endswith(ELLIPSIS)
    assert sum(n for _, n in fitted) >= 1500 - 50  # the budget is used, not wasted


def test_interleaving_alternates_score_and_recency():
    # Scores fall as the facts get newer: the best-scored fact is the oldest.
    items = [cand(i, f"fact number {i}", score=0.95 - i * 0.05, hours_ago=100 - i * 10) for i in range(10)]
    out = interleave(items, strategy="alternate", top_k=8, score=lambda c: c.score,
                     timestamp=lambda c: c.timestamp, ident=lambda c: c.id)
    recent_cutoff = NOW - timedelta(hours=15)
    assert out[0].score > 0.8 and out[0].id == "0"
    assert out[1].timestamp > recent_cutoff and out[1].id == "9"
    assert [c.id for c in out] == ["0", "9", "1", "8", "2", "7", "3", "6"]


# ---- dedup ----------------------------------------------------------------------------------

@pytest.mark.parametrize("a,b", [
    ("Hello world", "  hello   WORLD.  "),
    ("ﬁle ready", "file ready"),  # NFKC: the ligature is "fi"
    ("Ｆｕｌｌ width", "full width"),
    ("«Quoted»", "quoted"),
    ("東京は首都です。", "東京は首都です"),
])
def test_normalized_hash_merges_variants(a, b):
    assert normalized_hash(a) == normalized_hash(b) and len(normalized_hash(a)) == 16


def test_normalization_keeps_non_latin_words_and_inner_punctuation():
    assert normalize("  Привет,   мир!! ") == "привет, мир"
    assert normalized_hash("v2.1 released") != normalized_hash("v21 released")


def test_dedup_keeps_the_most_trusted_of_a_duplicate_set():
    items = [cand("low", "Backups run at 02:00", score=0.99, trust_score=0.2),
             cand("high", "backups run at 02:00!", score=0.5, trust_score=0.9),
             cand("none", "BACKUPS RUN AT 02:00", score=0.8)]
    memories, stats = apply_policy(items, PolicySettings(min_score=0.0))
    assert [m.id for m in memories] == ["high"] and stats.duplicates_removed == 2


# ---- interleaving ---------------------------------------------------------------------------

def _order(items, strategy, ratio=None, top_k=6):
    return [c.id for c in interleave(items, strategy=strategy, top_k=top_k, ratio=ratio, score=lambda c: c.score,
                                     timestamp=lambda c: c.timestamp, ident=lambda c: c.id)]


ITEMS = [cand(i, f"t{i}", score=0.9 - i * 0.1, hours_ago=1 + (i * 7) % 9) for i in range(8)]


def test_score_first_and_recency_first_are_pure_orders():
    assert _order(ITEMS, "score_first") == ["0", "1", "2", "3", "4", "5"]
    by_time = sorted(ITEMS, key=lambda c: c.timestamp, reverse=True)
    assert _order(ITEMS, "recency_first") == [c.id for c in by_time[:6]]


def test_ratio_sets_the_share_of_lead_slots():
    two_thirds = _order(ITEMS, "alternate", ratio=2 / 3, top_k=6)
    # slots from the score order: 0, 1, 3, 4 (ceil((i+1)*r) > ceil(i*r)); others newest unused
    assert two_thirds[0] == "0" and two_thirds[1] == "1"
    assert _order(ITEMS, "alternate", ratio=1.0) == _order(ITEMS, "score_first")
    assert _order(ITEMS, "alternate", ratio=0.0) == _order(ITEMS, "recency_first", ratio=1.0)


@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 500), st.booleans()), min_size=0, max_size=30),
       st.sampled_from(["alternate", "score_first", "recency_first"]), st.integers(1, 20),
       st.one_of(st.none(), st.floats(0, 1)), st.randoms())
def test_interleave_is_a_permutation_prefix_independent_of_arrival_order(rows, strategy, top_k, ratio, rnd):
    items = [Candidate(str(i), f"t{i}", s, None if no_ts else NOW - timedelta(minutes=m)) for i, (s, m, no_ts)
             in enumerate(rows)]
    out = _order(items, strategy, ratio, top_k)
    shuffled = items[:]
    rnd.shuffle(shuffled)
    assert out == _order(shuffled, strategy, ratio, top_k)
    assert len(out) == min(top_k, len(items)) and len(set(out)) == len(out)


# ---- clipping -------------------------------------------------------------------------------

@pytest.mark.parametrize("text,first_two", [
    ("Use tools e.g. pytest and ruff for this. Then ship it. Done.",
     "Use tools e.g. pytest and ruff for this. Then ship it."),
    ("Upgrade the agent to v2.1 before Friday. It fixes the leak. More later.",
     "Upgrade the agent to v2.1 before Friday. It fixes the leak."),
    ("The error rate was 3.14 percent last week. It doubled since. Investigate.",
     "The error rate was 3.14 percent last week. It doubled since."),
    ("Host 192.168.1.10 is down since noon. Restart it. Later.", "Host 192.168.1.10 is down since noon. Restart it."),
    ("Version 1.2.3 was released on Monday. It broke billing. Roll back.",
     "Version 1.2.3 was released on Monday. It broke billing."),
    ("東京は日本の首都です。大阪は二番目の都市です。京都も有名です。", "東京は日本の首都です。大阪は二番目の都市です。"),
    ("Резервная копия создаётся в 02:00. Проверка идёт утром. Отчёт вечером.",
     "Резервная копия создаётся в 02:00. Проверка идёт утром."),
    ("बैकअप रात में चलता है। सुबह जाँच होती है। शाम को रिपोर्ट।", "बैकअप रात में चलता है। सुबह जाँच होती है।"),
])
def test_clip_keeps_two_whole_sentences_of_hard_text(text, first_two):
    out, cut = clip(text, 2)
    assert cut and out == first_two + " " + ELLIPSIS


@pytest.mark.parametrize("text", [
    "Use e.g. pytest. Then v2.1.", "Pi is 3.14159 and e is 2.71828.", "Reach 10.0.0.1 or 10.0.0.2 now.",
    "No punctuation at all", "東京は日本の首都です。", "One. Two.",
])
def test_clip_leaves_short_text_whole(text):
    assert clip(text, 2) == (text, False)


def test_clip_to_one_sentence():
    assert clip("First v1.0.2 note. Second note.", 1) == ("First v1.0.2 note. " + ELLIPSIS, True)


# ---- budget ---------------------------------------------------------------------------------

def test_partial_last_item_counts_its_ellipsis():
    # 40 tokens of budget left after the first item; the second item needs 100.
    fitted, cut = enforce_budget(["a" * 240, "word " * 80], 100, chars4)
    assert cut and sum(n for _, n in fitted) <= 100
    last = fitted[1][0]
    assert last.endswith(ELLIPSIS) and chars4(last) <= 40 and chars4(last) >= 38
    assert not last[:-1].endswith(" ") and last.startswith("word")  # cut on a word boundary


def test_partial_that_cannot_hold_a_character_is_left_out():
    fitted, cut = enforce_budget(["a" * 400, "more text"], 100, chars4)
    assert [t for t, _ in fitted] == ["a" * 400] and not cut
    assert fit_prefix("abc", 0, chars4) is None


@given(st.lists(st.text(min_size=0, max_size=300), max_size=40), st.integers(1, 3000),
       st.sampled_from([chars4, words]))
def test_budget_never_exceeded(texts, max_tokens, counter):
    fitted, _ = enforce_budget(texts, max_tokens, counter)
    assert sum(counter(t) for t, _ in fitted) <= max_tokens
    assert all(n == counter(t) for t, n in fitted)


def test_real_tokenizer_counter(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers

    tok = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel()
    tok.train_from_iterator(["the nightly backup of billing runs at two"] * 20,
                            trainers.BpeTrainer(vocab_size=300, special_tokens=["[UNK]"],
                                                initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    count = token_counter(f"tokenizer:{path}")
    assert count("the nightly backup") < count("zqx vwk jjy")  # learned merges make known words cheap
    policy = PolicySettings(max_tokens=100, token_counter=f"tokenizer:{path}", min_score=0)
    items = [cand(i, f"The nightly backup of billing {i} runs at two and zqxv {i} wkjj.") for i in range(30)]
    memories, stats = apply_policy(items, policy)
    assert stats.total_tokens == sum(count(m.content) for m in memories) <= 100


@pytest.mark.parametrize("spec,needle", [
    ("bogus", "expected chars4"), ("tokenizer:/nonexistent/tokenizer.json", "cannot load tokenizer file"),
    ("no_such_module_xyz:count", "cannot load"), ("tiktoken:no_such_encoding", "tiktoken"),
])
def test_unavailable_token_counter_is_a_config_error(spec, needle):
    with pytest.raises(ConfigError, match=needle) as err:
        token_counter(spec)
    assert "policy.token_counter" in str(err.value)


# ---- redaction ------------------------------------------------------------------------------

@pytest.mark.parametrize("name,pii", [
    ("ssn", "123-45-6789"), ("card", "4111111111111111"), ("card", "4111 1111 1111 1111"),
    ("card", "4111-1111-1111-1111"), ("email", "Jane.Doe+ops@Example.co.uk"),
])
def test_default_patterns_redact(name, pii):
    red = Redactor()
    out, changed = red(f"Contact detail {pii} is on file.")
    assert changed and pii not in out and "[REDACTED]" in out
    assert re.search(DEFAULT_PATTERNS[name], pii)


def test_non_pii_numbers_stay():
    red = Redactor()
    for text in ("Call 555-1234 at 10.0.0.1", "Order 123456789012345 shipped", "v1.2.3-45-6789x"):
        assert red(text) == (text, False)


def test_custom_pattern_and_was_redacted_and_no_original_anywhere():
    policy = PolicySettings(redaction_patterns=[r"\bEMP-\d{5}\b"], min_score=0)
    items = [cand(1, "Employee EMP-12345 owns the backup job. Email a.b@corp.example for access."),
             cand(2, "The backup runs nightly.")]
    memories, _ = apply_policy(items, policy)
    by_id = {m.id: m for m in memories}
    assert by_id["1"].provenance.was_redacted and not by_id["2"].provenance.was_redacted
    dumped = json.dumps(Payload(memories, Metadata()).to_dict())
    assert "EMP-12345" not in dumped and "a.b@corp.example" not in dumped


def test_redaction_disabled_keeps_text():
    memories, stats = apply_policy([cand(1, "SSN 123-45-6789 on file")], PolicySettings(enable_redaction=False))
    assert memories[0].content == "SSN 123-45-6789 on file" and "redaction" not in stats.applied_filters


def test_sensitivity_redaction_composes():
    memories, _ = apply_policy([cand(1, "", access_redacted=True), cand(2, "Visible fact")], PolicySettings())
    red = next(m for m in memories if m.id == "1")
    assert red.content == "[REDACTED]" and red.provenance.was_redacted


def test_a_cut_that_creates_a_match_is_redacted():
    # 17 digits in fours do not match the card pattern; their 16-digit prefix would.
    text = "Ref 1234 5678 9012 34567 " + "pad " * 40
    red = Redactor()
    assert red(text) == (text, False)
    out = fit_prefix(text, 6, chars4, finish=lambda t: red(t)[0])
    assert out is not None and not red.matches(out[0]) and out[1] <= 6


# ---- settings -------------------------------------------------------------------------------

RANGED = {"top_k": (1, 20), "clip_sentences": (1, 5), "max_tokens": (100, 3000), "min_score": (0, 1),
          "ratio": (0, 1), "max_query_chars": (1, 8192), "cache_ttl_s": (0, 3600), "cache_size": (1, 100_000),
          "rate_limit_per_minute": (0, 100_000)}


@pytest.mark.parametrize("key", sorted(RANGED))
def test_every_ranged_field_rejects_out_of_range_and_names_key_and_range(key):
    from graph_trust.config import load_settings

    lo, hi = RANGED[key]
    for bad in (lo - 1, hi + 1, "abc", True):
        with pytest.raises(ConfigError) as err:
            load_settings(overrides={f"policy.{key}": bad}, environ={})
        msg = str(err.value)
        assert f"policy.{key}" in msg and f"[{lo:g}, {hi:g}]" in msg, msg
    for good in (lo, hi):
        assert getattr(load_settings(overrides={f"policy.{key}": good}, environ={}).policy, key) == good


@pytest.mark.parametrize("key,bad", [("search_type", "fuzzy"), ("interleave", "random"), ("enable_redaction", "maybe")])
def test_choice_fields_reject_unknown_values(key, bad):
    from graph_trust.config import load_settings

    with pytest.raises(ConfigError, match=f"policy.{key}"):
        load_settings(overrides={f"policy.{key}": bad}, environ={})


def test_bad_regex_is_a_config_error_naming_the_key(tmp_path):
    from graph_trust.config import load_settings

    cfg = tmp_path / "c.yaml"
    cfg.write_text("policy:\n  redaction_patterns: ['ok\\\\d+', '(unclosed']\n")
    with pytest.raises(ConfigError, match=r"policy.redaction_patterns.*pattern 1.*does not compile") as err:
        load_settings(cfg, environ={})
    assert "config file" in str(err.value)
    with pytest.raises(ConfigError, match="matches the empty string"):
        load_settings(overrides={"policy.redaction_patterns": ["x*"]}, environ={})
    with pytest.raises(ConfigError, match="redaction_replacement"):
        load_settings(overrides={"policy.redaction_replacement": "000-00-0000"}, environ={})


def test_policy_settings_from_environment_and_file(tmp_path):
    from graph_trust.config import load_settings

    cfg = tmp_path / "c.yaml"
    cfg.write_text("policy:\n  top_k: 5\n  interleave: score_first\n")
    s = load_settings(cfg, environ={"GRAPH_TRUST_POLICY_MAX_TOKENS": "800"}).policy
    assert (s.top_k, s.interleave, s.max_tokens) == (5, "score_first", 800)
    with pytest.raises(ConfigError, match=r"policy.max_tokens.*environment variable GRAPH_TRUST_POLICY_MAX_TOKENS"):
        load_settings(cfg, environ={"GRAPH_TRUST_POLICY_MAX_TOKENS": "99"})


# ---- payload and prompt ---------------------------------------------------------------------

def test_format_groups_by_type_and_ends_with_summary():
    items = [cand(1, "Deploys must be approved.", type="instruction", score=0.8),
             cand(2, "Backups run at 02:00 UTC.", score=0.9),
             cand(3, "Alice prefers mornings.", type="preference", score=0.7),
             cand(4, "User asked about backups.", type="message", role="user", score=0.6)]
    memories, _ = apply_policy(items, PolicySettings())
    text = format_for_system_prompt(Payload(memories, Metadata(included_results=len(memories), query_time_ms=4.4)))
    lines = text.splitlines()
    heads = [ln for ln in lines if ln.startswith("### ")]
    assert heads == ["### Instructions", "### Known Facts", "### Preferences", "### Previous Messages"]
    assert "- Backups run at 02:00 UTC. (confidence: 0.90, unreviewed)" in lines  # no trust_score: no review
    reviewed, _ = apply_policy([cand(2, "Backups run at 02:00 UTC.", score=0.9, trust_score=1.0)], PolicySettings())
    assert "- Backups run at 02:00 UTC. (confidence: 0.90)" in format_for_system_prompt(
        Payload(reviewed, Metadata(included_results=1))).splitlines()
    assert any(ln.endswith("user: User asked about backups.") and ln.startswith("[2025-12-31T23:00") for ln in lines)
    assert text.endswith("_Retrieved 4 memories in 4ms_\n")
    assert format_for_system_prompt(Payload([], Metadata())) == ""


def test_memory_fields():
    items = [cand("e1", "Backups run at 02:00 UTC.", trust_score=0.8, review_status="promoted",
                  episodes=("ep1", "ep2"))]
    m = apply_policy(items, PolicySettings(search_type="keyword"))[0][0].to_dict()
    assert m["trust_score"] == 0.8 and m["review_status"] == "promoted" and m["group"] == "g"
    assert m["timestamp"] == "2025-12-31T23:00:00+00:00" and m["tokens"] == chars4(m["content"])
    assert m["provenance"] == {"group": "g", "search_type": "keyword", "original_length": 25,
                               "was_redacted": False, "episodes": ["ep1", "ep2"]}


def test_min_score_drops_and_counts():
    items = [cand(1, "kept fact", score=0.31), cand(2, "dropped fact", score=0.29)]
    memories, stats = apply_policy(items, PolicySettings(min_score=0.3))
    assert [m.id for m in memories] == ["1"] and stats.below_min_score == 1


# ---- properties over the whole policy -------------------------------------------------------

PII = st.sampled_from(["123-45-6789", "4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111",
                       "ops@example.com", "EMP-00042", "x.y@z.io"])
WORD = st.one_of(st.sampled_from(["Backup", "backup", "runs", "e.g.", "v2.1", "3.14", "10.0.0.1", "東京は", "首都です。",
                                  "мир.", "Hello", "world!", "", " ", ".", "?", "\n"]), PII,
                 st.text(max_size=8))
TEXT = st.lists(WORD, max_size=40).map(" ".join)


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(TEXT, st.floats(0, 1), st.one_of(st.none(), st.floats(0, 1)), st.integers(0, 1000),
                          st.booleans()), max_size=40),
       st.integers(1, 20), st.integers(1, 5), st.integers(100, 3000), st.floats(0, 1),
       st.sampled_from(["alternate", "score_first", "recency_first"]), st.sampled_from(["chars4", "words"]))
def test_policy_properties(rows, top_k, clip_n, max_tokens, min_score, strategy, counter_name):
    policy = PolicySettings(top_k=top_k, clip_sentences=clip_n, max_tokens=max_tokens, min_score=min_score,
                            interleave=strategy, redaction_patterns=[r"\bEMP-\d{5}\b"])
    counter = chars4 if counter_name == "chars4" else words
    items = [Candidate(str(i), text, score, NOW - timedelta(minutes=m), "g", trust_score=trust, access_redacted=ar)
             for i, (text, score, trust, m, ar) in enumerate(rows)]
    memories, stats = apply_policy(items, policy, counter=counter)
    red = Redactor.from_settings(policy)
    assert sum(counter(m.content) for m in memories) <= max_tokens
    assert stats.total_tokens == sum(m.tokens for m in memories) <= max_tokens
    hashes = [normalized_hash(m.content) for m in memories]
    assert len(set(hashes)) == len(hashes)
    assert not any(red.matches(m.content) for m in memories)
    assert len(memories) <= top_k and all(m.score >= min_score for m in memories)
