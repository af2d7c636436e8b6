"""loopmetric: tells when an LLM agent got stuck, from its recorded trace.

Deterministic (no LLM, no network): the same trace always gets the same score.

    >>> from loopmetric import detect_loops
    >>> report = detect_loops(trace_dict)          # plain function, no deepeval needed
    >>> from loopmetric import AgentLoopDetectionMetric   # the deepeval metric (loaded lazily)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__
from ._engine import NO_TRACE_REASON, analyze, detect_loops
from ._errors import TraceReadError
from ._findings import Finding
from ._model import LlmOutput, Span, ToolCall, Trace
from ._report import LoopReport
from ._settings import LoopSettings
from .readers import (
    LoadedTrace,
    load_traces,
    read_chat_messages,
    read_deepeval_trace,
    read_otlp_traces,
    read_pydantic_ai_messages,
    read_swe_agent,
    read_trace,
)

if TYPE_CHECKING:
    from .metric import AgentLoopDetectionMetric

__all__ = [
    "AgentLoopDetectionMetric",
    "Finding",
    "LlmOutput",
    "LoadedTrace",
    "LoopReport",
    "LoopSettings",
    "NO_TRACE_REASON",
    "Span",
    "ToolCall",
    "Trace",
    "TraceReadError",
    "__version__",
    "analyze",
    "detect_loops",
    "load_traces",
    "read_chat_messages",
    "read_deepeval_trace",
    "read_otlp_traces",
    "read_pydantic_ai_messages",
    "read_swe_agent",
    "read_trace",
]



def __getattr__(name: str) -> Any:
    # deepeval costs about a second to import: load the metric only when asked.
    if name == "AgentLoopDetectionMetric":
        from .metric import AgentLoopDetectionMetric

        return AgentLoopDetectionMetric
    raise AttributeError(f"module 'loopmetric' has no attribute {name!r}")
