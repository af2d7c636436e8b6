"""The table of patterns: every pattern a detector can report has a meaning, the README's
scoring table says the same, and `loopmetric explain` prints it next to the findings."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest

from loopmetric import LoopSettings, detect_loops, load_traces
from loopmetric._findings import Pattern
from loopmetric._patterns import PATTERNS
from loopmetric.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_every_pattern_has_a_meaning_and_a_real_setting():
    assert set(PATTERNS) == set(get_args(Pattern))
    settings = {f for f in LoopSettings.__dataclass_fields__}
    for name, info in PATTERNS.items():
        assert info.setting in settings, name
        assert info.meaning and not info.meaning.endswith(".")


def test_readme_scoring_table_matches_the_patterns():
    readme = (ROOT / "docs" / "scoring.md").read_text()
    rows = re.findall(r"^\s*\| `(\w+)` \| `(\w+)` \| `(\w+)` \| (.+?) \|$", readme, flags=re.M)
    table = {name: (signal, setting, meaning) for name, signal, setting, meaning in rows if name in PATTERNS}
    assert table == {name: (i.signal, i.setting, i.meaning) for name, i in PATTERNS.items()}


@pytest.mark.parametrize("example", ["looping_agent.json", "sweagent_run.traj"])
def test_explain_prints_the_meaning_of_each_reported_pattern(example, capsys):
    path = ROOT / "examples" / example
    (loaded,) = load_traces(str(path))
    reported = {f.pattern for f in detect_loops(loaded.trace).findings}
    assert reported, "the example should loop"
    main(["explain", str(path)])
    out = capsys.readouterr().out
    for pattern in reported:
        assert f"{pattern}: {PATTERNS[pattern].meaning}." in out
    for pattern in set(PATTERNS) - reported:
        assert f"{pattern}: " not in out
