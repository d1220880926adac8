"""get_context's parts that need no graph: the cache, the rate limiter, the request key,
per-call overrides and the policy-only settings' syntax."""

from __future__ import annotations

import pytest

from graph_trust.access.trust_context import TrustContext
from graph_trust.config import PolicySettings, load_settings, policy_with
from graph_trust.context.payload import Metadata, Payload
from graph_trust.context.service import ContextCache, RateLimiter, request_key
from graph_trust.errors import ConfigError


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_rate_limiter_is_a_bucket_per_caller():
    clock = Clock()
    rl = RateLimiter(clock)
    assert [rl.allow("a", 3) for _ in range(4)] == [True, True, True, False]
    assert rl.allow("b", 3)  # its own bucket
    clock.t += 20  # one request's worth (3 per minute)
    assert rl.allow("a", 3) and not rl.allow("a", 3)
    assert all(rl.allow("c", 0) for _ in range(1000))  # 0 = no limit


def test_cache_ttl_stale_and_lru():
    clock = Clock()
    cache = ContextCache(clock)
    p = Payload([], Metadata(included_results=1))
    cache.put("k", p, size=2)
    got = cache.get("k", 60)
    assert got == p and got is not p and got.metadata is not p.metadata  # a copy, equal to what was put
    clock.t += 60
    assert cache.get("k", 60) is None and cache.get("k", 60, stale_ok=True) == p
    cache.put("k2", p, size=2)
    cache.put("k3", p, size=2)  # evicts the least recently used
    assert cache.get("k", 60, stale_ok=True) is None and cache.get("k3", 60) == p
    cache.put("k4", p, size=1)  # a smaller size keeps the most recent
    assert cache.get("k3", 60, stale_ok=True) is None and cache.get("k4", 60) == p
    assert cache.lookups == 4 and cache.hits == 3 and cache.hit_rate == 0.75  # stale reads are not lookups


def test_request_key_covers_query_settings_groups_rank_and_trust_context():
    s = load_settings(environ={})
    ctx = TrustContext("medium", True, "alice")
    base = request_key("q", s, ctx, ["g"], "composite")
    variants = [
        request_key("q ", s, ctx, ["g"], "composite"),
        request_key("q", s.model_copy(update={"policy": PolicySettings(top_k=3)}), ctx, ["g"], "composite"),
        request_key("q", s, ctx, ["h"], "composite"),
        request_key("q", s, ctx, ["g"], "boost"),
        request_key("q", s, TrustContext("high", True, "alice"), ["g"], "composite"),
        request_key("q", s, TrustContext("medium", True, "bob"), ["g"], "composite"),
        request_key("q", s, TrustContext("medium", False, "alice"), ["g"], "composite"),
        request_key("q", s, TrustContext("medium", True, "alice", ("ops",)), ["g"], "composite"),
        request_key("q", s, TrustContext.unrestricted("alice"), ["g"], "composite"),
    ]
    assert len({base, *variants}) == len(variants) + 1
    assert request_key("q", s, ctx, ["g"], "composite") == base


def test_policy_with_validates_per_call_overrides():
    base = PolicySettings()
    assert policy_with(base, {}) is base and policy_with(base, {"top_k": None}) is base
    assert policy_with(base, {"top_k": 4}).top_k == 4
    with pytest.raises(ConfigError, match=r"config key policy.max_tokens: must be an integer in \[100, 3000\]"):
        policy_with(base, {"max_tokens": 50})
    with pytest.raises(ConfigError, match="policy.no_such_key: unknown key"):
        policy_with(base, {"no_such_key": 1})


@pytest.mark.parametrize("key,bad", [("token_counter", "gpt4"), ("token_counter", "tiktoken:"),
                                     ("language", "English"), ("language", "")])
def test_policy_text_settings_syntax(key, bad):
    with pytest.raises(ConfigError, match=f"policy.{key}"):
        load_settings(overrides={f"policy.{key}": bad}, environ={})
