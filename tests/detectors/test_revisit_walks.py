"""Revisits judged by the walk: an agent exploring a map walks back through places it
knows on its way to new ones. A stretch of revisits is a loop when the run reaches nothing new
after it (the same rooms cycled until the step limit), not because a place was seen before."""

from __future__ import annotations

import pytest

from loopmetric import LoopSettings, detect_loops, read_deepeval_trace
from loopmetric.detectors import detect_revisited_calls
from tests._traces import agent, tool


MAP = {"hall": ["east wing", "west wing", "cellar"], "east wing": ["hall", "library"], "west wing": ["hall", "attic"],
       "cellar": ["hall"], "library": ["east wing"], "attic": ["west wing"]}


def room(name: str) -> dict:
    exits = ", ".join(MAP.get(name, ["hall"]))
    return tool("go", {"to": name}, output=f"You are in the {name}. It is a room of the old house, with a door "
                                            f"and a window; you see nothing special here. Exits: {exits}.")


def walk(*names: str) -> dict:
    return agent(*[room(name) for name in names])


DEEP = [f"room {n}" for n in range(1, 8)]

WALKS = [
    pytest.param(walk(*DEEP, *reversed(DEEP[:-1]), "cellar", "attic", "garden"),
                 id="depth-first-back-to-the-hub-then-new-rooms"),
    pytest.param(walk("hall", "east wing", "library", "east wing", "hall", "west wing", "attic", "west wing", "hall",
                      "cellar"), id="back-to-the-hub-for-each-branch"),
]
LOOPS = [
    pytest.param(walk("hall", "kitchen", "study", *["hall", "kitchen", "study"] * 4),
                 id="the-same-three-rooms-until-the-step-limit"),
    pytest.param(walk(*DEEP, *reversed(DEEP[:-1]), *DEEP[1:-1]), id="back-and-forth-with-no-new-room-after"),
    pytest.param(walk(*DEEP, *[DEEP[n % 3] for n in range(19)], "cellar"),
                 id="a-detour-longer-than-three-times-the-threshold"),
]


def _revisits(trace) -> list:
    return list(detect_revisited_calls(read_deepeval_trace(trace), LoopSettings()))


@pytest.mark.parametrize("trace", WALKS)
def test_revisits_on_the_way_to_a_new_place_are_a_walk(trace):
    assert _revisits(trace) == []
    assert detect_loops(trace).success is True, detect_loops(trace).reason


@pytest.mark.parametrize("trace", LOOPS)
def test_revisits_after_which_nothing_new_is_reached_are_a_loop(trace):
    found = _revisits(trace)
    assert found and found[0].severity == "severe", found


# Where a detour ends. The map of DEEP is walked first (steps 1-7, every room new); what follows
# is numbered from step 8. The steps reported are written out from the walk: a stretch of
# revisits is a detour when a new room comes after it and it is no longer than three times the
# threshold (6 by default: 18 revisits), a loop otherwise.
DETOURS = [
    pytest.param(walk(*DEEP, *[DEEP[n % 3] for n in range(18)], "cellar"), [],
                 id="exactly-three-times-the-threshold-then-a-new-room-is-a-detour"),
    pytest.param(walk(*DEEP, *[DEEP[n % 3] for n in range(19)], "cellar"), [tuple(range(8, 27))],
                 id="one-revisit-more-than-three-times-the-threshold-is-a-loop"),
    pytest.param(walk(*DEEP, *reversed(DEEP[:-1]), "cellar"), [],
                 id="one-new-room-right-after-the-revisits-and-then-the-end-is-a-detour"),
    pytest.param(walk(*DEEP, *reversed(DEEP[:-1])), [tuple(range(8, 14))],
                 id="the-same-revisits-with-no-new-room-after-are-a-loop"),
    pytest.param(walk(*DEEP, *reversed(DEEP[:-1]), "cellar", *["room 1", "room 2", "room 3"] * 3),
                 [tuple(range(15, 24))], id="a-detour-then-a-loop-after-the-next-new-room-reports-the-loop"),
    pytest.param(walk(*DEEP, *reversed(DEEP[:-1]), "cellar", *["room 1", "room 2", "room 3"] * 3, "attic"), [],
                 id="a-detour-then-another-detour-before-a-new-room-report-nothing"),
]


@pytest.mark.parametrize(("trace", "steps"), DETOURS)
def test_a_stretch_of_revisits_is_a_detour_only_when_a_new_place_follows_within_three_thresholds(trace, steps):
    assert [f.steps for f in _revisits(trace)] == steps
