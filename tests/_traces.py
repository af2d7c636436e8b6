"""Small builders for deepeval-shaped trace dicts (what `test_case._trace_dict` holds), and for OpenAI chats."""

from __future__ import annotations

from typing import Any


def span(type_: str, name: str, input: Any = None, output: Any = None, children: Any = (), **extra: Any) -> dict:
    node = {"name": name, "type": type_, "children": list(children)}
    if input is not None:
        node["input"] = input
    if output is not None:
        node["output"] = output
    node.update(extra)
    return node


def tool(name: str, args: Any = None, output: Any = None, **extra: Any) -> dict:
    return span("tool", name, input=args if args is not None else {}, output=output, **extra)


def llm(output: Any = "", name: str = "llm", **extra: Any) -> dict:
    return span("llm", name, input={"prompt": "..."}, output=output, **extra)


def agent(*children: dict, name: str = "agent", input: Any = None, **extra: Any) -> dict:
    return span("agent", name, input=input if input is not None else {"task": "t"}, output="done",
                children=children, **extra)


def tool_call_entry(name: str, args: Any, output: Any = None) -> dict:
    return {"name": name, "input_parameters": args, "output": output}


def chat(opening: str, replies: list[str], turns: list[str]) -> list[dict]:
    """An OpenAI chat: a support agent's system message, the user's opening, then each reply followed by
    the user's turn of the same place (replies past the last turn end the chat)."""
    messages = [{"role": "system", "content": "You are a helpful support agent."},
                {"role": "user", "content": opening}]
    for n, reply in enumerate(replies):
        messages.append({"role": "assistant", "content": reply})
        if n < len(turns):
            messages.append({"role": "user", "content": turns[n]})
    return messages
