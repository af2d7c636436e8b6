"""Stop loops while a pydantic-ai agent runs: `DetectLoops`, on loopmetric's engine.

    >>> from pydantic_ai import Agent
    >>> from loopmetric.guard import DetectLoops
    >>> agent = Agent(model, capabilities=[DetectLoops()])           # nudge the model
    >>> agent = Agent(model, capabilities=[DetectLoops(action='error')])  # or stop the run
    >>> from loopmetric.guard import replay
    >>> replay(result.all_messages_json())   # what the guard would have done on a recorded run

`DetectLoops` and `replay` need pydantic-ai, an optional extra: `pip install "loopmetric[pydantic-ai]"`.
The names load on first use (a module `__getattr__`), so importing `loopmetric.guard` needs only
loopmetric's core: `loopmetric.guard.core` (`LoopGuard`, framework-neutral), the coding agents'
hooks (`loopmetric.hooks`) and the span processor run without pydantic-ai, and naming
`DetectLoops` without it raises `ImportError` naming the extra.

The same guard for other frameworks, each a module with its own extra: `.langchain`
(`LoopGuardMiddleware`), `.openai_agents` (`AgentsLoopGuard`), `.smolagents` (`LoopGuardCallback`).
Their settings are `GuardSettings`'.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

_INSTALL = 'loopmetric.guard needs pydantic-ai: pip install "loopmetric[pydantic-ai]"'


def _pydantic_ai_installed() -> bool:
    try:
        return find_spec("pydantic_ai") is not None
    except (ImportError, ValueError):  # a blocked or half-imported module
        return False

if TYPE_CHECKING:
    from ._capability import DetectLoops, LoopDetectedError, LoopHandler
    from ._loop import DetectedLoop, LoopPattern
    from ._replay import ReplayedLoop, replay

__all__ = [
    "DetectLoops",
    "DetectedLoop",
    "LoopDetectedError",
    "LoopHandler",
    "LoopPattern",
    "ReplayedLoop",
    "replay",
]

_MODULES = {
    "DetectLoops": "._capability",
    "LoopDetectedError": "._capability",
    "LoopHandler": "._capability",
    "DetectedLoop": "._loop",
    "LoopPattern": "._loop",
    "ReplayedLoop": "._replay",
    "replay": "._replay",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'loopmetric.guard' has no attribute {name!r}")
    if not _pydantic_ai_installed():
        raise ImportError(_INSTALL)
    try:
        value = getattr(import_module(module, __name__), name)
    except ImportError as error:  # installed, but without what the guard needs (capabilities, enqueue)
        raise ImportError(f"{_INSTALL} (a version with capabilities and RunContext.enqueue; "
                          f"this one failed with: {error})") from error
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
