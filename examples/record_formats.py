"""Records the samples in `examples/formats/`: one run that loops and its healthy twin, in each
format people export from their agent library, written by that library, offline.

    python examples/record_formats.py

Every run is the same task on a scripted model: export a monthly report. The looping run polls
the export job five times with the same arguments and is told "running" each time; the healthy
run polls once (done), downloads the report, mails it and answers.

- `responses_{loop,healthy}.json`: a real `agents.Agent` (OpenAI Agents SDK) on a scripted
  `Model`; the run's items as `result.to_input_list()` returns them (Responses-API items).
- `anthropic_{loop,healthy}.json`: the `messages` an Anthropic tool-use loop sends, the replies
  being `anthropic.types.Message` objects (their content blocks `model_dump()`ed) and the results
  `tool_result` blocks, as `{"system": ..., "messages": [...]}` (the request's own fields).
- `langchain_{loop,healthy}.json` and `langchain_dumpd_{loop,healthy}.json`: a `langchain_core`
  fake chat model bound to real `@tool`s, each tool call run by `tool.invoke(call)` (a
  `ToolMessage`), written by `messages_to_dict` and by `dumpd`.
- `smolagents_{loop,healthy}.json`: a real `smolagents.ToolCallingAgent` on a scripted `Model`;
  `agent.memory.get_full_steps()` (times replaced by counters, so the files do not change).
- `gemini_{loop,healthy}.json`: a function-calling loop over `google.genai.types.Content`
  (`Part.from_function_call`, `Part.from_function_response`), as
  `content.model_dump(mode="json", exclude_none=True)`.

Needs `pip install -e ".[test]"` (openai-agents, anthropic, langchain-core, smolagents,
google-genai); no network, no API key.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
OUT = HERE / "formats"

TASK = "Export the monthly report and mail it to ops."
SYSTEM = "You export reports. Use the tools."
Plan = list[tuple[str, dict[str, Any], str]]  # (tool, arguments, what the tool returns)

LOOP: Plan = [("get_job_status", {"job_id": "42"}, "running")] * 5
HEALTHY: Plan = [("get_job_status", {"job_id": "42"}, "done"),
                 ("download_report", {"job_id": "42", "format": "csv"}, "report-42.csv (128 rows)"),
                 ("send_email", {"to": "ops@example.com", "attachment": "report-42.csv"}, "sent (message 7731)")]
ANSWERS = {"loop": "The export is still running; try again later.", "healthy": "Sent the report to ops."}
RUNS = {"loop": LOOP, "healthy": HEALTHY}


def tool_outputs(plan: Plan) -> Callable[[str], str]:
    """What each tool returns, in the plan's order (a tool that is called out of plan says so)."""
    pending = list(plan)

    def output(tool: str) -> str:
        if not pending or pending[0][0] != tool:
            return f"error: {tool} was not expected now"
        return pending.pop(0)[2]
    return output


# -- OpenAI Agents SDK: Responses-API items ---------------------------------------------------

def responses_run(plan: Plan, answer: str) -> list[Any]:
    from agents import Agent, Model, ModelResponse, Runner, Usage, function_tool, set_tracing_disabled
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    set_tracing_disabled(True)  # nothing is exported
    output = tool_outputs(plan)

    class ScriptedModel(Model):
        def __init__(self) -> None:
            self.turn = 0

        async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                               handoffs, tracing, *, previous_response_id=None, conversation_id=None,
                               prompt=None):
            turn, self.turn = self.turn, self.turn + 1
            if turn < len(plan):
                name, args, _ = plan[turn]
                items: list[Any] = [ResponseFunctionToolCall(type="function_call", call_id=f"call_{turn}",
                                                             name=name, arguments=json.dumps(args))]
            else:
                items = [ResponseOutputMessage(id=f"msg_{turn}", type="message", role="assistant",
                                               status="completed",
                                               content=[ResponseOutputText(type="output_text", text=answer,
                                                                           annotations=[])])]
            return ModelResponse(output=items, usage=Usage(requests=1, input_tokens=100, output_tokens=20,
                                                           total_tokens=120), response_id=None)

        def stream_response(self, *args, **kwargs):
            raise NotImplementedError("the scripted model does not stream")

    @function_tool
    def get_job_status(job_id: str) -> str:
        """Return the status of an export job."""
        return output("get_job_status")

    @function_tool
    def download_report(job_id: str, format: str) -> str:
        """Download a finished report."""
        return output("download_report")

    @function_tool
    def send_email(to: str, attachment: str) -> str:
        """Mail a file."""
        return output("send_email")

    agent = Agent(name="reporter", instructions=SYSTEM, model=ScriptedModel(),
                  tools=[get_job_status, download_report, send_email])
    result = asyncio.run(Runner.run(agent, TASK, max_turns=20))
    return result.to_input_list()


# -- Anthropic Messages --------------------------------------------------------------------------

def anthropic_run(plan: Plan, answer: str) -> dict[str, Any]:
    from anthropic.types import Message, TextBlock, ToolUseBlock, Usage

    output = tool_outputs(plan)
    messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    for turn in range(len(plan) + 1):
        if turn < len(plan):
            name, args, _ = plan[turn]
            content: list[Any] = [TextBlock(type="text", text=f"Calling {name}."),
                                  ToolUseBlock(type="tool_use", id=f"toolu_{turn:02d}", name=name, input=args)]
            stop = "tool_use"
        else:
            content, stop = [TextBlock(type="text", text=answer)], "end_turn"
        reply = Message(id=f"msg_{turn:02d}", type="message", role="assistant", content=content,
                        model="claude-scripted", stop_reason=stop, stop_sequence=None,
                        usage=Usage(input_tokens=100 + 20 * turn, output_tokens=20))
        messages.append({"role": reply.role, "content": [block.model_dump(exclude_none=True)
                                                         for block in reply.content]})
        uses = [block for block in reply.content if isinstance(block, ToolUseBlock)]
        if uses:
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": use.id, "content": output(use.name), "is_error": False}
                for use in uses]})
    return {"model": "claude-scripted", "max_tokens": 1024, "system": SYSTEM, "messages": messages}


# -- LangChain: messages_to_dict and dumpd -------------------------------------------------------

def langchain_run(plan: Plan, answer: str) -> list[Any]:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
    from langchain_core.tools import tool

    output = tool_outputs(plan)

    @tool
    def get_job_status(job_id: str) -> str:
        """Return the status of an export job."""
        return output("get_job_status")

    @tool
    def download_report(job_id: str, format: str) -> str:
        """Download a finished report."""
        return output("download_report")

    @tool
    def send_email(to: str, attachment: str) -> str:
        """Mail a file."""
        return output("send_email")

    tools = {t.name: t for t in (get_job_status, download_report, send_email)}
    script = [AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call_{turn}", "type": "tool_call"}])
              for turn, (name, args, _) in enumerate(plan)] + [AIMessage(answer)]
    model = GenericFakeChatModel(messages=iter(script))
    messages: list[Any] = [SystemMessage(SYSTEM), HumanMessage(TASK)]
    while True:
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return messages
        messages.extend(tools[call["name"]].invoke(call) for call in reply.tool_calls)  # ToolMessages


def _stable_langchain(messages: list[Any]) -> list[Any]:
    """The fake model's run ids replaced by counters."""
    return [m.model_copy(update={"id": f"msg-{n}"}) if getattr(m, "id", None) else m for n, m in enumerate(messages)]


# -- smolagents: memory steps ----------------------------------------------------------------------

def smolagents_run(plan: Plan, answer: str) -> list[dict[str, Any]]:
    from smolagents import Model, Tool, ToolCallingAgent
    from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction

    output = tool_outputs(plan)

    class ScriptedModel(Model):
        def __init__(self) -> None:
            super().__init__(model_id="scripted")
            self.turn = 0

        def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None,
                     **kwargs):
            turn, self.turn = self.turn, self.turn + 1
            name, args = (plan[turn][0], plan[turn][1]) if turn < len(plan) else ("final_answer",
                                                                                  {"answer": answer})
            return ChatMessage(role="assistant", content="", tool_calls=[ChatMessageToolCall(
                ChatMessageToolCallFunction(arguments=args, name=name), f"call_{turn}", "function")])

    def make_tool(name: str, inputs: dict[str, str]) -> Tool:
        class ScriptedTool(Tool):
            skip_forward_signature_validation = True

            def forward(self, **kwargs: Any) -> str:
                return output(name)

        ScriptedTool.name, ScriptedTool.description, ScriptedTool.output_type = name, name.replace("_", " "), "string"
        ScriptedTool.inputs = {key: {"type": "string", "description": text} for key, text in inputs.items()}
        return ScriptedTool()

    tools = [make_tool("get_job_status", {"job_id": "the job"}),
             make_tool("download_report", {"job_id": "the job", "format": "csv or xlsx"}),
             make_tool("send_email", {"to": "address", "attachment": "file"})]
    agent = ToolCallingAgent(tools=tools, model=ScriptedModel(), max_steps=len(plan) + 2, verbosity_level=0)
    agent.run(TASK)
    steps = json.loads(json.dumps(agent.memory.get_full_steps(), default=str))
    for n, step in enumerate(steps):
        if isinstance(step.get("timing"), dict):
            step["timing"] = {"start_time": float(n), "end_time": n + 0.5, "duration": 0.5}
    return steps


# -- Gemini contents -----------------------------------------------------------------------------

def gemini_run(plan: Plan, answer: str) -> list[dict[str, Any]]:
    from google.genai import types

    output = tool_outputs(plan)
    contents = [types.Content(role="user", parts=[types.Part.from_text(text=TASK)])]
    for turn in range(len(plan) + 1):
        if turn == len(plan):
            contents.append(types.Content(role="model", parts=[types.Part.from_text(text=answer)]))
            break
        name, args, _ = plan[turn]
        call = types.Part.from_function_call(name=name, args=args)
        contents.append(types.Content(role="model", parts=[call]))
        contents.append(types.Content(role="user", parts=[
            types.Part.from_function_response(name=name, response={"output": output(name)})]))
    return [content.model_dump(mode="json", exclude_none=True) for content in contents]


def main() -> None:
    from langchain_core.load import dumpd
    from langchain_core.messages import messages_to_dict

    OUT.mkdir(exist_ok=True)
    for run, plan in RUNS.items():
        answer = ANSWERS[run]
        langchain = _stable_langchain(langchain_run(plan, answer))
        written = {
            f"responses_{run}.json": responses_run(plan, answer),
            f"anthropic_{run}.json": anthropic_run(plan, answer),
            f"langchain_{run}.json": messages_to_dict(langchain),
            f"langchain_dumpd_{run}.json": dumpd(langchain),
            f"smolagents_{run}.json": smolagents_run(plan, answer),
            f"gemini_{run}.json": gemini_run(plan, answer),
        }
        for name, data in written.items():
            (OUT / name).write_text(json.dumps(data, indent=1, default=str) + "\n")
            print(f"wrote formats/{name}")


if __name__ == "__main__":
    main()
