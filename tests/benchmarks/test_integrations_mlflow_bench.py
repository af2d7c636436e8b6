"""The MLflow scorer's cost benchmark runs (a tiny input; the figures are not checked)."""

from __future__ import annotations

import pytest

pytest.importorskip("mlflow.genai")


def test_integrations_mlflow_smoke(tmp_path, monkeypatch):
    import mlflow

    from benchmarks import integrations_mlflow

    monkeypatch.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
    try:
        text = integrations_mlflow.main(["--smoke", "--out", str(tmp_path)])
    finally:
        mlflow.set_tracking_uri(None)
    assert "| looping | 5 | 0.00 |" in text and "| distinct | 5 | 1.00 |" in text
    assert (tmp_path / "integrations_mlflow.md").read_text() == text
