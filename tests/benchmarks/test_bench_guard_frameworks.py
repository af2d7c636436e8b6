"""`benchmarks.guard_frameworks` runs on tiny inputs and writes its table (no figures checked)."""

from __future__ import annotations

import re


def test_guard_frameworks_smoke(tmp_path):
    from benchmarks import guard_frameworks

    text = guard_frameworks.main(["--smoke", "--out", str(tmp_path)])
    assert (tmp_path / "guard_frameworks.md").read_text() == text
    assert "| core (LoopGuard) | 10 |" in text
    held = re.search(r"it holds (\d+) calls", text)
    assert held and held.group(1) == "10"
