"""Readers: each turns one recorded format into loopmetric's `Trace`."""

from ._chat import read_chat_messages
from ._deepeval import read_deepeval_trace
from ._files import FORMATS, LoadedTrace, detect_format, expand_paths, load_traces
from ._sweagent import read_swe_agent

__all__ = [
    "FORMATS",
    "LoadedTrace",
    "detect_format",
    "expand_paths",
    "load_traces",
    "read_chat_messages",
    "read_deepeval_trace",
    "read_swe_agent",
]
