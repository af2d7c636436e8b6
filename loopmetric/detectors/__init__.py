"""Detectors: each a pure function `(Trace, LoopSettings) -> tuple[Finding, ...]`."""

from ._attempts import detect_similar_attempts
from ._call_graph import detect_call_graph_cycles
from ._cycles import detect_call_cycles
from ._meaning import detect_conversation_loops, detect_reworded_instructions
from ._obvious import detect_identical_repeats
from ._rejections import detect_rejected_outputs
from ._replies import detect_repeated_replies
from ._revisits import detect_revisited_calls
from ._text import detect_reasoning_stagnation, detect_repeated_text, detect_text_loops
from ._tool_calls import detect_repeated_calls, detect_repeated_results

__all__ = [
    "DETECTORS",
    "detect_call_cycles",
    "detect_call_graph_cycles",
    "detect_conversation_loops",
    "detect_identical_repeats",
    "detect_reasoning_stagnation",
    "detect_rejected_outputs",
    "detect_repeated_calls",
    "detect_repeated_replies",
    "detect_repeated_results",
    "detect_repeated_text",
    "detect_reworded_instructions",
    "detect_revisited_calls",
    "detect_similar_attempts",
    "detect_text_loops",
]

# What the engine runs, in reporting order.
DETECTORS = (
    detect_repeated_calls,
    detect_repeated_results,
    detect_identical_repeats,
    detect_similar_attempts,
    detect_call_cycles,
    detect_revisited_calls,
    detect_text_loops,
    detect_repeated_replies,
    detect_rejected_outputs,
    detect_call_graph_cycles,
    detect_conversation_loops,
    detect_reworded_instructions,
)
