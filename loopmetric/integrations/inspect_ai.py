"""Inspect AI: `loop_score()`, the loop check as a scorer, and `loop_rate()`, its metric.

    >>> from inspect_ai import Task
    >>> from loopmetric.integrations.inspect_ai import loop_score
    >>> Task(dataset=..., solver=[use_tools(...), generate()], scorer=loop_score())

The scorer reads the sample's conversation (`TaskState.messages`): assistant
messages are LLM outputs and their `tool_calls` the calls asked for, tool
messages the results (a `ToolCallError` is an error result), user messages new
input; it scores them with `detect_loops`, as loopmetric's chat reader reads
OpenAI-style messages. Each sample gets a `Score`: `value` the loop score (1.0
clean .. 0.0 severe looping), `explanation` the reason, `metadata` the verdict
(`success`, `threshold`), `score_breakdown`, the `patterns` found and the worst
finding (`worst`, with its steps). `loop_rate` is the share of samples whose
score is below the threshold (looping); `mean` is the mean score.

Needs Inspect AI, an optional extra: `pip install "loopmetric[inspect]"`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

try:
    from inspect_ai.model import (ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageTool,
                                  ChatMessageUser)
    from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer
    from inspect_ai.solver import TaskState
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        'loopmetric.integrations.inspect_ai needs Inspect AI: pip install "loopmetric[inspect]"'
    ) from error

from .._engine import detect_loops
from .._errors import TraceReadError
from .._model import Trace
from .._report import LoopReport
from .._settings import LoopSettings
from ..readers import read_chat_messages

__all__ = ["chat_messages", "loop_rate", "loop_score", "read_inspect_messages"]


def _text(message: Any) -> str:
    text = getattr(message, "text", None)
    if isinstance(text, str):
        return text
    content = getattr(message, "content", None)
    return content if isinstance(content, str) else ""


def chat_messages(messages: Iterable[ChatMessage]) -> list[dict[str, Any]]:
    """Inspect chat messages as OpenAI-style message dicts (the shape loopmetric's chat reader reads)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        entry: dict[str, Any]
        if isinstance(message, ChatMessageAssistant):
            entry = {"role": "assistant", "content": _text(message)}
            if message.tool_calls:
                entry["tool_calls"] = [{"id": call.id, "type": "function",
                                        "function": {"name": call.function, "arguments": call.arguments}}
                                       for call in message.tool_calls]
        elif isinstance(message, ChatMessageTool):
            entry = {"role": "tool", "tool_call_id": message.tool_call_id, "content": _text(message)}
            if message.function:
                entry["name"] = message.function
            if message.error is not None:
                entry.update(error=True, content=message.error.message or str(message.error))
        elif isinstance(message, ChatMessageUser):
            entry = {"role": "user", "content": _text(message)}
        elif isinstance(message, ChatMessageSystem):
            continue
        else:
            raise TypeError(f"Expected Inspect chat messages (system, user, assistant or tool), "
                            f"but got {type(message).__name__}.")
        out.append(entry)
    return out


def read_inspect_messages(messages: Iterable[ChatMessage], *, name: str = "") -> Trace:
    """The `Trace` of an Inspect conversation (`TaskState.messages`, or a log sample's `messages`)."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Iterable):
        raise TypeError(f"Expected argument `messages` to be a list of Inspect chat messages, "
                        f"but got {type(messages).__name__}.")
    return read_chat_messages(chat_messages(messages), name=name, source="inspect-ai")


def _metadata(report: LoopReport) -> dict[str, Any]:
    worst = report.worst
    return {
        "success": report.success,
        "threshold": report.threshold,
        "score_breakdown": dict(report.score_breakdown),
        "patterns": sorted({f.pattern for f in report.findings}),
        "worst": None if worst is None else worst.to_dict(),
        "looped_steps": report.looped_steps,
        "tool_calls": report.tool_calls,
        "llm_outputs": report.llm_outputs,
    }


def _is_looping(sample: SampleScore) -> bool:
    score = sample.score
    threshold = (score.metadata or {}).get("threshold")
    value = score.value
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not isinstance(threshold, (int, float)):
        return True  # not a loop_score score: never counted as clean
    return value < threshold


@metric
def loop_rate() -> Metric:
    """The share of samples that loop: score below the threshold (a sample that could not be read counts)."""

    def compute(scores: list[SampleScore]) -> float:
        return sum(_is_looping(s) for s in scores) / len(scores) if scores else 0.0

    return compute


@scorer(metrics=[loop_rate(), mean()])
def loop_score(threshold: float = LoopSettings.threshold, settings: Optional[dict[str, Any]] = None) -> Scorer:
    """Scores each sample's conversation for loops with `detect_loops`.

    `threshold` is the pass mark; `settings` are other `LoopSettings` fields
    (`window`, `repetition_threshold`, ...). A sample with nothing to read scores
    0.0 with the reason as explanation; it is never a pass.
    """
    if settings is not None and not isinstance(settings, dict):
        raise ValueError(f"Expected argument `settings` to be a dict of LoopSettings fields, "
                         f"but got {type(settings).__name__}.")
    resolved = LoopSettings.from_kwargs(**{**(settings or {}), "threshold": threshold})

    async def score(state: TaskState, target: Target) -> Score:
        try:
            report = detect_loops(read_inspect_messages(state.messages, name=str(state.sample_id)),
                                  settings=resolved)
        except TraceReadError as error:
            return Score(value=0.0, explanation=str(error),
                         metadata={"success": False, "threshold": resolved.effective_threshold, "error": str(error)})
        return Score(value=report.score, explanation=report.reason, metadata=_metadata(report))

    return score
