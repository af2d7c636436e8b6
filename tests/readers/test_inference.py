"""`readers._inference`: a text action is a call only where the run shows it ran (its syntax
declared, or an observation answering it), with the evidence kept; otherwise it is text.
Each rule has its healthy twin, and each run is read in three shapes (`tests._renderings`)
with the same result."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest

from loopmetric import detect_loops, read_chat_messages
from loopmetric.readers._inference import ActionInference, observation_shaped
from loopmetric._text_actions import find_text_action
from tests._renderings import SHAPES

HELPFUL = "You are a helpful assistant."
REACT = ("Solve the question with interleaving Thought, Action, Observation steps. Action can be: "
         "(1) Search[entity], (2) Lookup[keyword], (3) Finish[answer].")
TAGGED = "Write Python inside <execute> ... </execute>; the output comes back as the next message."
FENCED = "Reply with a THOUGHT and exactly one ```bash code block; it runs in a shell."


TIPS = ["<b>Tip:</b> drink water before you feel thirsty.<p>It helps.</p>",
        "<b>Tip:</b> <ul><li>walk after meals</li></ul>",
        "<b>Tip:</b> sleep at the same time each night. <script>track()</script>",
        "<b>Tip:</b> <p>stretch every hour</p> at your desk."]
MARKDOWN = ["# Plan\n- **first** read the file\n- then run it", "## Steps\n1. *open* the app\n2. log in",
            "> quote of the day\n\n**bold** idea number three", "| a | b |\n|---|---|\n| 1 | 2 |"]
XML = ["<note><to>Ann</to><body>Meet at 5</body></note>", "<item><name>pen</name><price>2</price></item>",
       "<config><debug>true</debug></config>", "<person><age>31</age></person>"]
CODE = ["Here is one:\n```python\ndef add(a, b):\n    return a + b\n```",
        "Another:\n```python\ndef mul(a, b):\n    return a * b\n```",
        "And:\n```python\ndef sub(a, b):\n    return a - b\n```",
        "Last:\n```python\ndef div(a, b):\n    return a / b\n```"]


@pytest.mark.parametrize("replies", [
    pytest.param(TIPS, id="html"), pytest.param(MARKDOWN, id="markdown"), pytest.param(XML, id="xml"),
    pytest.param(CODE, id="fenced-code"),
])
@pytest.mark.parametrize("answer", ["Another one.", "ok", "next", "Thanks! One more?"])
@pytest.mark.parametrize("shape", SHAPES)
def test_prose_read_as_tool_calls_markup_in_answers_is_text(shape, replies, answer):
    trace = SHAPES[shape](HELPFUL, "Help me, please.", replies, [answer] * len(replies))
    assert trace.tool_calls == ()
    report = detect_loops(trace)
    assert report.success is True, report.reason


@pytest.mark.parametrize(("system", "reply", "answer", "why"), [
    pytest.param(REACT, "Thought: look it up.\nAction: Search[Paris]", "Paris is the capital.",
                 "declared in the system prompt", id="react-declared"),
    pytest.param(HELPFUL, "Thought: look it up.\nAction: Search[Paris]", "Observation 1: Paris is the capital.",
                 "answered by an observation", id="react-observation"),
    pytest.param(TAGGED, "<execute>print(1)</execute>", "1", "declared in the system prompt", id="tag-declared"),
    pytest.param(HELPFUL, "<execute>print(1)</execute>", "Observation:\n1", "answered by an observation",
                 id="tag-observation"),
    pytest.param(FENCED, "THOUGHT: list.\n```bash\nls\n```", "app.py", "declared in the system prompt",
                 id="fence-declared"),
    pytest.param(HELPFUL, "THOUGHT: list.\n```bash\nls\n```", "<returncode>0</returncode>\napp.py",
                 "answered by an observation", id="fence-observation"),
])
@pytest.mark.parametrize("shape", SHAPES)
def test_a_text_action_the_run_shows_ran_is_a_call_and_says_why(shape, system, reply, answer, why):
    trace = SHAPES[shape](system, "Help me, please.", [reply], [answer])
    (call,) = trace.tool_calls
    assert call.result == answer
    assert why in call.inferred


@pytest.mark.parametrize(("system", "answer"), [
    pytest.param(REACT, "Paris is the capital.", id="declared"),
    pytest.param(HELPFUL, "Observation: Paris is the capital.", id="observation-turns"),
])
@pytest.mark.parametrize("shape", SHAPES)
def test_a_react_loop_declared_or_observed_fails(shape, system, answer):
    replies = ["Thought: search.\nAction: Search[Paris]"] * 4
    trace = SHAPES[shape](system, "Where is Paris?", replies, [answer] * 4)
    assert len(trace.tool_calls) == 4
    assert detect_loops(trace).success is False


@pytest.mark.parametrize(("system", "answers"), [
    pytest.param(REACT, ["Paris is in France.", "France is in Europe.", "Europe is a continent."], id="declared"),
    pytest.param(HELPFUL, ["Observation: Paris is in France.", "Observation: France is in Europe.",
                           "Observation: Europe is a continent."], id="observation-turns"),
])
@pytest.mark.parametrize("shape", SHAPES)
def test_a_react_run_that_progresses_passes(shape, system, answers):
    replies = ["Action: Search[Paris]", "Action: Search[France]", "Action: Search[Europe]"]
    trace = SHAPES[shape](system, "Where is Paris?", replies, answers)
    assert [c.result for c in trace.tool_calls] == answers
    assert detect_loops(trace).success is True


@pytest.mark.parametrize("shape", SHAPES)
def test_a_syntax_seen_running_is_declared_for_the_rest_of_the_run(shape):
    replies = ["<execute>ls</execute>", "<execute>cat a</execute>"]
    trace = SHAPES[shape](HELPFUL, "Help me, please.", replies, ["Observation: a", "hello"])
    first, second = trace.tool_calls
    assert "answered by an observation" in first.inferred
    assert "ran earlier in the run" in second.inferred and second.result == "hello"


def test_a_tools_list_declares_the_tool():
    record = {"tools": [{"type": "function", "function": {"name": "execute"}}],
              "messages": [{"role": "system", "content": HELPFUL}, {"role": "user", "content": "List."},
                           {"role": "assistant", "content": "<execute>ls</execute>"}, {"role": "user", "content": "a b"}]}
    (call,) = read_chat_messages(record).tool_calls
    assert "tool list" in call.inferred


@pytest.mark.parametrize("shape", SHAPES)
def test_an_undeclared_tag_is_not_a_call_even_in_a_run_that_runs_another(shape):
    replies = ["<execute>ls</execute>", "<b>Done:</b> the listing is above."]
    trace = SHAPES[shape](TAGGED, "List the files.", replies, ["a b", "Another one."])
    assert [c.name for c in trace.tool_calls] == ["execute"]


@pytest.mark.parametrize(("text", "shaped"), [
    pytest.param("Observation: x", True, id="label"),
    pytest.param("Observation 3: x", True, id="numbered-label"),
    pytest.param("Execution output:\n1", True, id="two-word-label"),
    pytest.param("<returncode>1</returncode>", True, id="tag"),
    pytest.param('{"ok": true}', True, id="json"),
    pytest.param("```\nout\n```", True, id="fence"),
    pytest.param("", False, id="empty-is-not"),
    pytest.param("Another one.", False, id="a-request"),
    pytest.param("yes", False, id="yes"),
    pytest.param("What is the capital of France?", False, id="a-question"),
    pytest.param("ok, and the next step?", False, id="comma-not-label"),
])
def test_observation_shaped(text, shaped):
    assert observation_shaped(text) is shaped


@pytest.mark.parametrize(("reply", "syntax"), [
    pytest.param("<execute>x</execute>", "tag", id="tag"),
    pytest.param("Action: Search[x]", "react", id="react"),
    pytest.param("Action: Search\nAction Input: x", "react", id="react-input"),
    pytest.param("```bash\nls\n```", "fence", id="fence"),
    pytest.param('{"action": "go"}', "json", id="json"),
])
def test_find_text_action_says_its_syntax(reply, syntax):
    found = find_text_action(reply)
    assert found is not None and found.syntax == syntax and found.written


@pytest.mark.parametrize(("prompt", "reply", "declared"), [
    pytest.param(TAGGED, "<execute>x</execute>", True, id="tag-shown"),
    pytest.param(TAGGED, "<solution>x</solution>", False, id="another-tag"),
    pytest.param(REACT, "Action: Lookup[x]", True, id="react-listed"),
    pytest.param(HELPFUL, "Action: Lookup[x]", False, id="react-not-listed"),
    pytest.param(FENCED, "```bash\nls\n```", True, id="fence-shown"),
    pytest.param(HELPFUL, "```bash\nls\n```", False, id="fence-not-shown"),
    pytest.param('Answer with {"action": ..., "action_input": ...}', '{"action": "go"}', True, id="json-shown"),
])
def test_declaration_by_a_prompt(prompt, reply, declared):
    actions = ActionInference()
    actions.declare(prompt, "system prompt")
    action = find_text_action(reply)
    assert action is not None
    assert bool(actions.accept(action, "a person's words")) is declared


_CALL = {"id": "c1", "type": "function", "function": {"name": "test", "arguments": "{}"}}


@pytest.mark.parametrize(("messages", "kw", "expected"), [
    pytest.param([{"role": "user", "content": "task"}, {"role": "assistant", "content": "a"},
                  {"role": "user", "content": "again"}], {}, "again", id="whole-conversation"),
    pytest.param([{"role": "human", "content": "task"}, {"role": "ai", "content": "a"},
                  {"role": "human", "content": "again"}], {}, "again", id="ai-and-human-roles"),
    pytest.param([{"role": "user", "content": "task"}, {"role": "model", "content": "a"},
                  {"role": "system", "content": "note"}, {"role": "user", "content": "again"}], {}, "again",
                 id="model-role-system-skipped"),
    pytest.param([{"role": "user", "content": "again"}], {}, None, id="no-reply-in-the-first-call"),
    pytest.param([{"role": "user", "content": "again"}], {"first": False}, "again", id="newest-messages"),
    pytest.param([{"role": "system", "content": "s"}, {"role": "user", "content": "again"}], {"first": False},
                 "again", id="newest-messages-system-skipped"),
    pytest.param([{"role": "user", "content": "again"}, {"role": "user", "content": "and faster"}], {"first": False},
                 "again\nand faster", id="newest-messages-two-user-messages-each-on-its-line"),
    pytest.param([{"role": "tool", "content": "r"}], {"first": False}, None, id="newest-is-a-tool-result"),
    pytest.param([{"role": "user", "content": "task"}, {"role": "assistant", "content": "a"},
                  {"role": "tool", "content": "r"}, {"role": "user", "content": "again"}], {}, "again",
                 id="words-after-the-tool-results"),
    pytest.param([{"role": "user", "content": "task"}, {"role": "assistant", "content": "a"},
                  {"role": "user", "content": "again"}, {"role": "tool", "content": "r"}], {}, None,
                 id="twin-a-tool-result-last-is-no-one-speaking"),
    pytest.param([{"role": "user", "content": "task"}, {"role": "assistant", "content": "Restart it, then test."},
                  {"role": "user", "content": "I restarted it.", "tool_calls": [_CALL]},
                  {"role": "tool", "tool_call_id": "c1", "content": "failed"},
                  {"role": "user", "content": "Still failing."}], {}, "I restarted it.\nStill failing.",
                 id="a-user-calling-tools-its-words-beside-its-calls-are-its-turn"),
    pytest.param([{"role": "user", "content": "task"}, {"role": "assistant", "content": "Restart it, then test."},
                  {"role": "user", "content": None, "tool_calls": [_CALL]},
                  {"role": "tool", "tool_call_id": "c1", "content": "failed"},
                  {"role": "user", "content": "Still failing."}], {}, "Still failing.",
                 id="a-user-calling-tools-without-words"),
    pytest.param([{"role": "user", "content": "task"}, {"role": "assistant", "parts": [{"type": "text", "content": "a"}]},
                  {"role": "user", "parts": [{"type": "text", "content": "I restarted it."},
                                             {"type": "tool_call", "id": "c1", "name": "test", "arguments": {}}]},
                  {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "failed"}]},
                  {"role": "user", "parts": [{"type": "text", "content": "Still failing."}]}], {},
                 "I restarted it.\nStill failing.", id="a-user-calling-tools-in-genai-parts"),
    pytest.param([{"role": "user", "content": "task"}, {"role": "assistant", "content": "Restart it, then test."},
                  {"role": "user", "parts": [{"type": "text", "content": "I restarted it."},
                                             {"type": "text", "content": "Then I tested."},
                                             {"type": "tool_call", "id": "c1", "name": "test", "arguments": {}}]},
                  {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "failed"}]}], {},
                 "I restarted it.\nThen I tested.", id="a-user-calling-tools-its-words-in-two-parts-each-on-its-line"),
    pytest.param([{"role": "user", "content": "task"},
                  {"role": "assistant", "content": "I will test it.", "tool_calls": [_CALL]},
                  {"role": "tool", "tool_call_id": "c1", "content": "failed"},
                  {"role": "user", "content": "Still failing."}], {}, "Still failing.",
                 id="twin-the-results-of-the-agent-s-calls-end-the-turn"),
    pytest.param([{"role": "user", "content": "task"},
                  {"role": "assistant", "content": "I will test it.", "tool_calls": [_CALL]},
                  {"role": "tool", "tool_call_id": "c1", "content": "failed"},
                  {"role": "user", "content": "Still failing."}, {"role": "user", "content": "And slower."}], {},
                 "Still failing.\nAnd slower.", id="two-user-messages-after-the-agent-s-results-each-on-its-line"),
    pytest.param([{"role": "user", "content": "task"}, {"role": "assistant", "content": "a"},
                  {"role": "user", "content": "I will test.", "tool_calls": [_CALL]},
                  {"role": "tool", "tool_call_id": "c1", "content": "failed"}], {}, "I will test.",
                 id="a-user-s-own-result-last-its-words-are-its-turn"),
    pytest.param([{"role": "user", "content": "Assistant: I looked.\nUser: again"}],
                 {"first": False, "previous_reply": "I looked."}, None, id="a-transcript-holding-the-reply"),
    pytest.param([{"role": "system", "content": "s"}, {"role": "user", "content": "task"}],
                 {"first": False, "prompt": "task"}, None, id="the-first-prompt-sent-again"),
])
def test_other_side_turn(messages, kw, expected):
    from loopmetric.readers._inference import other_side_turn

    assert other_side_turn(messages, **kw) == expected


def test_a_tag_is_declared_by_its_own_name_only():
    actions = ActionInference()
    actions.declare("Write the page inside <body> ... </body>, with a <br> between lines.", "system prompt")
    action = find_text_action("<b>Tip:</b> drink water.")
    assert action is not None and actions.accept(action, "Another one.") == ""


def _sources(declare: str, answers: list[str], *, tool: bool = False) -> list[str]:
    from loopmetric.readers._builder import TraceBuilder

    builder = TraceBuilder(source="test")
    builder.actions.declare(declare, "system prompt")
    builder.add_input("the task")
    if tool:
        builder.add_tool_call("ls", {}, "a.py")
    for n, answer in enumerate(answers):
        builder.add_llm_output(f"reply number {n}")
        builder.add_input(answer)
    return [s.source for s in builder.build().steps if s.kind == "input"]


@pytest.mark.parametrize(("declare", "answers", "tool", "expected"), [
    pytest.param(FENCED, ["Use one action."] * 3, False, ["harness"] * 3, id="acting-same-words"),
    pytest.param(HELPFUL, ["Use one action."] * 3, True, ["harness"] * 3, id="calls-tools-same-words"),
    pytest.param(HELPFUL, ["yes"] * 3, False, ["user"] * 3, id="not-acting-same-words-is-a-person"),
    pytest.param(FENCED, ["Which file?", "The parser.", "Thanks!"], False, ["user"] * 3,
                 id="acting-different-words-is-a-person"),
    pytest.param(HELPFUL, ["Observation: none", "ok"], False, ["harness", "user"],
                 id="written-like-an-observation"),
])
def test_harness_turns(declare, answers, tool, expected):
    assert _sources(declare, answers, tool=tool) == expected


ASKED = [{"role": "user", "content": "task"}, {"role": "assistant", "content": "a"}]


@pytest.mark.parametrize(("messages", "kw", "expected"), [
    pytest.param([{"role": "human", "content": "again"}], {"first": False}, "again", id="a-human-message-alone"),
    pytest.param([*ASKED, {"role": "human", "content": "again"}], {}, "again", id="a-human-message-after-a-reply"),
    pytest.param([*ASKED, {"role": "person", "content": "again"}], {}, None, id="twin-an-unknown-role"),
    pytest.param([*ASKED, {"role": "user", "content": [{"text": "again"}]}], {}, "again",
                 id="a-content-part-with-no-type-is-text"),
    pytest.param([*ASKED, {"role": "user", "content": [{"type": "text", "text": "again"}, {"content": "more"}]}], {},
                 "again\nmore", id="typed-and-untyped-text-parts"),
    pytest.param([*ASKED, {"role": "user", "content": [{"type": "tool_call_response", "response": "r"}]}], {}, None,
                 id="twin-a-part-of-another-type"),
    pytest.param([*ASKED, {"role": "user", "content": ["again", "and faster"]}], {}, "again\nand faster",
                 id="plain-string-parts-each-on-its-line"),
    # (a tool's result written as a user part is no one speaking; an image beside the words is theirs)
    pytest.param([*ASKED, {"role": "user", "content": [{"type": "text", "text": "again"},
                                                       {"type": "tool_call_response", "response": "r"}]}], {}, None,
                 id="a-text-part-beside-a-tool-result-part-is-no-turn"),
    pytest.param([*ASKED, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"},
                                                       {"type": "text", "text": "again"}]}], {}, None,
                 id="a-text-block-beside-a-tool-result-block-is-no-turn"),
    pytest.param([*ASKED, {"role": "user", "content": [{"type": "text", "text": "It still shows this."},
                                                       {"type": "image_url", "image_url": {"url": "data:,"}}]}],
                 {}, "It still shows this.", id="twin-a-text-part-beside-an-image-is-the-turn"),
])
def test_the_other_sides_turn_reads_human_roles_and_untyped_parts(messages, kw, expected):
    from loopmetric.readers._inference import other_side_turn

    assert other_side_turn(messages, **kw) == expected


@pytest.mark.parametrize(("messages", "expected"), [
    pytest.param([{"role": "system", "content": "s"}, {"role": "human", "content": "task"}, {"role": "ai", "content": "a"}],
                 [("system prompt", "s"), ("first user prompt", "task")], id="a-human-first-prompt"),
    pytest.param([{"role": "human", "content": [{"text": "task"}]}], [("first user prompt", "task")],
                 id="a-human-first-prompt-in-an-untyped-part"),
    pytest.param([{"role": "system", "content": "s"}, {"role": "person", "content": "task"}], [("system prompt", "s")],
                 id="twin-an-unknown-role-ends-the-prompts"),
    pytest.param([{"role": "user", "content": [{"type": "text", "text": "What is wrong here?"},
                                               {"type": "image_url", "image_url": {"url": "data:,"}}]}],
                 [("first user prompt", "What is wrong here?")], id="a-first-prompt-beside-an-image"),
])
def test_the_prompts_read_human_roles_and_untyped_parts(messages, expected):
    from loopmetric.readers._inference import prompt_messages

    assert prompt_messages(messages) == expected


def _input_of(size: int) -> list[dict]:
    """An LLM input of `size` messages: the task, `size - 3` earlier turns, then a reply and its answer."""
    earlier = [{"role": "user" if n % 2 else "assistant", "content": f"turn {n}"} for n in range(size - 3)]
    return [{"role": "user", "content": "task"}, *earlier, {"role": "assistant", "content": "a"},
            {"role": "user", "content": "again"}]


@pytest.mark.parametrize(("size", "read"), [
    pytest.param(5, True, id="twin-under-the-limit-read"),
    pytest.param(6, True, id="exactly-at-the-limit-read"),
    pytest.param(7, False, id="one-message-over-the-limit-not-read"),
])
def test_an_llm_input_is_read_for_the_other_sides_turn_up_to_its_message_limit(monkeypatch, size, read):
    """Inputs longer than `_MAX_MESSAGES` are not walked (a bounded cost per LLM call); one at the limit is."""
    from loopmetric.readers import _inference

    monkeypatch.setattr(_inference, "_MAX_MESSAGES", 6)
    messages = _input_of(size)
    assert len(messages) == size
    assert _inference.other_side_turn(messages) == ("again" if read else None)
    assert _inference.prompt_messages(messages) == ([("first user prompt", "task")] if read else [])


@pytest.mark.parametrize(("llm_input", "expected"), [
    pytest.param([*ASKED, {"role": "user", "content": "again"}], "again", id="a-list-of-messages"),
    pytest.param({"messages": [*ASKED, {"role": "user", "content": "again"}]}, "again", id="a-dict-of-messages"),
    pytest.param(MappingProxyType({"messages": [*ASKED, {"role": "user", "content": "again"}]}), "again",
                 id="a-mapping-that-is-not-a-dict-of-messages"),
    pytest.param(json.dumps([*ASKED, {"role": "user", "content": "again"}]), "again", id="json-text-of-a-list"),
    pytest.param(json.dumps({"messages": [*ASKED, {"role": "user", "content": "again"}]}), "again",
                 id="json-text-of-a-dict"),
    pytest.param({"messages": {"messages": [*ASKED, {"role": "user", "content": "again"}]}}, None,
                 id="twin-messages-wrapped-twice-are-not-read"),
    pytest.param(json.dumps({"messages": {"messages": [*ASKED, {"role": "user", "content": "again"}]}}), None,
                 id="twin-json-text-wrapped-twice-is-not-read"),
    pytest.param({"step": 3}, None, id="a-dict-without-messages"),
    pytest.param("again", None, id="plain-text"),
])
def test_an_llm_input_is_messages_or_a_mapping_or_json_text_holding_them(llm_input, expected):
    """Where an LLM input's messages are: the input itself, or under `messages` of the input (a dict
    or another mapping, or either as JSON text), one level deep."""
    from loopmetric.readers._inference import other_side_turn

    assert other_side_turn(llm_input) == expected


# (`read_span_tree` reads no turn of the other side while no LLM input so far held text: what
# `holds_text` calls no text has no turn in it, first or not, whatever reply came before)
@pytest.mark.parametrize("llm_input", [
    pytest.param({"step": 3}, id="a-step-counter"),
    pytest.param({}, id="an-empty-mapping"),
    pytest.param({"messages": []}, id="an-empty-message-list"),
    pytest.param({"messages": {}}, id="an-empty-mapping-of-messages"),
    pytest.param({"messages": " \n"}, id="blank-text-as-messages"),
    pytest.param({"messages": 0, "flag": True}, id="a-number-and-a-flag"),
    pytest.param(MappingProxyType({"step": 3}), id="a-mapping-that-is-not-a-dict"),
    pytest.param([], id="an-empty-list"),
    pytest.param((), id="an-empty-tuple"),
    pytest.param("", id="empty-text"),
    pytest.param("  ", id="blank-text"),
    pytest.param(None, id="none"),
    pytest.param(b'[{"role": "user", "content": "again"}]', id="bytes"),
    pytest.param(7, id="a-number"),
])
def test_an_llm_input_that_holds_no_text_holds_no_turn_of_the_other_side(llm_input):
    from loopmetric.readers._inference import holds_text, other_side_turn

    assert not holds_text(llm_input)
    for first in (True, False):
        assert other_side_turn(llm_input, first=first, previous_reply="an earlier reply") is None


@pytest.mark.parametrize("llm_input", [
    pytest.param({"messages": [*ASKED, {"role": "user", "content": "again"}]}, id="messages-in-a-mapping"),
    pytest.param(json.dumps([*ASKED, {"role": "user", "content": "again"}]), id="json-text-of-messages"),
])
def test_twin_an_llm_input_that_holds_a_turn_holds_text(llm_input):
    from loopmetric.readers._inference import holds_text, other_side_turn

    assert holds_text(llm_input)
    assert other_side_turn(llm_input, first=False) == "again"
