"""The evaluation-framework cost benchmark runs end to end on a tiny input (no timing is checked)."""

from __future__ import annotations

import pytest

pytest.importorskip("pydantic_evals")
pytest.importorskip("logfire")
pytest.importorskip("inspect_ai")


def test_integrations_evals_smoke(tmp_path):
    from benchmarks import integrations_evals

    text = integrations_evals.main(["--smoke", "--out", str(tmp_path)])
    assert (tmp_path / "integrations_evals.md").read_text() == text
    rows = [line for line in text.splitlines() if line.startswith("| pydantic-evals") or line.startswith("| Inspect")]
    assert len(rows) == 2 * 2 * 2  # two scorers, two runs, two lengths
    assert {row.split(" | ")[3] for row in rows} == {"1.00", "0.00"}  # distinct passes, looping fails
