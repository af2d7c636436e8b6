"""What the guard reports: `DetectedLoop`, and the text of the nudge it sends."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["DetectedLoop", "LoopPattern", "loop_message"]

LoopPattern: TypeAlias = Literal["repeated_call", "repeated_result", "alternating_calls", "repeated_text"]
"""Which kind of loop was detected.

- `'repeated_call'`: one tool call (same tool, same arguments) made many times among the recent calls.
- `'repeated_result'`: one tool call that returned the same result each of the last several times it was made.
- `'alternating_calls'`: two different tool calls made in turn, A-B-A-B (or, with `max_cycle_length`,
  a longer cycle such as A-B-C-A-B-C).
- `'repeated_text'`: consecutive responses without tool calls whose text is the same.
"""

@dataclass(frozen=True)
class DetectedLoop:
    """A loop `DetectLoops` found in the run.

    Passed to a `LoopHandler`, carried by `LoopDetectedError` as `loop`, and returned by `replay`.
    """

    pattern: LoopPattern
    """Which kind of loop it is."""

    tool_names: tuple[str, ...]
    """The tools involved: one for `'repeated_call'` and `'repeated_result'`, two for
    `'alternating_calls'` (one per call of a longer cycle), none for `'repeated_text'`."""

    count: int
    """How many times the pattern repeated: calls for `'repeated_call'` and `'repeated_result'`,
    cycles for `'alternating_calls'`, responses for `'repeated_text'`."""

    window: int
    """How many recent tool calls (responses, for `'repeated_text'`) the detection looked at."""

    fingerprints: tuple[str, ...]
    """Stable hashes of what repeated: for the call patterns, one per call (tool name and canonical
    arguments, the same string as the offline `ToolCall.call`); for `'repeated_text'`, the hash of
    the normalized text (the offline `LlmOutput.fingerprint`). No argument or text in the clear,
    but a short argument such as a user id can be recovered by hashing candidate values."""

    message: str
    """The explanation sent to the model as the nudge, and used as the `LoopDetectedError` message."""


_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
_ASK = "Change your approach, or explain what is blocking you."


def _tool(name: str) -> str:
    """A tool name as the nudge text shows it: letters, digits and `_` only."""
    return "`" + _UNSAFE.sub("_", name) + "`"


def _calls(count: int) -> str:
    return f"{count} call" + ("" if count == 1 else "s")


def loop_message(pattern: LoopPattern, tool_names: tuple[str, ...], count: int, window: int) -> str:
    """The nudge text for a loop; names only tools, never arguments, results or text."""
    if pattern == "repeated_result":
        return (f"Your last {_calls(count)} to {_tool(tool_names[0])} used the same arguments and returned the "
                f"same result, so calling it again will not change the outcome. {_ASK}")
    if pattern == "repeated_call":
        return (f"You called {_tool(tool_names[0])} {count} times with the same arguments in your last "
                f"{window} tool calls, so calling it again is unlikely to help. {_ASK}")
    if pattern == "alternating_calls":
        names = [_tool(name) for name in tool_names]
        order = " and ".join(names) if len(names) == 2 else ", ".join(names[:-1]) + " and " + names[-1]
        return (f"Your last {count * len(names)} tool calls went round {order} in turn {count} times with the "
                f"same arguments, so going round again will not change the outcome. {_ASK}")
    return (f"Your last {count} responses said the same thing without calling a tool, so saying it again will "
            f"not change the outcome. {_ASK}")
