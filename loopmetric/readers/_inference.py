"""What readers infer, by one rule for every format, with the evidence kept.

A reader states what its format records. Two things no format records, and
every reader infers the same way here:

* **Text actions** (`ActionInference`). Markup or a code block in a reply is
  a tool call only where the run shows it is one: the run declares that
  syntax (a system prompt or the first user prompt shows it, or a tool list
  names the tool), or the turn that answers the reply is written like an
  observation (by the harness or the tool, not a person's next question).
  Once a syntax has run in a run, it is declared for the rest of the run.
  Otherwise it is text: `<b>Tip:</b>` or a fenced example in an answer is
  not a call.
* **Harness turns** (`infer_harness_turns`). A turn of the other side is the
  harness's when it answers a reply that executed nothing, in a run that
  acts (it declares an action syntax or tools, or calls tools), with the
  same words as the turn that answered the reply before (or after); or when
  it is written like an observation. A person saying "yes" or "continue" in
  a conversation that does not act is a person.
* **The other side's turn in an LLM input** (`other_side_turn`): the user
  messages after the model's last reply in the input (the words of one that
  calls tools itself too: the results of the other side's own calls do not
  end its turn, as the chat reader reads the same messages); or, when the input
  holds only the newest messages (no assistant message, not the run's first
  call), its user messages.

Each inference says why (`inferred` on the step), so `explain` can show it.
Rules speak about syntaxes, turns and replies, never one dataset's words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from .._canonical import mask_error, mask_result
from .._deep_json import loads
from ._items import Call, Input, Llm
from ._shapes import ToolRequest
from .._text_actions import TextAction, find_text_action

__all__ = ["ASSISTANT_ROLES", "ActionInference", "USER_ROLES", "as_request", "first_prompt", "holds_text",
           "infer_harness_turns", "input_results", "observation_shaped", "other_side_turn", "prompt_messages"]

ASSISTANT_ROLES = frozenset({"assistant", "ai", "model"})
USER_ROLES = frozenset({"user", "human"})
SYSTEM_ROLES = frozenset({"system", "developer"})
_SPEAKERS = ASSISTANT_ROLES | USER_ROLES | SYSTEM_ROLES  # any other role is a tool's result
_REASONING_TAGS = frozenset({
    "thought", "thoughts", "think", "thinking", "reasoning", "reflection", "plan", "analysis",
    "observation", "scratchpad", "summary",
})
_MAX_PROMPT = 200_000  # a prompt's head is where its syntax is declared
_MAX_MESSAGES = 10_000
# A label opening the turn ("Observation:", "Observation 2:", "Execution output:", "bash:"),
# or data (a tag, JSON, a code fence): what a harness or a tool writes back.
_LABEL = re.compile(r"[A-Za-z][\w-]{0,30}(?:[ \t][A-Za-z][\w-]{0,30})?(?:[ \t]*\d{1,4})?[ \t]*:(?:\s|$)")
_REACT_LINE = re.compile(r"^\s*Action(?:\s*\d+)?\s*:|Action\s*Input", re.MULTILINE)
_TAG_PAIR = re.compile(r"<([A-Za-z][\w-]{0,39})>.*?</\1\s*>", re.DOTALL)


def observation_shaped(text: str) -> bool:
    """Whether a turn is written like an observation: it opens with a label ("Observation:")
    or with data (a tag, JSON, a code fence). An empty turn is not (a format writes one for
    content that is not text)."""
    head = text.lstrip()[:200]
    if not head:
        return False
    return head[0] in "<{[`" or _LABEL.match(head) is not None


def _excerpt(text: str, at_most: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= at_most else flat[:at_most - 3] + "..."


class ActionInference:
    """One run's text-action syntaxes: declared by its prompts or tool list, or seen running."""

    __slots__ = ("_prompts", "_tools", "_running", "_running_syntax")

    def __init__(self) -> None:
        self._prompts: list[tuple[str, str, str]] = []  # (where, text, casefolded text)
        self._tools: set[str] = set()
        self._running: set[tuple[str, str]] = set()
        self._running_syntax: set[str] = set()

    def declare(self, text: Any, where: str) -> None:
        """A prompt of the run (a system prompt, the first user prompt) that may define action syntax."""
        if isinstance(text, str) and text.strip():
            head = text[:_MAX_PROMPT]
            self._prompts.append((where, head, head.casefold()))

    def declare_tools(self, names: Iterable[Any]) -> None:
        self._tools.update(name.casefold() for name in names if isinstance(name, str) and name)

    @property
    def declared(self) -> str:
        """How the run declares that it acts (a tool list, an action syntax in a prompt), or ""."""
        if self._tools:
            return "declares tools"
        for where, text, folded in self._prompts:
            if "```" in text:
                return f"declares code-block actions in its {where}"
            if _REACT_LINE.search(text):
                return f"declares ReAct actions in its {where}"
            if '"action"' in folded:
                return f"declares JSON actions in its {where}"
            if "</" in text and any(tag.casefold() not in _REASONING_TAGS for tag in _TAG_PAIR.findall(text)):
                return f"declares tagged actions in its {where}"
        return ""

    def accept(self, action: TextAction, answer: Optional[str]) -> str:
        """Why `action` is a call (evidence for `inferred`), or "" when it is text.
        `answer` is the turn that answers the reply (None when no turn does)."""
        why = self._why(action, answer)
        if why:
            self._running.add(action.key)
            self._running_syntax.add(action.syntax)
        return why

    def text_call(self, text: str, answer: Optional[str]) -> Optional[ToolRequest]:
        """The call a reply with no structured calls writes in its text, when the run shows it is
        one (its request, `inferred` saying why); None when the reply is text. `answer` is the
        text of the turn that answers the reply (None when no turn does). Every reader asks here."""
        action = find_text_action(text)
        if action is None:
            return None
        why = self.accept(action, answer)
        return as_request(action, why) if why else None

    def _why(self, action: TextAction, answer: Optional[str]) -> str:
        written = action.written
        if action.key in self._running or (action.syntax in ("react", "json")
                                            and action.syntax in self._running_syntax):
            return f"text action {written} ran earlier in the run"
        if action.name.casefold() in self._tools:
            return f"text action {written} names a tool of the run's tool list"
        for where, text, folded in self._prompts:
            if _declares(action, text, folded):
                return f"text action {written} declared in the {where}"
        if answer is not None and observation_shaped(answer):
            return f"text action {written} answered by an observation ({_excerpt(answer)!r})"
        return ""


def as_request(action: TextAction, inferred: str) -> ToolRequest:
    """The tool request a text action is read as, `inferred` saying why it is a call."""
    return ToolRequest(action.name, action.args, inferred=inferred)


def _declares(action: TextAction, text: str, folded: str) -> bool:
    name = action.name.casefold()
    if action.syntax == "tag":
        tag = re.escape(name)
        return re.search(rf"<{tag}[\s>]", folded) is not None and re.search(rf"</{tag}\s*>", folded) is not None
    if action.syntax == "react":
        return f"{name}[" in folded or (_REACT_LINE.search(text) is not None
                                        and re.search(rf"\b{re.escape(name)}\b", folded) is not None)
    if action.syntax == "fence":
        return "```" in text
    return '"action"' in folded  # json


# -- harness turns --------------------------------------------------------

def _masked(text: str) -> str:
    return " ".join(mask_error(mask_result(text)).split()).casefold()


def infer_harness_turns(items: list[Any], acts: str) -> None:
    """Mark the other side's turns that are the harness's (see the module docstring), in place.
    `acts` says how the run declares it acts ("" when it declares nothing); calls in the
    items count too."""
    if not acts and any(isinstance(item, Call) or (isinstance(item, Llm) and item.requests) for item in items):
        acts = "calls tools"
    answers: list[Optional[tuple[Input, str]]] = []  # turns answering a reply that executed nothing
    previous: Any = None
    for item in items:
        if isinstance(item, Input):
            if item.source == "user" and isinstance(previous, Llm) and not previous.requests:
                answers.append((item, _masked(item.text)))
        elif isinstance(item, Call) or item.requests:
            answers.append(None)  # something ran: a chain of answers stops here
        previous = item
    for index, entry in enumerate(answers):
        if entry is None:
            continue
        turn, key = entry
        if observation_shaped(turn.text):
            turn.source, turn.inferred = "harness", "harness turn: answers a reply that executed nothing, " \
                                                    "written like an observation"
            continue
        if not acts:
            continue
        for other in (answers[index - 1] if index else None, answers[index + 1] if index + 1 < len(answers)
                      else None):
            if other is not None and other[1] == key:
                turn.source = "harness"
                turn.inferred = (f"harness turn: the same words again after a reply that executed nothing, "
                                 f"in a run that {acts}")
                break


# -- the other side's turn in an LLM input -------------------------------

def _messages(messages: Any) -> Optional[list]:
    if isinstance(messages, str):
        if messages[:1] not in ("[", "{"):
            return None
        try:
            messages = loads(messages)
        except ValueError:
            return None
    # (a dict or a list is told apart without an abstract-class check: this runs for every LLM input)
    if type(messages) is dict or type(messages) is not list and isinstance(messages, Mapping):
        messages = messages.get("messages")
    if not isinstance(messages, list) or len(messages) > _MAX_MESSAGES:
        return None
    return messages


def prompt_messages(messages: Any) -> list[tuple[str, str]]:
    """(where, text) of the prompts an LLM input opens with: its system messages and the user
    messages before the first reply."""
    found: list[tuple[str, str]] = []
    listed = _messages(messages)
    if listed is None:
        if isinstance(messages, str):
            found.append(("first user prompt", messages))
        return found
    first_user = True
    for message in listed[:50]:
        if not isinstance(message, Mapping):
            break
        role = _role(message)
        if role in ASSISTANT_ROLES or role not in SYSTEM_ROLES | USER_ROLES:
            break
        text = _text(message)
        if text is None:
            continue
        if role in SYSTEM_ROLES:
            found.append(("system prompt", text))
        elif first_user:
            found.append(("first user prompt", text))
            first_user = False
    return found


def other_side_turn(messages: Any, *, first: bool = True, previous_reply: str = "",
                    prompt: Optional[str] = None) -> Optional[str]:
    """The text of the other side's turn in an LLM call's input: the user messages after
    the last assistant message (and after the tool results that answer it), with the words of
    a user message that calls tools itself (a person acting through its own tools: its calls'
    results do not end its turn); or, in an input
    of only the newest messages (no assistant message, `first` False), its user messages
    (system messages skipped). None when the input ends with a tool result (the model reads
    results, no one spoke), when there is no reply yet (`first`), when the input is a
    whole transcript that holds the previous reply (`previous_reply`), or when it is the
    run's first prompt sent again (`prompt`: a call that keeps no history)."""
    listed = _messages(messages)
    if listed is None:
        return None
    texts: list[str] = []
    index = len(listed)
    while index:
        index -= 1
        message = listed[index]
        if not isinstance(message, Mapping):
            return None
        role = _role(message)
        if role in ASSISTANT_ROLES:
            return "\n".join(reversed(texts)) if texts else None
        if role in SYSTEM_ROLES:
            continue
        if role not in USER_ROLES:
            # a tool result: the user messages after it (if any) are the other side's words, unless it
            # answers a call the other side made itself (a person acting through its own tools): then
            # the words that came with that call, and before it, are the same turn
            caller = _caller(listed, index)
            if caller is None:
                return "\n".join(reversed(texts)) if texts else None
            index = caller + 1
            continue
        if _calls_tools(message):
            words = _words(message)
            if words:
                texts.append(words)
            continue
        text = _text(message)
        if text is None:
            return None
        texts.append(text)
    if first or not texts:
        return None
    reply = previous_reply.strip()
    if reply and any(reply in text for text in texts):
        return None  # a transcript rendered into one prompt, the previous reply in it
    joined = "\n".join(reversed(texts))
    return None if prompt is not None and joined == prompt else joined


def input_results(messages: Any) -> list[tuple[str, str]]:
    """(tool name or "", result text) of each tool result an LLM call's input holds after the model's
    last reply (in an input of only the newest messages: every one), in order: an OpenAI `tool`
    message, or a GenAI `tool_call_response` part."""
    listed = _messages(messages)
    if listed is None:
        return []
    found: list[tuple[str, str]] = []
    for message in reversed(listed):
        if not isinstance(message, Mapping):
            break
        role = _role(message)
        if role in ASSISTANT_ROLES:
            break
        if role in ("tool", "function", "ipython"):
            name = message.get("name")
            text = _text(message)
            if text is None:
                text = _response_text(message)
            if text is not None:
                found.append((name if isinstance(name, str) else "", text))
            continue
        text = _response_text(message)
        if text is not None:
            found.append(("", text))
    found.reverse()
    return found


def _response_text(message: Mapping[str, Any]) -> Optional[str]:
    """The text of the GenAI `tool_call_response` parts of a message, or None."""
    parts = message.get("parts", message.get("content"))
    if not isinstance(parts, list):
        return None
    texts = []
    for part in parts:
        if isinstance(part, Mapping) and part.get("type") == "tool_call_response":
            response = part.get("response", part.get("result"))
            texts.append(response if isinstance(response, str) else "" if response is None else str(response))
    return "\n".join(texts) if texts else None


def holds_text(value: Any) -> bool:
    """Whether an LLM input records what the model was told: text, a list of messages, or a
    mapping with text or messages among its values (`{"prompt": ...}`), not only numbers
    (`{"step": 3}`) or nothing."""
    # (Runs for every LLM input of a recording that holds no text: a dict is told apart first.)
    if type(value) is not dict:
        if isinstance(value, str):
            return not value.isspace() and bool(value)
        if isinstance(value, (list, tuple)):
            return bool(value)
        if not isinstance(value, Mapping):
            return False
    for item in value.values():
        kind = type(item)
        if kind is int or kind is float or item is None:
            continue
        if isinstance(item, str):
            if item and not item.isspace():
                return True
        elif item and isinstance(item, (list, tuple, Mapping)):
            return True
    return False


def first_prompt(messages: Any) -> Optional[str]:
    """The user text of a run's first LLM input (what `other_side_turn` gets as `prompt`)."""
    return other_side_turn(messages, first=False)


def _role(message: Mapping[str, Any]) -> str:
    role = message.get("role")
    return role if isinstance(role, str) else ""


_CALL_PARTS = frozenset({"tool_call", "function_call", "tool_use"})


def _calls_tools(message: Mapping[str, Any]) -> bool:
    """Whether a message asks for tool calls: OpenAI `tool_calls`, or a call among its parts (GenAI
    `tool_call`, Anthropic `tool_use`)."""
    calls = message.get("tool_calls")
    if isinstance(calls, (list, tuple)) and calls:
        return True
    content = message.get("content", message.get("parts"))
    return isinstance(content, list) and any(isinstance(part, Mapping) and part.get("type") in _CALL_PARTS
                                             for part in content)


def _caller(listed: list, index: int) -> Optional[int]:
    """Where the user message that made the calls the tool results ending at `index` answer stands,
    when the other side made them (a user message asking for tool calls just before the results);
    None when the model's reply made them, or no message asked."""
    before = index - 1
    while before >= 0 and isinstance(listed[before], Mapping) and _role(listed[before]) not in _SPEAKERS:
        before -= 1
    if before < 0 or not isinstance(listed[before], Mapping):
        return None
    message = listed[before]
    return before if _role(message) in USER_ROLES and _calls_tools(message) else None


def _words(message: Mapping[str, Any]) -> str:
    """The text a message that asks for tool calls says beside them: its content, or its text parts."""
    content = message.get("content", message.get("parts"))
    if isinstance(content, str):
        return content.strip()
    parts = _text_parts(content, others_end=False) if isinstance(content, list) else None
    return "\n".join(t for t in parts if t.strip()).strip() if parts else ""


def _text(message: Mapping[str, Any]) -> Optional[str]:
    content = message.get("content", message.get("parts"))
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        # (a tool's result ends it: written as a user part, GenAI `tool_call_response`, Anthropic `tool_result`)
        parts = _text_parts(content, others_end=True)
        return ("\n".join(parts) or None) if parts is not None else None
    return None


def _text_parts(content: list, *, others_end: bool) -> Optional[list[str]]:
    """The texts of a message's parts (plain strings, `text` parts); a part of another kind is
    passed over (an image, a file: the words beside it are the message's, as the chat reader
    reads them), but for a tool's result (`_is_result`), which, with `others_end`, makes the
    answer None: the message is the result, not a turn."""
    parts = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, Mapping) and part.get("type", "text") == "text":
            value = part.get("content", part.get("text"))
            if isinstance(value, str):
                parts.append(value)
        elif others_end and _is_result(part):
            return None
    return parts


def _is_result(part: Any) -> bool:
    """Whether a message's part holds a tool's result (`_RESULT_PARTS`, an Anthropic server tool's
    `*_tool_result`)."""
    kind = part.get("type") if isinstance(part, Mapping) else None
    return isinstance(kind, str) and (kind in _RESULT_PARTS or kind.endswith("_tool_result"))


# The kinds of part that hold a tool's result: GenAI `tool_call_response`, Anthropic `tool_result`
_RESULT_PARTS = frozenset({"tool_call_response", "tool_result"})
