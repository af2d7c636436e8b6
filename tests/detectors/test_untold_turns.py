"""Recordings that hold the model's replies but not what it was told (`Trace.turns_recorded`
False: every LLM input a step counter). Between two replies a turn of the other side, or the
answer to an action written in the text, may lie unseen: `_text` starts afresh after a new
action, `_replies` reads replies in a row of an agent that calls tools as answers to unrecorded
turns."""

from __future__ import annotations

import pytest

from loopmetric import detect_loops
from tests._texts import RESTATED
from tests._traces import agent, span

VERIFY = "THOUGHT: Now I verify the change was applied to line 97.\n\n```bash\nsed -n '97p' django/core/validators.py\n```"
EDITS = [  # three different changes, each written once
    "THOUGHT: The backslash is missing, so I fix the regex.\n\n```bash\nsed -i '97s/\\[^s:@/\\[^\\\\s:@/' "
    "django/core/validators.py\n```",
    "THOUGHT: The tests need a case for the new rule.\n\n```bash\ncat >> tests/validators/invalid_urls.txt <<'EOF'\n"
    "http://foo/bar@example.com\nEOF\n```",
    "THOUGHT: Let me check the whole diff before running anything.\n\n```bash\ngit diff --stat && git status\n```",
]
NOTE = ("Action: think[The item is not what I want, so I will go back to the results and check the next "
        "one in the list before I decide anything.]")


def counted(*replies: str) -> dict:
    """LLM spans whose inputs are only a step counter: nothing of what the model was told."""
    return agent(*[span("llm", "llm", input={"step": i}, output=text) for i, text in enumerate(replies)])


def counted_with_a_lookup(*replies: str) -> dict:
    """The same, in a run that calls a tool first: its model is called again after a tool's
    result or a turn of the other side."""
    lookup = span("tool", "get_reservation", input={"id": "ZX91Q"}, output='{"insurance": "yes"}')
    return agent(lookup, *[span("llm", "llm", input={"step": i}, output=text) for i, text in enumerate(replies)])


def counted_with_calls(*steps) -> dict:
    """The same, each reply's calls recorded only as the tool spans after it (a step counter
    records no request on the reply): `steps` are replies' texts and tool spans."""
    n = iter(range(len(steps)))
    return agent(*[span("llm", "llm", input={"step": next(n)}, output=step) if isinstance(step, str) else step
                   for step in steps])


def told(*replies: str) -> dict:
    """The same replies, each LLM input holding a prompt's text."""
    return agent(*[span("llm", "llm", input={"prompt": "Go on."}, output=text) for text in replies])


def patterns(trace: dict) -> list[str]:
    """The patterns of the severe findings (the ones that fail a run)."""
    return sorted({f.pattern for f in detect_loops(trace).findings if f.severity == "severe"})


@pytest.mark.parametrize(("trace", "expected"), [
    pytest.param(counted(VERIFY, EDITS[0], VERIFY, EDITS[1], VERIFY, EDITS[2], VERIFY), [],
                 id="verify-after-each-new-edit-passes"),
    pytest.param(counted(VERIFY, EDITS[0], VERIFY, EDITS[0], VERIFY, EDITS[0], VERIFY), ["repeated_text"],
                 id="twin-the-same-edit-each-time-is-a-loop"),
    pytest.param(counted(VERIFY, VERIFY, VERIFY), ["repeated_text"], id="the-same-reply-and-action-three-times"),
    pytest.param(counted(VERIFY, NOTE, VERIFY, NOTE, VERIFY), ["repeated_text"],
                 id="a-note-to-self-between-changes-nothing"),
    pytest.param(told(VERIFY, EDITS[0], VERIFY, EDITS[1], VERIFY, EDITS[2], VERIFY), ["repeated_text"],
                 id="inputs-recorded-and-no-answer-between-so-no-action-ran"),
    pytest.param(counted(*[f"Thought: I still need the population.\nAction: {verb}[Tokyo population 2020]"
                           for verb in ("search", "lookup", "search", "search")]), [],
                 id="an-action-of-another-name-on-the-same-input-is-new"),
    pytest.param(counted(*[f"Thought: I still need the population.\nAction: {verb}[Tokyo population 2020]"
                           for verb in ("search", "lookup", "search", "lookup", "search")]), ["reasoning_stagnation"],
                 id="twin-both-written-before-they-cycle"),
    pytest.param(counted(*[f"THOUGHT: Now I verify the change was applied to line 97.\n\n```bash\n{command}\n```"
                           for command in ("sed -n '97p' django/core/validators.py",
                                           "sed -n '97p' django/core/validators.py | cat",
                                           "sed -n '97p' django/core/validators.py")]), ["reasoning_stagnation"],
                 id="the-same-action-lightly-reworded-is-written-again"),
])
def test_an_action_written_in_a_reply_no_one_recorded_answering(trace, expected):
    assert patterns(trace) == expected


# An agent that lists two flights, asks which to cancel and confirms, then says it will cancel and
# does (its call a tool span after that reply), then says it is done (tau-bench's shape)
LOOKUP = span("tool", "get_reservation_details", input={"reservation_id": "FDZ0T5"},
              output='{"reservation_id": "FDZ0T5", "origin": "JFK", "destination": "PHL", "date": "2024-05-17"}')
CANCEL = span("tool", "cancel_reservation", input={"reservation_id": "FDZ0T5"}, output='{"status": "cancelled"}')
CONFIRMED = [
    "I have reviewed your reservations: SE9KEL (LAX to BOS, May 17 to May 29, 2024) and FDZ0T5 (JFK to PHL, May 17, "
    "2024). It appears that you have two flights on May 17, 2024, with reservation IDs SE9KEL and FDZ0T5. Would you "
    "like to make any changes to these reservations?",
    "To proceed with the cancellation, I need to confirm the details: Reservation to Cancel: FDZ0T5 (JFK to PHL on "
    "May 17, 2024). Reason for Cancellation: Please specify the reason (change of plan, airline cancelled flight, or "
    "other reasons). Once you confirm, I'll proceed with the cancellation.",
    "Since the reservation is for a business class flight, it can be cancelled at any time. I will proceed with the "
    "cancellation of reservation ID FDZ0T5. Please hold on for a moment.",
    "The reservation with ID FDZ0T5 (JFK to PHL on May 17, 2024) has been successfully cancelled. The refund will "
    "be processed to your original payment method."]


@pytest.mark.parametrize(("trace", "expected"), [
    pytest.param(counted_with_calls("", LOOKUP, *CONFIRMED[:3], CANCEL, CONFIRMED[3]), [],
                 id="a-reply-its-calls-tool-span-follows-acted"),
    pytest.param(counted_with_calls("", LOOKUP, *CONFIRMED), ["repeated_reply"],
                 id="twin-the-reply-that-says-it-will-cancel-and-no-call-after-it"),
    pytest.param(counted_with_a_lookup(*RESTATED), ["repeated_reply"],
                 id="one-refusal-restated-to-four-unrecorded-turns"),
    pytest.param(counted_with_a_lookup(*RESTATED[:2], "Your flight is booked: seat 12A, Monday at 9am, total "
                                       "340 dollars.", *RESTATED[2:]), [], id="twin-a-different-reply-between"),
    pytest.param(counted(*RESTATED), [], id="twin-a-recording-of-replies-alone-says-nothing-of-what-came-between"),
    pytest.param(told(*RESTATED), [], id="twin-inputs-recorded-with-no-turn-between"),
    pytest.param(counted_with_a_lookup(*[text + "\n\n```bash\nls\n```" for text in RESTATED]), [],
                 id="twin-replies-that-write-an-action-are-not-answers-to-a-turn"),
])
def test_replies_in_a_row_when_turns_are_not_recorded(trace, expected):
    """Replies in a row of an agent that calls tools answer turns nobody recorded; a reply that a
    tool span follows acted (the step counter records its calls only so), as a reply recording
    its calls does, and is no reply said again."""
    assert patterns(trace) == expected
