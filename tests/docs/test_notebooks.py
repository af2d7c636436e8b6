"""Every notebook runs top to bottom, offline, without an error; committed outputs are clean."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


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


# What committed outputs must not hold: terminal colour codes, this machine's
# paths, warnings about the environment (a missing package, a deprecation).
LEAKS = {
    "ANSI escape code": re.compile(r"\x1b\["),
    "machine path": re.compile(r"(/root/|/home/|/Users/|/tmp/|/work/|site-packages|[A-Z]:\\\\)"),
    "warning": re.compile(r"(?i)\bwarning\b|\binstall \""),
}


def _output_texts(path: Path) -> list[str]:
    notebook = nbformat.read(path, as_version=4)
    texts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            texts.append(output.get("text", "") if isinstance(output.get("text", ""), str) else "".join(output["text"]))
            for kind, value in output.get("data", {}).items():
                if kind.startswith("text/"):
                    texts.append(value if isinstance(value, str) else "".join(value))
            texts.extend(output.get("traceback", []))
    return texts


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_outputs_are_clean(path):
    texts = _output_texts(path)
    assert texts, f"{path.name} is committed without outputs"
    found = {leak: t[:120] for t in texts for leak, pattern in LEAKS.items() if pattern.search(t)}
    assert found == {}
    streams = [o.get("name") for c in nbformat.read(path, as_version=4).cells for o in c.get("outputs", [])
               if o.get("output_type") == "stream"]
    assert "stderr" not in streams
