"""Settings validation: every bad value names the argument, the range and the value."""

from __future__ import annotations

import pytest

from loopmetric import LoopSettings, detect_loops


@pytest.mark.parametrize(("kwargs", "message"), [
    pytest.param({"threshold": -0.1}, "Expected argument `threshold` to be a float in [0, 1], but got -0.1.", id="threshold-low"),
    pytest.param({"threshold": float("nan")}, "`threshold` to be a float in [0, 1], but got nan", id="threshold-nan"),
    pytest.param({"similarity_threshold": 1.2}, "`similarity_threshold` to be a float in (0, 1], but got 1.2", id="similarity"),
    pytest.param({"repetition_threshold": 2.5}, "`repetition_threshold` to be an int >= 2, but got 2.5", id="rep-float"),
    pytest.param({"repetition_threshold": True}, "`repetition_threshold` to be an int >= 2, but got True", id="rep-bool"),
    pytest.param({"window": 1}, "`window` to be an int >= 2 or None, but got 1", id="window"),
    pytest.param({"repeated_result_threshold": 1}, "`repeated_result_threshold` to be an int >= 2 or None", id="result"),
    pytest.param({"window": 4, "alternating_calls_threshold": 3}, "`alternating_calls_threshold` to fit in `window`", id="fit"),
    pytest.param({"text_window": 0}, "`text_window` to be an int >= 1, but got 0", id="text-window"),
    pytest.param({"aggregation": "median"}, "`aggregation` to be 'geometric' or 'arithmetic', but got 'median'", id="agg"),
])
def test_invalid_settings(kwargs, message):
    with pytest.raises(ValueError) as error:
        LoopSettings(**kwargs)
    assert message in str(error.value)


def test_detect_loops_rejects_unknown_settings():
    with pytest.raises(ValueError, match="unknown"):
        detect_loops({}, repetition_treshold=3)


def test_detect_loops_accepts_settings_as_keywords():
    trace = {"name": "a", "type": "agent", "children": [{"name": "t", "type": "tool", "input": {}, "output": "r"}] * 3}
    assert detect_loops(trace).success is False  # 3 identical results: severe
    assert detect_loops(trace, repeated_result_threshold=4).success is True  # 3 of 4: mild


def test_strict_mode_threshold_is_one():
    assert LoopSettings(strict_mode=True).effective_threshold == 1.0
