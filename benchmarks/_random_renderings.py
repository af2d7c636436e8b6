"""One run, recorded with every choice a recorder makes drawn at random.

A recorder of agent runs makes choices that say nothing about the run: whether the harness's
words after a reply that wrote its action in its text are a user turn or that action's result;
whether a tool's result is in its span or only in the next LLM input; whether a reply's parallel
calls are one message or several; whether an LLM span's input is the whole conversation, only the
newest messages, or not recorded; in which order a turn's spans come. `render` writes a run as a
span trace (a deepeval trace dict, or OTLP JSON with the GenAI conventions, spans in any order in
the file, their clocks right) with the `Choices` given; `held` is what that recording holds of the
run as steps, for a control. A property test draws the choices: one run, one verdict.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from ._library_renderings import _text_actions
from ._renderings import Step, _without_tail, _without_turns, chat_messages

__all__ = ["Choices", "held", "render"]


@dataclass(frozen=True)
class Choices:
    form: str = "deepeval"  # "deepeval" | "otlp"
    harness_as_results: bool = False  # the harness's words after a text action: that action's result
    results_in_spans: bool = True  # False: a tool's result only in the next LLM input
    inputs: str = "whole"  # "whole" | "newest" | "absent"
    seed: int = 0  # per turn: parallel calls split or not, the order of a turn's tool spans

    @property
    def untold(self) -> bool:
        return self.inputs == "absent"


def held(steps: list[Step], choices: Choices) -> list[Step]:
    """What the recording holds of the run: no turn of the other side after the last reply; with
    no LLM input, no turn of the other side at all (but what became an action's result); with
    results only in the next LLM input, none for the last reply's calls."""
    acted = _text_actions(steps) if choices.harness_as_results else steps
    kept = _without_turns(acted) if choices.untold else _without_tail(acted)
    if choices.results_in_spans:
        return kept
    last = max((i for i, s in enumerate(kept) if s.kind == "reply" and s.actor == "assistant"), default=-1)
    return [s for i, s in enumerate(kept) if i < last or s.kind != "result"]


def _messages(steps: list[Step], rng: random.Random) -> list[dict[str, Any]]:
    """The conversation as OpenAI chat messages, a reply's parallel calls split into one message
    each at random."""
    out: list[dict[str, Any]] = []
    for message in chat_messages(steps):
        calls = message.get("tool_calls") or []
        if len(calls) > 1 and rng.random() < 0.5:
            for n, call in enumerate(calls):
                out.append({"role": message["role"], "content": message["content"] if n == 0 else None,
                            "tool_calls": [call]})
        else:
            out.append(message)
    return out


def _turns(steps: list[Step], choices: Choices) -> list[dict[str, Any]]:
    """Per model reply: its LLM span's input (or None), output and the tool spans of its calls."""
    rng = random.Random(choices.seed)
    acted = _text_actions(steps) if choices.harness_as_results else steps
    results = {s.call_id: s for s in acted if s.kind == "result"}
    turns: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = []
    since = 0
    for seen, step in zip(steps, acted):
        if step.kind == "reply" and step.actor == "assistant":
            llm_input = {"whole": list(history), "newest": history[since:], "absent": None}[choices.inputs]
            tools = []
            for call in step.calls:
                result = results.get(call.id)
                tool: dict[str, Any] = {"name": call.name, "args": call.args, "id": call.id}
                if choices.results_in_spans and result is not None:
                    tool["error" if result.is_error else "output"] = result.text or ("error" if result.is_error
                                                                                   else "")
                tools.append(tool)
            rng.shuffle(tools)
            turns.append({"input": llm_input, "output": step.text, "tools": tools})
            since = len(history) + 1
        # the conversation as the model saw it: the harness's words as words
        history += _messages([seen], rng)
    return turns


def render(steps: list[Step], choices: Choices) -> Any:
    turns = _turns(steps, choices)
    task = next((s.text for s in steps if s.kind == "other"), "")
    if choices.form == "otlp":
        return _otlp(turns, random.Random(choices.seed + 1))
    children: list[dict[str, Any]] = []
    for turn in turns:
        llm: dict[str, Any] = {"type": "llm", "name": "llm", "output": turn["output"], "children": []}
        if turn["input"] is not None:
            llm["input"] = turn["input"]
        children.append(llm)
        for tool in turn["tools"]:
            span = {"type": "tool", "name": tool["name"], "input": tool["args"], "children": []}
            span.update({k: tool[k] for k in ("output", "error") if k in tool})
            children.append(span)
    return {"type": "agent", "name": "agent", "input": task, "children": children}


def _attribute(key: str, value: Any) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value if isinstance(value, str) else json.dumps(value)}}


def _otlp(turns: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """OTLP JSON, GenAI conventions: an agent span, an LLM span per reply and a tool span per call,
    each with its own clock; the spans in the file in any order (an exporter writes them as they end)."""
    t0 = 1_796_000_000_000_000_000
    clock = t0
    spans: list[dict[str, Any]] = []

    def span(kind: str, name: str, attrs: list[dict[str, Any]], error: Any = None) -> None:
        nonlocal clock
        clock += 1_000_000
        record: dict[str, Any] = {"traceId": "%032x" % 7, "spanId": "%016x" % (len(spans) + 2),
                                  "parentSpanId": "%016x" % 1, "name": name, "kind": "SPAN_KIND_INTERNAL",
                                  "startTimeUnixNano": str(clock), "endTimeUnixNano": str(clock + 900_000),
                                  "attributes": [_attribute("gen_ai.operation.name", kind), *attrs],
                                  "status": {"code": "STATUS_CODE_OK"}}
        if error is not None:
            record["status"] = {"code": "STATUS_CODE_ERROR", "message": error}
        spans.append(record)

    for turn in turns:
        attrs = [_attribute("gen_ai.output.messages",
                            [{"role": "assistant", "parts": [{"type": "text", "content": turn["output"]}]
                              + [{"type": "tool_call", "id": t["id"], "name": t["name"], "arguments": t["args"]}
                                 for t in sorted(turn["tools"], key=lambda t: t["id"])]}])]
        if turn["input"] is not None:
            attrs.append(_attribute("gen_ai.input.messages", _parts(turn["input"])))
        span("chat", "chat recorded", attrs)
        for tool in turn["tools"]:
            attrs = [_attribute("gen_ai.tool.name", tool["name"]), _attribute("gen_ai.tool.call.id", tool["id"]),
                     _attribute("gen_ai.tool.call.arguments", json.dumps(tool["args"]))]
            if "output" in tool:
                attrs.append(_attribute("gen_ai.tool.call.result", tool["output"]))
            span("execute_tool", f"execute_tool {tool['name']}", attrs, tool.get("error"))
    root = {"traceId": "%032x" % 7, "spanId": "%016x" % 1, "name": "invoke_agent agent", "kind": "SPAN_KIND_INTERNAL",
            "startTimeUnixNano": str(t0), "endTimeUnixNano": str(clock + 1_000_000),
            "attributes": [_attribute("gen_ai.operation.name", "invoke_agent"), _attribute("gen_ai.agent.name", "agent")],
            "status": {"code": "STATUS_CODE_OK"}}
    spans.append(root)
    rng.shuffle(spans)
    return {"resourceSpans": [{"resource": {"attributes": [_attribute("service.name", "agent")]},
                               "scopeSpans": [{"scope": {"name": "recorded.genai"}, "spans": spans}]}]}


def _parts(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for m in messages:
        if m["role"] == "tool":
            parts: list[dict[str, Any]] = [{"type": "tool_call_response", "id": m["tool_call_id"],
                                            "response": m["content"]}]
        else:
            parts = [{"type": "text", "content": m["content"]}] if m.get("content") else []
            parts += [{"type": "tool_call", "id": c["id"], "name": c["function"]["name"],
                       "arguments": json.loads(c["function"]["arguments"])} for c in m.get("tool_calls") or ()]
        out.append({"role": m["role"], "parts": parts})
    return out
