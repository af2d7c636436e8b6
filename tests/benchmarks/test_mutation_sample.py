"""The sampled mutation run's population: every module of the package, each with tests that exist
and a group it is reported in."""

from __future__ import annotations

import ast
import json
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
            name, _, case = name.partition("[")  # a case of a table: `test_x[its-id]`
            text = (ROOT / path).read_text()
            assert f"def {name}(" in text, (mutant, test)
            # the id given to `pytest.param`, a table row whose first item is its id, or an id its
            # table makes (read from the test's parametrize marks)
            assert not case or any(f"{before}{case[:-1]}{after}" in text for before, after in (
                ('id="', '"'), ("id='", "'"), ('("', '",'))) or case[:-1] in _made_ids(path, name), (mutant, test)


def _made_ids(path: str, name: str) -> set[str]:
    import importlib

    function = getattr(importlib.import_module(path.removesuffix(".py").replace("/", ".")), name)
    return {param.id for mark in getattr(function, "pytestmark", ()) if mark.name == "parametrize"
            for param in mark.args[1] if getattr(param, "id", None)}


def test_each_function_run_has_its_report():
    """Each recorded run's report is committed, named after the commit it mutated (the last run's
    report is written when it ends: it may be the one run not yet reported)."""
    from benchmarks._mutation_sample import FUNCTION_RUNS, ROOT

    for rev in list(FUNCTION_RUNS)[:-1]:
        assert (ROOT / "benchmarks" / "results" / "mutation_functions" / f"{rev}.md").is_file(), rev


def test_the_index_of_function_runs_is_the_one_the_command_writes():
    """results/mutation_functions/README.md lists every report in the folder, as `--functions` rewrites it."""
    from benchmarks._mutation_sample import FUNCTIONS, functions_index

    folder = ROOT / "benchmarks" / "results" / FUNCTIONS
    assert (folder / "README.md").read_text() == functions_index(folder)


_REPORT = ("# Mutation testing: every mutant of the functions a change touched\n\n"
           "Command: `python -m benchmarks.mutation --functions loopmetric/detectors/_a.py::f "
           "loopmetric/detectors/_a.py::g loopmetric/_b.py::h --rev 1234abc`; each mutant on its module's tests.\n\n"
           "{summary}\n")


@pytest.mark.parametrize("summary, row", [
    pytest.param("12 mutants: 9 killed (timeouts counted as killed), 2 equivalent, 1 survived and were pinned since, "
                 "0 survived. On the tests of 1234abc: 9/10 = 0.900, 95% interval [0.6, 0.98]; with the pins: "
                 "10/10 = 1.000, 95% interval [0.7, 1.0].",
                 "| [1234abc](1234abc.md) | `_b.py`, `detectors/_a.py` | 12 | 9 | 2 | 9/10 = 0.900 | 10/10 = 1.000 |",
                 id="a-report-is-one-row"),
    pytest.param("no summary line", None, id="a-report-without-its-summary-is-an-error"),
])
def test_the_index_reads_each_report_s_command_and_summary(tmp_path, summary, row):
    from benchmarks._mutation_sample import functions_index

    (tmp_path / "1234abc.md").write_text(_REPORT.format(summary=summary))
    (tmp_path / "README.md").write_text("an older index, not a report")
    if row is None:
        with pytest.raises(ValueError, match="Expected a `--functions` report"):
            functions_index(tmp_path)
    else:
        assert [line for line in functions_index(tmp_path).splitlines() if line.startswith("| [")] == [row]


def test_a_survivor_run_again_counts_by_its_last_row(tmp_path):
    from benchmarks._mutation_sample import verified_rows

    rows = [{"id": "m:1", "status": "survived", "by": [], "on": "aaa"}, {"id": "m:2", "status": "killed", "by": ["t"], "on": "aaa"},
            {"id": "m:1", "status": "killed", "by": ["t::u"], "on": "bbb"}]
    (tmp_path / "abc.verified.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert {i: (r["status"], r["on"]) for i, r in verified_rows(tmp_path, "abc").items()} == {
        "m:1": ("killed", "bbb"), "m:2": ("killed", "aaa")}
    assert verified_rows(tmp_path, "another") == {}


@pytest.mark.parametrize("ids, message", [
    pytest.param(["loopmetric.readers._chat:99999"], "Expected mutant ids of the run at HEAD", id="a-number-past-the-module"),
    pytest.param(["loopmetric.nowhere:1"], "Expected mutant ids of the run at HEAD", id="a-module-that-is-not-there"),
])
def test_running_survivors_again_refuses_ids_the_run_never_had(ids, message, tmp_path):
    from benchmarks._mutation_sample import functions_verify

    with pytest.raises(SystemExit, match=message):
        functions_verify("HEAD", ids, "HEAD", tmp_path, {}, {})
    assert not (tmp_path / "mutation_functions").exists()


def _mutant(n, function="f", before="x += 1", after="x = 1"):
    from benchmarks._mutation_sample import Mutant

    return Mutant(f"m:{n}", "m", "m.py", function, n, before, after, "")


@pytest.mark.parametrize("later, found", [
    pytest.param([_mutant(7, after="x -= 1"), _mutant(9)], "m:9", id="the-same-change-numbered-anew-is-found"),
    pytest.param([_mutant(9, function="g")], None, id="twin-the-same-change-in-another-function-is-not"),
    pytest.param([_mutant(9, after="x -= 1")], None, id="twin-another-change-of-the-line-is-not"),
    pytest.param([_mutant(8), _mutant(9)], None, id="the-same-change-twice-is-no-one-mutant"),
])
def test_a_survivor_of_a_module_changed_since_is_found_by_its_change(later, found):
    """A survivor run again on a later tree whose module changed: the mutant there that makes the same change
    in the function of the same name, when exactly one does."""
    from benchmarks._mutation_sample import same_change

    again = same_change(_mutant(3), later)
    assert (again.id if again else None) == found


@pytest.mark.parametrize("line, kept", [
    pytest.param(4, False, id="a-line-before-the-range-is-left-out"),
    pytest.param(5, True, id="the-first-line-is-kept"),
    pytest.param(7, True, id="the-last-line-is-kept"),
    pytest.param(8, False, id="a-line-after-the-range-is-left-out"),
])
def test_a_function_run_on_a_few_lines_keeps_the_mutants_of_those_lines(line, kept):
    """A run of the lines 5-7 of `f` (a change of a few lines of a long function): its mutants of other
    lines are left out; those of another function, of any line, stay."""
    from benchmarks._mutation_sample import of_lines

    mine, other = _mutant(line), _mutant(1, function="g")
    assert of_lines([mine, other], {"m.py::f": (5, 7)}) == ([mine] if kept else []) + [other]
