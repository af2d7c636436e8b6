"""One conversation (a system prompt, a task, replies and the other side's answers) rendered
in three shapes a run is recorded in: an OpenAI chat log, a deepeval trace whose LLM inputs
hold the whole conversation, and one whose LLM inputs hold only the newest messages."""

from __future__ import annotations

from loopmetric import read_chat_messages, read_deepeval_trace

CLOSING = "All done."


def as_chat(system: str, task: str, replies: list[str], answers: list[str]) -> list[dict]:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    for reply, answer in zip(replies, answers):
        messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": answer}]
    return messages + [{"role": "assistant", "content": CLOSING}]


def as_deepeval(system: str, task: str, replies: list[str], answers: list[str], *, newest: bool) -> dict:
    """One LLM span per reply; its input the whole conversation so far, or only what is new."""
    history = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    new = list(history)
    children = []
    for reply in replies + [CLOSING]:
        children.append({"type": "llm", "name": "call_llm", "input": new if newest else list(history),
                         "output": reply, "children": []})
        history.append({"role": "assistant", "content": reply})
        if len(children) <= len(answers):
            turn = {"role": "user", "content": answers[len(children) - 1]}
            history.append(turn)
            new = [turn]
    return {"type": "agent", "name": "agent", "input": task, "output": CLOSING, "children": children}


SHAPES = {
    "chat": lambda *case: read_chat_messages(as_chat(*case)),
    "deepeval-whole-conversation": lambda *case: read_deepeval_trace(as_deepeval(*case, newest=False)),
    "deepeval-newest-messages": lambda *case: read_deepeval_trace(as_deepeval(*case, newest=True)),
}
