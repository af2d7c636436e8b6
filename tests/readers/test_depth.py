"""Deep traces read from a file as from memory: the same report at every
depth up to the maximum, whatever the stack the reader is called from; beyond it, a clear error."""

from __future__ import annotations

import re

import pytest

from benchmarks._shapes import DEEP_SHAPES, write_json
from loopmetric import detect_loops, load_traces
from loopmetric._deep_json import MAX_DEPTH


def _same_fields(report) -> dict:
    data = report.to_dict()
    data.pop("trace", None)  # a file names its trace by the file, memory by the root span
    return data


def _from_file(path) -> dict:
    [loaded] = list(load_traces(str(path)))
    assert loaded.error is None, loaded.error
    return _same_fields(detect_loops(loaded.trace))


CASES = [
    pytest.param(shape, depth, loop, id=f"{shape.replace(' ', '-')}-{depth}-{'loop' if loop else 'healthy'}")
    for shape, depths in [("span tree", (490, 2_000, 100_000)), ("tool input", (490, 2_000)),
                          ("chat arguments", (490, 2_000)), ("llm input", (490, 2_000, 100_000))]
    for depth in depths
    for loop in (True, False)
]


@pytest.mark.parametrize("shape, depth, loop", CASES)
def test_deep_span_tree_reads_from_file_as_from_memory(tmp_path, shape, depth, loop):
    value = DEEP_SHAPES[shape](depth, loop=loop)
    path = tmp_path / "deep.json"
    write_json(path, value)
    from_memory = _same_fields(detect_loops(value))
    assert _from_file(path) == from_memory
    assert from_memory["success"] is (not loop)  # the loop fails and its healthy twin passes, at every depth


def _at_stack_depth(frames: int, fn):
    """`fn()` called `frames` Python frames deeper than here (as a worker process calls it)."""
    if frames <= 0:
        return fn()
    return _at_stack_depth(frames - 1, fn)


@pytest.mark.parametrize("frames", [0, 200, 600], ids=lambda f: f"{f}-frames-down")
@pytest.mark.parametrize("depth", [300, 490], ids=lambda d: f"span-tree-{d}")
def test_how_deep_the_caller_is_changes_nothing(tmp_path, depth, frames):
    """The C parser gives up sooner the deeper its caller is: the report must not notice."""
    value = DEEP_SHAPES["span tree"](depth, loop=True)
    path = tmp_path / "deep.json"
    write_json(path, value)
    assert _at_stack_depth(frames, lambda: _from_file(path)) == _same_fields(detect_loops(value))


@pytest.mark.parametrize("opening, middle, closing, times", [
    pytest.param("[", "", "]", MAX_DEPTH + 1, id="lists"),
    pytest.param('{"type":"agent","children":[', "{}", "]}", MAX_DEPTH // 2 + 1, id="span-tree"),
])
def test_a_file_nested_beyond_the_maximum_is_a_clear_error(tmp_path, opening, middle, closing, times):
    path = tmp_path / "too_deep.json"
    path.write_text(opening * times + middle + closing * times)
    [loaded] = list(load_traces(str(path)))
    assert loaded.trace is None
    assert re.fullmatch(re.escape(f"{path}: ") + r"JSON nested more than 1,000,000 levels deep \(level 1,000,001 "
                        r"starts at line 1, column \d+\); loopmetric reads at most 1,000,000 levels", loaded.error)
