"""`_text.text_episodes`: which earlier outputs an output is compared with. Only the last
`text_window` ones; by words only when both have `min_similarity_words` content words; an output
with no text is skipped, never the end of the scan."""

from __future__ import annotations

import hashlib

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


# -- the actions replies wrote (`_Written`) and "alike" (`_alike`), at their edges ----------------
def _word(k: int, i: int) -> str:
    """A made-up word of seven letters, its own for each (k, i)."""
    return "".join(chr(97 + int(c, 16) % 26) for c in hashlib.sha1(f"{k}-{i}".encode()).hexdigest()[:7])


def _others(n: int) -> list[tuple[str, str]]:
    """`n` actions of one name, none alike another (each input its own made-up words)."""
    return [("execute", " ".join(_word(k, i) for i in range(8))) for k in range(n)]


THINGS = "cabinet drawer kettle spoon towel bottle pillow lamp".split()
FIRST = ("execute", " ".join(THINGS))
ALIKE = ("execute", " ".join(THINGS[:7]) + " candle")  # the last of eight words changed: alike at 0.85
# The same words, the halves swapped: most pairs of words (bigrams) shared, the order not, so the
# similarity is the bigram Jaccard, an exact fraction (6/8) a cut-off can equal.
SWAPPED = ("execute", " ".join(THINGS[4:] + THINGS[:4]))


@pytest.mark.parametrize(("between", "again", "new"), [
    pytest.param(33, FIRST, False, id="the-same-action-after-33-others-of-its-name-was-written"),
    pytest.param(33, ALIKE, True, id="an-alike-one-after-33-others-is-past-the-window-of-32"),
    pytest.param(31, ALIKE, False, id="twin-an-alike-one-after-31-others-is-within-the-window"),
])
def test_the_actions_written_are_all_remembered_exactly_and_32_of_a_name_by_likeness(between, again, new):
    from loopmetric.detectors._text import _Written

    written = _Written(0.85)
    assert written.add(FIRST) is True
    assert all(written.add(other) for other in _others(between))
    assert written.add(again) is new


def test_actions_exactly_at_the_cut_off_are_alike():
    from loopmetric.detectors._similarity import Words, similarity
    from loopmetric.detectors._text import _Written, _alike

    at = similarity(Words(FIRST[1]), Words(SWAPPED[1]))
    assert at == 6 / 8
    assert _alike(FIRST, SWAPPED, at) and not _alike(FIRST, SWAPPED, at + 1e-9)
    written = _Written(at)
    assert written.add(FIRST) and not written.add(SWAPPED)
    above = _Written(at + 1e-9)
    assert above.add(FIRST) and above.add(SWAPPED)


@pytest.mark.parametrize(("threshold", "repeats"), [
    pytest.param(6 / 8, [(1, 2)], id="at-the-threshold-a-repeat"),
    pytest.param(6 / 8 + 1e-9, [], id="twin-just-above-it-none"),
])
def test_outputs_exactly_at_the_similarity_threshold_repeat(threshold, repeats):
    trace = read_deepeval_trace(agent(llm(FIRST[1]), llm(SWAPPED[1])))
    found = detect_text_loops(trace, LoopSettings(similarity_threshold=threshold))
    assert [f.steps for f in found] == repeats


def test_an_exact_repeat_is_matched_exactly_though_a_less_alike_output_is_nearer():
    """A, A with one word changed (Y), Y with one more changed (X), then A again: the last output
    repeats the first exactly, and the finding's similarity is that of the least alike pair the
    scan linked (Y and X), never of X and the last A, which the scan did not link."""
    from loopmetric._canonical import normalize_text
    from loopmetric.detectors._similarity import Words, similarity

    things = ("cabinet drawer kettle spoon towel bottle pillow lamp mirror carpet window blanket basket candle "
              "teapot ladder bucket jacket saucer violin").split()
    a = " ".join(things)
    y = " ".join(things[:7] + ["hammer"] + things[8:])
    x = " ".join(things[:7] + ["hammer"] + things[8:13] + ["pencil"] + things[14:])

    def alike(p: str, q: str) -> float:
        return similarity(Words(normalize_text(p)), Words(normalize_text(q)))

    assert alike(a, x) < alike(y, x) < alike(a, y)
    (found,) = detect_text_loops(read_deepeval_trace(agent(llm(a), llm(y), llm(x), llm(a))), LoopSettings())
    assert found.steps == (1, 2, 3, 4) and found.similarity == round(alike(y, x), 4)
