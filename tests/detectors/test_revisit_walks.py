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
