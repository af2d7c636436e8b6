"""Every notebook runs top to bottom, offline, without an error."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # deepeval writes its run files into the working directory
    notebook = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    elapsed = time.perf_counter() - start
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []
    assert elapsed < 60, f"{path.name} took {elapsed:.0f} s"


def test_there_are_four_notebooks():
    assert [p.stem for p in NOTEBOOKS] == ["01_quickstart", "02_real_runs", "03_tuning", "04_guard"]
