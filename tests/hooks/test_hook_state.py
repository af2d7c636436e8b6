"""A session's state, kept between the hook's processes (`hooks/_state.py`): read back as it was
written, or dropped with the reason, so the hook starts the session again and says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopmetric._version import __version__
from loopmetric.hooks._state import STATE_VERSION, read_state, write_state

STATE = {"calls": [["Bash", "f1", "toolu_1", None, False, True]], "note": "é"}


def _file(folder: Path, data) -> None:
    (folder / "s1.json").write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")


def _written(**changed):
    return {"version": STATE_VERSION, "loopmetric": __version__, "settings": "k", "state": STATE, **changed}


@pytest.mark.parametrize("write, expected", [
    pytest.param(lambda folder: write_state(folder, "s1", "k", STATE), (STATE, ""), id="twin-written-then-read-back"),
    pytest.param(lambda folder: None, (None, ""), id="no-state-yet-is-no-reason"),
    pytest.param(lambda folder: _file(folder, "{not json"), (None, "state of session s1 does not parse ("),
                 id="not-json-the-parser-error-follows"),
    pytest.param(lambda folder: _file(folder, [1, 2]), (None, "state of session s1 is from another version (None): "
                                                         "starting again"), id="not-an-object"),
    pytest.param(lambda folder: _file(folder, _written(loopmetric="0.0.1")),
                 (None, "state of session s1 is from another version ('0.0.1'): starting again"),
                 id="another-loopmetric-the-version-found-named"),
    pytest.param(lambda folder: _file(folder, _written(version=STATE_VERSION - 1)),
                 (None, f"state of session s1 is from another version ({__version__!r}): starting again"),
                 id="another-state-version"),
    pytest.param(lambda folder: _file(folder, _written(settings="other")),
                 (None, "state of session s1 was written at other settings: starting again"), id="other-settings"),
    pytest.param(lambda folder: _file(folder, _written(state=[1])), (None, "state of session s1 has no state"),
                 id="no-state-object"),
])
def test_a_sessions_state_is_read_back_or_dropped_with_the_reason(write, expected, tmp_path):
    write(tmp_path)
    state, why = read_state(tmp_path, "s1", "k")
    if why.startswith("state of session s1 does not parse ("):
        why = why[:len(expected[1])]  # the parser's own words follow
    assert (state, why) == expected
