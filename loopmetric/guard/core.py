"""The framework-neutral guard, for any agent loop: `LoopGuard`.

    from loopmetric.guard.core import LoopGuard

    guard = LoopGuard()                     # GuardSettings' fields by name, and action='nudge' or 'stop'
    decision = guard.before_call("read_file", {"path": "missing.txt"})
    if decision.action == "allow":
        guard.after_call(read_file("missing.txt"))
    elif decision.action == "nudge":
        ...                                 # send decision.message to the model instead of the result
    else:
        ...                                 # 'stop': end the run

`DetectLoops` (pydantic-ai) and the LangChain, OpenAI Agents SDK and smolagents adapters run on
it. It imports no agent framework.
"""

from ._core import ALLOW, Decision, LoopGuard, LoopGuardError
from ._loop import DetectedLoop
from ._settings import GuardSettings

__all__ = ["ALLOW", "Decision", "DetectedLoop", "GuardSettings", "LoopGuard", "LoopGuardError"]
