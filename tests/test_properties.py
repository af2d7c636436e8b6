"""Property-based: on any JSON-like trace the score is in [0, 1], the same on every
run, and nothing but the documented ValueError (for settings) is ever raised."""

from __future__ import annotations

import json

import pytest
import os
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loopmetric import TraceReadError, detect_loops

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20))
json_like = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=25)

span_types = st.sampled_from(["agent", "llm", "tool", "retriever", "base", "weird", None, 3])
names = st.sampled_from(["search", "read_file", "planner", "Function tool: search", "", None])


def spans(children):
    return st.fixed_dictionaries(
        {"name": names, "type": span_types},
        optional={
            "input": json_like,
            "output": json_like | st.sampled_from(["running", "Error: boom", "Same text."]),
            "children": children | st.none() | json_like,
            "tools_called": st.lists(st.fixed_dictionaries({"name": names}, optional={
                "input_parameters": json_like, "output": json_like}), max_size=3) | json_like,
            "error": st.none() | st.text(max_size=10),
        },
    )


traces = st.recursive(spans(st.just([])), lambda inner: spans(st.lists(inner, max_size=5)), max_leaves=30)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trace=st.one_of(traces, json_like))
def test_any_json_like_trace_scores_in_range_or_is_rejected_clearly(trace):
    try:
        first = detect_loops(trace)
    except (TraceReadError, TypeError) as error:  # never a silent pass, never an unclear crash
        assert str(error).startswith("Expected")
        with pytest.raises(type(error)):
            detect_loops(json.loads(json.dumps(trace)) if _json_safe(trace) else trace)
        return
    second = detect_loops(json.loads(json.dumps(trace)) if _json_safe(trace) else trace)
    assert 0.0 <= first.score <= 1.0
    assert first.success == (first.score >= first.threshold)
    assert first.to_dict() == second.to_dict() or not _json_safe(trace)


def _json_safe(value) -> bool:
    try:
        return json.loads(json.dumps(value)) == value
    except (ValueError, TypeError):
        return False


def test_reports_are_identical_across_processes_and_hash_seeds():
    code = (
        "import json, sys; sys.path.insert(0, '.');"
        "from tests._traces import agent, llm, tool; from loopmetric import TraceReadError, detect_loops;"
        "t = agent(*[x for _ in range(5) for x in (llm('Again.'), tool('s', {'b': 2, 'a': [1, {'z': 0, 'y': 1}]}, output='r'))]);"
        "print(json.dumps(detect_loops(t).to_dict(), sort_keys=True))"
    )
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        outputs.add(out.stdout)
    assert len(outputs) == 1
    assert '"fingerprints"' in outputs.pop()
