"""`benchmarks.otel` runs on tiny inputs and writes its table (no figures checked: timing is not tested)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("opentelemetry.sdk.trace")


def test_otel_benchmark_smoke(tmp_path):
    from benchmarks import otel

    text = otel.main(["--smoke", "--out", str(tmp_path)])
    assert (tmp_path / "otel.md").read_text() == text
    assert "2,000 spans ended over 20 traces" in text and "Load before: `" in text
    assert re.search(r"memory once every root span ended \| -?[\d,]+ bytes \(0 traces held\)", text)
    assert re.search(r"per ended span, p99 \| [\d.]+ us", text)
