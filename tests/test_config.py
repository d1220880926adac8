"""Config: YAML, then environment, then flags; errors name the key and the source."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_trust.config import CompositeSettings, load_settings
from graph_trust.errors import ConfigError
from graph_trust.eval.runner import settings_with
from graph_trust.graph.address import parse_address

EXAMPLE = Path(__file__).parent.parent / "graph-trust.example.yaml"


def test_documented_example_is_valid_and_equals_defaults():
    from_file = load_settings(EXAMPLE, environ={})
    defaults = load_settings(environ={}, config_path=None) if not Path("graph-trust.yaml").exists() else None
    assert from_file.search.trust_weight == 0.05 and from_file.sync.tiers["corroborated"] == 0.6
    if defaults is not None:
        a, b = from_file.model_dump(), defaults.model_dump()
        a["context"].pop("selector_weights"), b["context"].pop("selector_weights")
        assert a == b


def test_precedence_yaml_env_flags(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("search:\n  trust_weight: 0.2\n  limit: 7\n")
    assert load_settings(cfg, environ={}).search.trust_weight == 0.2
    s = load_settings(cfg, environ={"GRAPHITI_TRUST_WEIGHT": "0.3"})
    assert s.search.trust_weight == 0.3 and s.search.limit == 7
    s = load_settings(cfg, overrides={"search.trust_weight": 0.4}, environ={"GRAPHITI_TRUST_WEIGHT": "0.3"})
    assert s.search.trust_weight == 0.4


def test_graph_env_precedence():
    env = {"NEO4J_URI": "bolt://a:7687", "GRAPH_TRUST_GRAPH": "embedded:/tmp/x"}
    assert load_settings(environ=env).graph.uri == "embedded:/tmp/x"
    assert load_settings(environ={"NEO4J_URI": "bolt://a:7687"}).graph.uri == "bolt://a:7687"


@pytest.mark.parametrize(
    "yaml_text, key",
    [
        ("search:\n  trust_weight: 2\n", "search.trust_weight"),
        ("search:\n  trust_wieght: 0.1\n", "search.trust_wieght"),
        ("sync:\n  aggregation: median\n", "sync.aggregation"),
        ("sync:\n  tiers: {promoted: 3}\n", "sync.tiers"),
        ("search:\n  trust_weight: .nan\n", "search.trust_weight"),
    ],
)
def test_errors_name_the_key(tmp_path, yaml_text, key):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml_text)
    with pytest.raises(ConfigError, match=f"config key {key}"):
        load_settings(cfg, environ={})


def test_composite_weight_sum_error_names_the_sum(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("composite:\n  w_trust: 0.6\n  w_relevance: 1.0\n")
    d = CompositeSettings()
    with pytest.raises(ConfigError, match=rf"config key composite: .*sum to 1 \+/- 0.05, got {1.6 + d.w_recency + d.w_type:.3f}"):
        load_settings(cfg, environ={})


def test_bad_yaml_and_missing_file(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("search: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_settings(cfg, environ={})
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "nope.yaml", environ={})


def test_password_never_in_errors_or_repr():
    s = load_settings(environ={"NEO4J_PASSWORD": "hunter2-secret", "GRAPH_TRUST_GRAPH": "bolt://h:7687"})
    assert "hunter2-secret" not in repr(s) and "hunter2-secret" not in str(s.model_dump())
    addr = parse_address("bolt://u:pw-in-uri@h:7687")
    assert "pw-in-uri" not in addr.display and "pw-in-uri" not in repr(addr)
    assert addr.password.get_secret_value() == "pw-in-uri" and addr.user == "u"


@pytest.mark.parametrize("uri, kind", [("embedded:/x/y", "embedded"), ("falkordb://h:1234", "falkordb"),
                                        ("bolt://h", "neo4j"), ("neo4j+s://h:7687", "neo4j")])
def test_address_kinds(uri, kind):
    assert parse_address(uri).kind == kind


@pytest.mark.parametrize("uri", ["mysql://h", "embedded:", "", "falkordb://", "bolt://h:notaport"])
def test_bad_addresses(uri):
    with pytest.raises(ConfigError, match="graph.uri"):
        parse_address(uri)


def test_explicit_settings_apply_null_and_overrides_ignore_it(tmp_path):
    """``--set key=null`` clears a nullable setting (explicit), an unset CLI flag (None override)
    changes nothing, and an explicit null on a non-nullable key is one error naming the key."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text("search:\n  relation_cap: 0.5\n  negative_lone_places: 3\n")
    assert load_settings(cfg, overrides={"search.relation_cap": None}, environ={}).search.relation_cap == 0.5
    s = settings_with(cfg, {"search.relation_cap": None, "search.negative_lone_places": None})
    assert s.search.relation_cap is None and s.search.negative_lone_places is None
    with pytest.raises(ConfigError, match=r"search\.trust_weight.*--set"):
        load_settings(cfg, explicit={"search.trust_weight": None}, environ={})


@pytest.mark.parametrize("where", ["explicit", "overrides"])
def test_one_entry_of_a_mapping_setting_keeps_the_others(tmp_path, where):
    """``--set sync.tiers.candidate=0`` changes that tier only: of the defaults, or of the map the
    config file gave (before, the other tiers were dropped and every other status quarantined)."""
    default = load_settings(environ={}).sync.tiers
    s = load_settings(environ={}, **{where: {"sync.tiers.candidate": 0.0}})
    assert s.sync.tiers == {**default, "candidate": 0.0}
    s = load_settings(environ={}, explicit={"sync.tiers.rejected": None})
    assert s.sync.tiers == {**default, "rejected": None}
    cfg = tmp_path / "c.yaml"
    cfg.write_text("sync:\n  tiers:\n    promoted: 0.9\n    candidate: 0.2\n")
    s = load_settings(cfg, environ={}, **{where: {"sync.tiers.candidate": 0.1}})
    assert s.sync.tiers == {"promoted": 0.9, "candidate": 0.1}  # the file's map, one entry changed
    weights = load_settings(environ={}).confidence.weights
    w = dict(weights)
    shift = 0.05
    w["freshness"] += shift
    w["source"] -= shift
    s = load_settings(environ={}, explicit={"confidence.weights.freshness": w["freshness"],
                                            "confidence.weights.source": w["source"]})
    assert s.confidence.weights == pytest.approx(w)


def test_every_package_check_is_installed_and_is_the_packages_own():
    """config imports only errors: the checks whose rules live in a package are installed by
    graph_trust/__init__.py; each one is there, and is that package's function."""
    from graph_trust import config
    from graph_trust.access.sensitivity import SensitivityScale
    from graph_trust.confidence.composite import check_weights
    from graph_trust.context.redact import check_replacement
    from graph_trust.review.db import parse_location
    from graph_trust.search.slots import relation_key

    assert config._checks == {"relation_key": relation_key, "sensitivity_scale": SensitivityScale.of,
                              "redaction_replacement": check_replacement, "review_address": parse_location,
                              "confidence_weights": check_weights}
    with pytest.raises(TypeError, match="unknown check"):
        config.install_checks(spelling=relation_key)


@pytest.mark.parametrize("key, value, message", [
    ("search.single_valued", ["depends on", " "], "config key search: single_valued: a relation name is empty"),
    ("access.levels", ["low", "LOW"], "config key access: levels must be distinct, non-blank names"),
    ("access.labels", {"internal": "secret"}, "config key access: label 'internal' must name one of the levels"),
    ("context.max_sensitivity", "secret", "config key context.max_sensitivity: 'secret' is not a sensitivity"),
    ("policy.redaction_replacement", "a@b.io", "config key policy: email ("),
    ("review.url", "mysql://db", "config key review.url: review DB address mysql://... is neither a path"),
    ("confidence.weights", {"freshness": 1.0}, "config key confidence.weights: weights need exactly freshness"),
])
def test_package_checks_fail_at_load_naming_the_key_and_source(key, value, message):
    with pytest.raises(ConfigError) as exc:
        load_settings(overrides={key: value}, environ={}, override_sources={key: "--flag"})
    assert str(exc.value).startswith(message) and str(exc.value).endswith("[from --flag]"), str(exc.value)
