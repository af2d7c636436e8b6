"""The sampled mutation run's population: every module of the package, each with tests that exist
and a group it is reported in."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from benchmarks._mutation_sample import GROUPS, engine_files, group_of
from benchmarks._mutation_sample import tests_for as mirrored_tests

ROOT = Path(__file__).resolve().parents[2]


def _has_functions(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) for node in ast.walk(tree))


MODULES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "loopmetric").rglob("*.py")
                 if _has_functions(p) and p.name != "__main__.py")


def test_every_module_with_a_function_is_in_the_population():
    assert sorted(set(MODULES) - set(engine_files(ROOT))) == []


@pytest.mark.parametrize("rel", MODULES)
def test_each_module_is_run_against_tests_that_exist(rel):
    assert mirrored_tests(rel, ROOT) and all((ROOT / target).exists() for target in mirrored_tests(rel, ROOT))


@pytest.mark.parametrize("rel, group", [
    pytest.param("loopmetric/_engine.py", "engine", id="a-top-level-module-is-the-engine"),
    pytest.param("loopmetric/detectors/_obvious.py", "engine", id="a-detector-is-the-engine"),
    pytest.param("loopmetric/readers/_otlp/_wire.py", "readers", id="a-nested-reader"),
    pytest.param("loopmetric/guard/langchain.py", "guard", id="a-guard-adapter"),
    pytest.param("loopmetric/html/_render.py", "frontends", id="the-html-report"),
    pytest.param("loopmetric/integrations/mlflow.py", "frontends", id="an-integration"),
    pytest.param("loopmetric/metric.py", "frontends", id="the-deepeval-metric"),
    pytest.param("loopmetric/plot.py", "frontends", id="the-plots"),
])
def test_each_module_is_reported_in_its_group(rel, group):
    assert group_of(rel) == group and group in GROUPS


@pytest.mark.parametrize("rel, tests", [
    pytest.param("loopmetric/_deep_json.py", ["tests/test_deep_json.py"], id="top-level-its-own-test-file"),
    pytest.param("loopmetric/metric.py", ["tests/metric"], id="top-level-its-own-test-folder"),
    pytest.param("loopmetric/_model.py", ["tests/test_engine.py", "tests/detectors"], id="no-mirror-the-engines"),
    pytest.param("loopmetric/readers/_otlp/_wire.py", ["tests/readers"], id="the-nearest-mirrored-folder"),
])
def test_each_module_is_run_against_its_mirrored_tests(rel, tests):
    assert mirrored_tests(rel, ROOT) == tests


@pytest.mark.parametrize("target", [
    pytest.param("loopmetric/detectors/_meaning.py", id="no-function"),
    pytest.param("loopmetric/nowhere.py::f", id="no-such-file"),
])
def test_functions_main_wants_path_and_function(target, tmp_path):
    from benchmarks._mutation_sample import functions_main

    with pytest.raises(SystemExit, match="Expected a target as path::function"):
        functions_main([target], "HEAD", tmp_path, {})


def test_changed_functions_name_functions_that_exist():
    """Each run names functions of the commit it mutated (they may be renamed since)."""
    import subprocess

    from benchmarks._mutation_sample import FUNCTION_RUNS, ROOT

    checked = 0
    for rev, run in FUNCTION_RUNS.items():
        for target in run.targets:
            rel, _, function = target.partition("::")
            shown = subprocess.run(["git", "show", f"{rev}:{rel}"], cwd=ROOT, capture_output=True, text=True)
            if shown.returncode != 0:  # a clone without that commit: nothing to compare with
                continue
            assert f"def {function}(" in shown.stdout, (rev, target)
            checked += 1
    if not checked:
        pytest.skip("no run's commit is in this clone (a shallow clone)")


def test_each_pinned_survivor_names_a_test_that_exists():
    from benchmarks._mutation_sample import FUNCTION_RUNS, ROOT

    for run in FUNCTION_RUNS.values():
        for mutant, test in run.pinned.items():
            path, _, name = test.partition("::")
            assert f"def {name}(" in (ROOT / path).read_text(), (mutant, test)


def test_each_function_run_has_its_report():
    """Each recorded run's report is committed, named after the commit it mutated (the last run's
    report is written when it ends: it may be the one run not yet reported)."""
    from benchmarks._mutation_sample import FUNCTION_RUNS, ROOT

    for rev in list(FUNCTION_RUNS)[:-1]:
        assert (ROOT / "benchmarks" / "results" / f"mutation_functions_{rev}.md").is_file(), rev
