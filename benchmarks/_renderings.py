"""One run, many recordings: a neutral list of steps rendered into every format loopmetric reads.

A run is a list of `Step`s, in the order they happened:

- `system`: the system prompt;
- `other`: a turn of the other side (a person, a simulated user, the harness), `who` says which;
- `reply`: a model reply: its text and the tool calls it makes (`Call`: name, arguments, id);
  `actor="user"` when a simulated user calls tools (tau2-bench);
- `result`: a tool call's result (`call_id`, tool `name`, text, `is_error`).

In a group chat (Magentic-One) `speaker` names who spoke: the lead's replies, and the result of a
call to another member of the team (its instruction the call's argument), which is that member's turn.

Each renderer writes what that format's own recorder would write for the run, and nothing the
format does not record: a format with no error flag writes the error text as the result; a
format whose messages cannot hold a user calling tools leaves those calls out (the user's
words stay). `RENDERINGS` maps a name to a function from steps to a JSON-ready document.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Optional

__all__ = ["Call", "HOLDS", "RENDERINGS", "Step", "UNTOLD", "chat_messages", "named_chat_messages"]


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, Any]
    id: str


@dataclass(frozen=True)
class Step:
    kind: str  # "system" | "other" | "reply" | "result"
    text: str = ""
    calls: tuple[Call, ...] = ()
    who: str = "user"  # other: who spoke
    actor: str = "assistant"  # reply: who acted
    call_id: str = ""  # result
    name: str = ""  # result: the tool's name
    is_error: bool = False
    speaker: str = ""  # reply: the team member who spoke; result: the member whose turn answers the call


def _arguments(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False)


# -- the conversation as OpenAI chat messages (also what many tracers record as LLM input) ---------
def chat_messages(steps: list[Step]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for step in steps:
        if step.kind == "system":
            out.append({"role": "system", "content": step.text})
        elif step.kind == "other":
            out.append({"role": "user", "content": step.text})
        elif step.kind == "reply":
            message: dict[str, Any] = {"role": step.actor, "content": step.text if step.text or not step.calls
                                       else None}
            if step.calls:
                message["tool_calls"] = [{"id": c.id, "type": "function",
                                          "function": {"name": c.name, "arguments": _arguments(c.args)}}
                                         for c in step.calls]
            out.append(message)
        elif step.kind == "result":
            message = {"role": "tool", "tool_call_id": step.call_id, "name": step.name, "content": step.text}
            if step.is_error:
                message["error"] = True  # as tau2-bench records it; plain OpenAI chat has no such flag
            out.append(message)
    return out


# -- a group chat as OpenAI chat messages with named speakers (AutoGen's, and any team's chat log) -----
def named_chat_messages(steps: list[Step]) -> list[dict[str, Any]]:
    """The conversation as a team's chat log records it: every member speaks as `assistant` with its
    `name`; the lead's call to a member is the lead's message holding the instruction (no tool call:
    the chat says who spoke, not to whom), the member's answer its own message. Runs without named
    speakers are written as `chat_messages` writes them."""
    members = {s.call_id: s.speaker for s in steps if s.kind == "result" and s.speaker}
    out: list[dict[str, Any]] = []
    for step in steps:
        if step.kind == "reply" and step.speaker:
            told = [c for c in step.calls if c.id in members]
            tools = [c for c in step.calls if c.id not in members]
            said = [step.text] if step.text else []
            said += [" ".join(str(v) for v in c.args.values()) for c in told]
            message: dict[str, Any] = {"role": "assistant", "name": step.speaker, "content": "\n\n".join(said)}
            if tools:
                message["tool_calls"] = chat_messages([replace(step, calls=tuple(tools))])[0]["tool_calls"]
            out.append(message)
        elif step.kind == "result" and step.speaker:
            out.append({"role": "assistant", "name": step.speaker, "content": step.text})
        else:
            out += chat_messages([step])
    return out


@dataclass
class _LlmCall:
    """One model reply as a span-recording tracer sees it: the input, the reply, the tools it ran."""

    index: int
    history: list[dict[str, Any]]  # the whole conversation before the reply
    newest: list[dict[str, Any]]  # the messages added since the previous reply
    reply: Optional[Step]  # None: tool calls of the other side (no LLM call)
    tools: list[tuple[Call, Optional[Step]]] = field(default_factory=list)


def _llm_calls(steps: list[Step]) -> list[_LlmCall]:
    results = {s.call_id: s for s in steps if s.kind == "result"}
    calls: list[_LlmCall] = []
    history: list[dict[str, Any]] = []
    since = 0
    for step in steps:
        if step.kind == "reply":
            messages = chat_messages([step])
            tools = [(c, results.get(c.id)) for c in step.calls]
            if step.actor == "assistant":
                calls.append(_LlmCall(len(calls), list(history), history[since:], step, tools))
                since = len(history) + 1
            else:
                calls.append(_LlmCall(len(calls), [], [], None, tools))
            history += messages
        else:
            history += chat_messages([step])
    return calls


def _task(steps: list[Step]) -> str:
    return next((s.text for s in steps if s.kind == "other"), "")


def _final(steps: list[Step]) -> str:
    return next((s.text for s in reversed(steps) if s.kind == "reply" and s.actor == "assistant"), "")


# -- deepeval trace dicts ----------------------------------------------------------------------------
def _deepeval(steps: list[Step], inputs: str) -> dict[str, Any]:
    children: list[dict[str, Any]] = []
    for call in _llm_calls(steps):
        if call.reply is not None:
            llm_input: Any = {"whole": call.history, "newest": call.newest,
                              "counter": {"step": call.index + 1}}[inputs]
            children.append({"type": "llm", "name": "llm", "input": llm_input, "output": call.reply.text,
                             "children": []})
        for tool, result in call.tools:
            span: dict[str, Any] = {"type": "tool", "name": tool.name, "input": tool.args, "children": []}
            if result is not None and result.is_error:
                span.update(output=None, error=result.text or "error")
            else:
                span["output"] = result.text if result is not None else None
            children.append(span)
    return {"trace_dict": {"type": "agent", "name": "agent", "input": _task(steps), "output": _final(steps),
                           "children": children}}


# -- OpenAI Responses-API items (what the Agents SDK's `to_input_list()` writes) -------------------
def _responses(steps: list[Step]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for n, step in enumerate(steps):
        if step.kind == "system":
            items.append({"role": "system", "content": step.text})
        elif step.kind == "other":
            items.append({"role": "user", "content": step.text})
        elif step.kind == "reply" and step.actor == "assistant":
            if step.text:
                items.append({"id": f"msg_{n}", "type": "message", "role": "assistant", "status": "completed",
                              "content": [{"type": "output_text", "text": step.text, "annotations": []}]})
            for c in step.calls:
                items.append({"id": f"fc_{c.id}", "type": "function_call", "call_id": c.id, "name": c.name,
                              "arguments": _arguments(c.args), "status": "completed"})
        elif step.kind == "reply" and step.text:  # a user acting through tools: its words only
            items.append({"role": "user", "content": step.text})
        elif step.kind == "result" and _asked_by_assistant(steps, step.call_id):
            items.append({"type": "function_call_output", "call_id": step.call_id, "output": step.text})
    return items


def _asked_by_assistant(steps: list[Step], call_id: str) -> bool:
    return any(s.kind == "reply" and s.actor == "assistant" and any(c.id == call_id for c in s.calls)
               for s in steps)


# -- Anthropic Messages (tool_use / tool_result) --------------------------------------------------------
def _anthropic(steps: list[Step]) -> dict[str, Any]:
    system = "\n\n".join(s.text for s in steps if s.kind == "system")
    messages: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        # the results of one reply's calls and the words after them are one user message; each
        # model reply is its own assistant message (a list of `Message` replies, as recorded)
        if role == "user" and messages and messages[-1]["role"] == role:
            messages[-1]["content"] += blocks
        else:
            messages.append({"role": role, "content": blocks})

    for step in steps:
        if step.kind == "other" or (step.kind == "reply" and step.actor != "assistant" and step.text):
            add("user", [{"type": "text", "text": step.text}])
        elif step.kind == "reply" and step.actor == "assistant":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": step.text}] if step.text else []
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.args} for c in step.calls]
            add("assistant", blocks or [{"type": "text", "text": ""}])
        elif step.kind == "result" and _asked_by_assistant(steps, step.call_id):
            add("user", [{"type": "tool_result", "tool_use_id": step.call_id, "content": step.text,
                          "is_error": step.is_error}])
    out: dict[str, Any] = {"model": "recorded", "max_tokens": 1024, "messages": messages}
    if system:
        out["system"] = system
    return out


# -- pydantic-ai message history -----------------------------------------------------------------------
def _pydantic_ai(steps: list[Step]) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = []

    def request(part: dict[str, Any]) -> None:
        if history and history[-1]["kind"] == "request":
            history[-1]["parts"].append(part)
        else:
            history.append({"kind": "request", "parts": [part], "instructions": None})

    for step in steps:
        if step.kind == "system":
            request({"part_kind": "system-prompt", "content": step.text})
        elif step.kind == "other" or (step.kind == "reply" and step.actor != "assistant" and step.text):
            request({"part_kind": "user-prompt", "content": step.text})
        elif step.kind == "reply" and step.actor == "assistant":
            parts: list[dict[str, Any]] = [{"part_kind": "text", "content": step.text}] if step.text else []
            parts += [{"part_kind": "tool-call", "tool_name": c.name, "args": c.args, "tool_call_id": c.id}
                      for c in step.calls]
            history.append({"kind": "response", "parts": parts, "model_name": "recorded"})
        elif step.kind == "result" and _asked_by_assistant(steps, step.call_id):
            if step.is_error:  # a tool raising ModelRetry: the model is asked to retry
                request({"part_kind": "retry-prompt", "tool_name": step.name, "content": step.text,
                         "tool_call_id": step.call_id})
            else:
                request({"part_kind": "tool-return", "tool_name": step.name, "content": step.text,
                         "tool_call_id": step.call_id})
    return history


# -- spans shared by the span formats ---------------------------------------------------------------
@dataclass
class _Span:
    id: str
    parent: str
    kind: str  # "agent" | "llm" | "tool"
    name: str
    start: int  # nanoseconds
    end: int
    call: Optional[_LlmCall] = None
    tool: Optional[Call] = None
    result: Optional[Step] = None

    @property
    def error(self) -> Optional[str]:
        if self.result is not None and self.result.is_error:
            return self.result.text or "error"
        return None


_T0 = 1_796_000_000_000_000_000


def _spans(steps: list[Step]) -> list[_Span]:
    """A root agent span, then per model reply an LLM span and a tool span per call, each
    1 ms long and 1 ms after the one before."""
    root = _Span("%016x" % 1, "", "agent", "agent", _T0, 0)
    out = [root]
    clock = _T0
    for call in _llm_calls(steps):
        if call.reply is not None:
            clock += 1_000_000
            out.append(_Span("%016x" % (len(out) + 1), root.id, "llm", "chat recorded", clock, clock + 900_000,
                             call=call))
        for tool, result in call.tools:
            clock += 1_000_000
            out.append(_Span("%016x" % (len(out) + 1), root.id, "tool", tool.name, clock, clock + 900_000,
                             tool=tool, result=result))
    root.end = clock + 1_000_000
    return out


def _output_message(reply: Step) -> dict[str, Any]:
    return chat_messages([reply])[0]


def _gen_ai_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI chat messages in the GenAI conventions' parts form."""
    out = []
    for m in messages:
        parts: list[dict[str, Any]] = []
        if m["role"] == "tool":
            parts.append({"type": "tool_call_response", "id": m["tool_call_id"], "response": m["content"]})
        else:
            if m.get("content"):
                parts.append({"type": "text", "content": m["content"]})
            for c in m.get("tool_calls") or ():
                parts.append({"type": "tool_call", "id": c["id"], "name": c["function"]["name"],
                              "arguments": json.loads(c["function"]["arguments"])})
        out.append({"role": m["role"], "parts": parts})
    return out


def _attribute(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value if isinstance(value, str) else json.dumps(value)}}


def _otlp(steps: list[Step], convention: str) -> dict[str, Any]:
    trace_id = "%032x" % 7
    wire = []
    for span in _spans(steps):
        attrs: list[dict[str, Any]] = []
        if convention == "genai":
            if span.kind == "agent":
                attrs += [_attribute("gen_ai.operation.name", "invoke_agent"),
                          _attribute("gen_ai.agent.name", "agent")]
            elif span.kind == "llm" and span.call is not None and span.call.reply is not None:
                attrs += [_attribute("gen_ai.operation.name", "chat"),
                          _attribute("gen_ai.input.messages", _gen_ai_messages(span.call.history)),
                          _attribute("gen_ai.output.messages",
                                     _gen_ai_messages([_output_message(span.call.reply)]))]
            elif span.tool is not None:
                attrs += [_attribute("gen_ai.operation.name", "execute_tool"),
                          _attribute("gen_ai.tool.name", span.tool.name),
                          _attribute("gen_ai.tool.call.id", span.tool.id),
                          _attribute("gen_ai.tool.call.arguments", _arguments(span.tool.args))]
                if span.result is not None and not span.result.is_error:
                    attrs.append(_attribute("gen_ai.tool.call.result", span.result.text))
            name = {"agent": "invoke_agent agent", "llm": "chat recorded"}.get(span.kind, f"execute_tool {span.name}")
        else:  # OpenInference
            if span.kind == "agent":
                attrs += [_attribute("openinference.span.kind", "AGENT"), _attribute("input.value", _task(steps))]
            elif span.kind == "llm" and span.call is not None and span.call.reply is not None:
                attrs += [_attribute("openinference.span.kind", "LLM"),
                          _attribute("input.value", json.dumps({"messages": span.call.history})),
                          _attribute("input.mime_type", "application/json"),
                          _attribute("output.value", span.call.reply.text)]
                attrs += _openinference_messages("llm.input_messages", span.call.history)
                attrs += _openinference_messages("llm.output_messages", [_output_message(span.call.reply)])
            elif span.tool is not None:
                attrs += [_attribute("openinference.span.kind", "TOOL"), _attribute("tool.name", span.tool.name),
                          _attribute("input.value", _arguments(span.tool.args)),
                          _attribute("input.mime_type", "application/json")]
                if span.result is not None and not span.result.is_error:
                    attrs.append(_attribute("output.value", span.result.text))
            name = span.name
        record: dict[str, Any] = {"traceId": trace_id, "spanId": span.id, "name": name, "kind": "SPAN_KIND_INTERNAL",
                                  "startTimeUnixNano": str(span.start), "endTimeUnixNano": str(span.end),
                                  "attributes": attrs, "status": {"code": "STATUS_CODE_OK"}}
        if span.parent:
            record["parentSpanId"] = span.parent
        if span.error is not None:
            record["status"] = {"code": "STATUS_CODE_ERROR", "message": span.error}
            record["events"] = [{"name": "exception", "timeUnixNano": str(span.end),
                                 "attributes": [_attribute("exception.message", span.error)]}]
        wire.append(record)
    scope = {"name": "openinference.instrumentation" if convention == "openinference" else "recorded.genai",
             "version": "1.0"}
    return {"resourceSpans": [{"resource": {"attributes": [_attribute("service.name", "agent")]},
                               "scopeSpans": [{"scope": scope, "spans": wire}]}]}


def _openinference_messages(prefix: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    attrs = []
    for i, m in enumerate(messages):
        at = f"{prefix}.{i}.message"
        attrs.append(_attribute(f"{at}.role", m["role"]))
        if m.get("content"):
            attrs.append(_attribute(f"{at}.content", m["content"]))
        if m["role"] == "tool":
            attrs.append(_attribute(f"{at}.tool_call_id", m["tool_call_id"]))
            attrs.append(_attribute(f"{at}.name", m["name"]))
        for j, c in enumerate(m.get("tool_calls") or ()):
            call = f"{at}.tool_calls.{j}.tool_call"
            attrs += [_attribute(f"{call}.id", c["id"]), _attribute(f"{call}.function.name", c["function"]["name"]),
                      _attribute(f"{call}.function.arguments", c["function"]["arguments"])]
    return attrs


# -- platform exports: MLflow, Langfuse, LangSmith -------------------------------------------------------
def _iso(nanos: int) -> str:
    import datetime

    moment = datetime.datetime.fromtimestamp(nanos // 1_000_000_000, tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{(nanos % 1_000_000_000) // 1000:06d}Z"


def _span_io(span: _Span, steps: list[Step]) -> tuple[Any, Any]:
    """(inputs, outputs) of a span as the platforms' LangChain-style recorders keep them."""
    if span.kind == "agent":
        return {"input": _task(steps)}, {"output": _final(steps)}
    if span.kind == "llm" and span.call is not None and span.call.reply is not None:
        return {"messages": span.call.history}, _output_message(span.call.reply)
    assert span.tool is not None
    return span.tool.args, None if span.error is not None else (span.result.text if span.result else None)


def _mlflow(steps: list[Step]) -> dict[str, Any]:
    spans = []
    for span in _spans(steps):
        inputs, outputs = _span_io(span, steps)
        kind = {"agent": "AGENT", "llm": "CHAT_MODEL", "tool": "TOOL"}[span.kind]
        record: dict[str, Any] = {
            "trace_id": "dHJhY2U=", "span_id": span.id, "parent_span_id": span.parent or None, "name": span.name,
            "start_time_unix_nano": span.start, "end_time_unix_nano": span.end, "events": [],
            "status": {"code": "STATUS_CODE_OK", "message": ""},
            "attributes": {"mlflow.traceRequestId": json.dumps("tr-recorded"), "mlflow.spanType": json.dumps(kind),
                           "mlflow.spanInputs": json.dumps(inputs), "mlflow.spanOutputs": json.dumps(outputs)}}
        if span.error is not None:
            record["status"] = {"code": "STATUS_CODE_ERROR", "message": span.error}
            record["events"] = [{"name": "exception", "time_unix_nano": span.end,
                                 "attributes": {"exception.message": span.error}}]
        spans.append(record)
    info = {"trace_id": "tr-recorded", "state": "OK", "request_time": _iso(_T0),
            "trace_location": {"type": "MLFLOW_EXPERIMENT", "mlflow_experiment": {"experiment_id": "1"}},
            "tags": {"mlflow.traceName": "agent"}, "trace_metadata": {}}
    return {"info": info, "data": {"spans": spans}}


def _langfuse(steps: list[Step]) -> dict[str, Any]:
    observations = []
    for span in _spans(steps):
        inputs, outputs = _span_io(span, steps)
        if span.kind == "agent":
            inputs = _task(steps)
            outputs = _final(steps)
        elif span.kind == "llm":
            inputs = inputs["messages"]
        observation: dict[str, Any] = {
            "id": span.id, "traceId": "%032x" % 7, "type": {"agent": "AGENT", "llm": "GENERATION",
                                                           "tool": "TOOL"}[span.kind],
            "name": span.name, "startTime": _iso(span.start), "endTime": _iso(span.end), "level": "DEFAULT",
            "input": inputs, "output": outputs, "parentObservationId": span.parent or None, "traceName": "agent"}
        if span.error is not None:
            observation.update(level="ERROR", statusMessage=span.error)
        observations.append(observation)
    return {"data": observations, "meta": {"cursor": None}}


def _langsmith(steps: list[Step]) -> dict[str, Any]:
    spans = _spans(steps)
    root_span = spans[0]
    inputs, outputs = _span_io(root_span, steps)
    root: dict[str, Any] = {"id": "00000000-0000-0000-0000-%012x" % 1, "name": "agent", "run_type": "chain",
                            "start_time": _iso(root_span.start), "end_time": _iso(root_span.end),
                            "inputs": inputs, "outputs": outputs, "child_runs": [], "extra": {}, "events": [],
                            "tags": []}
    root["trace_id"] = root["id"]
    for n, span in enumerate(spans[1:], start=2):
        inputs, outputs = _span_io(span, steps)
        run: dict[str, Any] = {"id": "00000000-0000-0000-0000-%012x" % n, "name": span.name,
                               "run_type": "llm" if span.kind == "llm" else "tool",
                               "start_time": _iso(span.start), "end_time": _iso(span.end), "inputs": inputs,
                               "outputs": outputs if span.kind == "llm" else {"output": outputs},
                               "parent_run_id": root["id"], "trace_id": root["id"], "child_runs": [],
                               "extra": {}, "events": [], "tags": [], "error": span.error}
        root["child_runs"].append(run)
    return root


# -- OpenAI Agents SDK span exports ------------------------------------------------------------------
def _openai_agents(steps: list[Step]) -> list[dict[str, Any]]:
    trace_id = "trace_recorded"
    items: list[dict[str, Any]] = [{"object": "trace", "id": trace_id, "workflow_name": "agent", "group_id": None,
                                    "metadata": None}]
    for span in _spans(steps):
        if span.kind == "agent":
            data: dict[str, Any] = {"type": "agent", "name": "agent", "handoffs": [], "tools": None,
                                    "output_type": "str"}
        elif span.kind == "llm" and span.call is not None and span.call.reply is not None:
            data = {"type": "generation", "input": span.call.history, "output": [_output_message(span.call.reply)],
                    "model": "recorded", "model_config": {}, "usage": None}
        else:
            assert span.tool is not None
            data = {"type": "function", "name": span.tool.name, "input": _arguments(span.tool.args),
                    "output": None if span.error is not None else (span.result.text if span.result else None),
                    "mcp_data": None}
        error = None if span.error is None else {"message": "Error running tool", "data": {"error": span.error}}
        items.append({"object": "trace.span", "id": f"span_{span.id}", "trace_id": trace_id,
                      "parent_id": f"span_{span.parent}" if span.parent else None, "started_at": _iso(span.start),
                      "ended_at": _iso(span.end), "span_data": data, "error": error})
    return items


RENDERINGS: dict[str, Callable[[list[Step]], Any]] = {
    "deepeval (whole conversation)": lambda s: _deepeval(s, "whole"),
    "deepeval (newest messages)": lambda s: _deepeval(s, "newest"),
    "deepeval (step counter)": lambda s: _deepeval(s, "counter"),
    "OpenAI chat": chat_messages,
    "OpenAI chat (named speakers)": named_chat_messages,
    "Responses-API items": _responses,
    "Anthropic Messages": _anthropic,
    "OTLP GenAI": lambda s: _otlp(s, "genai"),
    "OTLP OpenInference": lambda s: _otlp(s, "openinference"),
    "pydantic-ai messages": _pydantic_ai,
    "MLflow trace": _mlflow,
    "Langfuse export": _langfuse,
    "LangSmith run": _langsmith,
    "Agents SDK spans": _openai_agents,
}


# -- what each format holds of a run ---------------------------------------------------------------------
# A format that cannot record part of a run (the step counter records no turn of the other side; a
# span records the other side's words only as the next model call's input, so what comes after the
# last reply is in no span; the Responses API has no error flag; some formats cannot hold a user
# calling tools) can give another verdict for a reason no reader can help. `HOLDS` says, per
# rendering, what of the steps the format keeps, as steps: the invariance benchmark scores the OpenAI
# chat rendering of them too, so that a change the missing part explains is told from one the
# reading makes.
def _without_tail(steps: list[Step]) -> list[Step]:
    """Without the other side's turns after the last model reply (they are in no LLM input)."""
    last = max((i for i, s in enumerate(steps) if s.kind == "reply" and s.actor == "assistant"), default=-1)
    return [s for i, s in enumerate(steps) if i < last or s.kind != "other"]


def _without_turns(steps: list[Step]) -> list[Step]:
    """Only the replies, their calls and results: no system prompt, no turn of the other side (nor
    the words a user acting through tools says beside its calls: its calls and their results stay)."""
    return [replace(s, text="") if s.kind == "reply" and s.actor != "assistant" else s
            for s in steps if s.kind not in ("system", "other")]


def _without_user_calls(steps: list[Step]) -> list[Step]:
    """A user acting through tools keeps its words; its calls and their results are left out."""
    user_calls = {c.id for s in steps if s.kind == "reply" and s.actor != "assistant" for c in s.calls}
    out = []
    for s in steps:
        if s.kind == "reply" and s.actor != "assistant":
            if s.text:
                out.append(Step("other", s.text, who=s.actor))
        elif not (s.kind == "result" and s.call_id in user_calls):
            out.append(s)
    return out


def _without_error_flags(steps: list[Step]) -> list[Step]:
    return [replace(s, is_error=False) if s.is_error else s for s in steps]


def _spans_hold(steps: list[Step]) -> list[Step]:
    return _without_tail(steps)


HOLDS: dict[str, Callable[[list[Step]], list[Step]]] = {
    "deepeval (whole conversation)": _spans_hold,
    "deepeval (newest messages)": _spans_hold,
    "deepeval (step counter)": _without_turns,
    "Responses-API items": lambda s: _without_error_flags(_without_user_calls(s)),
    "Anthropic Messages": _without_user_calls,
    "OTLP GenAI": _spans_hold,
    "OTLP OpenInference": _spans_hold,
    "pydantic-ai messages": _without_user_calls,
    "MLflow trace": _spans_hold,
    "Langfuse export": _spans_hold,
    "LangSmith run": _spans_hold,
    "Agents SDK spans": _spans_hold,
}


# Renderings whose LLM inputs hold no text: a reader says the format does not record what the model
# was told (`Trace.turns_recorded`), so their control is read that way too.
UNTOLD = frozenset({"deepeval (step counter)"})


def iter_renderings(steps: list[Step]) -> Iterator[tuple[str, Any]]:
    for name, render in RENDERINGS.items():
        yield name, render(steps)
