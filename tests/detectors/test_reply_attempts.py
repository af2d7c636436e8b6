"""The calls one reply makes at once are one attempt (`similar_attempts`): the agent saw none of
their results before making the next. Several commands written in one reply and each refused the
same way were tried once; the same calls made reply after reply, each answered alike, are a loop.
The same call run again and again is still counted each time it ran (`repeated_call`,
`repeated_result`). With their twins: 3, 4 and 5 replies in a row (a loop), one reply of several
calls and then a reply that moves on (healthy), calls that follow no recorded model output (each
an attempt of its own, as before), and the same runs written as OpenAI chat messages."""

from __future__ import annotations

import json

import pytest

from loopmetric import LoopSettings, detect_loops, read_deepeval_trace
from loopmetric.detectors import (detect_identical_repeats, detect_repeated_calls, detect_repeated_results,
                                  detect_similar_attempts)
from loopmetric.detectors._news import Progress
from tests._traces import agent, llm, tool

REFUSED = "Format error: write exactly one action per reply, found several actions. Nothing was run."
LISTING = "README.md\nsetup.py\nsrc/\ntests/\ndocs/\nLICENSE\nMakefile\npyproject.toml\n.gitignore"
COMMANDS = ["ls src", "grep -rn parse src", "cat setup.py", "python -m pytest -q", "git status", "ls tests"]
# One command reworded (options added, dropped, reordered): the same attempt, were it tried again.
TRIES = ["python -m pytest tests/test_dates.py -q", "python -m pytest tests/test_dates.py -q -x",
         "python -m pytest tests/test_dates.py -x", "python3 -m pytest tests/test_dates.py -q",
         "python -m pytest -q tests/test_dates.py", "python -m pytest tests/test_dates.py"]


def bash(command: str, output: str = REFUSED) -> dict:
    return tool("bash", {"command": command}, output=output)


TRIES_OF = [bash(c) for c in TRIES]


def replies(*groups: list[dict], text: str = "I will run these.") -> list[dict]:
    """Each group the calls of one reply: an LLM span, then its tool spans."""
    spans: list[dict] = []
    for group in groups:
        spans.append(llm(text))
        spans.extend(group)
    return spans


def similar(children) -> list[tuple[int, str]]:
    trace = read_deepeval_trace(agent(*children))
    return [(f.count, f.message) for f in detect_similar_attempts(trace, LoopSettings())]


# -- similar_attempts: different calls answered alike ---------------------------------------------------------
LOOPS = [
    pytest.param(replies(*[[bash(c)] for c in TRIES[:3]]), 3, id="three-replies-each-refused-alike"),
    pytest.param(replies(*[[bash(c)] for c in TRIES[:4]]), 4, id="four-replies-each-refused-alike"),
    pytest.param(replies(*[[bash(c)] for c in TRIES[:5]]), 5, id="five-replies-each-refused-alike"),
    pytest.param(replies(*[[bash(c, LISTING)] for c in COMMANDS[:3]]), 3,
                 id="three-replies-each-answered-with-the-same-listing"),
    pytest.param(replies(TRIES_OF[:2], TRIES_OF[2:4], TRIES_OF[4:]), 6, id="three-replies-of-two-calls-each-refused"),
    pytest.param([bash(c) for c in TRIES[:3]], 3, id="calls-after-no-model-output-each-an-attempt"),
]

HEALTHY = [
    pytest.param(replies([bash(c) for c in TRIES[:3]]), id="one-reply-of-three-calls-refused-alike"),
    pytest.param(replies([bash(c) for c in TRIES[:5]]), id="one-reply-of-five-calls-refused-alike"),
    pytest.param(replies([bash(c, LISTING) for c in COMMANDS[:3]]), id="one-reply-of-three-calls-same-listing"),
    pytest.param(replies([bash(c) for c in TRIES[:5]], [bash("cat README.md", "A tool that parses dates.")]),
                 id="one-reply-of-five-calls-then-a-reply-that-moves-on"),
    pytest.param(replies([bash(c) for c in TRIES[:3]], [bash(c) for c in TRIES[3:]]),
                 id="two-replies-of-three-calls-each-refused"),
]


@pytest.mark.parametrize(("children", "count"), LOOPS)
def test_attempts_made_reply_after_reply_are_a_loop(children, count):
    assert [found for found, _ in similar(children)] == [count]
    assert not detect_loops(agent(*children)).success


@pytest.mark.parametrize("children", HEALTHY)
def test_the_calls_of_one_reply_are_one_attempt(children):
    assert similar(children) == []
    assert detect_loops(agent(*children)).success


def test_the_message_says_how_many_replies_made_the_calls():
    three_of_two = LOOPS[4].values[0]
    [(_, message)] = similar(three_of_two)
    assert message.startswith("Tool 'bash' called 6 times in a row with 6 different argument lists, each failing "
                              "the same way, with nothing new between (steps 2-9).")
    assert message.endswith(" The 6 calls were made in 3 replies: the calls one reply makes at once are one "
                            "attempt, the agent seeing none of their results before making the next.")
    [(_, one_each)] = similar(LOOPS[0].values[0])
    assert "replies" not in one_each


# -- the same call asked for again: repeated_call, repeated_result -----------------------------------------------
# Not attempts: the same call run again with the same answer is counted each time it ran, by one reply or by
# several (a reply asking for it twice, or a harness retrying it under one reply, repeats the work all the same).
def same_call(calls_per_reply: list[int]) -> list[dict]:
    return replies(*[[bash("cat setup.py", LISTING)] * n for n in calls_per_reply])


def repeats(children) -> list[tuple[str, str, int]]:
    trace = read_deepeval_trace(agent(*children))
    findings = (detect_repeated_calls(trace, LoopSettings()) + detect_repeated_results(trace, LoopSettings())
                + detect_identical_repeats(trace, LoopSettings()))
    return sorted((f.pattern, f.severity, f.count) for f in findings)


THREE_ALIKE = [("repeated_call", "mild", 3), ("repeated_result", "severe", 3), ("repeated_result", "severe", 3)]


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param(same_call([1, 1, 1]), THREE_ALIKE, id="three-replies-the-same-call"),
    pytest.param(same_call([3]), THREE_ALIKE, id="one-reply-asking-it-three-times"),
    pytest.param(same_call([2, 1]), THREE_ALIKE, id="two-replies-asking-it-three-times"),
    pytest.param(same_call([2]), [], id="one-reply-asking-it-twice"),
])
def test_the_same_call_counts_each_time_it_ran(children, expected):
    assert repeats(children) == expected


# -- calls that get nothing back ---------------------------------------------------------------------------------
NO_OPS = [f": step {k}: python3 solve.py --try {k}" for k in range(12)]
RE_SENT = [": ls -la", "}", ": python3 eval.py", ": ls -la", "}", ": python3 eval.py"]


@pytest.mark.parametrize(("children", "count"), [
    pytest.param(replies(*[[bash(c, "")] for c in NO_OPS]), [12], id="a-dozen-replies-each-a-no-op"),
    pytest.param(replies([bash(c, "") for c in NO_OPS]), [], id="one-reply-of-a-dozen-no-ops"),
    pytest.param(replies([bash(c, "") for c in NO_OPS[:6]], [bash(c, "") for c in NO_OPS[6:]]), [],
                 id="two-replies-of-six-no-ops"),
    # Re-sent: six calls (two x the threshold of 3), three commands each sent twice, each answered with nothing.
    pytest.param(replies(*[[bash(c, "")] for c in RE_SENT]), [6], id="six-replies-each-re-sending-a-no-op"),
    pytest.param(replies(*[[bash(c, "") for c in RE_SENT[k:k + 2]] for k in (0, 2, 4)]), [],
                 id="three-replies-of-two-re-sent-no-ops"),
])
def test_calls_that_get_nothing_back_count_by_reply(children, count):
    assert [found for found, _ in similar(children)] == count


# -- the same run as OpenAI chat messages: parallel tool calls of one assistant message -------------------------
def chat(groups: list[list[str]]) -> list[dict]:
    """Each group the commands of one assistant message (parallel tool calls), each refused."""
    messages: list[dict] = [{"role": "user", "content": "Make the tests pass."}]
    n = 0
    for group in groups:
        ids = [f"call_{n + k}" for k in range(len(group))]
        n += len(group)
        messages.append({"role": "assistant", "content": "I will run these.", "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": c})}}
            for i, c in zip(ids, group)]})
        messages += [{"role": "tool", "tool_call_id": i, "content": REFUSED} for i in ids]
    return messages


@pytest.mark.parametrize(("messages", "loop"), [
    pytest.param(chat([[c] for c in TRIES[:3]]), True, id="chat-three-replies-each-refused-alike"),
    pytest.param(chat([TRIES[:2], TRIES[2:4], TRIES[4:]]), True, id="chat-three-replies-of-two-calls"),
    pytest.param(chat([TRIES[:3]]), False, id="chat-one-reply-of-three-parallel-calls"),
    pytest.param(chat([TRIES[:3], TRIES[3:]]), False, id="chat-two-replies-of-three-parallel-calls"),
])
def test_parallel_calls_of_one_chat_message_are_one_attempt(messages, loop):
    report = detect_loops(messages)
    assert report.success is not loop
    assert ("similar_attempts" in {f.pattern for f in report.findings}) is loop


# -- the model: which reply each call belongs to ------------------------------------------------------------------
@pytest.mark.parametrize(("children", "members", "attempts"), [
    pytest.param(replies([bash(c) for c in TRIES[:3]]), [0, 1, 2], 1, id="one-reply"),
    pytest.param(replies(*[[bash(c)] for c in TRIES[:3]]), [0, 1, 2], 3, id="three-replies"),
    pytest.param(replies(TRIES_OF[:2], TRIES_OF[2:3]), [0, 1, 2], 2, id="two-and-one"),
    pytest.param([bash(c) for c in TRIES[:3]], [0, 1, 2], 3, id="no-model-output"),
    pytest.param([TRIES_OF[0], llm("next"), TRIES_OF[1], TRIES_OF[2]], [0, 1, 2], 2,
                 id="a-call-before-the-first-reply-then-a-reply-of-two"),
])
def test_attempts_counts_replies(children, members, attempts):
    assert Progress(read_deepeval_trace(agent(*children))).attempts(members) == attempts


# -- after the other side spoke, the calls that follow no new model output are attempts of their own ----

def _one_reply_then_calls(between):
    """A reply (step 1) and its call (2), then, when `between` is given, the other side's words (3),
    then two calls more: with no model output after those words, each is an attempt of its own."""
    from loopmetric.readers._builder import TraceBuilder

    b = TraceBuilder("t", "test")
    b.add_input("Make the date tests pass.")
    b.add_llm_output("I will run the tests.")
    b.add_tool_call("bash", {"command": TRIES[0]}, REFUSED)
    if between is not None:
        b.add_input(between)
    for command in TRIES[1:3]:
        b.add_tool_call("bash", {"command": command}, REFUSED)
    return b.build()


@pytest.mark.parametrize("between, expected", [
    # the reply's call, then two calls each after the words: 3 attempts refused alike (the threshold)
    pytest.param("Please go on.", [("similar_attempts", (2, 4, 5))],
                 id="calls-after-the-other-side-spoke-are-attempts-of-their-own"),
    # the three calls all follow the one reply: one attempt
    pytest.param(None, [], id="twin-calls-of-one-reply-are-one-attempt"),
])
def test_calls_after_the_other_side_spoke_are_each_an_attempt(between, expected):
    trace = _one_reply_then_calls(between)
    assert [(f.pattern, f.steps) for f in detect_similar_attempts(trace, LoopSettings())] == expected
