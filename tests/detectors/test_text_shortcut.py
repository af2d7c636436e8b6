"""`text_episodes` skips its scan when every reply starts afresh, and finds then what the scan finds.

When every LLM output after the first follows a call the run had not made before, each output's
observation is new: the scan empties its window at every output and no output has an earlier one to
repeat. `_always_afresh` tells that from the steps' kinds and the calls' fingerprints (or the news
model's calls made before, given the evidence); each row holds a trace at an edge of that check, whether
the check holds, and the episodes the full scan finds (their steps, worked out by hand), which
`text_episodes` must find too, with the evidence and without.
"""

from __future__ import annotations

import pytest

from loopmetric import LoopSettings, read_chat_messages, read_deepeval_trace
from loopmetric.detectors import Evidence
from loopmetric.detectors._text import _always_afresh, _scan, text_episodes
from tests._traces import agent, llm, tool

A = "The build still fails with the same linker error in module core"


def _chat(*turns: tuple[str, str]) -> list[dict]:
    return [{"role": "user", "content": "fix the build"}] + [{"role": role, "content": text} for role, text in turns]


@pytest.mark.parametrize(("trace", "afresh", "episodes"), [
    pytest.param(read_deepeval_trace(agent(llm(A), tool("make", {"t": 1}, "ok"), llm(A), tool("make", {"t": 2}, "ok"),
                                           llm(A))), True, [], id="a-new-call-before-each-repeated-reply"),
    pytest.param(read_deepeval_trace(agent(llm(A), tool("make", {"t": 1}, "ok"), llm(A), tool("make", {"t": 1}, "ok"),
                                           llm(A))), False, [[3, 5]], id="twin-the-same-call-again-brings-nothing"),
    pytest.param(read_deepeval_trace(agent(llm(A), tool("make", {"t": 1}, "ok"), llm(A), llm(A))), False, [[3, 4]],
                 id="twin-two-replies-with-no-call-between"),
    pytest.param(read_chat_messages(_chat(("assistant", A), ("user", "and?"), ("assistant", A))), False, [],
                 id="an-input-alone-between-replies-is-scanned"),
    pytest.param(read_chat_messages(_chat(("assistant", A), ("user", "and?"), ("assistant", A), ("user", "and?"),
                                          ("assistant", A))), False, [[3, 5]],
                 id="twin-the-same-input-again-brings-nothing"),
    pytest.param(read_deepeval_trace(agent(tool("ls", {}, "a"), tool("ls", {"l": 1}, "a"))), True, [],
                 id="no-reply-at-all"),
])
def test_a_trace_where_every_reply_starts_afresh_has_no_episode(trace, afresh, episodes):
    settings = LoopSettings()
    assert _always_afresh(trace) is afresh
    assert _always_afresh(trace, Evidence(trace)) is afresh  # (the calls made before read from the news model)
    assert [sorted(e.members) for e in _scan(trace, settings)] == episodes
    assert [sorted(e.members) for e in text_episodes(trace, settings)] == episodes
    assert [sorted(e.members) for e in text_episodes(trace, settings, Evidence(trace))] == episodes


# Evidence handed in is read only when it is this trace's: the evidence of another trace, whose calls
# were made again (or not), says nothing of this one's.
_NEW_CALLS = read_deepeval_trace(agent(llm(A), tool("make", {"t": 1}, "ok"), llm(A), tool("make", {"t": 2}, "ok"), llm(A)))
_SAME_CALL = read_deepeval_trace(agent(llm(A), tool("make", {"t": 1}, "ok"), llm(A), tool("make", {"t": 1}, "ok"), llm(A)))


@pytest.mark.parametrize(("trace", "other", "afresh", "episodes"), [
    pytest.param(_SAME_CALL, _NEW_CALLS, False, [[3, 5]],
                 id="a-call-made-again-is-scanned-whatever-another-traces-evidence-says"),
    pytest.param(_NEW_CALLS, _SAME_CALL, True, [], id="twin-new-calls-start-afresh-whatever-another-traces-evidence-says"),
    pytest.param(_SAME_CALL, _SAME_CALL, False, [[3, 5]], id="twin-its-own-evidence"),
])
def test_the_evidence_of_another_trace_is_not_read(trace, other, afresh, episodes):
    settings = LoopSettings()
    assert _always_afresh(trace, Evidence(other)) is afresh
    assert [sorted(e.members) for e in text_episodes(trace, settings, Evidence(other))] == episodes
