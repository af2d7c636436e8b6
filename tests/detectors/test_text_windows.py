"""`_text.text_episodes`: which earlier outputs an output is compared with. Only the last
`text_window` ones; by words only when both have `min_similarity_words` content words; an output
with no text is skipped, never the end of the scan."""

from __future__ import annotations

import pytest

from loopmetric import LoopSettings, read_deepeval_trace
from loopmetric.detectors import detect_text_loops
from tests._traces import agent, llm, tool

DISTINCT = [f"Now I look at part {name} of the plan before anything else" for name in
            ("alpha", "bravo", "charlie", "delta", "echo")]
A = "The build still fails with the same linker error in module core"
# Eight content words (3+ letters, no stop word), the last one changed: near-duplicates by words.
EIGHT = ["alpha bravo charlie delta echo foxtrot golf " + last for last in ("hotel", "india", "juliet")]
SEVEN = ["alpha bravo charlie delta echo foxtrot " + last for last in ("hotel", "india", "juliet")]


def found(*outputs, **settings):
    trace = read_deepeval_trace(agent(*outputs))
    return [(f.pattern, f.severity, f.steps) for f in detect_text_loops(trace, LoopSettings(**settings))]


@pytest.mark.parametrize(("outputs", "settings", "expected"), [
    pytest.param([A, *DISTINCT[:4], A, A], {}, [("repeated_text", "mild", (6, 7))],
                 id="a-repeat-beyond-the-window-of-4-is-not-matched"),
    pytest.param([A, *DISTINCT[:4], A, A], {"text_window": 5}, [("repeated_text", "severe", (1, 6, 7))],
                 id="twin-a-window-of-5-reaches-it"),
    pytest.param(EIGHT, {}, [("reasoning_stagnation", "severe", (1, 2, 3))],
                 id="eight-content-words-are-compared-by-words"),
    pytest.param(SEVEN, {}, [], id="twin-seven-count-only-when-equal"),
    pytest.param(EIGHT, {"min_similarity_words": 9}, [], id="twin-eight-under-a-minimum-of-nine"),
])
def test_which_earlier_outputs_an_output_is_compared_with(outputs, settings, expected):
    assert found(*[llm(text) for text in outputs], **settings) == expected


def test_an_output_with_no_text_is_skipped_not_the_end_of_the_scan():
    calls_only = llm({"role": "assistant", "content": None,
                      "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]})
    assert found(llm(""), calls_only, llm(A), llm(A), llm(A)) == [("repeated_text", "severe", (4, 5, 6))]


def test_a_tool_call_after_a_fresh_start_of_an_unrecorded_action_is_read_as_ever():
    """A recording without LLM input text (`{"step": n}`): a new action starts the replies afresh,
    and a tool call after it is an observation as in any run."""
    def counted(text, n):
        return {"type": "llm", "name": "llm", "input": {"step": n}, "output": text, "children": []}

    outputs = [counted("Let me look.\n```bash\nls\n```", 0), counted("Now the file.\n```bash\ncat a.py\n```", 1),
               tool("status", {"job": 7}, output="running"), counted(A, 2), counted(A, 3), counted(A, 4)]
    assert found(*outputs) == [("repeated_text", "severe", (4, 5, 6))]
