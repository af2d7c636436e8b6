"""The HTML report benchmark runs end to end on a tiny input (the real run is in benchmarks/results)."""

from __future__ import annotations

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("matplotlib")


def test_html_report_benchmark_smoke(tmp_path):
    from benchmarks import html_report

    text = html_report.main(["--smoke", "--out", str(tmp_path)])
    assert (tmp_path / "html_report.md").read_text() == text
    rows = [line for line in text.splitlines() if line.startswith("| 20 |") or line.startswith("| 60 |")]
    assert len(rows) == 2 and all("| JSON |" in row for row in rows)
