"""The audits of hand-written mutants (`benchmarks/_hand_mutants.py`, one round each) stay runnable: every
mutant still finds the code it mutates exactly once and names test files that exist, no mutant is in two
rounds, and each round's table lists each of its mutants once with a killing test that exists."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest

from benchmarks._hand_mutants import MUTANTS, ROUNDS, folder_tests
from benchmarks.mutation import apply

ROOT = Path(__file__).resolve().parents[2]
AUDITS = ROOT / "benchmarks" / "results" / "mutation_functions"


@pytest.mark.parametrize("audited", MUTANTS, ids=[a.mutant.id for a in MUTANTS])
def test_each_hand_mutant_applies_to_the_code_as_it_is(audited, tmp_path):
    mutant = audited.mutant
    (tmp_path / mutant.path).parent.mkdir(parents=True)
    shutil.copy2(ROOT / mutant.path, tmp_path / mutant.path)
    apply(mutant, tmp_path)  # raises SystemExit("... the code it mutates moved ...") otherwise
    assert (tmp_path / mutant.path).read_text() != (ROOT / mutant.path).read_text()
    assert all((ROOT / test).is_file() for test in audited.tests)
    folder = folder_tests(audited)
    assert (ROOT / folder[0]).is_dir() if isinstance(audited.folder, str) else all((ROOT / t).is_file() for t in folder)


def test_no_mutant_is_written_twice():
    ids = [a.mutant.id for a in MUTANTS]
    changes = [(a.mutant.path, a.mutant.old) for a in MUTANTS]
    assert len(set(ids)) == len(ids) and len(set(changes)) == len(changes)


@pytest.mark.parametrize("round_", list(ROUNDS))
def test_the_audit_lists_each_mutant_once_with_a_killing_test_that_exists(round_):
    rows = [line for line in (AUDITS / f"hand_{round_}.md").read_text().splitlines() if re.match(r"\| \d+ \| `", line)]
    ids = [re.match(r"\| \d+ \| `([^`]+)`", row).group(1) for row in rows]
    assert ids == [a.mutant.id for a in ROUNDS[round_]]
    tests = "".join(path.read_text() for path in (ROOT / "tests").rglob("*.py"))
    for row in rows:
        killer = re.findall(r"`(tests/[^`]+::[^`]+)`", row)
        assert len(killer) == 1, row
        path, _, name = killer[0].partition("::")
        name, _, case = name.partition("[")
        text = (ROOT / path).read_text()
        assert name in {node.name for node in ast.walk(ast.parse(text)) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}, row
        if case:  # a case of a table: its id is written in the tests (stacked tables join their ids with "-";
            # a table of shared scenarios takes its ids from a helper's keys)
            words = case[:-1].split("-")
            assert any(f'"{"-".join(words[:n])}"' in tests for n in range(len(words), 0, -1)), row
