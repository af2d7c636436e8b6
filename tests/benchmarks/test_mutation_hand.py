"""`python -m benchmarks.mutation --hand` works on the current layout: every hand mutant
still finds the code it mutates exactly once, names a test that exists, and one of them, put back
in a copy of the tree, is killed by its test while the unmutated copy passes."""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
from pathlib import Path

import pytest

from benchmarks.mutation import HAND, apply, run_hand

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("mutant", HAND, ids=[m.id for m in HAND])
def test_each_hand_mutant_applies_to_the_code_as_it_is(mutant, tmp_path):
    (tmp_path / mutant.path).parent.mkdir(parents=True)
    shutil.copy2(ROOT / mutant.path, tmp_path / mutant.path)
    apply(mutant, tmp_path)  # raises SystemExit("... the code it mutates moved ...") otherwise
    assert (tmp_path / mutant.path).read_text() != (ROOT / mutant.path).read_text()


@pytest.mark.parametrize("mutant", HAND, ids=[m.id for m in HAND])
def test_each_hand_mutant_names_a_test_that_exists(mutant):
    path, _, name = mutant.test.partition("::")
    tree = ast.parse((ROOT / path).read_text())
    assert name in {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def test_a_hand_mutant_is_killed_in_a_copy_of_the_tree():
    mutant = next(m for m in HAND if m.id == "fail-under-inclusive")
    assert run_hand((mutant,), [mutant.test], timeout=300) == [(mutant, True)]


def test_the_readme_mutation_commands_name_modules_that_exist():
    readme = (ROOT / "docs" / "benchmarks.md").read_text()
    section = readme[readme.index("\n## Mutation testing\n"):]
    commands = re.findall(r"^python -m benchmarks\.mutation.*$", section.split("\n## ", 2)[1], re.M)
    modules = [word for command in commands for word in command.split("#")[0].split()[4:]
               if word.startswith("loopmetric")]
    assert len(commands) >= 3 and modules
    assert [m for m in modules if importlib.util.find_spec(m) is None] == []
