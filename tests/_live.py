"""What the core guard reported while an agent ran: every loop `Checks.check` found, and the ids of
the calls it marked as the loop's. Shared by the live-equals-offline tests of the guards and the hook."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from loopmetric.guard import _checks


@dataclasses.dataclass
class Seen:
    """A loop the core reported, and the ids of the calls it marked as the loop's (the call just
    checked last, when the guard checked a call about to run)."""

    loop: Any
    call_ids: tuple[Optional[str], ...]


def spy_loops(monkeypatch: Any) -> list[Seen]:
    """Every loop the core guard reports from now on in this test, in order (filled as they come)."""
    found: list[Seen] = []
    check = _checks.Checks.check

    def spy(self: Any, about: Any = None) -> Any:
        before = {id(call) for call in self.record.calls if call.consumed}
        loop = check(self, about)
        if loop is not None:
            marked = [c for c in [*self.record.calls, *([about] if about is not None else [])]
                      if c.consumed and id(c) not in before]
            found.append(Seen(loop, tuple(dict.fromkeys(c.call_id for c in marked))))
        return loop

    monkeypatch.setattr(_checks.Checks, "check", spy)
    return found
