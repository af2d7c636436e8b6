"""The other side's words are a rejection only when the replies they answer made no progress:
a person's "yes" / "continue" / "another one" / "ok" / "next" to replies that each do
something new is a conversation going well; the same words after replies that executed nothing
and repeat are the agent's repeat (nothing rejected it), and the harness's words after replies that
wrote no action in a run that acts are a rejection. Each case is read in three shapes, with the same verdict: an OpenAI chat log, a deepeval
trace whose LLM inputs hold the whole conversation, and one whose LLM inputs hold only the newest
messages."""

from __future__ import annotations

import pytest

from loopmetric import LoopSettings, detect_loops
from loopmetric.detectors import detect_rejected_outputs
from tests._renderings import SHAPES

HELPFUL = "You are a helpful assistant."
ACTING = "You are a bash agent. Reply with a THOUGHT and exactly one ```bash code block; it runs in a shell."

SETUP = ["I created config.yaml with a database section pointing at the staging host. Shall I proceed?",
         "The postgres driver is installed and pinned to version 3.1 in requirements.txt. Shall I proceed?",
         "Migrations ran: twelve tables now exist, and the users table has its indexes. Shall I proceed?",
         "The admin account exists; its password was mailed to you and must be changed on first login. "
         "Shall I proceed?"]
STORY = ["Once upon a time a lighthouse keeper found a bottle on the rocks below the tower.",
         "Inside the bottle lay a map drawn in faded ink, marking an island nobody had charted.",
         "She rowed out at dawn, the fog so thick that the gulls sounded like ghosts around her.",
         "By noon the island rose from the sea, its cliffs striped with red and ochre stone."]
JOKES = ["Why did the scarecrow win an award? Because he was outstanding in his field.",
         "What do you call a fake noodle? An impasta, served with suspicion and parmesan.",
         "Why don't skeletons fight each other? They simply don't have the guts for it.",
         "How does a penguin build its house? Igloos it together, one frozen brick at a time."]
STUCK = ["I'm not sure what you mean. Could you clarify which file you would like me to change?"] * 4
STUCK_REWORDED = ["I'm not sure which configuration file you mean. Could you clarify the path, the section and "
                  "the setting you would like me to change?",
                  "I'm not sure which configuration file you mean. Could you please clarify the path, the section "
                  "and the setting you want me to change?",
                  "Sorry, I'm not sure which configuration file you mean. Could you clarify the path, the section "
                  "and the setting you would like me to change?",
                  "I'm not sure which configuration file you mean. Could you clarify its path, the section and "
                  "the setting you would like changed?"]
PROSE = ["I should look at the files first, then read the test.", "Let me think about where the bug could be.",
         "The parser might be wrong; I will check it and the tests.", "Maybe the fixture is stale, let me see."]
ONE_ACTION = "Please always provide EXACTLY ONE action in triple backticks, found {n} actions."
FAILED = "Failed to obtain a valid action from your reply. Try again."


def _rejections(trace) -> list[str]:
    return [f.pattern for f in detect_rejected_outputs(trace, LoopSettings())]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("task", "replies", "answer"), [
    pytest.param("Set up the app for me.", SETUP, "yes", id="yes-to-each-new-step"),
    pytest.param("Tell me a story, a paragraph at a time.", STORY, "continue", id="continue-a-story"),
    pytest.param("Tell me a joke.", JOKES, "Another one.", id="another-one"),
    pytest.param("Tell me a joke.", JOKES, "ok", id="ok"),
    pytest.param("Walk me through the setup.", SETUP, "next", id="next"),
])
def test_a_persons_short_answer_read_as_a_harness_rejection(shape, task, replies, answer):
    """A person's short answer to replies that each do something new is no rejection."""
    trace = SHAPES[shape](HELPFUL, task, replies, [answer] * len(replies))
    assert _rejections(trace) == []
    assert detect_loops(trace).success is True


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("replies", "answer"), [
    pytest.param(STUCK, "yes", id="yes-to-the-same-reply"),
    pytest.param(STUCK_REWORDED, "continue", id="continue-to-a-reworded-reply"),
    pytest.param(STUCK, "Another one.", id="another-one-to-the-same-reply"),
])
def test_the_same_words_after_replies_that_repeat_are_the_agents_repeat(shape, replies, answer):
    """A person's same words after replies that repeat rejected nothing: the loop is the agent's,
    and the reason says so."""
    trace = SHAPES[shape](HELPFUL, "Fix my config.", replies, [answer] * len(replies))
    assert _rejections(trace) == ["repeated_reply"]
    report = detect_loops(trace)
    assert report.success is False
    assert "rejected" not in report.reason and "The agent gave" in report.reason


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("replies", "answers"), [
    pytest.param(PROSE[:3], [ONE_ACTION.format(n=0)] * 3, id="exactly-one-action-3-times"),
    pytest.param(PROSE, [ONE_ACTION.format(n=2)] * 4, id="found-2-actions-4-times"),
    pytest.param(PROSE * 2 + PROSE[:1], [FAILED] * 9, id="failed-to-obtain-an-action-9-times"),
])
def test_harness_rejections_missed_when_the_llm_span_records_only_the_newest_messages(shape, replies, answers):
    """The harness's same words after replies that wrote no action, in a run that declares
    its actions: a rejection in every shape."""
    trace = SHAPES[shape](ACTING, "Fix the failing test.", replies, answers)
    assert _rejections(trace) == ["rejected_output"]
    assert detect_loops(trace).success is False
    harness = [s for s in trace.steps if s.kind == "input" and s.source == "harness"]
    assert len(harness) == len(answers) and all("harness turn" in s.inferred for s in harness)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("system", "answers"), [
    pytest.param(ACTING, [ONE_ACTION.format(n=0)] * 2, id="twice-is-not-yet"),
    pytest.param(ACTING, ["Which file?", "The one in src/.", "Yes, the parser.", "Thanks!"],
                 id="different-words-each-time"),
    pytest.param(HELPFUL, [FAILED] * 4, id="a-run-that-does-not-act"),
])
def test_harness_rejection_twins(shape, system, answers):
    trace = SHAPES[shape](system, "Fix the failing test.", PROSE[:len(answers)], answers)
    assert _rejections(trace) == []


@pytest.mark.parametrize("shape", SHAPES)
def test_a_person_repeating_a_question_the_agent_then_answers(shape):
    question = "What is the refund policy for my ticket?"
    replies = ["Let me look at the fare rules attached to your booking first.",
               "Your booking is a basic economy fare bought on the third of March.",
               "Basic economy fares carry a cancellation fee unless cancelled within a day.",
               "So: a refund is possible within 24 hours of purchase; after that only a travel credit."]
    trace = SHAPES[shape](HELPFUL, question, replies, [question] * 3)
    assert _rejections(trace) == []
    assert detect_loops(trace).success is True


@pytest.mark.parametrize("shape", SHAPES)
def test_a_person_repeating_a_question_to_the_same_reply(shape):
    question = "What is the refund policy for my ticket?"
    trace = SHAPES[shape](HELPFUL, question, STUCK, [question] * 4)
    assert detect_loops(trace).success is False
