"""Readers: each turns one recorded format into loopmetric's `Trace`.

`read_trace` reads any single value (detecting its format); `load_traces`
reads every trace in a file (`load_text`: in the text of one).
"""

from ._chat import read_chat_messages
from ._deepeval import read_deepeval_trace
from ._registry import FORMATS, LoadedTrace, NotATrace, detect_format, read_trace
from ._files import expand_paths, load_text, load_traces
from ._langfuse import read_langfuse_traces
from ._langsmith import read_langsmith_runs
from ._mlflow import read_mlflow_trace, read_mlflow_traces
from ._openai_agents import read_openai_agents_spans  # openai-agents format
from ._otlp import read_otlp_traces
from ._pydantic_ai import read_pydantic_ai_messages
from ._sweagent import read_swe_agent

__all__ = [
    "FORMATS",
    "LoadedTrace",
    "NotATrace",
    "detect_format",
    "expand_paths",
    "load_text",
    "load_traces",
    "read_chat_messages",
    "read_deepeval_trace",
    "read_langfuse_traces",
    "read_langsmith_runs",
    "read_mlflow_trace",
    "read_mlflow_traces",
    "read_openai_agents_spans",
    "read_otlp_traces",
    "read_pydantic_ai_messages",
    "read_swe_agent",
    "read_trace",
]
