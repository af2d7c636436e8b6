"""Settings validation: every bad value names the argument, the range and the value."""

from __future__ import annotations

import pytest

from dataclasses import fields, replace

from loopmetric import LoopSettings, detect_loops
from loopmetric._engine import resolve_settings


@pytest.mark.parametrize(("kwargs", "message"), [
    pytest.param({"threshold": -0.1}, "Expected argument `threshold` to be a float in [0, 1], but got -0.1.", id="threshold-low"),
    pytest.param({"threshold": float("nan")}, "`threshold` to be a float in [0, 1], but got nan", id="threshold-nan"),
    pytest.param({"threshold": True}, "`threshold` to be a float in [0, 1], but got True", id="threshold-bool"),
    pytest.param({"similarity_threshold": "0.9"}, "`similarity_threshold` to be a float in (0, 1], but got '0.9'",
                 id="similarity-text"),
    pytest.param({"similarity_threshold": 1.2}, "`similarity_threshold` to be a float in (0, 1], but got 1.2", id="similarity"),
    pytest.param({"semantic_threshold": 0}, "`semantic_threshold` to be a float in (0, 1], but got 0", id="semantic-zero"),
    pytest.param({"semantic_instruction_threshold": 1.5},
                 "`semantic_instruction_threshold` to be a float in (0, 1], but got 1.5", id="instruction-high"),
    pytest.param({"repetition_threshold": 2.5}, "`repetition_threshold` to be an int >= 2, but got 2.5", id="rep-float"),
    pytest.param({"repetition_threshold": True}, "`repetition_threshold` to be an int >= 2, but got True", id="rep-bool"),
    pytest.param({"window": 1}, "`window` to be an int >= 2 or None, but got 1", id="window"),
    pytest.param({"repeated_result_threshold": 1}, "`repeated_result_threshold` to be an int >= 2 or None", id="result"),
    pytest.param({"window": 4, "alternating_calls_threshold": 3}, "`alternating_calls_threshold` to fit in `window`", id="fit"),
    pytest.param({"text_window": 0}, "`text_window` to be an int >= 1, but got 0", id="text-window"),
    pytest.param({"aggregation": "median"}, "`aggregation` to be 'geometric' or 'arithmetic', but got 'median'", id="agg"),
    # a switch given as text ("false" is truthy) would turn the rule on, not off
    pytest.param({"strict_mode": "false"}, "Expected argument `strict_mode` to be a bool, but got 'false'.",
                 id="strict-mode-text"),
    pytest.param({"check_tool_repetition": 0}, "Expected argument `check_tool_repetition` to be a bool, but got 0.",
                 id="check-a-number"),
])
def test_invalid_settings(kwargs, message):
    with pytest.raises(ValueError) as error:
        LoopSettings(**kwargs)
    assert message in str(error.value)


def _embed(texts):
    return [[1.0] for _ in texts]


@pytest.mark.parametrize("embedder, message", [
    pytest.param("wordllama", "Expected argument `embedder` to be None or a callable taking a list of texts and "
                 "returning one vector per text, but got 'wordllama'.", id="an-embedders-name-refused"),
    pytest.param(_embed, None, id="twin-a-callable-accepted"),
    pytest.param(None, None, id="twin-none-accepted"),
])
def test_an_embedder_is_a_callable_or_none(embedder, message):
    if message is None:
        assert LoopSettings(embedder=embedder).embedder is embedder
        return
    with pytest.raises(ValueError) as error:
        LoopSettings(embedder=embedder)
    assert str(error.value) == message


@pytest.mark.parametrize(("kwargs", "message"), [
    # each product must be at most the window: equal fits
    pytest.param({"window": 6, "repeated_call_threshold": 6}, None, id="a-call-threshold-equal-to-the-window-fits"),
    pytest.param({"window": 6, "repeated_call_threshold": 7},
                 "Expected argument `repeated_call_threshold` to fit in `window` (repeated_call_threshold x 1 "
                 "<= window=6), but got 7.", id="twin-one-over-the-window"),
    pytest.param({"window": 6, "alternating_calls_threshold": 3}, None,
                 id="an-alternation-of-3-rounds-of-2-calls-fills-a-window-of-6"),
    pytest.param({"window": 5, "alternating_calls_threshold": 3},
                 "Expected argument `alternating_calls_threshold` to fit in `window` (alternating_calls_threshold x 2 "
                 "<= window=5), but got 3.", id="twin-3-rounds-of-2-calls-over-a-window-of-5"),
])
def test_a_threshold_that_exactly_fills_the_window_is_accepted(kwargs, message):
    if message is None:
        assert LoopSettings(**kwargs).window == kwargs["window"]
        return
    with pytest.raises(ValueError) as error:
        LoopSettings(**kwargs)
    assert str(error.value) == message


@pytest.mark.parametrize(("value", "message"), [
    pytest.param(1, "Expected argument `rejected_output_threshold` to be an int >= 2 or None, but got 1.", id="one"),
    pytest.param("3", "Expected argument `rejected_output_threshold` to be an int >= 2 or None, but got '3'.",
                 id="a-string"),
    pytest.param(True, "Expected argument `rejected_output_threshold` to be an int >= 2 or None, but got True.",
                 id="true"),
    pytest.param(2, None, id="twin-two-the-least"),
    pytest.param(None, None, id="twin-none-turns-the-rule-off"),
])
def test_rejected_output_threshold_is_an_int_of_at_least_two_or_none(value, message):
    if message is None:
        assert LoopSettings(rejected_output_threshold=value).rejected_output_threshold == value
        return
    with pytest.raises(ValueError) as error:
        LoopSettings(rejected_output_threshold=value)
    assert str(error.value) == message


@pytest.mark.parametrize(("value", "message"), [
    # a reply is compared by its words only when it has this many: 0 would compare replies of no words at all
    pytest.param(0, "Expected argument `min_similarity_words` to be an int >= 1, but got 0.", id="zero-refused"),
    pytest.param(-3, "Expected argument `min_similarity_words` to be an int >= 1, but got -3.", id="negative-refused"),
    pytest.param(1, None, id="twin-one-the-least"),
])
def test_min_similarity_words_is_an_int_of_at_least_one(value, message):
    if message is None:
        assert LoopSettings(min_similarity_words=value).min_similarity_words == value
        return
    with pytest.raises(ValueError) as error:
        LoopSettings(min_similarity_words=value)
    assert str(error.value) == message


def test_detect_loops_rejects_unknown_settings():
    with pytest.raises(ValueError, match="unknown"):
        detect_loops({}, repetition_treshold=3)


def test_detect_loops_accepts_settings_as_keywords():
    trace = {"name": "a", "type": "agent", "children": [{"name": "t", "type": "tool", "input": {}, "output": "r"}] * 3}
    assert detect_loops(trace).success is False  # 3 identical results: severe
    assert detect_loops(trace, repeated_result_threshold=4).success is True  # 3 of 4: mild


def test_strict_mode_threshold_is_one():
    assert LoopSettings(strict_mode=True).effective_threshold == 1.0


# -- one declaration per setting: every frontend takes each field under its own name --------------
def _constant_embedder(texts):
    return [[1.0, 0.0] for _ in texts]


_NON_DEFAULT = {bool: lambda v: not v, float: lambda v: 0.75 if v != 0.75 else 0.7,
                int: lambda v: v + 1, str: lambda v: "arithmetic"}


def _other_value(name):
    if name == "embedder":  # a callable, given in Python only
        return _constant_embedder
    default = getattr(LoopSettings(), name)
    value = 5 if default is None else _NON_DEFAULT[type(default)](default)
    return value


def _cli_settings(subcommand, name, value):
    from loopmetric.cli import _parser
    from loopmetric.cli._args import settings_from

    flag = "--" + name.replace("_", "-")
    if isinstance(value, bool):
        words = [flag if value else "--no-" + flag[2:]]
    else:
        words = [flag, str(value)]
    extra = ["--output", "out"] if subcommand == "spark" else []
    return settings_from(_parser().parse_args([subcommand, "x.json", *extra, *words]), LoopSettings)


@pytest.mark.parametrize("name", [f.name for f in fields(LoopSettings)])
def test_every_setting_reaches_every_frontend(name):
    value = _other_value(name)
    expected = replace(LoopSettings(), **{name: value})
    # the plain function and the Spark scorer resolve keywords the same way
    assert resolve_settings(None, {name: value}) == expected
    # the command line: a flag per field on every scoring subcommand (not for a callable)
    for subcommand in ("score", "explain", "spark") if not callable(value) else ():
        assert _cli_settings(subcommand, name, value) == expected, subcommand
    # the deepeval metric (when installed): an argument and an attribute over one LoopSettings
    try:
        from loopmetric import AgentLoopDetectionMetric
    except ImportError:
        return
    metric = AgentLoopDetectionMetric(**{name: value})
    assert metric.settings == expected and getattr(metric, name) == value
    later = AgentLoopDetectionMetric()
    setattr(later, name, value)
    assert later.settings == expected


@pytest.mark.parametrize("given", [
    pytest.param({"repetition_threshold": 4}, id="alias"),
    pytest.param({"repeated_call_threshold": 4}, id="name"),
])
def test_deepevals_name_is_an_alias_of_repeated_call_threshold(given):
    settings = LoopSettings(**given)
    assert settings.repeated_call_threshold == settings.repetition_threshold == 4
    assert settings == LoopSettings.from_kwargs(**given) == resolve_settings(None, given)


def test_the_alias_and_the_name_together_are_refused():
    with pytest.raises(ValueError, match="one of `repetition_threshold` and `repeated_call_threshold`"):
        LoopSettings(repetition_threshold=3, repeated_call_threshold=4)
