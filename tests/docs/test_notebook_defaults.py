"""Notebooks against the current defaults: every "`setting` (default X)" a notebook
states is the default of `LoopSettings`, and every settings table the tuning notebook shows
differs from its table at the defaults (a table that changes nothing teaches nothing)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from loopmetric import LoopSettings

nbformat = pytest.importorskip("nbformat")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
STATED = re.compile(r"`(\w+)` \(default ([^\s)]+)")
DEFAULTS = {field.name: field.default for field in dataclasses.fields(LoopSettings)}


def _stated(path: Path) -> list[tuple[str, str]]:
    notebook = nbformat.read(path, as_version=4)
    return [found for cell in notebook.cells if cell.cell_type == "markdown" for found in STATED.findall(cell.source)]


STATEMENTS = [(path.stem, name, value) for path in NOTEBOOKS for name, value in _stated(path)]


def test_the_tuning_notebook_states_defaults():
    assert {name for stem, name, _ in STATEMENTS if stem == "03_tuning"} >= {
        "repeated_result_threshold", "alternating_calls_threshold", "window", "similarity_threshold"}


@pytest.mark.parametrize(("stem", "name", "value"), STATEMENTS, ids=[f"{s}:{n}" for s, n, _ in STATEMENTS])
def test_a_stated_default_is_the_default(stem, name, value):
    assert name in DEFAULTS, f"{stem} names {name}, which LoopSettings does not have"
    assert value == str(DEFAULTS[name]), f"{stem} says {name} defaults to {value}; it is {DEFAULTS[name]}"


def _tables(path: Path) -> dict[str, list[str]]:
    """The committed tables of the tuning notebook: a title line ("defaults", "window=10"), its rows."""
    notebook = nbformat.read(path, as_version=4)
    tables: dict[str, list[str]] = {}
    title = None
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            for line in output.get("text", "").splitlines():
                if line and not line.startswith(" ") and ("=" in line or line == "defaults"):
                    title = line
                    tables[title] = []
                elif line.startswith("  ") and title is not None:
                    tables[title].append(line)
    return tables


def test_every_settings_table_changes_something():
    tables = _tables(next(path for path in NOTEBOOKS if path.stem == "03_tuning"))
    defaults = tables.pop("defaults")
    assert defaults and tables
    same = [title for title, rows in tables.items() if rows == defaults]
    assert same == [], f"these settings change no row of the defaults' table: {same}"


def test_the_tables_are_what_the_settings_give():
    """The committed rows are the engine's at the settings each title names (defaults included)."""
    import sys

    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    path = next(path for path in NOTEBOOKS if path.stem == "03_tuning")
    notebook = nbformat.read(path, as_version=4)
    scope: dict = {"ROOT": root}
    exec(notebook.cells[2].source, scope)  # the traces
    from loopmetric import detect_loops

    for title, rows in _tables(path).items():
        options = {} if title == "defaults" else {title.split("=")[0]: float(title.split("=")[1])
                                                   if "." in title else int(title.split("=")[1])}
        for (name, trace), row in zip(scope["traces"].items(), rows):
            report = detect_loops(trace, **options)
            assert f" {report.score:.2f} {'pass' if report.success else 'FAIL'} " in row, (title, name, row)
