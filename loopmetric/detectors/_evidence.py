"""Evidence: what the detectors read besides the steps, computed once per trace.

The engine builds one `Evidence` per trace and hands it to every detector, so
nothing is cached behind their backs (no per-thread state to clear):

* `news`: which steps told the agent something new, and around every tool call
  how many news steps came before and after it (`_news.Progress`);
* `failures`: each call's failure kind (`_news.failure_kind`), part of `news`;
* what is similar is compared where it is asked (`_similarity`): texts are
  paired only inside the windows the text detectors look at.

`news` is built on first use: a trace whose tool patterns are all off never
pays for it.
"""

from __future__ import annotations

from typing import Optional

from .._model import Trace
from ._news import Progress

__all__ = ["Evidence", "evidence_for"]


class Evidence:
    """The evidence about one trace (see the module docstring)."""

    __slots__ = ("trace", "_news")

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self._news: Optional[Progress] = None

    @property
    def news(self) -> Progress:
        """The news model of the trace's tool calls, computed once."""
        if self._news is None:
            self._news = Progress(self.trace)
        return self._news


def evidence_for(trace: Trace, evidence: Optional[Evidence]) -> Evidence:
    """`evidence` when the engine gave it (for this trace), else evidence of `trace` alone
    (a detector called on its own)."""
    if evidence is not None and evidence.trace is trace:
        return evidence
    return Evidence(trace)
