"""Settings are validated once, by the settings models: a trust weight given to ``trust_search``
from Python, through the environment, in a recipe or in the config is accepted or refused
alike; the search recipe and the ``search:`` section share one definition of the ranking
fields; the context stages take their options as one object or as keyword arguments alike."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from memory_records import NOW
from pydantic import ValidationError
from test_context_order import SETTINGS, _shape, pools

from graph_trust import api
from graph_trust.access.trust_context import TrustContext
from graph_trust.config import RANKING_KEYS, RankingSettings, SearchSettings, load_settings
from graph_trust.context.agent import ContextOptions, context_from_records
from graph_trust.errors import ConfigError
from graph_trust.search.trust_search import TrustSearchConfig, check_weight, env_trust_weight

weights = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-0.5, max_value=1.5),
    st.integers(-3, 3),
    st.booleans(),
    st.floats(min_value=-0.5, max_value=1.5).map(str),
    st.sampled_from(["nan", "NaN", "inf", "-inf", "Infinity", "+nan", "", " 0.3 ", "1e-3", "0x1", "abc", "1,5"]),
    st.text(max_size=6),
)


def _outcome(fn):
    try:
        return ("ok", fn())
    except ConfigError:
        return ("refused", None)


@pytest.fixture(scope="module")
def empty_config(tmp_path_factory):
    path = tmp_path_factory.mktemp("cfg") / "empty.yaml"
    path.write_text("{}\n", encoding="utf-8")
    return path


@hsettings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=weights)
def test_a_weight_is_accepted_or_refused_alike_everywhere(empty_config, value):
    call = _outcome(lambda: check_weight(value))
    config = _outcome(lambda: load_settings(empty_config, overrides={"search.trust_weight": value},
                                            environ={}).search.trust_weight)
    assert call == config
    if call[0] == "ok":
        assert math.isfinite(call[1]) and 0.0 <= call[1] <= 1.0
        assert TrustSearchConfig(trust_weight=value).trust_weight == call[1]
    else:
        with pytest.raises(ValidationError):
            TrustSearchConfig(trust_weight=value)
    if isinstance(value, str) and value.strip():
        env = _outcome(lambda: env_trust_weight({"GRAPHITI_TRUST_WEIGHT": value}))
        from_env = _outcome(lambda: load_settings(empty_config, environ={"GRAPHITI_TRUST_WEIGHT": value})
                            .search.trust_weight)
        assert env == from_env == call


def test_errors_name_where_the_bad_weight_came_from():
    with pytest.raises(ConfigError, match=r"^trust_weight: .*less than or equal to 1"):
        check_weight(1.5)
    with pytest.raises(ConfigError, match=r"search.trust_weight.*finite.*GRAPHITI_TRUST_WEIGHT"):
        env_trust_weight({"GRAPHITI_TRUST_WEIGHT": "nan"})
    with pytest.raises(ConfigError, match=r"search.trust_weight.*\[from --trust-weight\]"):
        load_settings(overrides={"search.trust_weight": "2"}, environ={},
                      override_sources={"search.trust_weight": "--trust-weight"})
    assert env_trust_weight({}) == RankingSettings().trust_weight


def test_recipe_and_settings_share_the_ranking_fields():
    """One definition: every ranking field of the config is a recipe field with the same default
    and bounds (the recipe's weight may also be None: 'the environment or the default')."""
    recipe, section = TrustSearchConfig.model_fields, SearchSettings.model_fields
    for key in RANKING_KEYS:
        assert key in recipe and key in section
        if key != "trust_weight":
            assert recipe[key].metadata == section[key].metadata
            assert (recipe[key].get_default(call_default_factory=True)
                    == section[key].get_default(call_default_factory=True))
    assert recipe["trust_weight"].default is None


@given(s=st.fixed_dictionaries({
    "trust_weight": st.floats(0, 1), "rank_const": st.floats(0.5, 100), "pool_multiplier": st.floats(1, 50),
    "boost_form": st.sampled_from(["additive", "supported"]), "min_boost_trust": st.floats(0, 1),
    "negative_penalty": st.floats(0, 1), "drop_negative": st.booleans(), "boost_expired": st.booleans()}),
    scope=st.sampled_from(["edges", "nodes"]))
def test_the_recipe_takes_every_ranking_setting(s, scope):
    settings = load_settings(overrides={f"search.{k}": v for k, v in s.items()}, environ={})
    cfg = api.search_config(settings, scope=scope)
    assert {k: getattr(cfg, k) for k in RANKING_KEYS} == {k: getattr(settings.search, k) for k in RANKING_KEYS}


options = st.builds(
    ContextOptions,
    rank=st.sampled_from(["composite", "boost"]),
    memory_types=st.sampled_from([None, ["fact"], ["fact", "observation"]]),
    min_salience=st.sampled_from([None, 0.0, 0.5]),
    by_salience=st.booleans(),
    max_results=st.sampled_from([None, 1, 3, 10]),
    now=st.just(NOW),
)


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pool=pools(), opts=options, other=options)
def test_context_options_as_an_object_or_as_keywords_give_one_result(pool, opts, other):
    ctx = TrustContext.unrestricted()
    fields = {k: getattr(opts, k) for k in ("rank", "memory_types", "min_salience", "by_salience", "max_results", "now")}
    as_object = context_from_records(pool, "q", settings=SETTINGS, trust_context=ctx, options=opts)
    as_keywords = context_from_records(pool, "q", settings=SETTINGS, trust_context=ctx, **fields)
    over_other = context_from_records(pool, "q", settings=SETTINGS, trust_context=ctx, options=other, **fields)
    assert _shape(as_object) == _shape(as_keywords) == _shape(over_other)
    assert as_object.rank == opts.rank


def test_an_unknown_context_option_is_a_type_error():
    with pytest.raises(TypeError, match="max_result"):
        context_from_records([], "q", settings=SETTINGS, trust_context=TrustContext.unrestricted(), max_result=3)
