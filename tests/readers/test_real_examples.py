"""The real runs in `examples/real/`: each is detected in its own format, read whole,
and scored as its label in `benchmarks/labels/` says (a loop fails, a healthy run passes)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from loopmetric import detect_loops, load_traces
from loopmetric.readers import detect_format

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "examples" / "real"


def _label(run: str) -> str:
    source = run.split("/")[0]
    with open(ROOT / "benchmarks" / "labels" / f"{source}.csv", newline="") as handle:
        return next(row["label"] for row in csv.DictReader(handle) if row["run"] == run)


@pytest.mark.parametrize(("name", "fmt", "run"), [
    pytest.param("intercode_ctf_43.json", "intercode", "ctf/43", id="intercode"),
    pytest.param("tau2_telecom_20.json", "tau2-bench", "tau2/ft-default/20", id="tau2-bench"),
    pytest.param("magentic_one_26.json", "magentic-one", "m1/26", id="magentic-one"),
    pytest.param("mint_alfworld_0.jsonl", "mint", "mint/0", id="mint"),
])
def test_real_example_reads_in_its_format_and_scores_as_labelled(name, fmt, run):
    path = REAL / name
    text = path.read_text()
    data = json.loads(text.splitlines()[0]) if name.endswith(".jsonl") else json.loads(text)
    assert detect_format(data) == fmt
    (loaded,) = load_traces(str(path))
    assert loaded.error is None and loaded.trace is not None and loaded.trace.steps
    report = detect_loops(loaded.trace)
    assert report.success is (_label(run) == "no_loop"), report.reason


def test_every_real_example_is_listed_with_its_licence():
    readme = (REAL / "README.md").read_text()
    for path in REAL.iterdir():
        if path.suffix in (".json", ".jsonl"):
            assert f"`{path.name}`" in readme
        if path.name.startswith("LICENSE."):
            assert f"`{path.name}`" in readme
