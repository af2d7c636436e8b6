"""A seeded, stratified sample of mutants over every module of the package, each run against
its module's unit tests: the mutation score on one core in about an hour, by
module group (engine, readers, guard, frontends).

    python -m benchmarks.mutation --sample 400 --seed 0            # writes results/mutation.md
    python -m benchmarks.mutation --sample 400 --seed 0 --list     # the sample, not run
    python -m benchmarks.mutation --sample 400 --seed 0 --only ID  # these mutants of the sample, again

The mutants are mutmut's (its libcst operators, `mutmut.mutation.file_mutation.create_mutations`,
so the same kinds of one-token bugs, in functions and methods only), but each is written out
as plain source, not as mutmut's trampolines: mutmut 3 maps tests to functions by running the
whole selection under its own tracing and then runs, for every mutant, every test that reached
the function: minutes of suite per mutant here. This driver instead runs a module's mutants
against that module's mirrored tests only (`tests_for`), so a mutant costs a few seconds.

How one mutant runs: the parent process imports the third-party packages the tests need once
(deepeval alone takes seconds); for each mutant it forks, the child forgets every loopmetric
and test module, puts a finder first on `sys.meta_path` that serves the mutated source for the
one module it mutates, and runs pytest (`-x`) in process. A child that outlives its timeout is
killed (counted as killed: "timeout", as mutmut does). The tests and sources run from a
snapshot of the tree (`git archive` of a commit, HEAD by default), so editing the worktree
while a run goes on changes nothing in it.

Sampling: every module's mutants are listed (in mutmut's order: a mutant's id is
`module:N`, stable while the module's text is unchanged), then `--sample` mutants are drawn
without replacement, each module getting a share proportional to its number of mutants
(largest remainders, at least one each), with `random.Random(seed)`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple, Optional

ROOT = Path(__file__).resolve().parents[1]

# Files with nothing to mutate (no function, or only the entry point).
_NOTHING = {"loopmetric/_version.py", "loopmetric/__main__.py", "loopmetric/cli/__main__.py"}
# Modules of the engine without a mirrored test file of their own (the data model, the findings'
# helpers, the fingerprint, the errors, the package's lazy imports): the engine's and the detectors'
# tests are the ones that use them.
_ENGINE_TESTS = ["tests/test_engine.py", "tests/detectors"]

# The four groups the score is reported by (a module's group is its package's).
GROUPS = ("engine", "readers", "guard", "frontends")
_FRONTENDS = ("cli", "html", "integrations", "otel", "spark", "metric.py", "plot.py")


def group_of(rel: str) -> str:
    """'readers', 'guard', 'frontends' (command line, HTML report, integrations, OTel, Spark, the
    deepeval metric, the plots) or 'engine' (the rest: the top-level modules and the detectors)."""
    first = rel.split("/")[1]
    if first in ("readers", "guard"):
        return first
    return "frontends" if first in _FRONTENDS else "engine"


@dataclass(frozen=True)
class Mutant:
    id: str  # module:N
    module: str  # dotted name
    path: str  # relative to the root
    function: str
    line: int
    before: str  # the changed line(s), original
    after: str  # ... mutated
    source: str  # the whole mutated module


def engine_files(root: Path = ROOT) -> list[str]:
    """Every module of the package (the frontends too), but those with nothing to mutate."""
    return [rel for rel in (path.relative_to(root).as_posix() for path in sorted((root / "loopmetric").rglob("*.py")))
            if rel not in _NOTHING]


def module_name(rel: str) -> str:
    dotted = rel[:-3].replace("/", ".")
    return dotted[: -len(".__init__")] if dotted.endswith(".__init__") else dotted


def tests_for(rel: str, root: Path = ROOT) -> list[str]:
    """The module's mirrored unit tests: `tests/<package path>/test_<name>.py` when it
    exists (a top-level module), else the whole mirrored folder of its package (the
    nearest one that exists: `readers/_otlp/_wire.py` -> `tests/readers/`)."""
    if rel.startswith("loopmetric/spark/"):  # the workers' code on Arrow batches, without a session
        return ["tests/spark/test_spark_batches.py"]
    if rel == "loopmetric/cli/_guard_replay.py":  # `loopmetric guard replay`: its tests live with the guard's
        return ["tests/cli", "tests/guard/test_guard_replay.py"]
    parts = rel.split("/")[1:]
    if len(parts) == 1:
        stem = parts[0][:-3].lstrip("_")
        if (root / "tests" / stem).is_dir():  # `metric.py` -> `tests/metric/`
            return [f"tests/{stem}"]
        mirrored = root / "tests" / f"test_{stem}.py"
        return [mirrored.relative_to(root).as_posix()] if mirrored.exists() else list(_ENGINE_TESTS)
    folder = parts[:-1]
    while folder and not (root / "tests" / Path(*folder)).is_dir():
        folder = folder[:-1]
    return [f"tests/{'/'.join(folder)}"]


def _changed_lines(original: str, mutated: str) -> tuple[int, str, str]:
    a, b = original.splitlines(), mutated.splitlines()
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a, end_b = end_a - 1, end_b - 1
    return start + 1, "\n".join(a[start:end_a]).strip(), "\n".join(b[start:end_b]).strip()


# Functions that only run with a Spark session (the JVM takes a minute to start here): their
# mutants are left to the full run and to tests/spark/test_spark.py; the unit tier does not cover them.
SESSION_ONLY = {
    "loopmetric/spark/_job.py": {"run_job", "_session", "_is_connect", "read_trace_files", "_score", "_summary"},
    "loopmetric/spark/_score.py": {"score_traces", "_check_input"},
    "loopmetric/cli/_spark.py": {"run"},
}


class _Population:
    """The mutations of one file (functions and methods only, in mutmut's order), rendered
    as source only when drawn."""

    def __init__(self, rel: str, root: Path) -> None:
        import libcst as cst
        from mutmut.mutation.file_mutation import create_mutations

        self.rel = rel
        self.module, mutations, _, _ = create_mutations(rel, (root / rel).read_text())
        skip = SESSION_ONLY.get(rel, set())
        self.mutations = [m for m in mutations if isinstance(m.contained_by_top_level_function, cst.FunctionDef)
                          and m.contained_by_top_level_function.name.value not in skip]

    def __len__(self) -> int:
        return len(self.mutations)

    def mutant(self, n: int) -> Optional[Mutant]:
        """Mutant n as plain source; None when it changes nothing or does not compile."""
        mutation = self.mutations[n]
        original = self.module.code
        mutated = self.module.deep_replace(mutation.original_node, mutation.mutated_node).code
        if mutated == original:
            return None
        try:
            compile(mutated, self.rel, "exec", dont_inherit=True)
        except SyntaxError:
            return None
        line, before, after = _changed_lines(original, mutated)
        name = module_name(self.rel)
        return Mutant(f"{name}:{n}", name, self.rel, mutation.contained_by_top_level_function.name.value,
                      line, before, after, mutated)


def mutants_of(rel: str, root: Path = ROOT) -> list[Mutant]:
    """Every mutant mutmut would make of one file, as plain source (slow: for a full run)."""
    population = _Population(rel, root)
    return [m for m in map(population.mutant, range(len(population))) if m is not None]


def allocate(sizes: dict[str, int], total: int) -> dict[str, int]:
    """`total` spread over the strata in proportion to their sizes (largest remainders,
    at least one per non-empty stratum, never more than a stratum holds)."""
    population = sum(sizes.values())
    total = min(total, population)
    quotas = {k: total * n / population for k, n in sizes.items()}
    share = {k: min(n, max(1, math.floor(quotas[k]))) if n else 0 for k, n in sizes.items()}
    order = sorted(sizes, key=lambda k: (-(quotas[k] - math.floor(quotas[k])), k))
    i = 0
    while sum(share.values()) < total and i < 10 * len(order):
        k = order[i % len(order)]
        if share[k] < sizes[k]:
            share[k] += 1
        i += 1
    return share


def sample(n: int, seed: int, root: Path = ROOT) -> tuple[dict[str, int], list[Mutant]]:
    """The number of mutants of every engine file, and the stratified sample (stable order;
    a drawn mutant that changes nothing or does not compile is dropped, not replaced)."""
    populations = {rel: _Population(rel, root) for rel in engine_files(root)}
    sizes = {rel: len(p) for rel, p in populations.items()}
    share = allocate(sizes, n)
    rng = random.Random(seed)
    chosen = []
    for rel in sorted(populations):
        picked = rng.sample(range(sizes[rel]), share[rel])
        chosen += [m for m in map(populations[rel].mutant, sorted(picked)) if m is not None]
    return sizes, chosen


# ---------------------------------------------------------------------------- running


class _MutantLoader(importlib.abc.Loader):
    def __init__(self, name: str, path: str, source: str) -> None:
        self.name, self.path, self.source = name, path, source

    def create_module(self, spec):  # default module creation
        return None

    def exec_module(self, module) -> None:
        module.__file__ = self.path
        exec(compile(self.source, self.path, "exec", dont_inherit=True), module.__dict__)


class _MutantFinder(importlib.abc.MetaPathFinder):
    def __init__(self, name: str, path: str, source: str) -> None:
        self.name, self.path, self.source = name, path, source

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        package = self.path.endswith("__init__.py")
        return importlib.util.spec_from_file_location(
            fullname, self.path, loader=_MutantLoader(fullname, self.path, self.source),
            submodule_search_locations=[str(Path(self.path).parent)] if package else None)


def _forget_project(tree: Path) -> None:
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if name == "loopmetric" or name.startswith("loopmetric.") or name == "conftest" or name.startswith("tests") \
                or file.startswith(str(tree)) or file.startswith(str(ROOT)):
            del sys.modules[name]


def run_in_child(tree: Path, tests: list[str], mutant: Optional[Mutant], timeout: float,
                 log: Optional[Path] = None) -> tuple[str, float, float]:
    """('killed' | 'survived' | 'timeout' | 'no tests', wall seconds, CPU seconds): the tests run
    in a forked child."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child
        code = 3
        try:
            out = os.open(str(log) if log else os.devnull, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(out, 1)
            os.dup2(out, 2)
            os.chdir(tree)
            # A test that starts Python (`python -m loopmetric.cli ...`) imports the snapshot's package.
            os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), os.environ.get("PYTHONPATH")]))
            sys.dont_write_bytecode = True
            _forget_project(tree)
            importlib.invalidate_caches()
            if mutant is not None:
                sys.meta_path.insert(0, _MutantFinder(mutant.module, str(tree / mutant.path), mutant.source))
            import pytest

            code = int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *tests]))
        except BaseException:  # noqa: BLE001 - anything the mutant breaks is a failure
            import traceback

            traceback.print_exc()
            code = 3
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    deadline = start + timeout
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            _, _, usage = os.wait4(pid, 0)
            return "timeout", time.monotonic() - start, usage.ru_utime + usage.ru_stime
        time.sleep(0.02)
    seconds, cpu = time.monotonic() - start, usage.ru_utime + usage.ru_stime
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return "survived", seconds, cpu
    if code == 5:
        return "no tests", seconds, cpu
    return "killed", seconds, cpu


def snapshot(rev: str) -> Path:
    """The tree at `rev` (a commit) in a temporary folder, with the working copy's
    untracked test data that git does not hold left out."""
    tree = Path(tempfile.mkdtemp(prefix="loopmetric-sample-"))
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def _warm(tree: Path, targets: list[list[str]]) -> None:
    """Import in this (parent) process the third-party modules the tests import, so that
    each forked child starts with them: collect each test target once in a child that
    writes down what it imported."""
    names: set[str] = set()
    for tests in targets:
        with tempfile.NamedTemporaryFile("r", suffix=".json") as listing:
            pid = os.fork()
            if pid == 0:
                try:
                    devnull = os.open(os.devnull, os.O_WRONLY)
                    os.dup2(devnull, 1)
                    os.dup2(devnull, 2)
                    os.chdir(tree)
                    sys.path.insert(0, str(tree))
                    import pytest

                    pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *tests])
                    top = {n.split(".")[0] for n, m in sys.modules.items()
                           if not (getattr(m, "__file__", None) or "").startswith((str(tree), str(ROOT)))}
                    Path(listing.name).write_text(json.dumps(sorted(top)))
                finally:
                    os._exit(0)
            os.waitpid(pid, 0)
            try:
                names |= set(json.loads(Path(listing.name).read_text() or "[]"))
            except (OSError, ValueError):
                pass
    for name in sorted(names):
        # Private modules are left to the child: importing `_asyncio` before `asyncio` breaks
        # pydantic-ai's `run_sync` in the forked child ("not running on any event loop").
        if name in ("loopmetric", "tests", "conftest", "benchmarks") or name.startswith("_"):
            continue
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - a module that cannot be imported twice: the child imports it
            pass


def own_tests_first(tests: list[str], mutant: Mutant, tree: Path) -> list[str]:
    """The same tests, the files named after the mutant's module (or its package) first: a mutant
    is usually killed by its own file, and `-x` then stops at once. A folder is spelt out as its
    test files (pytest keeps the order of files given, not of a file given before its folder)."""
    parts = [Path(p).stem.lstrip("_") for p in mutant.path.split("/")[1:]]
    names = [n for n in reversed(parts) if n and n != "init"]
    files: list[str] = []
    for target in tests:
        path = tree / target
        found = sorted(p.relative_to(tree).as_posix() for p in path.rglob("test_*.py")) if path.is_dir() else [target]
        files += [f for f in found if f not in files]
    first = [f for name in names for f in files if name in Path(f).stem]
    return list(dict.fromkeys([*first, *files]))


def run(mutants: list[Mutant], tree: Path, timeout_factor: float = 3.0, min_timeout: float = 20.0,
        progress: Optional[Path] = None, deselect: tuple[str, ...] = (), logs: Optional[Path] = None,
        tests: Optional[dict[str, tuple[str, ...]]] = None) -> tuple[dict[str, tuple], dict[str, float]]:
    """Each mutant against its module's tests (`tests`: a module's own choice of test files instead
    of its mirrored ones); the baseline of every test target first (it must pass: a target that
    fails unmutated would kill everything)."""
    chosen_tests = tests or {}

    def tests_of(rel: str) -> list[str]:
        return list(chosen_tests[rel]) if rel in chosen_tests else tests_for(rel, tree)

    sys.path.insert(0, str(tree))
    targets = sorted({tuple(tests_of(m.path)) for m in mutants})
    extra = [f"--deselect={d}" for d in deselect]
    _warm(tree, [[*t, *extra] for t in targets])
    baseline: dict[str, float] = {}
    for target in targets:
        status, seconds, cpu = run_in_child(tree, [*target, *extra], None, 600, tree / "baseline.log")
        if status != "survived":
            raise SystemExit(f"the tests {' '.join(target)} fail without any mutant ({status}):\n"
                             + (tree / "baseline.log").read_text()[-3000:])
        baseline[" ".join(target)] = seconds
        print(f"baseline {' '.join(target)}: {seconds:.1f}s ({cpu:.1f}s CPU)", flush=True)
    results: dict[str, tuple] = {}
    for i, mutant in enumerate(mutants, 1):
        target = tests_of(mutant.path)
        timeout = max(min_timeout, timeout_factor * baseline[" ".join(target)])
        status, seconds, cpu = run_in_child(tree, [*own_tests_first(target, mutant, tree), *extra], mutant, timeout,
                                            logs / f"{mutant.id}.log" if logs is not None else None)
        results[mutant.id] = (status, seconds, cpu)
        print(f"{i}/{len(mutants)} {mutant.id} {status} {seconds:.1f}s ({cpu:.1f}s CPU) load {_load()}", flush=True)
        if progress is not None:
            with open(progress, "a") as out:
                out.write(json.dumps({"id": mutant.id, "status": status, "seconds": round(seconds, 2),
                                      "cpu": round(cpu, 2)}) + "\n")
    return results, baseline


# ---------------------------------------------------------------------------- the report


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of k successes in n trials (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def report(everything: dict[str, int], chosen: list[Mutant], results: dict[str, tuple],
           equivalent: dict[str, str], killed_since: dict[str, str], command: str, meta: dict) -> str:
    from ._common import markdown_table

    by_id = {m.id: m for m in chosen}
    rows = []
    totals = Counter()
    groups: dict[str, Counter] = {g: Counter() for g in GROUPS}
    for rel in sorted(everything):
        picked = [m for m in chosen if m.path == rel]
        c = Counter()
        for m in picked:
            status = results.get(m.id, ("not checked", 0.0))[0]
            if status == "survived" and m.id in killed_since:
                status = "killed"
            if status == "survived" and m.id in equivalent:
                status = "equivalent"
            c[status] += 1
        killed = c["killed"] + c["timeout"]
        checked = len(picked) - c["not checked"]
        scored = killed + c["survived"]
        totals.update(c)
        totals["mutants"] += everything[rel]
        totals["sampled"] += len(picked)
        group = groups[group_of(rel)]
        group.update(c)
        group.update(mutants=everything[rel], sampled=len(picked), modules=1)
        score = f"{killed}/{scored} = {killed / scored:.3f}" if scored else "-"
        rows.append([f"`{module_name(rel)}`", f"`{' '.join(tests_for(rel))}`", str(everything[rel]),
                     str(len(picked)), str(checked), f"{killed}" + (f" ({c['timeout']} timeout)" if c["timeout"] else ""),
                     str(c["survived"]), str(c["equivalent"]), score])
    killed = totals["killed"] + totals["timeout"]
    scored = killed + totals["survived"]
    low, high = wilson(killed, scored)
    checked = totals["sampled"] - totals["not checked"]
    rows.append(["**all**", "", str(totals["mutants"]), str(totals["sampled"]), str(checked),
                 str(killed), str(totals["survived"]), str(totals["equivalent"]),
                 f"**{killed}/{scored} = {killed / scored:.3f}**" if scored else "-"])
    group_rows = []
    for name, g in groups.items():
        g_killed, g_checked = g["killed"] + g["timeout"], g["sampled"] - g["not checked"]
        g_scored = g_killed + g["survived"]
        interval = "[{:.3f}, {:.3f}]".format(*wilson(g_killed, g_scored)) if g_scored else "-"
        group_rows.append([name, str(g["modules"]), str(g["mutants"]), str(g["sampled"]), str(g_checked),
                           str(g_killed), str(g["survived"]), str(g["equivalent"]),
                           f"{g_killed}/{g_scored} = {g_killed / g_scored:.3f}" if g_scored else "-", interval])
    group_rows.append(["**all**", str(sum(g["modules"] for g in groups.values())), str(totals["mutants"]),
                       str(totals["sampled"]), str(checked), str(killed), str(totals["survived"]),
                       str(totals["equivalent"]), f"**{killed}/{scored} = {killed / scored:.3f}**" if scored else "-",
                       f"[{low:.3f}, {high:.3f}]"])
    since_ids = [m.id for m in chosen if results.get(m.id, ("",))[0] == "survived" and m.id in killed_since]
    survivors = sorted((m for m in chosen if results.get(m.id, ("",))[0] == "survived"
                        and m.id not in equivalent and m.id not in killed_since), key=lambda m: m.id)
    partial = checked < totals["sampled"]
    lines = [
        "# Mutation testing" + (" (partial)" if partial else ""), "",
        *([f"**Partial run: {checked} of the {totals['sampled']} sampled mutants were checked before the run was "
           "stopped** (they are run in a seeded random order, so the checked ones are a random part of the "
           "stratified sample; the figures below are of those only).", ""] if partial else []),
        f"Command: `{command}` (seed {meta['seed']}; mutants made by mutmut {meta['mutmut']}'s operators, "
        "run by `benchmarks/_mutation_sample.py`, `nice -n 15`, one mutant at a time per process; each mutant against its module's "
        "mirrored unit tests, `pytest -x`, timeout "
        f"max({meta['min_timeout']:.0f} s, {meta['timeout_factor']:g} x the tests' unmutated time)). "
        f"Tree: `{meta['rev']}`.", "",
        f"Score = killed / (killed + surviving non-equivalent), a timeout counting as killed. "
        f"**Score {killed}/{scored} = {killed / scored:.3f}, 95% Wilson interval [{low:.3f}, {high:.3f}]** "
        f"on a stratified sample of {totals['sampled']} of the package's {totals['mutants']} mutants "
        "(each module's share proportional to its number of mutants, at least one).", "",
        f"Of these, {len(since_ids)} survived the tests of the run's tree and are killed by tests written while it ran "
        "(each run again with `--only` on the later tree or checked by hand, listed below). On the run's tree alone: "
        f"{killed - len(since_ids)}/{scored} = {(killed - len(since_ids)) / scored:.3f}, interval "
        "[{:.3f}, {:.3f}].".format(*wilson(killed - len(since_ids), scored)), "",
        f"Run: {meta['started']} to {meta['ended']}; {meta['minutes']:.1f} min of CPU in the mutants' test runs "
        f"(their sum; one core at a time per process, {meta['processes']} run(s) of the command with --resume/--part); "
        "load average "
        f"(1, 5, 15 min) at the start {meta['load_start']}, at the end {meta['load_end']} "
        "(2 cores shared with other jobs).", "",
        "By module group (engine: the top-level modules and the detectors; readers; guard; frontends: the "
        "command line, the HTML report, the integrations, OTel, Spark, the deepeval metric and the plots), "
        "95% Wilson intervals:", "",
        markdown_table(["group", "modules", "mutants", "sampled", "checked", "killed", "survived", "equivalent",
                        "score", "95% interval"], group_rows), "",
        "By module:", "",
        markdown_table(["module", "tests", "mutants", "sampled", "checked", "killed", "survived", "equivalent",
                        "score"], rows), "",
        "Commands of the run, in order (each process writes `results/mutation_sample.jsonl`, one row per mutant):", "",
        *[f"- `{c}`" for c in meta.get("commands", [])], "",
        "Survivors run again on the tree with the tests written meanwhile: "
        f"`python -m benchmarks.mutation --sample {meta.get('n', 400)} --seed {meta['seed']} --only ID ...` "
        "(rows in `results/mutation_verified.jsonl`).", "",
        "Baseline (the tests without a mutant, seconds): "
        + ", ".join(f"`{t}` {s:.1f}" for t, s in sorted(meta["baseline"].items())) + ".", "",
    ]
    since = sorted(i for i in killed_since if i in by_id)
    lines += ["## Killed by tests written during the run", "",
              "Survivors of the run killed by tests written while it ran, counted as killed above; each checked "
              "with `python -m benchmarks.mutation --sample N --seed S --only ID` on the new tree, or by hand where "
              "it says so.", ""]
    lines += [f"- `{i}` ({by_id[i].function}, line {by_id[i].line}: `{by_id[i].before}` -> `{by_id[i].after}`): "
              f"{killed_since[i]}" for i in since] or ["- none"]
    lines += ["", "## Equivalent mutants", ""]
    eq = sorted(i for i in equivalent if i in by_id and results.get(i, ("",))[0] == "survived")
    lines += [f"- `{i}` ({by_id[i].function}, line {by_id[i].line}: `{by_id[i].before}` -> `{by_id[i].after}`): "
              f"{equivalent[i]}" for i in eq] or ["- none"]
    lines += ["", PINNED]
    lines += ["## Surviving mutants", ""]
    lines += [f"- `{m.id}` ({m.function}, line {m.line}): `{m.before}` -> `{m.after}`" for m in survivors] or ["- none"]
    return "\n".join(lines) + "\n"


def load_progress(path: Path) -> dict[str, tuple]:
    out = {}
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            out[row["id"]] = (row["status"], row["seconds"], row.get("cpu", 0.0))
    return out


# ---------------------------------------------------------------------------- the command

# Tests of the mirrored folders that are not unit tests: each starts Python processes,
# reads real trace files or builds 50,000-span traces (seconds each, the same behaviour
# as faster tests of the same file). They stay in the suite; the sample leaves them out.
SLOW = (
    "tests/guard/test_guard.py::test_fingerprints_are_the_same_in_processes_with_different_hash_seeds",
    "tests/guard/test_guard.py::test_importing_loopmetric_works_without_pydantic_ai",
    "tests/guard/test_guard_replay.py::test_the_command_line_imports_pydantic_ai_only_for_guard_replay",
    "tests/guard/test_guard_replay.py::test_guard_replay_without_pydantic_ai_says_which_extra_to_install",
    "tests/readers/test_reader_otlp.py::test_deep_chain_is_read_iteratively",
    "tests/readers/test_reader_deepeval.py::test_fifty_thousand_spans_deep_or_wide",
    "tests/cli/test_cli.py::test_jobs_output_identical_on_1000_traces",
    "tests/cli/test_cli.py::test_real_swe_agent_runs",
    "tests/cli/test_cli.py::test_real_tau_bench_file",
    "tests/cli/test_cli.py::test_help_does_not_import_deepeval",
    "tests/html/test_html_report.py::test_without_jinja2_the_error_names_the_extra",
    "tests/integrations/test_pydantic_evals_evaluator.py::test_without_logfire_configured_a_case_fails_and_says_how_to_record",
    "tests/integrations/test_mlflow_scorer.py::test_import_without_mlflow_names_the_extra",
    "tests/integrations/test_mlflow_scorer.py::test_the_example_script_runs_offline",
    "tests/metric/test_metric.py::test_engine_import_does_not_import_deepeval",
    "tests/test_plot.py::test_plots_never_touch_pyplot",
    "tests/detectors/test_conversation_meaning.py::test_without_wordllama_the_error_names_the_extra",
    "tests/detectors/test_conversation_meaning.py::test_wordllama_reports_are_identical_across_processes",
)

# Survivors of the sample that no user could tell apart from the original: id -> why.
EQUIVALENT: dict[str, str] = {  # ids of the sample of seed 1 at 0f8da52: a run on another tree lists its own
    "loopmetric.cli._args:55": (
        "`continue` -> `break` after `if not field.init`: neither LoopSettings nor GuardSettings has a field with init=False, so the loop never reaches it; every subcommand's --help is byte-identical"),
    "loopmetric.cli._explain:195": (
        "`markup=False` -> `True` on the line printed only when there is no finding: the reason is then the constant 'No loop patterns detected.', which holds no markup"),
    "loopmetric.cli._guard_replay:112": (
        "`and` -> `or` before `_framework_of(data)`: with `or` it also runs on failed reads (data None) and on pydantic-ai histories, and returns None for both, as the `else` does; one more `detect_format` call"),
    "loopmetric.cli._help:14": (
        "`MEANINGS.get(name, \"\")` -> `get(name, None)`: the only caller, `add_settings`, writes the meaning only when it is truthy, so None and \"\" give the same help; every settings field has a meaning (`test_first_hour`)"),
    "loopmetric.detectors._meaning:55": (
        "`previous = 0` -> `None`: it is only a slice start (`steps[previous:index]`), and `steps[None:index]` is `steps[0:index]`; it is an int after the first reply"),
    "loopmetric.guard._core:45": (
        "`call.pending = False` -> `None`: `pending` is only read for truthiness (`guard/_checks.py`, `otel/_window.py`), and `Call` has no `__eq__` or `__repr__`"),
    "loopmetric.integrations.mlflow:48": (
        "`frame is not None and frame.f_back is not None` -> `or`: `inspect.currentframe()` is never None in CPython and `_caller_name` is always called from a function, so `f_back` is never None and both read the same frame"),
    "loopmetric.integrations.pydantic_evals:33": (
        "`getattr(node, \"status\", \"unset\")` -> default \"XXunsetXX\": the default is only compared with \"error\", which neither equals"),
    "loopmetric.metric:64": (
        "`warnings.warn(SHARED_INSTANCE_WARNING, UserWarning, stacklevel=2)` without the category: UserWarning is `warnings.warn`'s default; both give a UserWarning at the same file and line"),
    "loopmetric.otel._processor:218": (
        "`clock() - held` -> `clock() + held` in the processor thread's yield: it then hands the interpreter lock back after every span instead of every 0.5 ms; the spans read, their order and the alarms are the same (timing only, measured in benchmarks/results/otel.md)"),
    "loopmetric.readers._builder:217": (
        "`self._items = []` -> `None` after `build`: every reader returns `builder.build()` and drops the builder; a second build gives the same 'found nothing to read' error either way"),
    "loopmetric.readers._json:10": (
        "the line number 1 -> 2 of a whole-file JSON document (the path for files of 1 MiB or more, always one document): `_files._entries` shows a line number only when a file yields several entries"),
    "loopmetric.readers._json:21": (
        "the line number 1 -> 2 of a whole-file JSON document that cannot be read (files of 1 MiB or more): shown only when a file has several documents or problems, and this path is always one problem; its message carries its own line and column (a 2 MB too-deep file reads byte-identical either way)"),
    "loopmetric.readers._langfuse:170": (
        "the Langfuse trace's own input (the root's label only) dropped: since the fix found while pinning it (the trace root is of type `trace`, which no observation has), that label never matches a span, so no cycle can rest on it; before the fix it made a false cycle, pinned by tests/readers/test_reader_platforms.py::test_a_langfuse_trace_is_not_a_span_that_its_root_observation_re_enters"),
    "loopmetric.readers._langfuse:173": (
        "the Langfuse root's `output` key mangled: the root is a `base` span and the span-tree reader reads `output` only on LLM and tool spans; traces with no, text or dict output read equal either way"),
    "loopmetric.readers._langsmith:366": (
        "the `type` key of a LangSmith run of another kind mangled: the span-tree reader takes a node with no `type` as `base`, which is what it says; five kinds of runs read the same steps, notes and scores either way"),
    "loopmetric.readers._otlp._wire:211": (
        "the sort key (2, 0, \"\", seq) -> (3, ...) of a span with no start time: the other keys start with 0 or 1, so 3 sorts where 2 does, and `_tree.tree` reads only the order and `start[3]`"),
}

# Survivors of the sample run killed by tests written while it ran (checked with --only, or by hand
# where it says so): id -> test.
KILLED_SINCE: dict[str, str] = {  # ids of the sample of seed 1 at 0f8da52
    "loopmetric._canonical:230": (
        "`tests/test_canonical.py::test_arguments_that_look_like_json_but_do_not_parse_are_kept_as_their_text` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric._canonical:241": (
        "`tests/test_canonical.py::test_a_call_recorded_without_arguments_is_a_call_with_empty_arguments` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric._canonical:291": (
        "`tests/test_canonical.py::test_a_result_naming_a_token_hides_the_token_even_without_digits` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric._canonical:32": (
        "`tests/test_canonical.py::test_arguments_held_in_an_object_with_slots_are_its_public_fields` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric._deep_json:14": (
        "`tests/test_deep_json.py::test_too_deep_json_names_the_line_and_column_where_the_level_too_many_opens` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric._deep_json:249": (
        "`tests/test_deep_json.py::test_the_iterative_parser_fails_where_and_as_json_loads_fails` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric._numbers:10": (
        "`tests/test_numbers.py::test_a_dollar_or_more_is_written_to_the_cent` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.cli._explain:135": (
        "`tests/cli/test_cli_explain.py::test_explain_says_none_for_a_call_whose_result_was_never_recorded` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.cli._output:213": (
        "`tests/cli/test_cli.py::test_the_score_table_shows_the_steps_of_each_traces_worst_finding` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.cli._report:47": (
        "`tests/cli/test_cli.py::test_report_help_says_what_title_the_page_gets_by_default` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.cli._score:256": (
        "`tests/cli/test_cli_usage.py::test_the_report_page_is_titled_loopmetric_report_unless_told` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.cli._score:97": (
        "`tests/cli/test_cli.py::test_an_unusable_report_path_is_refused_naming_the_flag_that_gave_it` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.cli:69": (
        "`tests/cli/test_cli.py::test_guard_replay_without_its_extra_answers_help_and_refuses_a_replay` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.detectors._call_graph:106": (
        "`tests/detectors/test_detectors.py::test_a_call_graph_cycle_through_agent_spans_alone_ends_with_its_levels` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.detectors._news:15": (
        "`tests/detectors/test_news.py::test_a_result_of_several_lines_is_its_lines_whatever_ends_them` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.detectors._news:303": (
        "`tests/detectors/test_news.py::test_new_calls_that_show_the_previous_result_again_are_one_attempt` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.detectors._obvious:257": (
        "`tests/detectors/test_obvious_loops.py::test_an_identical_repeat_says_the_steps_from_its_first_call_to_its_last` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.detectors._text:155": (
        "`tests/detectors/test_detectors.py::test_only_a_near_duplicate_finding_carries_a_similarity` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.detectors._tool_calls:262": (
        "`tests/detectors/test_detectors.py::test_a_repeated_outcome_rests_on_the_calls_and_the_outcomes_fingerprints` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.guard._checks:129": (
        "`tests/guard/test_guard_core.py::test_of_two_cycles_in_one_response_the_guard_reports_the_one_complete_first` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.guard._checks:141": (
        "`tests/guard/test_guard_core.py::test_a_reported_loop_says_how_many_recent_calls_the_guard_looked_at` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.guard._frameworks:44": (
        "`tests/guard/test_guard_replay_frameworks.py::test_a_json_replay_names_the_run_its_decisions_and_the_step_it_stopped_at` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.guard._loop:34": (
        "`tests/guard/test_pinned_guard.py::test_the_nudge_for_an_alternation_of_two_tools_names_them_joined_by_and` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.guard._replay:42": (
        "`tests/guard/test_guard_replay.py::test_replay_reads_messages_that_have_no_run_id_attribute` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.guard._trace_replay:38": (
        "`tests/guard/test_guard_replay_frameworks.py::test_a_replayed_call_that_failed_is_a_failure_to_the_guard_as_it_was_live` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.guard.langchain:14": (
        "`tests/guard/test_guard_langchain.py::test_the_guards_own_messages_carry_a_marker_of_the_loop_in_their_response_metadata` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.guard.openai_agents:130": (
        "`tests/guard/test_guard_openai_agents.py::test_each_parallel_output_belongs_to_the_call_of_its_call_id` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.guard.smolagents:71": (
        "`tests/guard/test_guard_smolagents.py::test_replay_of_the_memory_step_objects_makes_the_live_decisions` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.html._render:189": (
        "`tests/html/test_html_report.py::test_a_reply_holding_a_line_separator_reaches_the_page_json_intact_and_escaped` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.html._render:297": (
        "`tests/html/test_html_report.py::test_the_patterns_table_lists_the_most_found_pattern_first_and_ties_by_name` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.html._render:301": (
        "`tests/html/test_html_report.py::test_the_patterns_table_lists_the_most_found_pattern_first_and_ties_by_name` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.html._render:71": (
        "`tests/html/test_html_report.py::test_each_finding_on_the_page_says_what_repeated_at_which_steps` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.html._svg:82": (
        "`tests/html/test_html_svg.py::test_histogram_bars_stand_apart_inside_the_plot` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.integrations.pydantic_evals:13": (
        "`tests/integrations/test_pydantic_evals_evaluator.py::test_span_dicts_give_each_spans_start_in_nanoseconds_since_the_epoch` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.metric:130": (
        "`tests/metric/test_metric.py::test_verbose_logs_open_with_what_the_trace_holds` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.otel._processor:18": (
        "`tests/otel/test_processor.py::test_the_live_guard_alarms_an_alternation_at_the_settings_threshold` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.otel._processor:368": (
        "`tests/otel/test_processor.py::test_the_loop_span_sits_in_the_runs_trace_under_the_agent_whichever_provider_gets_it` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.otel._processor:82": (
        "`tests/otel/test_processor.py::test_a_limit_of_one_is_allowed_and_a_limit_of_none_is_not` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.otel:4": (
        "`tests/otel/test_processor.py::test_without_the_opentelemetry_sdk_importing_loopmetric_otel_is_an_error_naming_the_otel_extra` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.plot:31": (
        "`tests/test_plot.py::test_a_timeline_is_eleven_inches_wide_and_grows_with_its_steps` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.plot:48": (
        "`tests/test_plot.py::test_each_loop_is_banded_from_its_first_to_its_last_step_in_its_patterns_colour` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.plot:60": (
        "`tests/test_plot.py::test_each_loop_is_banded_from_its_first_to_its_last_step_in_its_patterns_colour` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.plot:72": (
        "`tests/test_plot.py::test_each_loop_is_banded_from_its_first_to_its_last_step_in_its_patterns_colour` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._anthropic:66": (
        "`tests/readers/test_exported_formats.py::test_anthropic_system_beside_the_messages_is_the_runs_system_prompt` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._deepeval:102": (
        "`tests/readers/test_pinned_readers.py::test_a_deepeval_child_that_is_not_a_span_is_noted_on_the_trace` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._deepeval:50": (
        "`tests/readers/test_reader_deepeval.py::test_a_trace_is_named_after_its_root_span_only_when_that_name_is_text` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._exported:26": (
        "`tests/readers/test_exported_formats.py::test_a_result_without_a_usable_id_answers_the_oldest_open_call_of_its_tool` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._exported:99": (
        "`tests/readers/test_exported_formats.py::test_a_persons_later_turn_is_read_as_the_users_turn_with_its_words` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._files:129": (
        "`tests/readers/test_pinned_readers.py::test_an_entry_that_parses_but_is_no_known_trace_is_flagged_not_a_trace` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._files:83": (
        "`tests/readers/test_pinned_readers.py::test_an_empty_file_is_one_entry_named_after_it_that_says_it_is_empty` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._gemini:144": (
        "`tests/readers/test_pinned_readers.py::test_a_gemini_executable_code_part_is_a_code_call_in_either_spelling` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._gemini:167": (
        "`tests/readers/test_exported_formats.py::test_gemini_function_responses_answer_the_call_of_their_id` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._gemini:288": (
        "`tests/readers/test_exported_formats.py::test_a_gemini_part_that_is_not_read_is_noted_as_what_that_side_can_send` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._inference:173": (
        "`tests/readers/test_inference.py::test_an_llm_input_is_read_for_the_other_sides_turn_up_to_its_message_limit` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._langchain:43": (
        "`tests/readers/test_exported_formats.py::test_a_message_with_a_role_is_read_as_a_chat_message_not_a_langchain_one` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._langsmith:250": (
        "`tests/readers/test_reader_platforms.py::test_a_langsmith_llm_run_counts_its_tokens_from_its_usage_metadata` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._magentic:70": (
        "`tests/readers/test_pinned_readers.py::test_a_magentic_one_delegation_is_a_call_of_the_agent_with_the_instruction_as_its_argument` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._mlflow:174": (
        "`tests/readers/test_reader_platforms.py::test_mlflow_spans_are_read_in_the_order_they_started` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._mlflow:37": (
        "`tests/readers/test_reader_platforms.py::test_read_mlflow_trace_takes_the_trace_object_as_well_as_its_json` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._openai_agents:193": (
        "`tests/readers/test_reader_openai_agents.py::test_a_generations_input_messages_give_the_other_sides_turn_after_the_reply` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._openai_agents:292": (
        "`tests/readers/test_reader_openai_agents.py::test_a_list_without_spans_is_an_error_saying_what_was_expected` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._otlp._semconv:136": (
        "`tests/readers/test_reader_otlp.py::test_openinference_retriever_spans_are_calls_named_after_the_span` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._otlp._semconv:151": (
        "`tests/readers/test_reader_otlp.py::test_an_openinference_tool_spans_arguments_are_its_input_value` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._otlp._semconv:186": (
        "`tests/readers/test_reader_otlp.py::test_openinference_retriever_spans_are_calls_named_after_the_span (its chain-span twin, written while the run ran)` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._pydantic_ai:215": (
        "`tests/readers/test_reader_pydantic_ai.py::test_a_written_action_says_which_prompt_declared_its_syntax` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._pydantic_ai:96": (
        "`tests/readers/test_reader_pydantic_ai.py::test_a_written_action_is_a_call_when_the_next_request_answers_it_with_an_observation` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._registry:52": (
        "`tests/readers/test_pinned_readers.py::test_each_tau2_record_is_labelled_by_its_task` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._responses:138": (
        "`tests/readers/test_exported_formats.py::test_responses_items_each_assistant_message_starts_a_reply` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._responses:232": (
        "`tests/readers/test_exported_formats.py::test_responses_items_of_an_unknown_type_are_skipped_and_the_notes_name_them` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._responses:248": (
        "`tests/readers/test_exported_formats.py::test_a_responses_call_output_of_content_parts_is_their_text` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._shapes:259": (
        "`tests/readers/test_shapes.py::test_a_tool_message_that_says_it_failed_is_an_error_in_every_spelling` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._shapes:488": (
        "`tests/readers/test_shapes.py::test_nested_messages_are_read_down_to_depth_eight_one_level_each` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._smolagents:152": (
        "`tests/readers/test_pinned_readers.py::test_a_smolagents_final_answer_step_is_not_read_as_another_step` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.readers._smolagents:81": (
        "`tests/readers/test_exported_formats.py::test_smolagents_memory_is_steps_each_holding_a_step_key` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.spark._job:13": (
        "`tests/spark/test_spark_batches.py::test_local_workers_get_the_drivers_interpreter_unless_pyspark_python_is_set` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
    "loopmetric.spark._schema:5": (
        "`tests/spark/test_spark_batches.py::test_a_spark_type_is_exchanged_as_the_arrow_type_of_the_same_shape_and_field_names` (checked by hand: the line changed in a worktree, the test run and seen failing, the change reverted)"),
}

PROGRESS = ROOT / "benchmarks" / "results" / "mutation_sample.jsonl"
# Survivors run again with --only on a later tree (the tests written while the run went on):
# one row per check; the last row of a mutant counts.
VERIFIED = ROOT / "benchmarks" / "results" / "mutation_verified.jsonl"


def killed_since(out: Path) -> dict[str, str]:
    """Mutant id -> the test that kills it now (from --only runs), for survivors of the run."""
    rows: dict[str, dict] = {}
    path = out / VERIFIED.name
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            rows[row["id"]] = row
    return {i: (f"`{row['by'][0]}`" if row["by"] else "(timeout)") + f" at {row['rev']}"
            for i, row in rows.items() if row["status"] in ("killed", "timeout")}


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# The behaviours the sample found unpinned, each with the one-line change that must fail its test
# (made by hand in the worktree, the test run, the change reverted; all failed as listed).
PINNED = """\
## Behaviours found unpinned by the sample, and the test that pins each

Each one-line change was made by hand, the test run on it (it failed), and the change reverted.

| behaviour | one-line change | test that fails |
|---|---|---|
| a reply answers the input only with a word it was just told, written as a name/number/id | `if not w.islower()` -> `if True` (`_replies._answers_input`) | `tests/detectors/test_pinned_detectors.py::test_a_reply_answers_the_input_only_with_a_new_specific_word_it_was_just_told[a-two-letter-word-is-too-short-to-answer]` |
| ... and that nobody said before the first reply (the vocabulary) | `(new & told) - vocabulary.before(...)` -> `new & told` | same test, `[an-id-said-before-is-not-news]` |
| ... in the input between the two replies (what lies between) | `steps[earlier.step:later.step - 1]` -> `[earlier.step:later.step]` | same test, `[a-two-letter-word-is-too-short-to-answer]` |
| ... of three letters at least (its minimum length) | `len(word) > 2` -> `> 1` (`_similarity.Words`) | `tests/detectors/test_similarity.py::test_content_words[words-under-three-letters-dropped]` |
| a reworded reply needs 8 content words to count as the same | `words.count >= min_words` -> `>` (`_replies._content`) | `test_pinned_detectors.py::test_a_reworded_reply_needs_eight_content_words_to_count_as_the_same` |
| replies back to back with no input between are not a chain | `bool(between) and all(...)` -> `all(...)` | `test_pinned_detectors.py::test_replies_back_to_back_without_input_between_are_not_a_reply_chain` |
| a repeated input is not news (the first time it is) | `if step.fingerprint not in seen_inputs` -> `if True` / `if False` (`_news.Progress`) | `test_pinned_detectors.py::test_a_repeated_input_is_not_news` |
| a tool run resets a chain of harness rejections | the `if step.kind == "tool": ... chain = []` branch removed (`_rejections`) | `test_pinned_detectors.py::test_a_tool_run_resets_a_chain_of_rejections` |
| news in any round but the first breaks a drifting cycle | `covered[period:]` -> `covered[period + 1:]` (`_cycles`) | `test_pinned_detectors.py::test_news_in_any_round_but_the_first_breaks_a_drifting_cycle` |
| `similar_attempts` needs two distinct argument lists | `len(distinct) < 2` -> `< 1` (`_attempts`) | `test_pinned_detectors.py::test_similar_attempts_need_distinct_arguments_and_results[the-very-same-call-is-not-similar-attempts]` |
| ... and results to compare (results dropped: nothing) | the `result is None` guard of `_news._same` removed | same test, `[results-dropped-nothing-to-compare]` |
| in the guard, of two repeated results the one that reached the threshold first is reported | `position[id(run[threshold - 1])]` -> `run[0]` (`guard._checks`) | `tests/guard/test_pinned_guard.py::test_of_two_repeated_results_the_one_that_reached_the_threshold_first_is_reported` |
| the builder resets pending requests at the next LLM output with requests | `by_key.clear(); by_name.clear()` removed (`readers._matching`) | `tests/readers/test_builder.py::test_requests_and_executions[pending-requests-reset-at-the-next-output-with-requests]` |
| error status on OTLP spans that have an output (every status code form) | `2` dropped from the failed codes (`_otlp._wire`) | `tests/readers/test_pinned_readers.py::test_a_failed_tool_span_is_an_error_even_with_an_output[int-2]` |
| the read budget of merged shapes (requests listed twice on one LLM span) | `budget[k] -= 1` removed (`_shapes.merge_requests`) | `test_pinned_readers.py::test_requests_listed_twice_on_one_llm_span_count_as_often_as_the_longer_list` |
| nulls inside list columns of Spark rows are dropped | the list branch of `_without_nulls` emptied | `tests/spark/test_spark_batches.py::test_nulls_inside_list_columns_are_dropped_like_missing_fields` |
| JSON Lines files found in folders | `".jsonl"` dropped from `_SUFFIXES` (`readers._files`) | `test_pinned_readers.py::test_a_folder_yields_its_trace_files_json_lines_included` |
| the similarity a near-duplicate finding reports is max(Jaccard, ratio) | the full value computed at the cutoff again (`_text.Episode.worst_similarity`) | `tests/detectors/test_similarity.py::test_a_near_duplicate_finding_reports_the_larger_of_jaccard_and_ratio` |

Not a behaviour: `output=None if span.error else ...` in `_otlp._semconv` (a failed tool span's output dropped)
survives any test, because `read_tool_result` reads the error first whenever there is one; the status codes that
make a span failed are what the table above pins.
"""


def _meta_files(out: Path) -> list[Path]:
    return sorted(out.glob("mutation_sample.meta*.json"))


def sample_main(n: int, seed: int, rev: str, only: Optional[list[str]], listing: bool, resume: bool,
                report_only: bool, timeout_factor: float, min_timeout: float, out: Path, part: str = "0/1") -> None:
    from importlib.metadata import version

    rev = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.strip()
    tree = snapshot(rev)
    everything, chosen = sample(n, seed, tree)
    if listing:
        for m in chosen:
            print(f"{m.id}\t{m.function}\t{m.line}\t{m.before!r} -> {m.after!r}")
        shutil.rmtree(tree, ignore_errors=True)
        return
    command = f"nice -n 15 python -m benchmarks.mutation --sample {n} --seed {seed}"
    if only:
        # Survivors again, on the tree at `rev` (new tests): written to mutation_verified.jsonl.
        todo = [m for m in chosen if m.id in only]
        logs = Path(tempfile.mkdtemp(prefix="loopmetric-only-"))
        results, _ = run(todo, tree, timeout_factor, min_timeout, deselect=SLOW, logs=logs)
        for m in todo:
            failed = [line.split()[1] for line in (logs / f"{m.id}.log").read_text(errors="replace").splitlines()
                      if line.startswith("FAILED ")] if (logs / f"{m.id}.log").exists() else []
            row = {"id": m.id, "status": results[m.id][0], "by": failed[:1], "rev": rev}
            print(json.dumps(row), flush=True)
            with open(out / VERIFIED.name, "a") as verified:
                verified.write(json.dumps(row) + "\n")
        shutil.rmtree(logs, ignore_errors=True)
        shutil.rmtree(tree, ignore_errors=True)
        return
    progress = out / PROGRESS.name
    k, parts = (int(x) for x in part.split("/"))
    if not report_only:
        if not resume:
            progress.unlink(missing_ok=True)
            for old in _meta_files(out):
                old.unlink()
        done = load_progress(progress)
        meta_path = out / ("mutation_sample.meta.json" if parts == 1 else f"mutation_sample.meta.{k}of{parts}.json")
        meta = {"rev": rev, "started": time.strftime("%Y-%m-%d %H:%M:%S"), "load_start": _load(),
                "argv": "nice -n 15 python -m benchmarks.mutation " + " ".join(sys.argv[1:])}
        meta_path.write_text(json.dumps(meta))
        # In a seeded random order: a run stopped early has checked a random part of the sample;
        # `--part K/N` runs every N-th of those not run yet (N processes share the rest).
        todo = [m for m in chosen if m.id not in done]
        random.Random(seed + 1).shuffle(todo)
        todo = todo[k::parts]
        results, baseline = run(todo, tree, timeout_factor, min_timeout, progress=progress, deselect=SLOW)
        meta.update(ended=time.strftime("%Y-%m-%d %H:%M:%S"), load_end=_load(), baseline=baseline)
        meta_path.write_text(json.dumps(meta))
    done = load_progress(progress)
    metas = [json.loads(p.read_text()) for p in _meta_files(out)]
    meta = {"seed": seed, "rev": rev, "n": n, "mutmut": version("mutmut"), "timeout_factor": timeout_factor,
            "min_timeout": min_timeout,
            "started": min((m["started"] for m in metas), default="?"),
            "ended": max((m.get("ended", "(running)") for m in metas), default="?"),
            "load_start": "; ".join(m["load_start"] for m in metas) or "?",
            "load_end": "; ".join(m.get("load_end", "?") for m in metas) or "?",
            "baseline": {k: v for m in metas for k, v in m.get("baseline", {}).items()},
            "processes": len(metas),
            "commands": [m.get("argv", "?") for m in metas],
            "minutes": sum(row[2] for row in done.values()) / 60}
    text = report(everything, chosen, done, EQUIVALENT, {**KILLED_SINCE, **killed_since(out)}, command, meta)  # a run again wins
    previous = (out / "mutation.md").read_text() if (out / "mutation.md").exists() else ""
    if "## The hand mutants" in previous:  # what `--hand` wrote stays
        text += "\n## The hand mutants" + previous.split("## The hand mutants", 1)[1]
    (out / "mutation.md").write_text(text)
    print(text)
    shutil.rmtree(tree, ignore_errors=True)


# ------------------------------------------------------- every mutant of named functions


FUNCTIONS = "mutation_functions"  # the folder of results/ that holds the `--functions` runs, one report each
_SUMMARY = re.compile(r"(\d+) mutants: (\d+) killed \(timeouts counted as killed\), (\d+) equivalent, .*? "
                      r"On the tests of \w+: (\d+/\d+ = [\d.]+), .*?with the pins: (\d+/\d+ = [\d.]+),")


def functions_index(folder: Path) -> str:
    """The README.md of the folder of `--functions` reports: one row per report, in the order
    `FUNCTION_RUNS` records the runs (those not recorded there after them), read from each report's
    command and summary line."""
    from ._common import markdown_table

    reports = sorted(folder.glob("*.md"), key=lambda p: p.name)
    order = {rev: i for i, rev in enumerate(FUNCTION_RUNS)}
    rows = []
    hand = [p for p in reports if p.name.startswith("hand_")]  # the audits of hand-written mutants: linked below
    for path in sorted((p for p in reports if p.name != "README.md" and p not in hand),
                       key=lambda p: (order.get(p.stem, len(order)), p.stem)):
        text = path.read_text()
        command = re.search(r"--functions (.+?) --rev ", text)
        summary = _SUMMARY.search(text)
        if not command or not summary:
            raise ValueError(f"Expected a `--functions` report (its command and its 'N mutants: ...' line) in {path}, "
                             f"but got {text[:80]!r}.")
        modules = sorted({target.partition("::")[0].removeprefix("loopmetric/") for target in command[1].split()})
        mutants, killed, equivalent, rate, pinned = summary.groups()
        rows.append([f"[{path.stem}]({path.name})", ", ".join(f"`{m}`" for m in modules), mutants, killed,
                     equivalent, rate, pinned])
    return "\n".join([
        "# Mutation testing of the functions a change touched", "",
        "One report per run of `python -m benchmarks.mutation --functions PATH::FUNCTION ... --rev REV` "
        "(`REV.md`: every mutant of those functions, each on its module's mirrored tests, on the tree of "
        "the commit it mutated) and its progress (`REV.jsonl`, one row per mutant run: a stopped run goes on "
        "from it). The command writes both and this index; `--only ID ...` runs a run's pinned survivors again on "
        "a later tree (`REV.verified.jsonl`, what each pin's row in the report says it found). The sampled run over "
        "every module is "
        "[mutation.md](../mutation.md).", "",
        "Rate: killed / mutants not equivalent, on the tests of that commit; with the pins: counting the "
        "survivors killed by tests written since.", "",
        markdown_table(["revision", "modules", "mutants", "killed", "equivalent", "rate", "with the pins"], rows), "",
        *(["## Hand-written mutants", "",
           "Audits of one-line mutants written by hand against what a user sees (`benchmarks/_hand_mutants.py`): "
           "each on its module's tests, the survivors on their folder, then pinned by a behaviour test.", "",
           *[f"- [{path.stem}]({path.name})" for path in hand], ""] if hand else [])])


def of_lines(mutants: list[Mutant], lines_of: dict[str, tuple[int, int]]) -> list[Mutant]:
    """`mutants` but those of a function named in `lines_of` (`path::function` -> (start, end)) whose
    changed line lies outside start..end (both kept): a change of a few lines of a long function."""
    for target, (start, end) in lines_of.items():
        rel, _, function = target.partition("::")
        mutants = [m for m in mutants if (m.path, m.function) != (rel, function) or start <= m.line <= end]
    return mutants


def functions_main(targets: list[str], rev: str, out: Path, explained: dict[str, str],
                   pinned: Optional[dict[str, str]] = None, tests: Optional[dict[str, tuple[str, ...]]] = None,
                   sample_of: Optional[dict[str, int]] = None, limit: Optional[int] = None,
                   run_so_far: bool = False, lines_of: Optional[dict[str, tuple[int, int]]] = None) -> str:
    """Every mutant of the named functions (`path::function`, e.g. `loopmetric/x.py::f`),
    each on its module's mirrored tests, on the tree of `rev`: the run over the code a
    change touched, beside the sample over every module. Writes `mutation_functions/<rev>.md` in `out`
    (and the folder's index, README.md);
    `explained` maps a surviving mutant's id to why it is equivalent; `pinned`, a survivor
    of `rev` to the later test that kills it (put back by hand on the later tree and seen to fail);
    `tests`, a module's own choice of test files (instead of its mirrored folder); `sample_of`, a
    function (`path::function`) with too many mutants to `n` of them, drawn with `random.Random(0)`;
    `limit`, at most that many mutants run by this command (a run in parts: the report is written
    once every mutant has run); `run_so_far`, the report of the mutants run so far, nothing run (a run
    stopped for time: the rest said not run and left out of the rates); `lines_of`, a function
    (`path::function`) whose change is a few of its lines to the mutants of lines `start` to `end`
    (of the tree of `rev`, both kept). A pinned survivor that
    `functions_verify` ran again on a later tree says what that run found."""
    from ._common import markdown_table

    pinned, tests, sample_of, lines_of = pinned or {}, tests or {}, sample_of or {}, lines_of or {}
    wanted: dict[str, set[str]] = defaultdict(set)
    for target in targets:
        rel, _, function = target.partition("::")
        if not function or not (ROOT / rel).is_file():
            raise SystemExit(f"Expected a target as path::function of a file of this checkout, but got {target!r}.")
        wanted[rel].add(function)
    tree = snapshot(rev)  # the mutants are made of the tree they are run on
    chosen = [m for rel, names in wanted.items() for m in mutants_of(rel, tree) if m.function in names]
    chosen = of_lines(chosen, lines_of)
    for target, n in sample_of.items():  # in mutmut's order still: the drawn ones of that function stay
        rel, _, function = target.partition("::")
        of_function = [m.id for m in chosen if m.path == rel and m.function == function]
        left_out = set(of_function) - set(random.Random(0).sample(of_function, min(n, len(of_function))))
        chosen = [m for m in chosen if m.id not in left_out]
    folder = out / FUNCTIONS
    progress = folder / f"{rev}.jsonl"  # one line per mutant run: a stopped run goes on from it
    done = load_progress(progress) if progress.exists() else {}
    todo = [m for m in chosen if m.id not in done]
    results = dict(done)
    not_run = len(todo) if run_so_far else 0
    if run_so_far:
        chosen, todo = [m for m in chosen if m.id in done], []
    if todo:
        folder.mkdir(parents=True, exist_ok=True)
        results.update(run(todo[:limit], tree, progress=progress, deselect=SLOW, tests=tests)[0])
        if limit is not None and len(todo) > limit:
            shutil.rmtree(tree, ignore_errors=True)
            print(f"{limit} of the {len(todo)} mutants not run yet were run; {len(todo) - limit} left", flush=True)
            return ""
    shutil.rmtree(tree, ignore_errors=True)
    verified = verified_rows(folder, rev)
    rows, killed, equivalent, survived = [], 0, 0, []
    for mutant in chosen:
        status = results[mutant.id][0]
        if status in ("killed", "timeout"):
            killed += 1
            continue
        if mutant.id in explained:
            equivalent += 1
            rows.append([f"`{mutant.id}`", f"`{mutant.before[:60]}` -> `{mutant.after[:60]}`", "equivalent: "
                         + explained[mutant.id]])
        elif mutant.id in pinned:
            again = verified.get(mutant.id)
            rows.append([f"`{mutant.id}`", f"`{mutant.before[:60]}` -> `{mutant.after[:60]}`",
                         f"survived at {rev}; killed since by `{pinned[mutant.id]}`"
                         + (f" (run again at {again['on']}"  # (a module changed since: the same change there)
                            + (f" as `{again['as']}`" if again.get("as", mutant.id) != mutant.id else "")
                            + f": {again['status']})" if again else "")])
        else:
            survived.append(mutant.id)
            rows.append([f"`{mutant.id}`", f"`{mutant.before[:60]}` -> `{mutant.after[:60]}`", "**survived**"])
    counted = len(chosen) - equivalent
    pinned_here = [m.id for m in chosen if m.id in pinned and results[m.id][0] not in ("killed", "timeout")]
    low, high = wilson(killed, counted)
    low2, high2 = wilson(killed + len(pinned_here), counted)
    text = "\n".join([
        "# Mutation testing: every mutant of the functions a change touched", "",
        f"Command: `python -m benchmarks.mutation --functions {' '.join(targets)} --rev {rev}`; each mutant on its "
        "module's mirrored tests, as in the sampled run"
        + "".join(f"; `{rel}`'s on {', '.join(f'`{t}`' for t in files)}" for rel, files in tests.items())
        + "".join(f"; of `{target}`'s mutants, those of lines {start}-{end}"
                  for target, (start, end) in lines_of.items())
        + "".join(f"; of `{target}`'s mutants, {n} drawn with `random.Random(0)`"
                  for target, n in sample_of.items()) + ".", "",
        f"{len(chosen)} mutants: {killed} killed (timeouts counted as killed), {equivalent} equivalent, "
        f"{len(pinned_here)} survived and were pinned since, {len(survived)} survived"
        + (f"; {not_run} more drawn and not run (the run stopped for time)" if not_run else "")
        + f". On the tests of {rev}: "
        f"{killed}/{counted} = {killed / counted if counted else 0:.3f}, 95% interval [{low:.3f}, {high:.3f}]; "
        f"with the pins: {killed + len(pinned_here)}/{counted} = "
        f"{(killed + len(pinned_here)) / counted if counted else 0:.3f}, 95% interval [{low2:.3f}, {high2:.3f}].", "",
        *( [markdown_table(["mutant", "change", "verdict"], rows), ""] if rows else []),
    ])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{rev}.md").write_text(text)
    (folder / "README.md").write_text(functions_index(folder))
    print(text)
    return text


def verified_rows(folder: Path, rev: str) -> dict[str, dict]:
    """Mutant id -> its last row in `REV.verified.jsonl` (the survivors of the run at `rev` run again
    on a later tree by `functions_verify`)."""
    path = folder / f"{rev}.verified.jsonl"
    rows: dict[str, dict] = {}
    for line in path.read_text().splitlines() if path.exists() else ():
        row = json.loads(line)
        rows[row["id"]] = row
    return rows


def functions_verify(rev: str, ids: list[str], on: str, out: Path, pinned: dict[str, str],
                     tests: dict[str, tuple[str, ...]]) -> list[dict]:
    """The survivors `ids` of the `--functions` run at `rev`, each put into the tree of `on` (a later commit
    whose text of that module is the same, so an id numbers the same mutant there) and run on the run's
    tests and the file of the test it is pinned to: the measure of the pins. A row per mutant (its status,
    the first test that failed, `on`) is appended to `mutation_functions/REV.verified.jsonl`; a mutant of a
    module changed since is run as the same change of its function there (`same_change`: the row says its id
    there, `as`), and left out and said when that is not one mutant."""
    on = subprocess.run(["git", "rev-parse", "--short", on], cwd=ROOT, check=True, capture_output=True,
                        text=True).stdout.strip()
    old, new = snapshot(rev), snapshot(on)
    paths = {module_name(rel): rel for rel in engine_files(old)}
    chosen: list[Mutant] = []
    changed: set[str] = set()
    found_as: dict[str, str] = {}  # a mutant of a module changed since -> the id of the same change on `on`
    for rel in sorted({paths[i.rpartition(":")[0]] for i in ids if i.rpartition(":")[0] in paths}):
        wanted = [m for m in mutants_of(rel, old) if m.id in ids]
        if (new / rel).is_file() and (old / rel).read_text() == (new / rel).read_text():
            chosen += wanted
            continue
        later = mutants_of(rel, new) if (new / rel).is_file() else []
        for mutant in wanted:  # the same change of the same function on the later tree, when it is one
            again = same_change(mutant, later)
            if again is None:
                print(f"{mutant.id}: {rel} changed between {rev} and {on} and the same change is not one mutant "
                      "there; left out", flush=True)
                changed.add(mutant.id)
                continue
            found_as[mutant.id] = again.id
            chosen.append(replace(again, id=mutant.id))
    unknown = sorted(set(ids) - {m.id for m in chosen} - changed)
    if unknown:
        shutil.rmtree(old, ignore_errors=True)
        shutil.rmtree(new, ignore_errors=True)
        raise SystemExit(f"Expected mutant ids of the run at {rev} (module:N), but got {', '.join(unknown)}.")
    by_module: dict[str, tuple[str, ...]] = {}
    rows = []
    logs = Path(tempfile.mkdtemp(prefix="loopmetric-verify-"))
    for mutant in chosen:  # each on its own tests: the run's and its pin's file
        own = (*tests.get(mutant.path, tests_for(mutant.path, new)),)
        pin = pinned.get(mutant.id, "").partition("::")[0]
        by_module[mutant.id] = own + ((pin,) if pin and pin not in own else ())
    for target in sorted(set(by_module.values())):
        group = [m for m in chosen if by_module[m.id] == target]
        results, _ = run(group, new, deselect=SLOW, logs=logs, tests={m.path: target for m in group})
        for mutant in group:
            log = logs / f"{mutant.id}.log"
            failed = [line.split()[1] for line in log.read_text(errors="replace").splitlines()
                      if line.startswith("FAILED ")] if log.exists() else []
            row = {"id": mutant.id, "status": results[mutant.id][0], "by": failed[:1], "on": on,
                   **({"as": found_as[mutant.id]} if mutant.id in found_as else {})}
            rows.append(row)
            print(json.dumps(row), flush=True)
            (out / FUNCTIONS).mkdir(parents=True, exist_ok=True)
            with open(out / FUNCTIONS / f"{rev}.verified.jsonl", "a") as verified:
                verified.write(json.dumps(row) + "\n")
    for tree in (old, new, logs):
        shutil.rmtree(tree, ignore_errors=True)
    return rows


def same_change(mutant: Mutant, later: list[Mutant]) -> Optional[Mutant]:
    """The mutant of `later` (a later tree's mutants of the same module) that makes the same change
    (the same lines before and after) in the function of the same name, None unless exactly one does:
    a survivor of a module changed since, run again where its id numbers another mutant."""
    same = [m for m in later if (m.function, m.before, m.after) == (mutant.function, mutant.before, mutant.after)]
    return same[0] if len(same) == 1 else None


class FunctionRun(NamedTuple):
    """One `--functions` run: the functions a change touched, mutated on the tree of its commit
    (mutant ids number each module's mutants on that tree, so each run keeps its own verdicts):
    the survivors no test can kill, each with the reason, and the survivors killed by tests added
    after that commit, each with the test."""

    targets: tuple[str, ...]
    equivalent: dict[str, str]
    pinned: dict[str, str]
    # A module's own choice of the tests each mutant runs (its file and the conformance tables that
    # pin it, where the mirrored folder costs too much a survivor), and a function (`path::function`)
    # with too many mutants sampled down to this many; a function whose change is a few of its lines,
    # to the mutants of those lines (start, end: of the tree of the run's commit).
    tests: dict[str, tuple[str, ...]] = {}
    sample: dict[str, int] = {}
    lines: dict[str, tuple[int, int]] = {}


# The functions touched after the sampled run (the session of 2026-12-05: the news model), and the
# survivors of `--functions` over them that no test can kill, each with the reason.
CHANGED_FUNCTIONS = ("loopmetric/detectors/_news.py::_ascii_words",
                     "loopmetric/detectors/_news.py::_reports_failure",
                     "loopmetric/detectors/_similarity.py::_only_words_and_spaces",
                     "loopmetric/detectors/_declines.py::declines",
                     "loopmetric/detectors/_text.py::text_episodes",
                     "loopmetric/detectors/_text.py::_unanswered_action",
                     "loopmetric/detectors/_text.py::add",
                     "loopmetric/detectors/_text.py::_alike",
                     "loopmetric/detectors/_replies.py::_in_a_row",
                     "loopmetric/detectors/_replies.py::_answers_input",
                     "loopmetric/detectors/__init__.py::_enabled",
                     "loopmetric/readers/_inference.py::holds_text",
                     "loopmetric/readers/_inference.py::as_request",
                     "loopmetric/_text_actions.py::_json_action")
_FAST = "a shortcut that only chooses a faster path: "
_CACHE = "the detectors a settings object turns on are worked out again: "
EQUIVALENT_IN_FUNCTIONS: dict[str, str] = {
    "loopmetric.detectors._news:3": "codec names are case-insensitive: \"ASCII\" is \"ascii\"",
    "loopmetric.detectors._similarity:36": "codec names are case-insensitive: \"ASCII\" is \"ascii\"",
    "loopmetric.detectors._similarity:47": "on a non-ASCII text (this branch) spaces made letters change nothing: its "
                                           "non-ASCII characters remain, so it is never empty, and they decide",
    "loopmetric.detectors._similarity:49": "on a non-ASCII text (this branch) underscores made letters are what deleting "
                                           "them gives: word characters either way",
    "loopmetric.detectors._declines:15": _FAST + "the cheap check lets the text through, and the pattern decides alike",
    "loopmetric.detectors._declines:21": _FAST + "the cheap check lets the text through, and the pattern decides alike",
    "loopmetric.detectors._text:13": "`previous_action` is set together with `previous`, before it is read",
    "loopmetric.detectors._text:21": "an input's key is only compared with keys built the same way",
    "loopmetric.detectors._text:22": "an input's key is only compared with keys built the same way",
    "loopmetric.detectors._text:54": "`value_of_match` is read only for a near match, which sets it",
    "loopmetric.detectors._text:55": "`value_of_match` is read only for a near match, which sets it",
    "loopmetric.detectors._text:58": "an entry's fingerprint left unread is read on the spot: the same value",
    "loopmetric.detectors._text:70": "an output with no earlier one in the window enters a loop over an empty window",
    "loopmetric.detectors._text:72": "a text of `min_similarity_words` characters has fewer content words of 3+ letters: "
                                     "the word count decides alike",
    "loopmetric.detectors._text:77": "a text of `min_similarity_words` characters has fewer content words of 3+ letters: "
                                     "the word count decides alike",
    "loopmetric.detectors._text:107": "`exact` is read as true or false: None is false as False is",
    "loopmetric.detectors._text:145": "with or without the cut-off `similarity` clears it exactly when max(Jaccard, Indel) "
                                      "does; only whether it clears it is read",
    "loopmetric.detectors._text:148": "`_alike` is called with a previous action that is not None",
    "loopmetric.detectors._text:163": "with or without the cut-off `similarity` clears it exactly when max(Jaccard, Indel) "
                                      "does; only whether it clears it is read",
    "loopmetric.detectors._replies:136": "the steps between two replies are inputs, whose text is a string: "
                                         "the default is never used",
    "loopmetric.detectors._replies:139": "the steps between two replies are inputs, whose text is a string: "
                                         "the default is never used",
    "loopmetric.detectors._replies:142": "the steps between two replies are inputs, whose text is a string: "
                                         "the default is never used",
    "loopmetric.detectors:14": _CACHE + "unpacking None raises the TypeError the function catches",
    "loopmetric.detectors:21": _CACHE + "a cache of 64 or 65 settings answers alike",
    "loopmetric.detectors:22": _CACHE + "a cache of 64 or 65 settings answers alike",
    "loopmetric.detectors:23": _CACHE + "None stored raises, on the next look-up, the TypeError the function catches",
    **{f"loopmetric.readers._inference:{n}": _FAST + "without it the general checks (str, list or tuple, Mapping) "
                                                     "give the same answer" for n in (255, 263, 264, 265, 266)},
    "loopmetric._text_actions:141": "`str.find` returns an index below the text's length or -1, never the length",
    "loopmetric._text_actions:181": "after an object that parsed, the next character is never \"{\" (an object opens with "
                                    "\"{\" then a space, a quote or \"}\"): searching from one further finds the same",
}
# Survivors at the run's tree killed by tests added after it (each checked by hand: the line changed,
# the test run and seen failing, the change reverted).
_WINDOWS = "tests/detectors/test_text_windows.py::"
_UNTOLD = "tests/detectors/test_untold_turns.py::test_an_action_written_in_a_reply_no_one_recorded_answering"
_SPLIT = "tests/detectors/test_similarity.py::test_only_words_and_spaces_chooses_the_fast_split"
_CHEAP = "tests/detectors/test_declines.py::test_the_cheap_check_agrees_with_the_pattern_whatever_the_case_or_spacing"
PINNED_IN_FUNCTIONS: dict[str, str] = {
    "loopmetric.detectors._text:4": _WINDOWS + "test_which_earlier_outputs_an_output_is_compared_with",
    "loopmetric.detectors._text:26": _WINDOWS + "test_an_output_with_no_text_is_skipped_not_the_end_of_the_scan",
    "loopmetric.detectors._text:51": _WINDOWS + "test_a_tool_call_after_a_fresh_start_of_an_unrecorded_action_is_read_as_ever",
    "loopmetric.detectors._text:75": _WINDOWS + "test_which_earlier_outputs_an_output_is_compared_with",
    "loopmetric.detectors._text:81": _WINDOWS + "test_which_earlier_outputs_an_output_is_compared_with",
    **{f"loopmetric.detectors._text:{n}": _UNTOLD for n in (132, 155, 156)},
    **{f"loopmetric.detectors._declines:{n}": _CHEAP for n in (13, 14, 19, 20)},
    **{f"loopmetric.detectors._similarity:{n}": _SPLIT for n in (33, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 48)},
    "loopmetric.detectors:15": "tests/detectors/test_detector_registry.py::test_a_registry_replaced_is_noticed",
    **{f"loopmetric._text_actions:{n}": "tests/test_text_actions.py::test_text_action" for n in (152, 153, 154, 155, 156)},
    # Pinned the session after the run (2026-12-05, fourth).
    "loopmetric.detectors._text:69": _WINDOWS + "test_an_exact_repeat_is_matched_exactly_though_a_less_alike_output_is_nearer",
    "loopmetric.detectors._text:90": _WINDOWS + "test_outputs_exactly_at_the_similarity_threshold_repeat",
    **{f"loopmetric.detectors._text:{n}": _WINDOWS + "test_the_actions_written_are_all_remembered_exactly_and_32_of_a_"
       "name_by_likeness" for n in (127, 136)},
    **{f"loopmetric.detectors._text:{n}": _WINDOWS + "test_actions_exactly_at_the_cut_off_are_alike" for n in (146, 168)},
    **{f"loopmetric.detectors._replies:{n}": "tests/detectors/test_pinned_detectors.py::test_every_turn_between_two_"
       "replies_is_what_the_reply_was_told" for n in (143, 144)},
}


# The functions touched by the session of 2026-12-05 (fourth): the actions a reply writes, facts in
# replies, spans that hold themselves; and functions of the session before left out of its run.
D756956_FUNCTIONS = ("loopmetric/_text_actions.py::count_text_actions",
                      "loopmetric/detectors/_rejections.py::_feedback_findings",
                      "loopmetric/detectors/_replies.py::new_in",
                      "loopmetric/detectors/_replies.py::detect_repeated_replies",
                      "loopmetric/detectors/_facts.py::facts",
                      "loopmetric/readers/_openai_agents.py::_items",
                      "loopmetric/detectors/_news.py::failure_kind",
                      "loopmetric/detectors/_similarity.py::__init__")
_NO_TEXT = "every step but a tool call has a text (an LLM output's, an input's), and a tool call is passed by: "
_FOLDED = ("the cheap check of `declines` decides alike on the text lowercased or on its normalized form: every "
           "phrasing the pattern matches holds one of its markers with a plain space")
EQUIVALENT_AT_D756956: dict[str, str] = {
    **{f"loopmetric._text_actions:{n}": _FAST + "the cheap check lets the text through, and the pattern decides alike"
       for n in (105, 117)},
    "loopmetric._text_actions:110": "the count is 0 before the tags are counted: `=` and `+=` give the same",
    **{f"loopmetric.detectors._replies:{n}": _FOLDED for n in (69, 71, 73, 75)},
    "loopmetric.detectors._replies:116": "the value stored with a chain's first reply is never read (a link's value "
                                         "is the later reply's)",
    **{f"loopmetric.detectors._replies:{n}": _NO_TEXT + "the default of `getattr` is never taken"
       for n in (214, 217, 220)},
    **{f"loopmetric.detectors._replies:{n}": "a tool call has no text: taken in, it tells no fact" for n in (206, 207)},
    "loopmetric.detectors._replies:221": "an empty text read as \"XXXX\" tells no fact either (no digit, no e-mail)",
    **{f"loopmetric.detectors._news:{n}": "split at most once or at every sentence end, the first part is the same"
       for n in (161, 166)},
    "loopmetric.detectors._news:165": "a sentence end found only after the 300th character cuts nothing of the first 300",
    "loopmetric.detectors._news:173": "every one-line failure's kind gains the same tail: kinds are only compared with "
                                      "each other, and equal or differ alike",
    **{f"loopmetric.detectors._news:{n}": "another mark for the same masked words, numbers or spaces, the same in every "
       "kind: kinds equal or differ alike" for n in (213, 221, 224, 226)},
}
_FEEDBACK = "tests/detectors/test_rejected_feedback.py::"
PINNED_AT_D756956: dict[str, str] = {
    **{f"loopmetric.detectors._rejections:{n}": _FEEDBACK + "test_a_turn_of_the_other_side_ends_a_chain_of_rejected_"
       "replies" for n in (91, 92)},
    **{f"loopmetric.detectors._rejections:{n}": _FEEDBACK + "test_only_results_of_the_calls_a_reply_asked_for_are_its_"
       "feedback" for n in (103, 105, 107, 108, 109)},
    "loopmetric.detectors._rejections:125": _FEEDBACK + "test_a_reply_writing_one_action_before_the_chain_does_not_end_"
                                            "the_scan",
    **{f"loopmetric._text_actions:{n}": "tests/test_text_actions.py::test_count_text_actions" for n in (101, 122)},
    **{f"loopmetric.readers._openai_agents:{n}": "tests/readers/test_reader_openai_agents.py::test_the_reader_itself_"
       "takes_one_span_per_line" for n in (49, 51, 52)},
    "loopmetric.readers._openai_agents:66": "tests/readers/test_reader_openai_agents.py::test_what_is_no_object_in_a_"
                                            "list_of_spans_is_passed_by",
    **{f"loopmetric.readers._openai_agents:{n}": "tests/readers/test_reader_openai_agents.py::test_a_span_without_its_"
       "object_field_is_a_span_though_it_holds_a_data_list" for n in (71, 72)},
    **{f"loopmetric.detectors._news:{n}": "tests/detectors/test_news.py::test_failure_kind"
       for n in (153, 155, 156, 164, 172, 182, 183, 188, 189, 190, 191, 192, 198, 207)},
    "loopmetric.detectors._similarity:0": "tests/detectors/test_similarity.py::test_a_huge_output_is_compared_on_its_"
                                          "head_and_tail",
}

_SENT_AGAIN = "tests/detectors/test_resent_changes.py::"
_ONCE = "a value kept so as not to compute it twice: "
_EXPLORATION = "tests/detectors/test_attempt_exploration.py::"
_PIN_D = "tests/detectors/test_pinned_detectors.py::"
_RESTATED = "tests/detectors/test_restated_replies.py::"

# The 2f01edf run's survivors, read on the tree of 680f2b7: a line still there was put back as it was; a line
# rewritten since, the same change put back on its current form (each run and seen to fail).
_FIRST_REPLY = "the first reply, with no reply before it to link to, resets it before any reply reads it"
EQUIVALENT_AT_2F01EDF: dict[str, str] = {
    **{f"loopmetric.detectors._replies:{n}": _FIRST_REPLY for n in (153, 154, 155)},
    "loopmetric.detectors._replies:267": "after a tool call the next reply, with no reply before it since, resets "
    "`brought` and `told` before any reply reads them (the line is gone since for that reason)",
    "loopmetric.detectors._replies:292": "the next reply, with no reply before it since, sets the run afresh before "
    "it is read (the reset is gone since for that reason)",
    "loopmetric.detectors._stances:17": "a hyphen and a space both end a word and both are word boundaries of the "
    "two-capitals pattern: the same stems (the line is gone since for that reason)",
}
_BRINGS = _RESTATED + "test_what_the_other_side_brings_and_the_reply_takes_up"
_LONGEST = _RESTATED + "test_the_most_turns_a_chain_can_have_is_counted_without_reading_a_text"
PINNED_AT_2F01EDF: dict[str, str] = {
    **{f"loopmetric.detectors._rejections:{n}": _RESTATED + "test_the_agents_repeat_found_by_the_rejection_rule_says_"
       "whose_it_is" for n in (265, 266, 282)},
    "loopmetric.detectors._rejections:310": _RESTATED + "test_a_harness_rejection_is_fingerprinted_by_what_the_"
    "harness_said",
    **{f"loopmetric.detectors._replies:{n}": _RESTATED + "test_replies_in_a_row_whose_turns_were_not_recorded_are_"
       "turns" for n in (142, 205, 302)},
    "loopmetric.detectors._replies:171": _BRINGS + "[a-name-brought-two-turns-before-the-reply]",
    **{f"loopmetric.detectors._replies:{n}": _BRINGS + "[a-name-brought-and-taken-up-ends-the-chain]"
       for n in (172, 192, 318)},
    "loopmetric.detectors._replies:176": _BRINGS + "[a-fact-told-two-turns-before-the-reply]",
    **{f"loopmetric.detectors._replies:{n}": _RESTATED + "test_a_name_the_other_side_says_again_is_not_brought_again"
       "[a-name-the-user-said-two-turns-before-says-nothing-new-when-said-again]" for n in (174, 175, 194)},
    "loopmetric.detectors._replies:195": _RESTATED + "test_a_name_the_agent_had_said_is_not_brought_by_the_user_who_"
    "says_it_again",
    **{f"loopmetric.detectors._replies:{n}": _RESTATED + "test_a_story_whose_people_must_do_one_thing_after_another_"
       "is_no_rule_restated" for n in (236, 237)},
    "loopmetric.detectors._replies:239": _RESTATED + "test_a_chain_first_linked_by_nothing_new_takes_its_subject_from_"
    "its_first_no",
    **{f"loopmetric.detectors._replies:{n}": "tests/detectors/test_conversation_meaning.py::test_replies_of_one_"
       "meaning_are_a_conversation_loop[the-same-refusal-five-ways]" for n in (240, 241)},
    "loopmetric.detectors._replies:281": _LONGEST + "[nothing]",
    "loopmetric.detectors._replies:287": _LONGEST + "[a-request-between]",
    "loopmetric.detectors._replies:293": _LONGEST + "[a-tool-call-first]",
    **{f"loopmetric.detectors._replies:{n}": _LONGEST + "[three-replies-two-turns]" for n in (296, 307)},
    "loopmetric.detectors._replies:329": _RESTATED + "test_a_no_compared_past_a_reply_of_another_stance",
    **{f"loopmetric.detectors._replies:{n}": _RESTATED + "test_the_finding_says_every_way_the_chain_said_it_again_and_"
       "its_steps" for n in (362, 383)},
    "loopmetric.detectors._stances:2": _RESTATED + "test_stems[a-stem-keeps-three-letters]",
    **{f"loopmetric.detectors._stances:{n}": _RESTATED + "test_stems[the-words-that-mark-a-stance-are-cut]"
       for n in (3, 4)},
    **{f"loopmetric.detectors._stances:{n}": _RESTATED + "test_stances[a-curly-apostrophe-says-no]" for n in (37, 38)},
    **{f"loopmetric.detectors._stances:{n}": _RESTATED + "test_stems[a-curly-apostrophe-is-an-apostrophe]"
       for n in (15, 16)},
}

# The test files a reader's mutants run in the run of 02c1198 (its own and the tables that pin it).
_CONFORMANCE = tuple(f"tests/readers/test_conformance_{name}.py" for name in (
    "chat", "deepeval", "openai_agents", "otlp", "platforms", "pydantic_ai", "research"))
_PINNED_READERS = "tests/readers/test_pinned_readers.py"
_DEEPEVAL_CONFORMANCE = "tests/readers/test_conformance_deepeval.py::test_deepeval_conformance["
_EACH_KIND = "tests/test_canonical.py::test_scanned_masking_of_each_kind["
_EXPORTED = ("tests/readers/test_reader_exported.py", "tests/readers/test_exported_formats.py", _PINNED_READERS)

_TEAM_ASKS = "tests/readers/test_group_chat.py::test_each_reply_of_a_team_chat_asks_for_the_calls_that_answer_it["
# The a4012db run's survivors of `read_step`, killed on the same module text (unchanged since) by the processor's
# behaviour tests, which are older than the run but which it did not choose for `_adapter` (measured by the
# c5f8839 run's tests): mutant -> the first test that failed.
_ADAPTER_KILLED_BY_OLDER_TESTS: dict[str, str] = {
    **{f"loopmetric.otel._adapter:{n}": "tests/otel/test_processor.py::"
       "test_each_loop_alarms_once[three-alike]" for n in (42, 44, 57)},
    **{f"loopmetric.otel._adapter:{n}": "tests/otel/test_processor.py::"
       "test_repeated_replies[three-same-replies]" for n in (46, 58, 63)},
    **{f"loopmetric.otel._adapter:{n}": "tests/otel/test_live_fields.py::"
       "test_a_live_finding_equals_the_offline_one_field_by_field" for n in (52, 74)},
    "loopmetric.otel._adapter:59": "tests/otel/test_processor.py::test_the_loop_span_sits_under_the_loops_parent_"
    "span_or_under_a_root_that_completed_it[a-reply-that-is-the-root-its-loop-span-under-that-reply]",
    **{f"loopmetric.otel._adapter:{n}": "tests/otel/test_live_fields.py::test_a_live_findings_cost_adds_up_the_"
       "replies_costs_as_offline[same-text-each-reply-priced]" for n in (61, 68)},
    **{f"loopmetric.otel._adapter:{n}": "tests/otel/test_processor.py::"
       "test_the_loop_settings_apply[default-threshold-3]" for n in (76, 82, 86, 92, 95)},
    **{f"loopmetric.otel._adapter:{n}": "tests/otel/test_processor.py::"
       "test_the_loop_settings_apply[threshold-4-three-calls]" for n in (87, 89, 90)},
}

_RESPONSES_PINS = "tests/readers/test_exported_formats.py::"
_HOOK_PINS = "tests/hooks/test_hook_settings.py::"
_ONE_WAY = "tests/detectors/test_asked_while_lacking.py::test_asked_again_one_way_while_the_other_side_lacks_it"
_PARTS = "tests/readers/test_inference.py::test_the_other_sides_turn_reads_human_roles_and_untyped_parts"
_UNRECORDED_UNREAD = ("the already-said link reads turns of the other side (it returns at once on a trace with no "
                      "input step), and no reader makes a trace that holds such a turn and says its turns were not "
                      "recorded (`turns_recorded` is False only when no LLM input held text, and only such text "
                      "makes a turn): its `unrecorded` is never true where it is read")

_EVENT = "tests/hooks/test_hook_event_in_process.py"  # the hook's event call read in process (run 8c44702's pins)
_CHAT_ROW = "tests/readers/test_conformance_chat.py::test_chat_conformance["
_CHAT_SPANS = "tests/readers/test_conformance_chat.py::test_chat_conformance_in_agent_spans["
_INSTALL = "tests/hooks/test_hook_install.py::test_install_says_what_the_hook_would_lack["

# Every `--functions` run, by the commit it mutated; `--functions` with no function names runs the last.
FUNCTION_RUNS: dict[str, FunctionRun] = {
    "4930ab9": FunctionRun(CHANGED_FUNCTIONS, EQUIVALENT_IN_FUNCTIONS, PINNED_IN_FUNCTIONS),
    "d756956": FunctionRun(D756956_FUNCTIONS, EQUIVALENT_AT_D756956, PINNED_AT_D756956),
    # `facts` again once it read texts with clocks and attempt counters masked.
    "2ff58e0": FunctionRun(("loopmetric/detectors/_facts.py::facts",), {}, {}),
    # The one forward reader of what the conversation said, once `_Vocabulary` and `_Facts` were folded.
    "9a7961a": FunctionRun(("loopmetric/detectors/_replies.py::before", "loopmetric/detectors/_replies.py::_tells_news"),
                           {"loopmetric.detectors._replies:193": _NO_TEXT + "the default of `getattr` is never taken",
                            **{f"loopmetric.detectors._replies:{n}": "a tool call has no text: read, it adds nothing"
                               for n in (197, 198)}}, {}),
    # The text-action helpers and the detector cache once their twins were folded (a refactor).
    "9b4071c": FunctionRun(
        ("loopmetric/_text_actions.py::find_text_action", "loopmetric/_text_actions.py::count_text_actions",
         "loopmetric/_text_actions.py::_action_tags", "loopmetric/_text_actions.py::_fenced_blocks",
         "loopmetric/detectors/__init__.py::_enabled", "loopmetric/detectors/__init__.py::_turned_on"),
        {**{f"loopmetric._text_actions:{n}": _FAST + "the cheap check lets the text through, and the pattern decides "
            "alike" for n in (21, 61, 92, 100)},
         "loopmetric.detectors:19": _CACHE + "the cached tuple is never the registry itself, so the cache is never read",
         **{f"loopmetric.detectors:{n}": _CACHE + "a cache of 64 or 65 settings answers alike" for n in (24, 25)},
         "loopmetric.detectors:26": _CACHE + "None stored is no cached answer"}, {}),
    # A change sent again: the pass over silent calls, numbers as targets, a short listing as data.
    "f335167": FunctionRun(
        ("loopmetric/detectors/_attempts.py::_silent", "loopmetric/detectors/_attempts.py::_split",
         "loopmetric/detectors/_attempts.py::_finding", "loopmetric/detectors/_near.py::near_identical",
         "loopmetric/detectors/_near.py::near_identical_groups", "loopmetric/detectors/_news.py::says_little"),
        {"loopmetric.detectors._near:78": "a list with no word the other lacks is part of it: they share all its "
         "words, or it is empty and the second clause holds",
         "loopmetric.detectors._near:102": "with no word shared the Jaccard below is 0 and returns False too: the "
         "check is a shortcut",
         **{f"loopmetric.detectors._near:{n}": _ONCE + "each argument list's words read again, alike"
            for n in (117, 118)},
         "loopmetric.detectors._news:58": "no result read as a four-letter word says little, as the empty text does",
         **{f"loopmetric.detectors._news:{n}": "a result past 8 words returns before its tokens are read, so the "
            "split's limit (and its side) only saves time" for n in (79, 80)},
         "loopmetric.detectors._news:366": _ONCE + "what a result says computed again, alike"},
        {**{f"loopmetric.detectors._attempts:{n}": _SENT_AGAIN + "test_a_change_sent_again_is_one_attempt"
            for n in (206, 256)},
         **{f"loopmetric.detectors._attempts:{n}": _SENT_AGAIN + "test_a_run_broken_by_another_call_of_its_tool_is_"
            "told_with_its_tool_steps_and_attempts" for n in (249, 250, 357, 364)},
         "loopmetric.detectors._attempts:190": _SENT_AGAIN + "test_changes_to_other_targets_or_checked_between_are_work",
         **{f"loopmetric.detectors._attempts:{n}": _SENT_AGAIN + "test_a_note_to_self_splits_a_run_of_changes_sent_"
            "again" for n in (263, 264, 265, 266, 267)},
         **{f"loopmetric.detectors._near:{n}": _EXPLORATION + "test_long_argument_lists_sharing_seven_tenths_of_"
            "their_words_are_one_attempt" for n in (107, 109)},
         **{f"loopmetric.detectors._near:{n}": _EXPLORATION + "test_two_attempts_are_grouped_by_target"
            for n in (111, 112)},
         "loopmetric.detectors._news:369": _SENT_AGAIN + "test_what_a_result_says_is_read_for_calls_made_again_too"}),
    # The same pass once it found runs of one outcome first and read what each member says only in long runs.
    "e5eb61d": FunctionRun(("loopmetric/detectors/_attempts.py::_silent",
                            "loopmetric/detectors/_attempts.py::_silent_call"), {}, {}),
    # Changes judged by stricter words than attempts (`same_change`), `near_identical` without its flag.
    "717486c": FunctionRun(
        ("loopmetric/detectors/_near.py::same_change", "loopmetric/detectors/_near.py::near_identical",
         "loopmetric/detectors/_near.py::near_identical_groups"),
        {"loopmetric.detectors._near:72": "a list with no word the other lacks is part of it: they share all its "
         "words, or it is empty and the second clause holds",
         "loopmetric.detectors._near:96": "with no word shared the Jaccard below is 0 and returns False too: the "
         "check is a shortcut",
         **{f"loopmetric.detectors._near:{n}": _ONCE + "each argument list's words read again, alike"
            for n in (153, 154)}},
        {f"loopmetric.detectors._near:{n}": _SENT_AGAIN + "test_same_change_by_hand"
         for n in (118, 129, 136, 139, 143, 144, 145)}),
    # The same functions once they shared `_respelled`, `_paired` and `_reworded` (a refactor).
    "c1a3e14": FunctionRun(
        tuple(f"loopmetric/detectors/_near.py::{name}" for name in
              ("_respelled", "_paired", "_reworded", "_same_target", "near_identical", "same_change")),
        {"loopmetric.detectors._near:97": "a list with no word the other lacks is part of it: they share all its "
         "words, or it is empty and the second clause holds",
         "loopmetric.detectors._near:110": "with no word shared the Jaccard below is 0 and returns False too: the "
         "check is a shortcut"}, {}),
    # The counter rule and the speed work of the sixth session: the progress model's walk (its longest run
    # of one outcome, `_units_and_lines`, the `_same` precheck), `runs` computed once, `says_little`
    # counting words first, the change-sent-again pass's skip, `alike_in_counters_only`.
    "a27045d": FunctionRun(
        tuple(f"loopmetric/detectors/_news.py::{name}" for name in
              ("__init__", "says_little", "runs", "_units_and_lines", "alike_in_counters_only"))
        + ("loopmetric/detectors/_attempts.py::_silent",),
        {"loopmetric.detectors._news:48": "the shortcut for a line already folded: the other path calls `info_units` and `_lines` themselves, right for any text",
         "loopmetric.detectors._news:49": "the shortcut for a line already folded: the other path calls `info_units` and `_lines` themselves, right for any text",
         "loopmetric.detectors._news:51": "the shortcut for a line already folded: the other path calls `info_units` and `_lines` themselves, right for any text",
         "loopmetric.detectors._news:85": "split without a limit: more than 8 words either way, and the same tokens when there are 8 or fewer",
         "loopmetric.detectors._news:86": "rsplit with the same limit: more than 8 words either way, and the same tokens when there are 8 or fewer",
         "loopmetric.detectors._news:285": "every news count one higher: only differences and equalities of counts are read",
         "loopmetric.detectors._news:295": "an input counts two: only whether a count moved is read (`is_news`, `quiet_between`)",
         "loopmetric.detectors._news:339": "None is as false as False",
         "loopmetric.detectors._news:367": "a call counts two: only whether a count moved is read (`is_news`, `quiet_between`)",
         "loopmetric.detectors._news:371": "reached with little None only for a result the same as before, which has more than 8 words and so never says little",
         "loopmetric.detectors._news:372": "reached only for a result the same as before, which has more than 8 words: says_little is False, as falsy as None",
         "loopmetric.detectors._news:381": "a cache: `Progress.says_little` computes a value left None",
         "loopmetric.detectors._news:385": "the same maximum",
         "loopmetric.detectors._news:426": "a cache: `Progress.says_little` computes a value left None"},
        {"loopmetric.detectors._news:469": "tests/detectors/test_news.py::test_runs_are_in_order_of_their_start_and_of_two_calls_or_more",
         "loopmetric.detectors._news:476": "tests/detectors/test_news.py::test_runs_are_in_order_of_their_start_and_of_two_calls_or_more",
         "loopmetric.detectors._news:479": "tests/detectors/test_news.py::test_runs_are_in_order_of_their_start_and_of_two_calls_or_more"}),
    # The same walk once the first call of a tool compares with nothing (for mypy), and `_folded`.
    "6a1f7c5": FunctionRun(
        tuple(f"loopmetric/detectors/_news.py::{name}" for name in ("__init__", "alike_in_counters_only", "_folded")),
        {"loopmetric.detectors._news:72": "both sides folded with the same joiner, which holds one space: equal lines stay equal and keep their "
         "number of words",
         "loopmetric.detectors._news:287": "every news count one higher: only differences and equalities of counts are read",
         "loopmetric.detectors._news:297": "an input counts two: only whether a count moved is read (`is_news`, `quiet_between`)",
         "loopmetric.detectors._news:317": "None is as false as False wherever the two are read",
         "loopmetric.detectors._news:340": "None is as false as False",
         "loopmetric.detectors._news:368": "a call counts two: only whether a count moved is read (`is_news`, `quiet_between`)",
         "loopmetric.detectors._news:372": "reached with little None only for a result the same as before, which has more than 8 words and so "
         "never says little",
         "loopmetric.detectors._news:373": "reached only for a result the same as before, which has more than 8 words: says_little is False, as "
         "falsy as None",
         "loopmetric.detectors._news:382": "a cache: `Progress.says_little` computes a value left None",
         "loopmetric.detectors._news:386": "the same maximum"}, {}),
    # The simplification after the review: `_read_lines` shared by `info_units` and `_units_and_lines`,
    # `_substantial` (was `_same`), `_answered` shared by `_succeeds` and `_silent_call`.
    "d913816": FunctionRun(
        tuple(f"loopmetric/detectors/_news.py::{name}" for name in
              ("_read_lines", "info_units", "_units_and_lines", "_substantial", "__init__"))
        + tuple(f"loopmetric/detectors/_attempts.py::{name}" for name in ("_answered", "_silent_call", "_succeeds")),
        {"loopmetric.detectors._news:53": "the shortcut for a line already folded: the other path calls `info_units` and `_lines` themselves, right for any text",
         "loopmetric.detectors._news:54": "the shortcut for a line already folded: the other path calls `info_units` and `_lines` themselves, right for any text",
         "loopmetric.detectors._news:56": "the shortcut for a line already folded: the other path calls `info_units` and `_lines` themselves, right for any text",
         "loopmetric.detectors._news:279": "every news count one higher: only differences and equalities of counts are read",
         "loopmetric.detectors._news:289": "an input counts two: only whether a count moved is read (`is_news`, `quiet_between`)",
         "loopmetric.detectors._news:309": "None is as false as False wherever the two are read",
         "loopmetric.detectors._news:328": "None is as false as False",
         "loopmetric.detectors._news:356": "a call counts two: only whether a count moved is read (`is_news`, `quiet_between`)",
         "loopmetric.detectors._news:360": "reached with little None only for a result the same as before, which has more than 8 words and so "
         "never says little",
         "loopmetric.detectors._news:361": "reached only for a result the same as before, which has more than 8 words: says_little is False, as "
         "falsy as None",
         "loopmetric.detectors._news:370": "a cache: `Progress.says_little` computes a value left None",
         "loopmetric.detectors._news:374": "the same maximum"},
        {"loopmetric.detectors._news:389": "tests/detectors/test_news.py::test_a_result_not_recorded_is_never_the_same_as_the_one_before"}),
    # The coding agents' rules: fruitless_changes (`_judged`, `_one_way`, `_fruitless`), `fails`, `acknowledges` and
    # the calls that get nothing back (`_nothing_back`, `_nothing`), after the tests of dc8e740.
    "dc8e740": FunctionRun(
        ("loopmetric/detectors/_obvious.py::_judged", "loopmetric/detectors/_obvious.py::_one_way",
         "loopmetric/detectors/_obvious.py::_fruitless", "loopmetric/detectors/_news.py::fails",
         "loopmetric/detectors/_news.py::acknowledges", "loopmetric/detectors/_attempts.py::_nothing_back",
         "loopmetric/detectors/_attempts.py::_nothing"),
        {**{f"loopmetric.detectors._obvious:{n}": "every call of a chain has the same error flag and the same result "
            "once volatile tokens are masked, so it fails alike: the first and the second read the same"
            for n in (92, 127, 154)},
         "loopmetric.detectors._obvious:115": "with one stretch, `stretches = [chain]` leaves it as it was",
         "loopmetric.detectors._obvious:255": "one change is never one way of changing things tried again (one tool "
         "for it), so no finding says '1 change'",
         "loopmetric.detectors._obvious:213": "a chain is made of calls whose result was recorded: never None",
         "loopmetric.detectors._obvious:217": "a result of white space only acknowledges, and such a chain is "
         "judged no further: the answer always has a line",
         "loopmetric.detectors._attempts:277": "one more turn of the loop with no call: nothing is read",
         "loopmetric.detectors._attempts:319": "every call of a run got the same nothing back: the first and the "
         "second failed alike",
         "loopmetric.detectors._attempts:333": "a run is made of one tool's calls: the first and the second name it "
         "alike",
         "loopmetric.detectors._attempts:346": "the line was replaced since (5767884: `failure_kind(..., "
         "first_sentence=True)`); [0] of a split with no limit is the same first part",
         "loopmetric.detectors._attempts:349": "the line was replaced since (5767884); [0] of a split at most twice "
         "is the same first part",
         "loopmetric.detectors._attempts:351": "the empty answer is only compared with other answers, none of which "
         "is 'XXXX'"},
        {"loopmetric.detectors._obvious:171": "tests/detectors/test_fruitless_changes.py::"
         "test_one_way_of_changing_things_at_most_one_tool_for_every_two_changes",
         "loopmetric.detectors._obvious:173": "tests/detectors/test_fruitless_changes.py::"
         "test_one_way_of_changing_things_at_most_one_tool_for_every_two_changes",
         "loopmetric.detectors._obvious:203": "tests/detectors/test_fruitless_changes.py::"
         "test_the_unchanged_answer_is_the_first_runs_last_line",
         "loopmetric.detectors._obvious:219": "tests/detectors/test_fruitless_changes.py::"
         "test_the_unchanged_answer_is_the_first_runs_last_line",
         "loopmetric.detectors._news:18": "tests/detectors/test_fruitless_changes.py::"
         "test_fails_reads_the_head_and_the_last_two_lines",
         "loopmetric.detectors._attempts:347": "tests/detectors/test_nothing_back.py::"
         "test_a_first_sentence_with_a_slash_in_it_is_read_whole",
         **{f"loopmetric.detectors._obvious:{n}": "tests/detectors/test_fruitless_changes.py::"
            "test_a_failure_in_words_has_the_obvious_loops_fingerprint_of_a_result" for n in (266, 267)}}),
    # Functions changed since 2026-12-05 behind what a user sees (a lead followed, failures in words, a
    # repeated text's copies, the live processor's replies and its looks at the queue), each module given
    # 30 mutants or more: _attempts 31, _news 36, _text 42, otel._window 55, otel._processor 36.
    "9ca93f0": FunctionRun(
        ("loopmetric/detectors/_attempts.py::followed", "loopmetric/detectors/_attempts.py::_grow",
         "loopmetric/detectors/_news.py::fails", "loopmetric/detectors/_news.py::_reports_failure",
         "loopmetric/detectors/_news.py::_argument_words", "loopmetric/detectors/_text.py::_copies_before",
         "loopmetric/otel/_window.py::_reply", "loopmetric/otel/_processor.py::_look",
         "loopmetric/otel/_processor.py::on_end"),
        {**{f"loopmetric.detectors._text:{n}": "the first guess of the episode's place is checked, and when it "
            "is wrong the count finds the same place: the answer is the same" for n in range(191, 199)},
         **{f"loopmetric.detectors._text:{n}": "a trace's steps are numbered from 1 in order, so the first "
            "guess is always right and the count is never reached" for n in range(199, 203)},
         **{f"loopmetric.detectors._news:{n}": "a cap on the words read of huge arguments: 10,000 or 10,001 "
            "words mask a failure alike" for n in (185, 186)},
         "loopmetric.otel._window:58": "None is as false as False",
         "loopmetric.otel._window:78": "the same text going on while its loop is open returns before any check, "
         "and another text starts its count afresh: a count of 0 or 1 there never reaches a threshold",
         "loopmetric.otel._processor:259": "with nothing waiting `_due` reads no wait: 0.0 or 1.0 alike"},
        {**{f"loopmetric.detectors._attempts:{n}": _PIN_D + "test_a_query_a_result_suggested_follows_a_lead_"
            "wherever_the_result_names_it" for n in (407, 408, 424)},
         **{f"loopmetric.detectors._attempts:{n}": _PIN_D + "test_an_attempt_repeating_an_earlier_calls_own_"
            "argument_follows_no_lead" for n in (409, 413)},
         **{f"loopmetric.detectors._news:{n}": _PIN_D + "test_failures_naming_their_own_arguments_are_one_kind"
            for n in (182, 191)},
         **{f"loopmetric.detectors._text:{n}": _PIN_D + "test_a_repeated_texts_count_is_its_copies_in_a_row_"
            "back_to_another_text" for n in (212, 226)},
         **{f"loopmetric.otel._window:{n}": "tests/otel/test_live_fields.py::test_a_live_finding_equals_the_"
            "offline_one_field_by_field" for n in (27, 41, 46)},
         **{f"loopmetric.otel._processor:{n}": "tests/otel/test_processor.py::test_how_long_spans_waited_is_"
            "counted_from_when_they_were_first_seen_on_any_clock" for n in (257, 273)}}),
    # Each distinct text masked once per trace (the memo), long texts masked only where a match can begin.
    "5612dec": FunctionRun(
        ("loopmetric/_memo.py::per_text", "loopmetric/_memo.py::text_memo",
         "loopmetric/_canonical.py::_sub_at_starts", "loopmetric/_canonical.py::_starts",
         "loopmetric/_canonical.py::_mask_long_result", "loopmetric/_canonical.py::_words_at_word_start",
         "loopmetric/_canonical.py::mask_volatile"),
        {"loopmetric._canonical:289": "X between the first letters adds X to the scan's first characters: more "
         "positions tried, and the pattern, tried there, matches nowhere it did not (the same masked text)",
         "loopmetric._canonical:337": "every match handed to `Pattern.sub` over the whole text: the same masked "
         "text, the slow way",
         **{f"loopmetric._canonical:{n}": "the turn label is anchored at the start of the text (no MULTILINE): it "
            "matches once at most, whatever the count" for n in (357, 359)}}, {}),
    # The modules changed since 9ca93f0 with no run yet: the readers' builder (the functions
    # the renderings work added; the readers' other changed functions were not run, see the report).
    "1c64ff4": FunctionRun(
        ("loopmetric/readers/_builder.py::name_action", "loopmetric/readers/_builder.py::task_text",
         "loopmetric/readers/_builder.py::open_calls", "loopmetric/readers/_builder.py::result_texts"),
        {"loopmetric.readers._builder:206": "a call's error text is set with its error flag only (the result's "
         "text, or `error`), so `or` and `and` choose the same text"},
        {**{f"loopmetric.readers._builder:{n}": "tests/readers/test_builder.py::test_the_first_tool_after_a_reply_"
            "with_one_inferred_action_names_it" for n in (188, 189, 190, 200)},
         "loopmetric.readers._builder:185": "tests/readers/test_builder.py::test_the_open_calls_are_the_tools_that_"
         "ran_or_else_what_the_replies_asked_for",
         "loopmetric.readers._builder:208": "tests/readers/test_builder.py::test_the_result_texts_of_the_tools_that_"
         "ran_are_each_results_text"}),
    # The core guard every adapter runs on, and the hook's state between processes.
    "5deaf05": FunctionRun(
        ("loopmetric/guard/_core.py::before_call", "loopmetric/guard/_core.py::action_for",
         "loopmetric/hooks/_state.py::read_state"),
        {"loopmetric.guard._core:47": "None is as false as False wherever `pending` is read",
         "loopmetric.guard._core:48": "a refused call is also marked reported, and every check passes over a "
         "reported call whatever `pending` says",
         "loopmetric.hooks._state:52": "the platform's default encoding, on this machine and under Python's "
         "C-locale coercion, is UTF-8",
         "loopmetric.hooks._state:54": "`UTF-8` and `utf-8` name the same codec"},
        {"loopmetric.guard._core:26": "tests/guard/test_guard_core.py::test_bad_input_is_a_clear_error",
         **{f"loopmetric.guard._core:{n}": "tests/guard/test_guard_core.py::test_a_decision_names_the_ids_of_the_"
            "calls_that_formed_the_loop" for n in (53, 56)},
         **{f"loopmetric.hooks._state:{n}": "tests/hooks/test_hook_state.py::test_a_sessions_state_is_read_back_"
            "or_dropped_with_the_reason" for n in (55, 58, 59, 69, 70, 71, 72, 81)}}),
    # The calls answered as before (a reply's calls each answered as the same call was before).
    "00a3e43": FunctionRun(
        tuple(f"loopmetric/detectors/_replies.py::{name}" for name in
              ("_unchanged", "_longest_turns", "_after_input", "_turn")),
        {},
        {"loopmetric.detectors._replies:311": "tests/detectors/test_restated_replies.py::test_calls_answered_as_before"
         "[an-output-asking-for-two-calls-both-answered-as-before]"}),
    # The same thing in other words (`_restated`), read only when some turns of a conversation are long enough.
    "2f01edf": FunctionRun(
        ("loopmetric/detectors/_stances.py::_stem", "loopmetric/detectors/_stances.py::stems",
         "loopmetric/detectors/_stances.py::stances", "loopmetric/detectors/_replies.py::_restated",
         "loopmetric/detectors/_replies.py::_turn", "loopmetric/detectors/_replies.py::_longest_turns",
         "loopmetric/detectors/_replies.py::_stances_of", "loopmetric/detectors/_replies.py::_named",
         "loopmetric/detectors/_replies.py::_says_again", "loopmetric/detectors/_replies.py::_restated_finding",
         "loopmetric/detectors/_rejections.py::_finding"),
        EQUIVALENT_AT_2F01EDF, PINNED_AT_2F01EDF),
    # Attempts by reply: similar_attempts' finding, its calls-that-get-nothing-back pass, Progress.attempts, in_replies.
    "b2aab54": FunctionRun(
        ("loopmetric/detectors/_attempts.py::_finding", "loopmetric/detectors/_attempts.py::_nothing_back",
         "loopmetric/detectors/_news.py::attempts", "loopmetric/detectors/_news.py::in_replies"),
        {**{f"loopmetric.detectors._attempts:{n}": _FAST + "the early return when too few calls got nothing back "
            "returns less often; the runs' own length check decides alike" for n in (278, 280)},
         "loopmetric.detectors._attempts:298": "a run shorter than 2 x threshold cannot reach either count (both at "
         "least 2 x threshold calls or attempts, and a run has no more attempts than calls): no finding either way",
         "loopmetric.detectors._attempts:310": "the runs that reach the line have 2 x threshold calls at least (the "
         "length check before it): the condition is true either way",
         **{f"loopmetric.detectors._attempts:{n}": "every call of a run got the same nothing back: the first and the "
            "second failed alike" for n in (306, 325)},
         "loopmetric.detectors._attempts:339": "a run is made of one tool's calls: the first and the second name it "
         "alike"},
        {**{f"loopmetric.detectors._attempts:{n}": "tests/detectors/test_reply_attempts.py::test_calls_that_get_"
            "nothing_back_count_by_reply[three-replies-of-two-re-sent-no-ops]" for n in (309, 316)},
         "loopmetric.detectors._attempts:344": "tests/detectors/test_nothing_back.py::test_a_run_of_nothing_back_"
         "starts_at_the_call_that_ended_the_one_before[six-no-ops-re-sent-then-six-to-another-tool-two-loops]"}),
    # A turn counts as a change only when it says it made the change the agent's reply before asked for.
    "e4e1ea1": FunctionRun(
        ("loopmetric/detectors/_facts.py::changes_told", "loopmetric/detectors/_facts.py::facts",
         "loopmetric/detectors/_stances.py::proposed", "loopmetric/detectors/_replies.py::_restated",
         "loopmetric/detectors/_replies.py::detect_repeated_replies",
         "loopmetric/detectors/_meaning.py::detect_conversation_loops"),
        {"loopmetric.detectors._facts:2": "`asked` is read only by a turn after a reply, which sets it: the start is "
         "never read (and None is as false as an empty set)",
         **{f"loopmetric.detectors._replies:{n}": "`declines` folds the text itself when not given it folded: "
            "the same answer" for n in (79, 81, 83, 85)},
         **{f"loopmetric.detectors._replies:{n}": "a change is a turn of the other side, whose step is never a "
            "reply's: `<` and `<=` choose the same turns" for n in (115, 116)},
         "loopmetric.detectors._replies:133": "the value stored with a chain's first reply is never read (a link's "
         "value is the later reply's)",
         "loopmetric.detectors._replies:152": "with no turn of the other side a call answered as before is passed "
         "by alike: replies are then linked only when next to each other",
         **{f"loopmetric.detectors._replies:{n}": "the first reply, with no reply before it to link to, resets it "
            "before any reply reads it" for n in (169, 170, 171)},
         **{f"loopmetric.detectors._meaning:{n}": "tool counts are only compared for equality: counted from 1, "
            "down, or by two, they are equal or differ alike" for n in (60, 75, 76)},
         "loopmetric.detectors._meaning:61": "a slice from None is a slice from 0",
         "loopmetric.detectors._meaning:69": "None is as false as False wherever `moved` is read",
         "loopmetric.detectors._meaning:96": "the first reply has no earlier one to repeat: the pass over it resets "
         "the list before any repeat is added",
         "loopmetric.detectors._meaning:99": "one more pass after the end, with the chain just reset: nothing found"},
        {"loopmetric.detectors._stances:73": "tests/detectors/test_facts.py::test_the_turns_that_say_the_change_"
         "their_reply_asked_for[a-change-asked-for-in-the-replys-first-sentence]",
         # (not equivalent: a sentence's "no" is read on the text with its curly apostrophes folded)
         **{f"loopmetric.detectors._stances:{n}": "tests/detectors/test_facts.py::test_the_turns_that_say_the_change_"
            "their_reply_asked_for[a-change-the-reply-said-it-cannot-make-with-a-curly-apostrophe-is-none]"
            for n in (69, 70)},
         "loopmetric.detectors._facts:15": "tests/detectors/test_facts.py::test_the_turns_that_say_the_change_"
         "their_reply_asked_for[two-changes-in-one-turn-each-read-as-its-own-words]",
         **{f"loopmetric.detectors._replies:{n}": "tests/detectors/test_restated_replies.py::test_a_name_the_other_"
            "side_says_again_is_not_brought_again[a-name-the-user-said-two-turns-before-says-nothing-new-when-said-"
            "again]" for n in (194, 195, 217)}}),
    # The modules changed in the last two sessions with no run yet, on the tree after the attempts-by-reply
    # session: the masking's entry point, the memo's block, the changes the other side says it made
    # (`changes_told`, `says_change`), the live guard's settings, the hooks' package, config and escalation,
    # a hosted tool call's error (Responses API).
    "680f2b7": FunctionRun(
        ("loopmetric/_canonical.py::mask_volatile", "loopmetric/_canonical.py::_mask_volatile",
         "loopmetric/_canonical.py::_mask_digits", "loopmetric/_memo.py::__enter__", "loopmetric/_memo.py::__exit__",
         "loopmetric/detectors/_news.py::changes_told", "loopmetric/detectors/_news.py::says_change",
         "loopmetric/otel/_processor.py::guard_settings", "loopmetric/hooks/__init__.py::__dir__",
         "loopmetric/hooks/__init__.py::__getattr__", "loopmetric/hooks/_config.py::find_config",
         "loopmetric/hooks/_config.py::load_settings", "loopmetric/hooks/_session.py::_escalating",
         "loopmetric/hooks/_session.py::_guard", "loopmetric/hooks/_session.py::_warning",
         "loopmetric/readers/_responses.py::_error_text"),
        {"loopmetric._canonical:270": _FAST + "a text of exactly 2,048 characters masked through the memo or "
         "directly: the same masked text",
         "loopmetric._canonical:291": _FAST + "a text of exactly the long length masked from the places a match can "
         "begin or over the whole text: the same masked text",
         "loopmetric._memo:5": "every exit follows an entry that sets the token anew: the value left after an exit "
         "is never read",
         "loopmetric.detectors._news:200": "no result read as a four-letter word without a change word says no "
         "change, as the empty text does",
         "loopmetric.detectors._news:210": "an empty last reply proposes nothing, so a turn before any reply is "
         "passed by all the same",
         "loopmetric.detectors._news:211": "every reply resets it before a turn after it reads it",
         "loopmetric.otel._processor:21": "the settings require the alternating threshold x 2 to fit in the window, "
         "so a cycle of two always fits: the loop stops at two either way",
         "loopmetric.hooks._session:535": "a loop's calls end with the call just made, whose preview the session "
         "has just written: what repeats is never empty"},
        {"loopmetric.detectors._news:225": "tests/detectors/test_facts.py::test_the_turns_that_say_the_change_their_"
         "reply_asked_for[a-change-asked-for-after-a-change-told-to-a-reply-that-proposed-nothing]",
         **{f"loopmetric.otel._processor:{n}": "tests/otel/test_processor.py::test_the_live_guard_looks_for_the_"
            f"longest_cycles_whose_rounds_fit_in_the_window[{case}]"
            for n, case in ((22, "only-two-calls-fit-8"), (24, "four-calls-three-rounds-fill-12"),
                            (27, "four-calls-do-not-fit-11"), (40, "the-repeated-text-threshold-is-offlines"))},
         "loopmetric.hooks:3": "tests/hooks/test_hook_settings.py::test_a_name_of_the_hooks_package_is_loaded_or_"
         "said_missing[twin-an-unknown-name-is-an-attribute-error-naming-it]",
         **{f"loopmetric.hooks:{n}": "tests/hooks/test_hook_settings.py::test_dir_lists_every_public_name_loaded_or_"
            "not_and_the_modules_own" for n in (14, 15, 16, 17)},
         **{f"loopmetric.hooks._config:{n}": "tests/hooks/test_hook_settings.py::test_a_config_file_is_read_on_top_"
            "of_the_settings_given[the-files-setting-on-top-of-the-base]" for n in (12, 14)},
         "loopmetric.hooks._config:15": "tests/hooks/test_hook_settings.py::test_a_wrong_setting_in_the_config_file_"
         "is_an_error_naming_the_file",
         **{f"loopmetric.hooks._session:{n}": "tests/hooks/test_hook_settings.py::test_a_hooks_guard_always_nudges_"
            "first_and_refuses_second[a-guard-given-without-escalate]" for n in range(5)},
         **{f"loopmetric.hooks._session:{n}": "tests/hooks/test_hook_command.py::test_the_warning_after_a_nudge_says_"
            "the_loop_goes_on_what_repeats_and_that_the_next_call_is_refused" for n in (531, 536, 537, 538, 539, 540)},
         **{f"loopmetric.readers._responses:{n}": "tests/readers/test_pinned_readers.py::test_a_hosted_tool_calls_own_"
            f"result_or_error[{case}]" for n, case in (
                (243, "twin-an-error-of-false-is-no-result"), (247, "twin-an-error-of-false-is-no-result"),
                (253, "an-error-code-alone-is-its-number-masked-as-in-every-error"),
                (258, "an-empty-message-gives-way-to-the-content"),
                (265, "an-error-object-with-no-message-is-its-json"),
                (266, "an-error-object-with-no-message-is-its-json"),
                (267, "a-value-json-cannot-write-in-an-error-object-is-its-text"),
                (268, "an-error-object-with-no-message-is-its-json"),
                (269, "an-error-object-with-no-message-is-its-json"),
                (270, "a-value-json-cannot-write-in-an-error-object-is-its-text"),
                (271, "an-error-object-with-no-message-is-its-json"))}}),
    # The conversation rule's pressed demand: three replies saying no again to one demand pressed each turn.
    "ec1a1c1": FunctionRun(
        ("loopmetric/detectors/_replies.py::_pressed", "loopmetric/detectors/_stances.py::asked",
         "loopmetric/detectors/_replies.py::_restated_finding", "loopmetric/detectors/_replies.py::_restated"),
        {"loopmetric.detectors._replies:167": "a trace with no turn and no replies in a row has no link: "
         "`_longest_turns` finds none a line later, so the early return is a shortcut",
         "loopmetric.detectors._replies:185": "a looser bound only lets more traces reach the walk, which finds "
         "no chain long enough in them: the bound is a shortcut",
         **{f"loopmetric.detectors._replies:{n}": "the first reply of a trace has no earlier one to link with, and "
            "`told` and `subject` are set afresh by it before any link reads them" for n in (193, 194, 195)},
         **{f"loopmetric.detectors._stances:{n}": "`stems` reads a curly apostrophe as a straight one itself"
            for n in (69, 70)}},
        {**{f"loopmetric.detectors._replies:{n}": _RESTATED + "test_the_same_no_to_a_demand_pressed_three_times_"
            "is_a_loop" for n in (316, 317, 462, 480, 482, 483)},
         **{f"loopmetric.detectors._replies:{n}": _RESTATED + "test_a_demand_pressed_in_two_messages_a_turn_is_"
            "pressed" for n in (468, 477)},
         **{f"loopmetric.detectors._replies:{n}": _RESTATED + "test_the_same_thing_in_other_words_is_a_loop"
            for n in (485, 496, 497)},
         **{f"loopmetric.detectors._replies:{n}": _RESTATED + "test_a_name_the_other_side_said_before_is_not_"
            "brought_when_said_again" for n in (220, 221, 244)},
         "loopmetric.detectors._stances:72": _RESTATED + "test_what_a_reply_asks_for"}),
    # The modules changed since 2026-12-02 with no run of their own yet, readers first: the builder's steps
    # since 1c64ff4 and `fold_calls`, the deepeval reader's answers and span tree, the inference of text
    # actions, the OTLP semantic conventions, the smolagents and LangChain readers, the freezing of steps,
    # the result shapes, the news model's bookkeeping of replies (`Progress.__init__`) and the memo of
    # repeated texts. Functions with more mutants than the time allows are sampled; a reader's mutants run
    # its own test files and the conformance tables that pin it, not the whole folder (75 s a survivor).
    "02c1198": FunctionRun(
        (*(f"loopmetric/readers/_builder.py::{f}" for f in (
            "add_tool_call", "add_llm_output", "add_request", "may_have_open_calls", "open_calls", "name_action",
            "fold_calls", "build")),
         "loopmetric/readers/_deepeval.py::read_span_tree", "loopmetric/readers/_deepeval.py::_answers",
         *(f"loopmetric/readers/_inference.py::{f}" for f in ("text_call", "input_results", "_response_text",
                                                              "holds_text")),
         "loopmetric/readers/_langchain.py::guard_added", "loopmetric/readers/_langchain.py::_usage",
         *(f"loopmetric/readers/_otlp/_semconv.py::{f}" for f in ("_llm_input", "_messages", "_as_lists")),
         *(f"loopmetric/readers/_smolagents.py::{f}" for f in ("step_calls", "_action", "_usage")),
         "loopmetric/readers/_freeze.py::number_steps", "loopmetric/readers/_freeze.py::freeze_call",
         *(f"loopmetric/readers/_shapes.py::{f}" for f in ("finite_number", "looks_like_error",
                                                           "without_transcription", "text_of")),
         "loopmetric/_memo.py::per_repeated_text", "loopmetric/detectors/_news.py::__init__"),
        {"loopmetric.readers._builder:216": "a reply and a tool call are different items: the last call's position "
         "never equals the reply's, so `>` and `>=` tell the same",
         "loopmetric.readers._deepeval:176": _FAST + "ancestors labelled before are labelled again, and a span keeps "
         "the first label it is given: the same labels",
         "loopmetric.readers._deepeval:518": "with one result there are fewer than two calls to fold: `fold_calls` "
         "folds nothing and the reading goes on as without the branch",
         "loopmetric.readers._inference:287": "an unnamed result and one named for no open call are taken alike (in "
         "order); a tool named XXXX aside, the placeholder names no open call either",
         "loopmetric.readers._inference:337": "a number is skipped either way: neither text nor a list or mapping, it "
         "says nothing was told",
         "loopmetric.readers._otlp._semconv:358": "only a live value that holds itself is met again before it is "
         "converted: left as itself or as None where it stands again, it is no text either way (the message reads "
         "the same)",
         "loopmetric.readers._smolagents:298": "`as_mapping` reads a `TokenUsage` (a dataclass) as its fields: the same "
         "two counts as read from its attributes"},
        {**{f"loopmetric.readers._builder:{n}": _DEEPEVAL_CONFORMANCE + "an-undeclared-text-action-answered-by-an-"
            "observation-is-a-call-beside-one-the-agent-listed]" for n in (172, 173, 184)},
         "loopmetric.readers._deepeval:236": _DEEPEVAL_CONFORMANCE + "the-first-prompt-sent-again-to-a-model-with-no-"
         "history-is-no-turn]",
         **{f"loopmetric.readers.{module}:{n}": _DEEPEVAL_CONFORMANCE + "calls-whose-spans-record-no-result-take-the-"
            "results-of-their-names-from-the-next-input]"
            for module, ns in (("_deepeval", (475, 477, 478, 496)), ("_inference", (267, 269, 270, 276, 282)))
            for n in ns},
         **{f"loopmetric.readers._deepeval:{n}": _DEEPEVAL_CONFORMANCE + "a-result-named-for-another-call-is-not-taken-"
            "by-a-call-without-its-own]" for n in (485, 488)},
         **{f"loopmetric.readers._deepeval:{n}": _DEEPEVAL_CONFORMANCE + "results-named-for-no-open-call-or-not-named-"
            "go-to-the-calls-in-order]" for n in (486, 487)},
         **{f"loopmetric.readers._deepeval:{n}": _DEEPEVAL_CONFORMANCE + "twin-a-persons-words-after-a-call-whose-span-"
            "records-no-result-are-a-turn-not-its-result]" for n in (502, 507)},
         **{f"loopmetric.readers._deepeval:{n}": _DEEPEVAL_CONFORMANCE + "a-text-action-whose-span-records-no-result-"
            "takes-the-answer-the-next-input-gives]" for n in (503, 508)},
         **{f"loopmetric.readers._deepeval:{n}": _DEEPEVAL_CONFORMANCE + "twin-calls-with-different-results-stay-calls-"
            "and-a-persons-words-beside-them-a-turn]" for n in (517, 520, 522)},
         **{f"loopmetric.readers._deepeval:{n}": _DEEPEVAL_CONFORMANCE + "calls-each-returning-the-one-refusal-given-"
            "once-are-the-replys-one-action]" for n in (526, 530, 531)},
         **{f"loopmetric.readers._deepeval:{n}": _DEEPEVAL_CONFORMANCE + "results-pasted-back-as-the-users-message-are-"
            "no-turn]" for n in (534, 537, 539)},
         "loopmetric.readers._deepeval:409": "tests/readers/test_reader_deepeval.py::test_the_spans_after_a_span_listing_"
         "calls_without_children_are_read[a-span-listing-calls-without-a-children-key]",
         "loopmetric.readers._inference:273": _DEEPEVAL_CONFORMANCE + "results-in-function-messages-are-the-calls-"
         "results]",
         "loopmetric.readers._inference:274": _DEEPEVAL_CONFORMANCE + "results-in-ipython-messages-are-the-calls-"
         "results]",
         **{f"loopmetric.readers._inference:{n}": _DEEPEVAL_CONFORMANCE + f"genai-tool-call-responses-in-{where}-are-"
            "the-calls-results-in-order]" for n, where in ((283, "tool-message-parts"), (284, "tool-message-parts"),
                                                          (289, "user-message-parts"), (292, "user-message-parts"),
                                                          (296, "tool-message-content"), (309, "tool-message-parts"),
                                                          (310, "tool-message-parts"), (318, "tool-message-parts"))},
         **{f"loopmetric.readers._inference:{n}": _DEEPEVAL_CONFORMANCE + "a-genai-response-under-result-and-one-not-"
            "text-are-read-as-text]" for n in (320, 325)},
         "loopmetric.readers._inference:324": _DEEPEVAL_CONFORMANCE + "a-genai-response-of-null-is-an-empty-result]",
         # (killed by a table of the deepeval reader's tests older than the run, a file the run did not choose
         # for `_inference`)
         **{f"loopmetric.readers._inference:{n}": "tests/readers/test_reader_deepeval.py::test_the_reader_says_whether_"
            f"the_llm_inputs_record_what_the_model_was_told[{case}]" for n, case in (
                (333, "text"), (344, "text-beside-a-counter"), (345, "blank-text-beside-a-counter"),
                (346, "a-prompt-in-a-mapping"), (350, "a-step-counter"))},
         **{f"loopmetric.readers._otlp._semconv:{n}": "tests/readers/test_reader_otlp.py::test_an_llm_spans_input_is_"
            f"its_messages_else_its_input_value_else_genai_messages_else_its_prompt[{case}]" for n, case in (
                (225, "a-genai-prompt"), (227, "openinference-input-value"), (230, "openinference-input-value"),
                (235, "a-genai-prompt"), (244, "openinference-input-messages-without-the-message-level"),
                (369, "eleven-openinference-input-messages-in-the-order-of-their-numbers"),
                (371, "openinference-input-messages-not-numbered-are-no-messages"))},
         "loopmetric.readers._smolagents:51": "tests/readers/test_pinned_readers.py::test_a_smolagents_step_in_memory_"
         "whose_call_raised_is_that_call_failing[the-call-that-raised-kept-in-the-models-message-object-is-a-failed-"
         "call]",
         "loopmetric.readers._smolagents:70": "tests/guard/test_guard_smolagents.py::test_each_decision_names_its_call_"
         "by_the_calls_own_id[calls-as-the-chat-messages-function-calls]",
         "loopmetric.readers._freeze:75": "tests/readers/test_reader_deepeval.py::test_a_tools_structured_result_is_its_"
         "json[a-mapping-is-its-sorted-json]"},
        tests={
            "loopmetric/readers/_builder.py": ("tests/readers/test_builder.py", *_CONFORMANCE, _PINNED_READERS),
            "loopmetric/readers/_deepeval.py": ("tests/readers/test_reader_deepeval.py",
                                                "tests/readers/test_conformance_deepeval.py", _PINNED_READERS),
            "loopmetric/readers/_inference.py": ("tests/readers/test_inference.py", *_CONFORMANCE, _PINNED_READERS),
            "loopmetric/readers/_otlp/_semconv.py": ("tests/readers/test_reader_otlp.py",
                                                     "tests/readers/test_conformance_otlp.py", _PINNED_READERS),
            "loopmetric/readers/_smolagents.py": _EXPORTED,
            "loopmetric/readers/_freeze.py": ("tests/readers/test_builder.py", *_CONFORMANCE, _PINNED_READERS),
            "loopmetric/readers/_shapes.py": ("tests/readers/test_shapes.py", *_CONFORMANCE, _PINNED_READERS),
            "loopmetric/readers/_langchain.py": (*_EXPORTED, "tests/readers/test_conformance_otlp.py")},
        sample={"loopmetric/readers/_builder.py::add_tool_call": 3,
                "loopmetric/readers/_builder.py::add_llm_output": 3,
                "loopmetric/readers/_builder.py::add_request": 3,
                "loopmetric/readers/_builder.py::open_calls": 4,
                "loopmetric/readers/_builder.py::name_action": 5,
                "loopmetric/readers/_builder.py::build": 5,
                "loopmetric/readers/_deepeval.py::read_span_tree": 12,
                "loopmetric/readers/_deepeval.py::_answers": 25,
                "loopmetric/readers/_inference.py::text_call": 5,
                "loopmetric/readers/_inference.py::input_results": 13,
                "loopmetric/readers/_inference.py::_response_text": 7,
                "loopmetric/readers/_inference.py::holds_text": 10,
                "loopmetric/readers/_otlp/_semconv.py::_llm_input": 10,
                "loopmetric/readers/_otlp/_semconv.py::_messages": 12,
                "loopmetric/readers/_otlp/_semconv.py::_as_lists": 10,
                "loopmetric/readers/_smolagents.py::step_calls": 15,
                "loopmetric/readers/_smolagents.py::_action": 4,
                "loopmetric/readers/_smolagents.py::_usage": 13,
                "loopmetric/readers/_freeze.py::number_steps": 18,
                "loopmetric/readers/_freeze.py::freeze_call": 14,
                "loopmetric/readers/_shapes.py::finite_number": 8,
                "loopmetric/readers/_shapes.py::looks_like_error": 10,
                "loopmetric/readers/_shapes.py::without_transcription": 6,
                "loopmetric/readers/_shapes.py::text_of": 10,
                "loopmetric/detectors/_news.py::__init__": 60}),
    # The session of 2026-12-06 (evening): the hex check, the calls each rule reads as made before, an
    # empty output that asked for the calls after it, folded calls a reply requested, OpenInference
    # input keys that number no message.
    "27c3036": FunctionRun(
        ("loopmetric/_canonical.py::_has_hex16", "loopmetric/detectors/_replies.py::_unchanged",
         "loopmetric/detectors/_revisits.py::detect_revisited_calls", "loopmetric/detectors/_obvious.py::new_states",
         "loopmetric/readers/_matching.py::merge_requests", "loopmetric/readers/_otlp/_semconv.py::_llm_input"),
        {"loopmetric._canonical:249": "at exactly 48 characters the pattern and the byte table give the same answer",
         "loopmetric._canonical:256": "at exactly 1,000,000 characters the byte table and the pattern give the same answer",
         "loopmetric._canonical:261": "codec names are read without regard to case: \"ASCII\" is \"ascii\"",
         "loopmetric.detectors._revisits:4": "without the evidence passed in, the same news model is computed again",
         "loopmetric.detectors._revisits:19": "None and an empty list are both false where `states` is read first",
         "loopmetric.detectors._revisits:31": "`new_states` without `first_made` computes the same list from the calls",
         "loopmetric.detectors._revisits:34": "`new_states` without `first_made` computes the same list from the calls",
         **{f"loopmetric.detectors._revisits:{n}": (
             "the slice starts " + where + " the stretch instead of after it; a stretch's calls are consecutive and "
             "each was made before, so `new_states` is False for every one of them and `any` sees the same new "
             "states after the stretch") for n, where in ((39, "one call before the end of"),
                                                         (40, "at the third call of"), (41, "at the last call of"))}},
        {n: "tests/detectors/test_revisit_walks.py::test_a_stretch_of_revisits_is_a_detour_only_when_a_new_place_"
            "follows_within_three_thresholds" for n in ("loopmetric.detectors._revisits:36",
                                                       "loopmetric.detectors._revisits:42",
                                                       "loopmetric.detectors._revisits:43")},
        {"loopmetric/_canonical.py": ("tests/test_canonical.py",),
         "loopmetric/detectors/_replies.py": ("tests/detectors/test_restated_replies.py",
                                              "tests/detectors/test_conversation_meaning.py"),
         "loopmetric/detectors/_revisits.py": ("tests/detectors/test_revisit_walks.py", "tests/detectors/test_detectors.py"),
         "loopmetric/detectors/_obvious.py": ("tests/detectors/test_obvious_loops.py", "tests/detectors/test_revisit_walks.py"),
         "loopmetric/readers/_matching.py": ("tests/readers/test_builder.py", "tests/readers/test_conformance_deepeval.py",
                                             "tests/readers/test_pinned_readers.py"),
         "loopmetric/readers/_otlp/_semconv.py": ("tests/readers/test_reader_otlp.py",
                                                  "tests/readers/test_conformance_otlp.py",
                                                  "tests/readers/test_pinned_readers.py")},
        {"loopmetric/readers/_matching.py::merge_requests": 30}),
    "742d69a": FunctionRun(
        ("loopmetric/detectors/_replies.py::_restated", "loopmetric/detectors/_replies.py::_says_again",
         "loopmetric/detectors/_replies.py::_same_stance", "loopmetric/detectors/_replies.py::_declining",
         "loopmetric/detectors/_stances.py::stems"),
        {},
        {"loopmetric.detectors._replies:240":
         "tests/detectors/test_same_stance.py::test_a_word_the_other_side_said_before_is_not_brought_again"},
        {"loopmetric/detectors/_replies.py": ("tests/detectors/test_same_stance.py",
                                              "tests/detectors/test_restated_replies.py"),
         "loopmetric/detectors/_stances.py": ("tests/detectors/test_same_stance.py",
                                              "tests/detectors/test_restated_replies.py")},
        {"loopmetric/detectors/_replies.py::_restated": 40}),
    # The speed work of 2026-12-06 (merge f1acfb5): every function whose body it changed, on main's head
    # that holds it. Big functions are sampled so that each module gets at least 30 mutants; a detector's
    # mutants run the detectors' folder, a reader's its own tests and the conformance tables that pin it.
    "874e1cb": FunctionRun(
        ("loopmetric/_engine.py::_analyze",
         "loopmetric/detectors/_attempts.py::detect_similar_attempts", "loopmetric/detectors/_attempts.py::_failed_alike",
         "loopmetric/detectors/_cycles.py::detect_call_cycles",
         *(f"loopmetric/detectors/_news.py::{f}" for f in ("_reports_failure", "_units_and_lines", "__init__",
                                                          "_count_changes", "runs")),
         "loopmetric/detectors/_obvious.py::detect_identical_repeats",
         "loopmetric/detectors/_rejections.py::detect_rejected_outputs",
         "loopmetric/detectors/_replies.py::detect_repeated_replies",
         "loopmetric/detectors/_text.py::text_episodes",
         "loopmetric/detectors/_tool_calls.py::detect_repeated_results",
         *(f"loopmetric/readers/_builder.py::{f}" for f in ("__init__", "add_llm_output", "add_request", "build")),
         "loopmetric/readers/_deepeval.py::read_span_tree"),
        {"loopmetric._engine:47": "without the evidence `run_detectors` makes the same `Evidence(trace)` itself",
         "loopmetric._engine:48": "`Evidence(None)` is evidence of no trace: `run_detectors` makes `Evidence(trace)` "
         "instead, as for evidence of another trace",
         **{f"loopmetric.detectors.{module}:{n}": "the end of the list marked by -2, not -1: any index below zero "
            "ends the chain and starts none" for module, n in (("_attempts", 18), ("_tool_calls", 130))},
         "loopmetric.detectors._tool_calls:102": "the shortcut is never taken (`True not in first_made` holds only "
         "without calls, where both return nothing): the runs and chains below find nothing when every call is "
         "made once, as the shortcut says",
         "loopmetric.detectors._cycles:138": "the tag that sets a failure's key apart from a call's (name, arguments): "
         "\"FAILED\" does so as \"failed\" does (a tool named either way whose arguments are a failure kind aside)",
         "loopmetric.detectors._cycles:182": "a call whose result is the one the call a round before returned is never "
         "news unless that result says little (its lines and its whole page were shown, its failure kind seen): "
         "news with a result of substance comes only with another result, so `or` and `and` decide alike",
         "loopmetric.detectors._cycles:211": "`rstrip(\"XX.XX\")` strips the characters X and `.`: a number written "
         "with one decimal holds no X, so it strips the same `.`",
         "loopmetric.detectors._news:8": "codec names are read without regard to case: \"ASCII\" is \"ascii\"",
         "loopmetric.detectors._obvious:38": "without the keys `new_states` computes the same `_key` of each call",
         "loopmetric.detectors._obvious:39": "without `first_made` `new_states` computes the same list from the calls",
         **{f"loopmetric.detectors._obvious:{n}": "index 0 is the first member of its group, met with an empty chain: "
            "the condition is false there either way" for n in (61, 62)},
         **{f"loopmetric.detectors._replies:{n}": "`declines` without the folded text lowercases the text for its cheap "
            "check: every alternative of the pattern holds one of the markers with its literal spaces, so a text the "
            "pattern matches passes the check either way, and the pattern decides on the text alike" for n in (103, 107)},
         "loopmetric.detectors._text:53": "the first value of the match's similarity is read only for a match of "
         "another fingerprint, found only by the similarity loop, which sets it",
         "loopmetric.detectors._text:71": "a text of exactly `min_similarity_words` characters holds at most (n + 1) // 4 "
         "content words (3 word characters and a separator each), fewer than n: compared or not, it matches nothing",
         "loopmetric.readers._builder:29": "positions are never below zero: -1 and -2 are both before every start",
         "loopmetric.readers._builder:44": "`_requested` is only read for its truth: None is false as False is",
         "loopmetric.readers._builder:45": "with no LLM output holding a request `merge_requests` keeps every item in "
         "reader order (no request waits for an execution): the shortcut only skips that walk",
         "loopmetric.readers._deepeval:69": "the previous reply is read only after an LLM output set it: the first LLM "
         "input is no turn (`first`), and `_answers` waits for a reply (`replied` >= 0)",
         "loopmetric.readers._deepeval:72": "read only at an LLM span: at the first no reply came before (`replied` -1) "
         "and its input is no turn (`first`), and it is set to None there",
         "loopmetric.readers._deepeval:153": "`_lower` lowercases the default at once: \"BASE\" is \"base\"",
         "loopmetric.readers._deepeval:176": _FAST + "ancestors labelled before are labelled again, and a span keeps "
         "the first label it is given: the same labels"},
        {**{f"loopmetric._engine:{n}": "tests/test_engine.py::test_the_report_names_the_trace_counts_its_calls_and_"
            "replies_and_keeps_the_readers_notes" for n in (84, 87, 88, 101)},
         **{f"loopmetric.detectors._cycles:{n}": "tests/detectors/test_detectors.py::test_a_cycles_finding_names_the_"
            "tools_of_a_round_and_the_steps_of_the_cycle" for n in (153, 172, 187, 227, 235)},
         "loopmetric.detectors._tool_calls:148": "tests/detectors/test_detectors.py::test_the_same_error_within_the_"
         "window_repeats_up_to_its_edge",
         "loopmetric.detectors._news:430": "tests/detectors/test_reply_attempts.py::test_calls_after_the_other_side_"
         "spoke_are_each_an_attempt",
         "loopmetric.readers._builder:41": "tests/readers/test_builder.py::test_a_trace_records_the_turns_unless_its_"
         "reader_says_it_does_not",
         **{f"loopmetric.readers._builder:{n}": "tests/readers/test_builder.py::test_a_call_an_output_asked_for_later_"
            "is_that_outputs_call" for n in (165, 179, 180, 191)},
         "loopmetric.readers._builder:172": "tests/readers/test_builder.py::test_a_call_asked_for_later_keeps_why_its_"
         "text_was_read_as_a_call",
         "loopmetric.readers._builder:352": "tests/readers/test_builder.py::test_every_span_is_kept_once_in_order_"
         "however_many",
         "loopmetric.readers._deepeval:71": "tests/readers/test_reader_deepeval.py::test_the_task_is_the_first_prompt_"
         "or_without_one_the_runs_input",
         **{f"loopmetric.readers._deepeval:{n}": "tests/readers/test_reader_deepeval.py::test_each_span_is_read_with_"
            "its_type_once_for_each_place_it_is_listed" for n in (92, 149)}},
        {"loopmetric/_engine.py": ("tests/test_engine.py", "tests/test_scoring.py", "tests/test_acceptance.py"),
         **{f"loopmetric/detectors/{m}.py": ("tests/detectors",) for m in (
             "_attempts", "_cycles", "_news", "_obvious", "_rejections", "_replies", "_text", "_tool_calls")},
         "loopmetric/readers/_builder.py": ("tests/readers/test_builder.py", *_CONFORMANCE, _PINNED_READERS),
         "loopmetric/readers/_deepeval.py": ("tests/readers/test_reader_deepeval.py",
                                             "tests/readers/test_conformance_deepeval.py", _PINNED_READERS)},
        {"loopmetric/_engine.py::_analyze": 36,
         "loopmetric/detectors/_attempts.py::detect_similar_attempts": 18,
         "loopmetric/detectors/_attempts.py::_failed_alike": 18,
         "loopmetric/detectors/_cycles.py::detect_call_cycles": 36,
         "loopmetric/detectors/_news.py::__init__": 10,
         "loopmetric/detectors/_news.py::_count_changes": 10,
         "loopmetric/detectors/_news.py::runs": 8,
         "loopmetric/detectors/_obvious.py::detect_identical_repeats": 32,
         "loopmetric/detectors/_rejections.py::detect_rejected_outputs": 32,
         "loopmetric/detectors/_replies.py::detect_repeated_replies": 32,
         "loopmetric/detectors/_text.py::text_episodes": 32,
         "loopmetric/detectors/_tool_calls.py::detect_repeated_results": 32,
         "loopmetric/readers/_builder.py::__init__": 5,
         "loopmetric/readers/_builder.py::add_llm_output": 8,
         "loopmetric/readers/_builder.py::add_request": 8,
         "loopmetric/readers/_builder.py::build": 12,
         "loopmetric/readers/_deepeval.py::read_span_tree": 36}),
    "a4012db": FunctionRun(
        (*(f"loopmetric/_canonical.py::{f}" for f in ("_words_at_word_start", "_words_found", "_hex_runs_found",
                                                       "_ordinal_before", "_number_before", "_units_after_digits",
                                                       "_starts")),
         "loopmetric/readers/_matching.py::reply", "loopmetric/readers/_matching.py::answer",
         "loopmetric/readers/_otlp/_wire.py::_error", "loopmetric/readers/_otlp/_wire.py::ended_span",
         "loopmetric/otel/_adapter.py::read_step",
         "loopmetric/readers/_langchain.py::requested_calls",
         "loopmetric/readers/_chat.py::_calls",
         "loopmetric/readers/_pydantic_ai.py::_read_response", "loopmetric/readers/_pydantic_ai.py::_read_request"),
        {"loopmetric._canonical:352": "the class of a scan's first letters gains X (and x): a scan matches only where "
         "one of its alternatives' lookbehinds sees a real first letter, so an X never matches",
         "loopmetric._canonical:406": "a word found again one character after it would be a word of one repeated "
         "character: none of the scanned words is one (each begins with two different characters)",
         **{f"loopmetric._canonical:{n}": "codec names are read without regard to case: \"ASCII\" is \"ascii\""
            for n in (418, 497)},
         "loopmetric.readers._otlp._wire:356": "an ended SDK span's status always holds a `StatusCode` enum, which "
         "has its `value`: the default of `getattr` is never taken",
         "loopmetric._canonical:437": "a non-hex byte before a run, found again one byte later, would be a byte both "
         "hex and not: the next find from two bytes on finds the same",
         "loopmetric._canonical:520": "a needle found again one byte later would begin with the byte it ends its "
         "first byte with (\"du\" at u, \"d u\" and \"d  \" at a space): none does, so the find from two bytes on "
         "finds the same",
         "loopmetric._canonical:522": "the scans' candidates are a shortcut on ASCII text: without them each scan's "
         "pattern is run by `finditer`, which finds the same positions",
         **{f"loopmetric._canonical:{n}": "a start more for the pattern to try: `_sub_at_starts` tries it as "
            "`sub` does at every position, so a superset of the starts masks the same (the scans' own rule)"
            for n in (445, 446, 453, 472)},
         **{f"loopmetric._canonical:{n}": "any start below zero is dropped by `_starts` as -1 is"
            for n in (454, 473)},
         "loopmetric.readers._pydantic_ai:323": "`add_input`'s source defaults to \"user\": the call without it adds "
         "the same user turn"},
        {**{f"loopmetric._canonical:{n}": _EACH_KIND + "an-attempt-ordinal-opening-the-text]"
            for n in (448, 449)},
         **{f"loopmetric._canonical:{n}": _EACH_KIND + "a-decimal-duration-opening-the-text]"
            for n in (476, 477, 483, 486)},
         **{f"loopmetric._canonical:{n}": _EACH_KIND + "a-duration-opening-the-text]"
            for n in (508, 509)},
         "loopmetric.readers._matching:21": "tests/guard/test_guard_replay.py::test_the_offline_reader_pairs_results_"
         "by_id_and_order[a-result-given-again-answers-its-call-again]",
         # (a fix: a4012db gave a result naming no tool of its shared id that id's first call, so the next result
         # went to the wrong call; the row fails on a4012db's code and on each of the three mutants)
         **{f"loopmetric.readers._matching:{n}": "tests/guard/test_guard_replay.py::test_the_offline_reader_pairs_"
            "results_by_id_and_order[a-result-under-a-shared-id-naming-another-tool-answers-none-of-its-calls]"
            for n in (13, 15, 18)},
         "loopmetric.readers._otlp._wire:217": "tests/otel/test_ended_span.py::test_a_failed_span_reads_its_status_"
         "description_else_its_exception_message[an-empty-description-is-none-the-exception-message]",
         "loopmetric.readers._langchain:225": "tests/readers/test_exported_formats.py::test_a_langchain_call_that_names_"
         "no_tool_is_no_call_and_the_rest_are_read[a-malformed-call-without-a-name-is-no-call]",
         "loopmetric.readers._chat:137": "tests/readers/test_reader_chat.py::test_messages[a-call-naming-no-tool-is-"
         "skipped-and-the-calls-after-it-read]",
         **{f"loopmetric.readers._pydantic_ai:{n}": "tests/readers/test_reader_pydantic_ai.py::test_usage_gives_"
            "tokens_in_either_pydantic_ai_spelling[older-pydantic-ai-request-and-response-tokens]" for n in (183, 186)},
         "loopmetric.readers._pydantic_ai:254": "tests/readers/test_reader_pydantic_ai.py::test_parts[a-return-naming-"
         "no-tool-and-answering-no-call-is-a-call-named-tool]",
         **_ADAPTER_KILLED_BY_OLDER_TESTS},
        {"loopmetric/_canonical.py": ("tests/test_canonical.py",),
         "loopmetric/readers/_matching.py": ("tests/guard/test_guard_replay.py", "tests/readers/test_reader_chat.py",
                                            "tests/readers/test_conformance_chat.py"),
         "loopmetric/readers/_otlp/_wire.py": ("tests/otel/test_ended_span.py", "tests/readers/test_reader_otlp.py"),
         "loopmetric/otel/_adapter.py": ("tests/otel/test_ended_span.py", "tests/readers/test_reader_otlp.py"),
         "loopmetric/readers/_langchain.py": ("tests/readers/test_exported_formats.py",
                                              "tests/guard/test_guard_langchain.py"),
         "loopmetric/readers/_chat.py": ("tests/readers/test_reader_chat.py", "tests/readers/test_conformance_chat.py"),
         "loopmetric/readers/_pydantic_ai.py": ("tests/readers/test_reader_pydantic_ai.py",
                                                "tests/readers/test_conformance_pydantic_ai.py")},
        {"loopmetric/readers/_otlp/_wire.py::ended_span": 30, "loopmetric/otel/_adapter.py::read_step": 30,
         "loopmetric/readers/_pydantic_ai.py::_read_response": 20,
         "loopmetric/readers/_pydantic_ai.py::_read_request": 20}),
    # What the a4012db run left: `read_step` on the processor's behaviour tests (its mutants ran against
    # the ended-span and OTLP reader tests only), and the functions last session changed that no run
    # mutated: the LangChain guard's turn recording (malformed calls read by `requested_calls`), the chat
    # reader's `read_chat` (results paired by `AskedById`) and the LangChain reader's messages.
    # One survivor is left: `langchain:159` (`and` -> `or` in the malformed ids read for an answer) read otherwise
    # only a malformed call under an empty id, which that code read wrongly: LangChain answers one (its
    # `_patch_invalid_tool_calls` skips only a call without an id), offline read the answer, the guard did not;
    # fixed since (`answered_malformed`, `test_the_answers_langchain_gives_malformed_calls_are_read_live_as_
    # offline`), where the same line reads otherwise.
    "c5f8839": FunctionRun(
        ("loopmetric/otel/_adapter.py::read_step",
         *(f"loopmetric/guard/langchain.py::{f}" for f in (
             "turn_calls", "malformed_calls", "decide_turn", "_record_turn", "_record_malformed", "wrap_model_call",
             "awrap_model_call", "_end", "_nudge", "_answer")),
         "loopmetric/readers/_chat.py::read_chat",
         "loopmetric/readers/_langchain.py::read_langchain_messages"),
        {"loopmetric.readers._chat:228": "`consume` only lets a file's own message list go as it is read (memory): "
         "without it the same messages are read in the same order",
         "loopmetric.guard.langchain:183": "`create_agent` runs `before_agent`, which sets the run, before any model "
         "call, so `run` is never None here; with `and`, a run with no malformed ids scans the messages for none",
         "loopmetric.guard.langchain:189": "the id stays in the set: LangChain answers an id once (its "
         "`_patch_invalid_tool_calls` skips an id answered before and adds each it answers; of two malformed calls "
         "under one id it answers the first, as a scripted run shows), so no second message after the turn has "
         "it, and the next turn replaces the set"},
        {**{f"loopmetric.guard.langchain:{n}": "tests/guard/test_guard_langchain.py::test_replay_names_each_decision_"
            f"by_its_calls_id_and_a_reply_or_a_call_without_one_by_an_empty_id[{case}]" for n, case in (
                (63, "a-call-recorded-without-an-id-under-an-empty-id"), (70, "a-reply-under-an-empty-id"))},
         **{f"loopmetric.guard.langchain:{n}": "tests/guard/test_guard_langchain.py::test_each_tool_message_names_the_"
            "tool_of_the_call_it_answers[the-nudge-names-the-tool-of-the-call-it-answers]" for n in (251, 252, 255, 260)},
         "loopmetric.readers._chat:284": "tests/readers/test_conformance_chat.py::test_chat_conformance[twin-a-second-"
         "user-prompt-declares-no-action]",
         "loopmetric.readers._chat:316": _TEAM_ASKS + "a-members-own-calls-are-asked-for-by-a-reply-of-its-own]",
         "loopmetric.readers._chat:340": "tests/readers/test_group_chat.py::test_a_team_chat_is_read_as_the_lead_asking_"
         "its_members[a-lead-reply-without-text-adds-nothing-to-what-a-member-is-told]",
         **{f"loopmetric.readers._chat:{n}": _TEAM_ASKS + "the-lead-reply-before-a-members-turn-asks-for-it]"
            for n in (342, 348)},
         **{f"loopmetric.readers._langchain:{n}": f"tests/readers/test_exported_formats.py::{test}" for n, test in (
             (68, "test_a_langchain_agents_state_is_read_as_its_messages[an-agents-state-holding-its-messages]"),
             (208, "test_a_langchain_agents_state_is_read_as_its_messages[an-agents-state-holding-its-messages]"),
             (71, "test_langchain_messages_that_hold_no_step_are_an_error_that_says_what_it_read[not-a-list]"),
             (98, "test_langchain_messages_that_hold_no_step_are_an_error_that_says_what_it_read[three-items-none-"
                  "of-them-a-step]"),
             *((n, "test_a_langchain_chat_message_is_read_by_its_role_another_role_as_the_other_sides_turn[chat-"
                   "messages-of-the-user-and-the-assistant]") for n in (116, 117, 122)),
             (125, "test_a_langchain_chat_message_is_read_by_its_role_another_role_as_the_other_sides_turn[a-chat-"
                   "message-of-another-role-is-a-turn]"),
             *((n, "test_the_notes_say_which_calls_the_loop_guard_refused[a-call-the-guard-refused-is-skipped-and-"
                   "noted]") for n in (138, 139, 140)),
             *((n, "test_a_langchain_result_is_its_calls_by_id_else_by_name_and_its_text[a-legacy-function-message-"
                   "answers-the-oldest-open-call-of-its-name]") for n in (142, 168, 172)),
             (185, "test_a_langchain_result_is_its_calls_by_id_else_by_name_and_its_text[a-legacy-function-message-"
                   "answering-no-call-is-a-call-of-its-name]"),
             *((n, "test_a_langchain_result_is_its_calls_by_id_else_by_name_and_its_text[a-result-of-content-blocks-"
                   "is-their-text]") for n in (181, 183)))}},
        {"loopmetric/otel/_adapter.py": ("tests/otel/test_processor.py", "tests/otel/test_live_equals_offline.py",
                                         "tests/otel/test_ended_span.py", "tests/otel/test_live_fields.py",
                                         "tests/otel/test_instrumented.py", "tests/otel/test_live_equals_offline_corpus.py",
                                         "tests/readers/test_reader_otlp.py"),
         "loopmetric/guard/langchain.py": ("tests/guard/test_guard_langchain.py",
                                           "tests/guard/test_guard_live_equals_offline.py",
                                           "tests/guard/test_guard_live_fields.py",
                                           "tests/guard/test_guard_replay_frameworks.py"),
         "loopmetric/readers/_chat.py": ("tests/readers/test_reader_chat.py", "tests/readers/test_conformance_chat.py",
                                         "tests/readers/test_group_chat.py", "tests/readers/test_conformance_research.py",
                                         "tests/readers/test_recorded_by_others.py", *_EXPORTED),
         "loopmetric/readers/_langchain.py": (*_EXPORTED, "tests/guard/test_guard_langchain.py",
                                              "tests/readers/test_group_chat.py",
                                              "tests/readers/test_recorded_by_others.py")},
        {"loopmetric/otel/_adapter.py::read_step": 40,
         "loopmetric/guard/langchain.py::_record_turn": 20,
         "loopmetric/guard/langchain.py::_end": 12,
         "loopmetric/guard/langchain.py::_nudge": 8,
         "loopmetric/guard/langchain.py::_answer": 10,
         "loopmetric/readers/_chat.py::read_chat": 40,
         "loopmetric/readers/_langchain.py::read_langchain_messages": 40}),
    # The two fixes this run's survivors led to: a result naming no tool of its shared id answers none of its
    # calls (`answer`), and a malformed call's answer is read from after its turn only (`_record_malformed`).
    "83f5666": FunctionRun(
        ("loopmetric/readers/_matching.py::answer", "loopmetric/guard/langchain.py::_record_malformed"),
        {"loopmetric.guard.langchain:183": "`create_agent` runs `before_agent`, which sets the run, before any model "
         "call, so `run` is never None here; with `and`, a run with no malformed ids reads the messages for none",
         "loopmetric.guard.langchain:199": "the id stays in the set: LangChain answers an id once, so no second "
         "message after the turn has it, and the next turn replaces the set"},
        {},
        {"loopmetric/readers/_matching.py": ("tests/guard/test_guard_replay.py", "tests/readers/test_reader_chat.py",
                                             "tests/readers/test_conformance_chat.py"),
         "loopmetric/guard/langchain.py": ("tests/guard/test_guard_langchain.py",
                                           "tests/guard/test_guard_live_equals_offline.py",
                                           "tests/guard/test_guard_live_fields.py",
                                           "tests/guard/test_guard_replay_frameworks.py")}),
    # The ninth session's changes (c5f8839..e882d0d), every module it touched: the conversation rules (`_unheard`,
    # `waits_only`, `fact_parts` read by `_tells_news` and `_Said`), the speed shortcuts (`_cycles._spacing_folded`,
    # `_text._always_afresh`, `_news.Progress`'s written-out first tests, `_registry._plain_span`), `_found_at`,
    # `_exported.Calls` (a result under an empty id), `AskedById.answer`, LangSmith's cost, the OTLP wire helpers
    # and the LangChain guard's `decide_turn(calls=...)`; a big function a change touched a few lines of is sampled.
    # (`_facts.fact_parts` and `facts` are decorated, `@per_text`: mutmut makes no mutant of them.)
    # The last two survivors pinned since: `_replies:741` (the word "xxxx" said before any step) by an id
    # scrubbed to "XXXX" that a reply takes up, and `_exported:21` (every id-less call "call-1") by two calls of
    # one tool, the second under an empty id, answered second first (both results "call-1": the first read
    # took the wrong call); both modules changed since, so `--only` runs the same change found there.
    "e882d0d": FunctionRun(
        (*(f"loopmetric/_canonical.py::{f}" for f in ("_words_found", "_found_at", "_hex_runs_found",
                                                       "_units_after_digits")),
         "loopmetric/detectors/_cycles.py::_spacing_folded", "loopmetric/detectors/_cycles.py::detect_call_cycles",
         "loopmetric/detectors/_facts.py::fact_parts",
         *(f"loopmetric/detectors/_news.py::{f}" for f in ("__init__", "_failure_kinds", "_kinds_of_failure", "runs")),
         "loopmetric/detectors/_obvious.py::detect_identical_repeats", "loopmetric/detectors/_obvious.py::waits",
         *(f"loopmetric/detectors/_replies.py::{f}" for f in ("_restated", "_unheard", "_tells_news", "__init__")),
         "loopmetric/detectors/_stances.py::waits_only",
         *(f"loopmetric/detectors/_text.py::{f}" for f in ("text_episodes", "_always_afresh", "_scan")),
         "loopmetric/detectors/_tool_calls.py::detect_repeated_calls",
         *(f"loopmetric/guard/langchain.py::{f}" for f in ("decide_turn", "_record_turn", "_record_malformed")),
         *(f"loopmetric/readers/_exported.py::{f}" for f in ("__init__", "call", "result")),
         "loopmetric/readers/_langsmith.py::_decimal", "loopmetric/readers/_langsmith.py::_node",
         "loopmetric/readers/_matching.py::answer",
         *(f"loopmetric/readers/_otlp/_wire.py::{f}" for f in ("ended_span", "span_dict", "_status_code",
                                                               "_sdk_events")),
         *(f"loopmetric/readers/_registry.py::{f}" for f in ("_plain_span", "detect_format", "_format_by_rows"))),
        {"loopmetric._canonical:412": "a needle found again one character after it would be a run of one repeated "
         "character: no word, hex run (a non-hex byte, then hex bytes) or unit needle (\"du\", \"d u\", \"d  \") "
         "is one, so the find from two characters on finds the same",
         **{f"loopmetric.{m}:{n}": "codec names are read without regard to case: \"ASCII\" is \"ascii\""
            for m, n in (("_canonical", 494), ("detectors._news", 325), ("detectors._news", 327))},
         "loopmetric.detectors._obvious:38": "the keys handed to `new_states` are `_key` of each call, which it "
         "works out itself without them: the same states",
         "loopmetric.detectors._obvious:39": "`first_made` handed to `new_states` is `Progress.first_made`, which it "
         "works out itself without it (whether each call is the first of its name and arguments): the same states",
         **{f"loopmetric.detectors._obvious:{n}": "a group's members are in order, so index 0 can only be its first "
            "member, met with the chain empty: `index > 0` fails where `chain` already fails; only -1, the end, is "
            "told apart" for n in (61, 62)},
         "loopmetric.detectors._text:72": "the value is read only for a match that differs from the reply "
         "(`match.fingerprint != fingerprint`), and such a match is found by similarity, which sets it",
         "loopmetric.detectors._text:125": "an episode's `exact` is read only for its truth (`if episode.exact`, "
         "`if not e.exact`): None reads as False",
         "loopmetric.guard.langchain:158": "without `calls`, `decide_turn` reads `turn_calls(message)` itself: "
         "the same calls of the same message",
         "loopmetric.guard.langchain:187": "`create_agent` runs `before_agent`, which sets the run, before any model "
         "call, so `run` is never None here; with `and`, a run with no malformed ids reads the messages for none",
         "loopmetric.guard.langchain:201": "between a turn and the next model call LangChain adds only the tool "
         "messages of that turn's calls: a valid call's result was recorded when its tool ran, and a call the "
         "guard answered awaits none (`before_call` took it off), so recording them again finds no awaited call "
         "of their id (`add_result`) and changes nothing",
         "loopmetric.guard.langchain:203": "the id stays in the set: LangChain answers an id once, so no second "
         "message after the turn has it, and the next turn replaces the set",
         **{f"loopmetric.readers._exported:{n}": "the ids given to calls without one stay distinct (call--1, "
            "call--2, ... or call-2, call-4, ...): only their pairing of a result with its call is read, never "
            "their number" for n in (22, 23)},
         **{f"loopmetric.readers._exported:{n}": "the span messages are written in is read only once a span is "
            "opened (`_append` writes `span_of` only when `spans` holds one), and `agent` sets it as it opens one"
            for n in (84, 85)},
         "loopmetric.readers._langsmith:270": "a run of a kind not in `_TYPES` is neither \"llm\" nor \"tool\" nor "
         "\"retriever\" as None either, and is written as the \"base\" node whatever its type_",
         "loopmetric.readers._langsmith:371": "the span-tree reader reads a span's type lowercased: \"BASE\" is "
         "\"base\"",
         **{f"loopmetric.readers._otlp._wire:{n}": "a span dict's status code fails the span only when it is an "
            "error's (2, \"ERROR\", ...): any other text, as \"UNSET\", reads as not failed" for n in (457, 458)},
         **{f"loopmetric.readers._otlp._wire:{n}": "an ended SDK span's status always holds a `StatusCode` enum, "
            "which has its `value`: the default of `getattr` is never taken" for n in (480, 485, 488)},
         **{f"loopmetric.readers._registry:{n}": _FAST + "`_format_by_rows` tells a plain span dict \"deepeval\" "
            "too (`tests/readers/test_registry_shortcut.py` checks both ways)" for n in (251, 253)}},
        {"loopmetric.detectors._obvious:443": "tests/detectors/test_obvious_loops.py::test_obvious_loops_fail[a-failure-"
         "told-in-words-retried-until-the-status-changes-is-no-wait]",
         "loopmetric.detectors._replies:600": _RESTATED + "test_replies_that_take_up_the_other_side_or_move_on_pass["
         "turns-in-two-messages-that-only-say-back-the-agents-words]",
         **{f"loopmetric.detectors._replies:{n}": _RESTATED + "test_a_fact_the_turn_names_is_taken_up_only_by_a_reply_"
            "that_tells_it_anew[each-reply-names-the-order-the-turn-named-as-the-reply-before-did]" for n in (616, 621)},
         **{f"loopmetric.detectors._stances:{n}": _RESTATED + "test_a_stall_is_a_stall_whichever_apostrophe_it_is_"
            "written_with[written-with-curly-apostrophes]" for n in (103, 104)},
         "loopmetric.detectors._tool_calls:46": "tests/detectors/test_detectors.py::test_repeated_call[a-call-made-twice-"
         "then-another-three-times-is-the-later-ones-loop]",
         "loopmetric.readers._exported:25": "tests/readers/test_exported_formats.py::test_a_call_keeps_its_arguments_and_"
         "its_result_whatever_its_id[an-id-that-is-not-text]",
         "loopmetric.readers._exported:21": "tests/readers/test_exported_formats.py::test_two_calls_of_one_tool_in_a_"
         "turn_each_get_their_own_result[the-second-under-an-empty-id-answered-first-the-first-without-one-answered-"
         "after]",
         "loopmetric.detectors._replies:741": "tests/detectors/test_detectors.py::test_repeated_replies[twin-reply-"
         "taking-up-a-scrubbed-id-it-was-just-told]",
         **{f"loopmetric.readers._exported:{n}": "tests/readers/test_exported_formats.py::test_two_calls_of_one_tool_in_a_"
            f"turn_each_get_their_own_result[{case}]" for n, case in (
                (54, "the-first-under-an-empty-id-the-second-without-one"),
                (60, "both-under-an-empty-id-the-first-result-without-one"),
                (62, "both-under-an-empty-id-the-first-result-without-one"))},
         "loopmetric.readers._langsmith:303": "tests/readers/test_reader_platforms.py::test_a_langsmith_llm_runs_input_"
         "messages_are_the_turns_it_answered[the-users-later-turn-in-the-second-llm-runs-input]",
         **{f"loopmetric.readers._registry:{n}": "tests/readers/test_format_registry.py::test_what_no_row_recognises_is_"
            f"not_a_trace_and_the_error_says_what_it_is[{case}]" for n, case in ((281, "empty-object"), (293, "number"))}},
        {"loopmetric/_canonical.py": ("tests/test_canonical.py",),
         **{f"loopmetric/detectors/{m}.py": ("tests/detectors",) for m in (
             "_cycles", "_facts", "_news", "_obvious", "_replies", "_stances", "_text", "_tool_calls")},
         "loopmetric/guard/langchain.py": ("tests/guard/test_guard_langchain.py",
                                           "tests/guard/test_guard_live_equals_offline.py",
                                           "tests/guard/test_guard_live_fields.py",
                                           "tests/guard/test_guard_replay_frameworks.py"),
         "loopmetric/readers/_exported.py": (*_EXPORTED, "tests/readers/test_conformance_chat.py"),
         "loopmetric/readers/_langsmith.py": ("tests/readers/test_reader_platforms.py",
                                              "tests/readers/test_conformance_platforms.py"),
         "loopmetric/readers/_matching.py": ("tests/guard/test_guard_replay.py", "tests/readers/test_reader_chat.py",
                                            "tests/readers/test_conformance_chat.py"),
         "loopmetric/readers/_otlp/_wire.py": ("tests/otel/test_ended_span.py", "tests/readers/test_reader_otlp.py",
                                               "tests/otel/test_processor.py", "tests/otel/test_live_equals_offline.py",
                                               "tests/readers/test_conformance_otlp.py"),
         "loopmetric/readers/_registry.py": ("tests/readers/test_registry_shortcut.py",
                                             "tests/readers/test_format_registry.py",
                                             "tests/readers/test_reader_files.py",
                                             "tests/readers/test_exported_formats.py")},
        {"loopmetric/_canonical.py::_words_found": 8, "loopmetric/_canonical.py::_hex_runs_found": 8,
         "loopmetric/_canonical.py::_units_after_digits": 8,
         "loopmetric/detectors/_cycles.py::detect_call_cycles": 10,
         "loopmetric/detectors/_news.py::__init__": 14, "loopmetric/detectors/_news.py::_kinds_of_failure": 8,
         "loopmetric/detectors/_news.py::runs": 8,
         "loopmetric/detectors/_obvious.py::detect_identical_repeats": 26, "loopmetric/detectors/_obvious.py::waits": 6,
         "loopmetric/detectors/_replies.py::_restated": 14, "loopmetric/detectors/_replies.py::__init__": 5,
         "loopmetric/detectors/_text.py::_scan": 12,
         "loopmetric/detectors/_tool_calls.py::detect_repeated_calls": 32,
         "loopmetric/guard/langchain.py::_record_turn": 10,
         "loopmetric/readers/_exported.py::__init__": 5, "loopmetric/readers/_exported.py::result": 20,
         "loopmetric/readers/_langsmith.py::_node": 31,
         "loopmetric/readers/_otlp/_wire.py::ended_span": 10, "loopmetric/readers/_otlp/_wire.py::span_dict": 10,
         "loopmetric/readers/_registry.py::_format_by_rows": 10}),
    # The tenth session's changes: the offer of a way forward and the trouble said again (`_replies`,
    # `_stances`), doubled consonants in stems, the masking classes written by what they leave out,
    # the text-action scans entered on their one character, the deepeval reader's turn lookup and token
    # counts, and a model turn's calls closing the earlier turns' for results without an id.
    # One survivor is left: `_text_actions:65` (`and` -> `or` in the JSON action's pre-check) read otherwise
    # only a JSON action whose key is written with an escape ("\u0061ction"), which that code read wrongly
    # (as no action, where a JSON parser reads "action"); fixed since (the pre-check lets "\u" through,
    # `test_text_action[json-action-whose-key-is-written-with-an-escape]`), and on the fixed code the same
    # `or` reads alike: a shortcut.
    "1a4bdad": FunctionRun(
        ("loopmetric/_canonical.py::_with_non_ascii", "loopmetric/_text_actions.py::find_text_action",
         *(f"loopmetric/detectors/_replies.py::{f}" for f in ("_offers_new", "_unheard", "detect_repeated_replies")),
         "loopmetric/detectors/_stances.py::offered", "loopmetric/detectors/_stances.py::_stem",
         "loopmetric/readers/_deepeval.py::read_span_tree", "loopmetric/readers/_exported.py::turn"),
        {"loopmetric._canonical:347": "consecutive codes left out are written as one range or as one code each: "
         "the class holds the same characters either way, only its text is longer",
         "loopmetric._canonical:359": "a hex escape reads the same in either case: \\U0010FFFF is \\U0010ffff",
         "loopmetric.detectors._stances:19": "the test before it, `stem[-1] == stem[-2]`, makes the stem's last two "
         "letters one letter: `stem[-2] in _UNDOUBLED` asks it of the same letter",
         "loopmetric.readers._deepeval:153": "`_lower` lowercases the type it is given: a span whose type is no text "
         "is \"base\" either way",
         "loopmetric.readers._deepeval:176": "`set_label` labels a span once (a label set stays): the ancestors "
         "labelled before are labelled again for nothing, the same labels, only slower"},
        {**{f"loopmetric.detectors._replies:{n}": "tests/detectors/test_restated_replies.py::test_an_offer_is_new_from_"
            f"three_stems_nobody_said_half_of_its_own[{case}]" for n, case in (
                (585, "three-stems-nobody-said-are-new"), (589, "three-stems-nobody-said-are-new"),
                (590, "three-new-of-six-half-of-them-is-new"))},
         "loopmetric.detectors._replies:124": _RESTATED + "test_an_offer_of_what_the_task_asked_for_is_nothing_new["
         "a-pickup-point-the-task-asked-for-is-no-way-forward-all-four-refusals-loop]",
         **{f"loopmetric.detectors._stances:{n}": "tests/detectors/test_restated_replies.py::test_what_a_reply_offers["
            "an-offer-written-with-a-curly-apostrophe]" for n in (101, 102)},
         # (the deepeval reader's conformance table pins these; the run's tests were the reader's own file alone)
         **{f"loopmetric.readers._deepeval:{n}": f"tests/readers/test_conformance_deepeval.py::test_deepeval_"
            f"conformance[{case}]" for n, case in (
                (228, "a-declared-text-action-is-a-call-answered-by-the-next-input"),
                (269, "results-pasted-back-as-the-users-message-are-no-turn"),
                (282, "twin-undeclared-action-markup-answered-by-a-person-is-text"))}},
        {"loopmetric/_canonical.py": ("tests/test_canonical.py",),
         "loopmetric/_text_actions.py": ("tests/test_text_actions.py",),
         **{f"loopmetric/detectors/{m}.py": ("tests/detectors",) for m in ("_replies", "_stances")},
         "loopmetric/readers/_deepeval.py": ("tests/readers/test_reader_deepeval.py",),
         "loopmetric/readers/_exported.py": (*_EXPORTED, "tests/readers/test_conformance_chat.py")},
        {"loopmetric/_text_actions.py::find_text_action": 10,
         "loopmetric/detectors/_replies.py::detect_repeated_replies": 12,
         "loopmetric/readers/_deepeval.py::read_span_tree": 12}),
    # The eleventh session's changes: the JSON action's pre-check letting an escaped key through, the LangChain
    # guard reading the answers LangChain gives malformed calls as offline does (`answered_malformed`, a turn
    # closing the earlier turns' calls in `decide_turn`, each call's own decision in `_record_turn` and
    # `_decision`) and the LangChain reader skipping a call the guard answered in its own turn (`_refused`).
    # (`after_model` is decorated, `@hook_config`: mutmut makes no mutant of it; hand mutants pin it.)
    "4dcfcd5": FunctionRun(
        ("loopmetric/_text_actions.py::find_text_action",
         *(f"loopmetric/guard/langchain.py::{f}" for f in ("answered_malformed", "decide_turn", "_record_turn",
                                                            "_decision")),
         "loopmetric/readers/_langchain.py::_refused", "loopmetric/readers/_langchain.py::read_langchain_messages"),
        {"loopmetric._text_actions:65": _FAST + "`_json_action` decides alike: an object with an \"action\" key "
         "holds the text '\"action\"' or an escape",
         **{f"loopmetric.guard.langchain:{n}": "without `calls`, `decide_turn` reads `turn_calls(message)` itself: "
            "the same calls of the same message" for n in (163, 166)},
         "loopmetric.readers._langchain:215": "-2, as -1, is no turn: a guard's answer before any turn refuses "
         "nothing (`turn >= 0`)",
         **{f"loopmetric.readers._langchain:{n}": "a chat message of a role `_CHAT_ROLES` does not name is no "
            "\"ai\" or \"tool\" whatever the default: only those two kinds are read here" for n in (225, 227, 232, 233)}},
        {"loopmetric.guard.langchain:267": "tests/guard/test_guard_langchain.py::test_a_looping_call_is_nudged_"
         "whatever_its_id[calls-under-an-empty-id]",
         **{f"loopmetric.readers._langchain:{n}": "tests/guard/test_guard_langchain.py::test_the_turn_a_guards_answer_"
            f"belongs_to_is_the_last_turn_before_it_whatever_came_between[{case}]" for n, case in (
                *((n, "a-recording-cut-after-a-turn-the-guard-answered-reads-the-turns-after") for n in (213, 214)),
                (218, "an-item-that-is-no-message-before-the-turn-the-guard-answered"),
                *((n, "a-turn-written-as-the-assistants-chat-message-the-guard-answered")
                  for n in (221, 222, 223, 224, 226, 228, 229, 230, 231)),
                (234, "the-guard-answering-the-second-call-of-a-turn-after-the-firsts-result"),
                *((n, "a-recording-that-begins-with-the-turn-the-guard-answered") for n in (246, 247)))}},
        {"loopmetric/_text_actions.py": ("tests/test_text_actions.py",),
         "loopmetric/guard/langchain.py": ("tests/guard/test_guard_langchain.py",
                                           "tests/guard/test_guard_live_equals_offline.py",
                                           "tests/guard/test_guard_live_fields.py",
                                           "tests/guard/test_guard_replay_frameworks.py"),
         "loopmetric/readers/_langchain.py": (*_EXPORTED, "tests/guard/test_guard_langchain.py")},
        {"loopmetric/_text_actions.py::find_text_action": 10, "loopmetric/guard/langchain.py::_record_turn": 20,
         "loopmetric/readers/_langchain.py::read_langchain_messages": 15}),
    # Modules changed since 2026-12-05 that the runs so far gave fewer than 30 mutants: every mutant of
    # `_memo` (6 run before) and of the hooks' settings file lookup (`hooks/_config`, 16), all they have.
    "a3f5513": FunctionRun(
        (*(f"loopmetric/_memo.py::{f}" for f in ("__enter__", "__exit__", "per_text", "per_repeated_text")),
         "loopmetric/hooks/_config.py::find_config", "loopmetric/hooks/_config.py::load_settings"),
        {"loopmetric._memo:5": "`with` calls `__exit__` once for each `__enter__`, which sets the token anew: the "
         "value `__exit__` leaves is never read",
         "loopmetric._memo:12": "`first` is read only for its truth (`if first`): None reads as False"}, {},
        {"loopmetric/_memo.py": ("tests/test_memo.py",),
         "loopmetric/hooks/_config.py": ("tests/hooks/test_hook_settings.py",)}),
    "5907712": FunctionRun(
        (*(f"loopmetric/detectors/_replies.py::{f}" for f in ("_restated", "_acts_of", "takes_up", "_same_act", "_what",
                                                                 "_restated_finding")),
         *(f"loopmetric/detectors/_stances.py::{f}" for f in ("offers_anything", "offers_in", "sentences", "asks"))),
        {"loopmetric.detectors._replies:777": "a name's place in a sentence is filled with mutmut's marker \"XX XX\" "
         "instead of a space: the words around it stay apart either way, and the marker is a stem only a turn "
         "saying \"XX\" could have brought",
         "loopmetric.detectors._replies:806": "the asking and offering sentences are joined with mutmut's marker "
         "around the line break: they stay apart either way, and a fact part (which holds a digit) runs into "
         "the marker only when the reply writes \"XX\" beside a digit",
         **{f"loopmetric.detectors._replies:{n}": "a chain with a request (offer) link holds the reply that made it, "
            "whose asks (offers) share stems with an earlier one's: the counts are never empty, so the default "
            "of `max` is never read" for n in (993, 994)}},
        {**{f"loopmetric.detectors._stances:{n}": "tests/detectors/test_same_act_again.py::test_an_offer_written_"
            "with_curly_apostrophes_is_the_same_offer[the-same-offer-with-curly-apostrophes-3-times]"
            for n in (79, 80, 142, 143)},
         "loopmetric.detectors._stances:83": "tests/detectors/test_same_act_again.py::test_what_a_reply_offers["
         "a-sentence-that-tells-beside-an-offer-offers-nothing]",
         "loopmetric.detectors._replies:652": "tests/detectors/test_same_act_again.py::test_the_same_facts_told_to_a_"
         "pressed_demand_are_named[the-same-facts-to-one-demand-pressed]",
         "loopmetric.detectors._replies:1022": "tests/detectors/test_same_act_again.py::test_what_is_asked_again_is_"
         "named_once[an-ask-that-says-its-words-twice-names-them-once]",
         "loopmetric.detectors._replies:1049": "tests/detectors/test_same_act_again.py::test_facts_told_again_by_two_"
         "replies_are_named[facts-two-replies-told-are-named]",
         **{f"loopmetric.detectors._replies:{n}": "tests/detectors/test_same_act_again.py::test_what_is_asked_again_"
            "is_named_when_two_replies_ask_it[an-ask-one-reply-of-the-chain-makes-is-not-named]" for n in (987, 988)}},
        {f"loopmetric/detectors/{m}.py": ("tests/detectors",) for m in ("_replies", "_stances")},
        {"loopmetric/detectors/_replies.py::_restated": 30, "loopmetric/detectors/_replies.py::_what": 40,
         "loopmetric/detectors/_replies.py::_restated_finding": 20}),
    # The modules with the lowest rates whose functions changed since 2026-12-05 (`readers/_inference`,
    # `readers/_responses`, `hooks/_session`, `otel/_adapter`), each on every test file that reads through it:
    # its own, the conformance tables, the live-equals-offline tables of the frontends that use it.
    "9cd4870": FunctionRun(
        (*(f"loopmetric/readers/_inference.py::{f}" for f in (
            "as_request", "_declares", "other_side_turn", "input_results", "_response_text", "holds_text",
            "text_call", "_why")),
         *(f"loopmetric/readers/_responses.py::{f}" for f in ("read_responses_items", "_error_text", "__init__",
                                                              "flush", "add")),
         *(f"loopmetric/hooks/_session.py::{f}" for f in (
             "_escalating", "_short", "_steps", "__init__", "to_state", "before", "after", "_guard", "_found",
             "_what", "_nudge", "_warning", "_refusal", "summary")),
         "loopmetric/otel/_adapter.py::read_step"),
        {"loopmetric.readers._inference:337": "a number is skipped either way: neither text nor a list or mapping, it "
         "says nothing was told",
         "loopmetric.readers._responses:236": "a call answered inline left open under a wrong name only in the item "
         "reader's bookkeeping: the chat reader gives each call one result and hands a result without an id to the "
         "call still waiting (two calls of one kind, the first answered inline, the second by an output item without "
         "an id, read the same)",
         "loopmetric.hooks._session:420": "a loop found before a call runs is a loop of calls, whose tool names are "
         "never empty: the fallback is never read",
         **{f"loopmetric.hooks._session:{n}": "a loop is worded once a call of it returned (a nudge after the call, "
            "the warning in `after`), whose result the session has just written: what repeats and what it returned "
            "are never empty" for n in (513, 530)}},
        {**{f"loopmetric.readers._responses:{n}": _RESPONSES_PINS + "test_a_document_that_holds_no_list_is_an_error_"
            "naming_what_it_got[responses-api-items]" for n in (73, 74)},
         **{f"loopmetric.readers._responses:{n}": _RESPONSES_PINS + "test_responses_items_are_read_from_a_request_"
            "body_and_named_as_asked[a-request-body-holding-its-input-items]" for n in (69, 85)},
         **{f"loopmetric.readers._responses:{n}": _RESPONSES_PINS + "test_responses_results_answered_out_of_order_go_"
            "to_the_calls_they_name[calls-named-by-their-item-id-alone]" for n in (212, 217)},
         "loopmetric.readers._inference:253": "tests/readers/test_inference.py::test_other_side_turn[newest-messages-"
         "two-user-messages-each-on-its-line]",
         **{f"loopmetric.hooks._session:{n}": _HOOK_PINS + "test_a_repeated_call_found_before_it_runs[a-repeated-call-"
            "is-nudged-once-it-ran-then-refused-before-it-runs-naming-the-call]" for n in (222, 411, 416, 547, 550)},
         "loopmetric.hooks._session:232": _HOOK_PINS + "test_a_result_given_without_an_id_is_matched_to_an_announced_"
         "call_or_taken_as_is[a-result-of-a-call-never-announced-is-taken-quietly]"},
        tests={
            "loopmetric/readers/_inference.py": (
                "tests/readers/test_inference.py", "tests/readers/test_builder.py",
                "tests/readers/test_reader_deepeval.py", "tests/readers/test_exported_formats.py",
                "tests/detectors/test_rejected_feedback.py", *_CONFORMANCE, _PINNED_READERS),
            "loopmetric/readers/_responses.py": (
                "tests/readers/test_reader_codex.py", "tests/readers/test_coding_agents.py",
                "tests/readers/test_registry_shortcut.py", *_EXPORTED, *_CONFORMANCE,
                "tests/hooks/test_hook_command.py"),
            "loopmetric/hooks/_session.py": tuple(f"tests/hooks/test_{name}.py" for name in (
                "hook_command", "hook_settings", "hook_state", "hook_install", "hook_live_equals_offline",
                "claude_agent_sdk", "replay_sessions", "core_only")),
            "loopmetric/otel/_adapter.py": (
                *(f"tests/otel/test_{name}.py" for name in (
                    "processor", "live_fields", "live_equals_offline", "live_equals_offline_corpus", "ended_span",
                    "instrumented")),
                "tests/guard/test_guard_live_equals_offline.py", "tests/readers/test_conformance_otlp.py")},
        sample={**{f"loopmetric/readers/_inference.py::{f}": n for f, n in (
                    ("_declares", 6), ("other_side_turn", 6), ("input_results", 5), ("_response_text", 5),
                    ("holds_text", 4), ("text_call", 3), ("_why", 4))},
                **{f"loopmetric/readers/_responses.py::{f}": n for f, n in (
                    ("read_responses_items", 6), ("_error_text", 5), ("flush", 5), ("add", 19))},
                **{f"loopmetric/hooks/_session.py::{f}": n for f, n in (
                    ("_escalating", 2), ("_short", 3), ("_steps", 3), ("__init__", 5), ("to_state", 3),
                    ("before", 4), ("after", 5), ("_guard", 2), ("_found", 7), ("_what", 3), ("_nudge", 2),
                    ("_warning", 2), ("_refusal", 2), ("summary", 3))},
                "loopmetric/otel/_adapter.py::read_step": 36}),
    # The reading code changed for speed in the session of speed7 (eeca039..ecb72e4), which no run had sampled
    # since: the builder's spans frozen as they are added (`add_span`, `_within`, `set_label`, `build`), a reply
    # asking for no call holding the shared empty tuple (`add_llm_output`, `add_request`, `Llm.__init__`: the
    # three `__init__` of `_items`, all their mutants), `number_steps` dispatching on an item's class, the deepeval
    # reader's shared empty entries, and a dict of arguments encoded without the text checks (`_canonical_args`,
    # all its mutants). Each module on every test file that reads through it: its own, the conformance tables,
    # the live-equals-offline tables of the frontends. (`LoopGuard.turn` and the decorated `read_trace` give
    # mutmut no mutant; each changed line was taken out by hand and killed: `turn` without its body by
    # `tests/guard/test_guard_langchain.py`, the record of no run without its error by
    # `tests/readers/test_format_registry.py`.)
    "ecb72e4": FunctionRun(
        (*(f"loopmetric/readers/_builder.py::{f}" for f in (
            "__init__", "add_span", "_within", "set_label", "add_llm_output", "add_request", "build")),
         "loopmetric/readers/_freeze.py::number_steps", "loopmetric/readers/_items.py::__init__",
         "loopmetric/readers/_deepeval.py::read_span_tree", "loopmetric/_canonical.py::_canonical_args"),
        {"loopmetric.readers._builder:29": "reader positions start at 0: `_last_open` at -1 or -2 says alike that no "
         "item held an open call (`may_have_open_calls` asks `>= start`)",
         "loopmetric.readers._builder:44": "`_requested` is read only for its truth: None reads as False",
         "loopmetric.readers._builder:72": "a scope below 0 is no agent whatever its value: every reading of one asks "
         "`< 0` or `>= 0` (`_within`)",
         "loopmetric.readers._freeze:13": "the item's place in the caller's list is emptied to let it go (memory): "
         "any value but the item does, and the list is not read after",
         "loopmetric.readers._freeze:60": "every input is fingerprinted with the same word, in either case: inputs "
         "are compared with inputs only (news, the text check, rejected feedback), so no verdict changes; only the "
         "16-hex key a finding names for an input would be another one",
         "loopmetric.readers._items:3": "a call's result is read only once it is known (`known`), which sets it: the "
         "default is never read",
         **{f"loopmetric.readers._items:{n}": "a call's error text is read only when it failed (`error`), which sets "
            "it: the default is never read" for n in (8, 9)},
         "loopmetric.readers._items:41": "the one maker of an `Input` (`add_input`) passes `inferred`: the default is "
         "never read",
         "loopmetric.readers._deepeval:69": "the last reply is read only after the first LLM span, which sets it "
         "(`other_side_turn` reads it only when not `first`, `_answers` once a reply was read)",
         "loopmetric.readers._deepeval:153": "`_lower` lowercases the type it is given: a span whose type is no text "
         "is \"base\" either way",
         "loopmetric.readers._deepeval:176": "`set_label` labels a span once (a label set stays): the ancestors "
         "labelled before are labelled again for nothing, the same labels, only slower",
         "loopmetric._canonical:219": "the fast path of a dict: past it a dict is no bytes, no text and not None, and "
         "gets `canonical_json` all the same, only later",
         **{f"loopmetric._canonical:{n}": "`decode` reads UTF-8 by default, and a codec's name in any case"
            for n in (225, 229)},
         **{f"loopmetric._canonical:{n}": "`ensure_ascii` is read for its truth: None reads as False"
            for n in (240, 245)}},
        {"loopmetric.readers._builder:70": "tests/readers/test_builder.py::test_a_span_is_in_the_agent_of_a_parent_"
         "added_before_it_and_else_in_none[naming-itself-as-its-parent-is-in-no-agent]",
         "loopmetric.readers._builder:82": "tests/readers/test_builder.py::test_request_goes_to_the_execution_in_its_"
         "own_agent_not_another[another-agent-the-first-span-beside-the-requesting-one]",
         # (older than the run; `tests/readers/test_owned.py` was not among the files it chose for `_deepeval`)
         "loopmetric.readers._deepeval:435": "tests/readers/test_owned.py::test_what_each_reader_lets_go_of_while_"
         "owned[span-tree-the-children-once-taken]",
         "loopmetric._canonical:236": "tests/test_canonical.py::test_same_arguments_same_canonical_form["
         "json-list-string-with-spaces]",
         **{f"loopmetric._canonical:{n}": "tests/test_canonical.py::test_arguments_given_as_text_keep_their_letters_"
            "as_written[text-that-opens-like-json-and-is-none-kept-as-written]" for n in (242, 243)}},
        tests={
            # (the builder's readers: its own tests, the conformance tables, the live-equals-offline tables of the
            # guard, the OpenTelemetry processor and the hooks; `_canonical` its own file first)
            **{module: (*own, "tests/readers/test_builder.py", *_CONFORMANCE, _PINNED_READERS,
                        "tests/guard/test_guard_live_equals_offline.py", "tests/otel/test_live_equals_offline.py",
                        "tests/hooks/test_hook_live_equals_offline.py")
               for module, own in (("loopmetric/readers/_builder.py", ()), ("loopmetric/readers/_freeze.py", ()),
                                   ("loopmetric/readers/_items.py", ()),
                                   ("loopmetric/_canonical.py", ("tests/test_canonical.py",)))},
            "loopmetric/readers/_deepeval.py": (
                "tests/readers/test_reader_deepeval.py", *_CONFORMANCE, _PINNED_READERS,
                "tests/readers/test_reader_platforms.py", "tests/otel/test_live_equals_offline.py",
                "tests/otel/test_live_equals_offline_corpus.py")},
        sample={**{f"loopmetric/readers/_builder.py::{f}": n for f, n in (
                    ("__init__", 2), ("add_span", 12), ("_within", 3), ("set_label", 12), ("add_llm_output", 6),
                    ("add_request", 4), ("build", 6))},
                "loopmetric/readers/_freeze.py::number_steps": 32,
                "loopmetric/readers/_deepeval.py::read_span_tree": 32}),
    # This session's rule and news-model changes (ecb72e4..d028d22): `_new_facts` (a fact a tool call or its
    # result told is no news, `_Looked.told`, `_stands_in`), each reply's stances and acts read once (`_read`,
    # `stances_and_acts` with its screens), `Progress.__init__` (`seen_alone`, `first_made`, a result with a
    # line break never split) and the text rule reading `first_made` (`_always_afresh`, `text_episodes`). Each
    # module on the `tests/detectors` files that read through it.
    "d028d22": FunctionRun(
        ("loopmetric/detectors/_news.py::__init__",
         *(f"loopmetric/detectors/_replies.py::{f}" for f in ("_new_facts", "_stands_in", "told", "_read")),
         "loopmetric/detectors/_stances.py::stances_and_acts",
         *(f"loopmetric/detectors/_text.py::{f}" for f in ("_always_afresh", "text_episodes", "detect_text_loops"))),
        {"loopmetric.detectors._news:423": "the news steps are counted only to be compared (`is_news` asks `>`, "
         "`quiet_between` `==`, `runs` `<=`): a step counted as two keeps every comparison",
         "loopmetric.detectors._news:440": "a reply number of a call's own is any number below zero no other call "
         "has: `-2 - index` is below zero and differs for each call as `-1 - index` does",
         "loopmetric.detectors._news:466": "a result with a line break is never equal to its words joined by "
         "single spaces: the check for one only spares the split of a long log (speed)",
         "loopmetric.detectors._replies:808": "the asking and offering sentences are joined with mutmut's marker "
         "around the line break: they stay apart either way, and a fact part (which holds a digit) runs into "
         "the marker only when the reply writes \"XX\" beside a digit",
         "loopmetric.detectors._replies:1183": "the one step more read is the turn or reply asked about (`told` is "
         "asked for the steps before it): no tool call, so nothing is added",
         "loopmetric.detectors._replies:1235": "the step left unread is the one just before the turn or reply "
         "asked about: when it is a tool call, that reply starts a chain (no check of its facts) or that turn is "
         "read by no reply with an earlier one since the call (`told` is reset by the reply after a call); a call "
         "answered as before, skipped by the scan, told its result already at the earlier call",
         **{f"loopmetric.detectors._text:{n}": "without the evidence `_always_afresh` reads the calls' "
            "fingerprints, whose repeats are the news model's `first_made`: the same answer, built again "
            "(speed)" for n in (1, 3)}},
        {"loopmetric.detectors._news:548": "tests/detectors/test_news.py::test_news[a-call-made-again-showing-a-"
         "page-of-lines-seen-two-calls-before-is-no-news]",
         "loopmetric.detectors._replies:1227": "tests/detectors/test_facts_tools_told.py::test_a_turn_relaying_what_"
         "the_reply_just_before_told_brings_nothing_new[a-turn-relaying-what-the-reply-before-told-3-replies]",
         "loopmetric.detectors._text:19": "tests/detectors/test_text_shortcut.py::test_the_evidence_of_another_"
         "trace_is_not_read[a-call-made-again-is-scanned-whatever-another-traces-evidence-says]"},
        tests={
            "loopmetric/detectors/_news.py": tuple(f"tests/detectors/test_{name}.py" for name in (
                "news", "news_shortcuts", "obvious_loops", "text_shortcut", "fruitless_changes", "resent_changes")),
            "loopmetric/detectors/_replies.py": tuple(f"tests/detectors/test_{name}.py" for name in (
                "facts_tools_told", "restated_replies", "same_act_again", "facts", "conversation_meaning",
                "same_stance", "detectors")),
            "loopmetric/detectors/_stances.py": tuple(f"tests/detectors/test_{name}.py" for name in (
                "stance_screens", "same_stance", "same_act_again", "restated_replies", "conversation_meaning")),
            "loopmetric/detectors/_text.py": tuple(f"tests/detectors/test_{name}.py" for name in (
                "text_shortcut", "text_windows", "detectors", "news_shortcuts"))},
        sample={"loopmetric/detectors/_news.py::__init__": 30,
                "loopmetric/detectors/_replies.py::_stands_in": 8, "loopmetric/detectors/_replies.py::told": 6,
                "loopmetric/detectors/_replies.py::_read": 8,
                "loopmetric/detectors/_stances.py::stances_and_acts": 30,
                "loopmetric/detectors/_text.py::detect_text_loops": 4}),
    # What changed after d028d22 up to 5908bc1: whether a tool already told a fact, looked up in the set of
    # whole digit-holding runs of each distinct text (`_Looked`); a word said only in a sentence that says no
    # is not taken up (`takes_up`, `says_no`); the stemmer's "y" left after -ing/-ed. (`__init__` takes every
    # constructor of `_replies.py`: `_Looked`'s changed, `_Said`'s and `_Contents`'s beside it. `_facts.py`
    # changed only in `facts`, which `per_text` decorates, and in a pattern at module level: mutmut makes no
    # mutant of either; `_stances._STANCES`'s new pattern is at module level too.)
    "5908bc1": FunctionRun(
        (*(f"loopmetric/detectors/_replies.py::{f}" for f in ("takes_up", "__init__", "told")),
         *(f"loopmetric/detectors/_stances.py::{f}" for f in ("says_no", "_stem"))),
        {"loopmetric.detectors._replies:794": "the name is cut out for mutmut's marker instead of a space: the space "
         "before the name and the sign after it stay, so no word runs into it, and the marker's two capitals are "
         "a word (`_UPPER_PAIR`) only a turn writing \"XX\" itself brings",
         "loopmetric.detectors._replies:1205": "no fact is kept under None: every search starts at the first text "
         "(a fact found before is found again, the texts only grow; one not found is searched again where it was "
         "not): the same answer (speed)",
         "loopmetric.detectors._replies:1220": "a fact found is marked by any number below zero (`start < 0`): -2 "
         "as -1",
         "loopmetric.detectors._stances:19": "`stem[-1] == stem[-2]` is asked just before (`and`, left to right): "
         "`stem[-2]` is `stem[-1]`"},
        {"loopmetric.detectors._replies:1184": "tests/detectors/test_facts_tools_told.py::test_a_lookup_tells_its_"
         "facts_wherever_it_stands_and_whatever_holds_them[turns-relay-what-a-lookup-opening-the-run-told-3-"
         "replies]",
         "loopmetric.detectors._replies:1209": "tests/detectors/test_facts_tools_told.py::test_a_lookup_tells_its_"
         "facts_wherever_it_stands_and_whatever_holds_them[a-turn-relays-the-page-the-lookup-opened-3-replies]",
         **{f"loopmetric.detectors._replies:{n}": "tests/detectors/test_facts_tools_told.py::test_a_fact_asked_"
            "again_is_answered_as_the_first_time[a-fact-with-signs-found-is-found-when-asked-again]"
            for n in (1212, 1218, 1219)}},
        tests={
            "loopmetric/detectors/_replies.py": tuple(f"tests/detectors/test_{name}.py" for name in (
                "facts_tools_told", "restated_replies", "same_act_again", "facts", "conversation_meaning",
                "same_stance", "detectors")),
            "loopmetric/detectors/_stances.py": tuple(f"tests/detectors/test_{name}.py" for name in (
                "stance_screens", "same_stance", "same_act_again", "restated_replies", "conversation_meaning"))}),
    # What changed after 5908bc1 up to 5fc9453: the other side saying it already said it, a link of its own
    # (`_already_said.py`: `already_said`, `says_already_said`); the same ask while the other side lacks it
    # (`_lacking`), an offer once given what is asked (`_unconditioned`), the wider of two overlapping chains
    # (`_widest`), the replies that ask (`_asking`) and the `_restated` lines that call them (sampled); a user's
    # words beside its own calls (`other_side_turn`); `canonical_json`'s one-key shortcut (`_flat_object`). Each module on the
    # tests that read through it (the readers' tables for `_inference.py`, not the invariance corpus: too slow).
    "5fc9453": FunctionRun(
        ("loopmetric/detectors/_already_said.py::already_said",
         "loopmetric/detectors/_already_said.py::says_already_said",
         *(f"loopmetric/detectors/_replies.py::{f}" for f in (
             "_lacking", "_unconditioned", "_widest", "_asking", "_restated")),
         "loopmetric/readers/_inference.py::other_side_turn", "loopmetric/_canonical.py::canonical_json",
         "loopmetric/_canonical.py::_flat_object"),
        {**{f"loopmetric._canonical:{n}": _FAST + "a text or a one-key dict left to the encoder, which writes the "
            "same text" for n in (53, 57, 61)},
         **{f"loopmetric._canonical:{n}": _FAST + "`_flat_object` returns None for any dict but one of one key, "
            "which goes to the encoder as before" for n in (59, 60)},
         "loopmetric._canonical:65": "a thread's first call finds no encoder (None is no callable: TypeError), "
         "writes its value with the iterative encoder, which writes the same text, and sets the encoder",
         "loopmetric._canonical:67": "the C encoder returns its whole text as one chunk: nothing is joined",
         "loopmetric._canonical:72": "the indent level is read only with an indent, and the encoder has none",
         "loopmetric.detectors._already_said:109": _UNRECORDED_UNREAD},
        {"loopmetric._canonical:55": "tests/test_canonical_shortcuts.py::test_a_text_alone_is_written_as_its_json_"
         "string[a-plain-text]",
         "loopmetric.detectors._replies:736": "tests/detectors/test_asked_while_lacking.py::test_healthy_twins_stay_"
         "healthy[asked-three-times-the-first-answer-talking-around-it-then-lacking-it]",
         "loopmetric.detectors._already_said:84": "tests/detectors/test_already_said.py::test_each_condition_of_the_"
         "link_has_a_healthy_twin[told-with-news-then-a-turn-more-and-the-agent-takes-up-the-news]",
         "loopmetric.detectors._already_said:142": "tests/detectors/test_already_said.py::test_each_condition_of_the_"
         "link_has_a_healthy_twin[told-in-the-tasks-own-words]",
         "loopmetric.readers._inference:249": "tests/readers/test_inference.py::test_other_side_turn[two-user-"
         "messages-after-the-agent-s-results-each-on-its-line]",
         "loopmetric.detectors._replies:356": f"{_ONE_WAY}[lacking-it-and-giving-the-order-number-the-agent-leaves-"
         "unused]",
         **{f"loopmetric.detectors._replies:{n}": f"{_ONE_WAY}[the-same-request-three-times-while-the-other-side-"
            "lacks-it]" for n in (728, 729, 730)},
         **{f"loopmetric.detectors._replies:{n}": f"{_ONE_WAY}[the-same-question-three-times-while-the-other-side-"
            "lacks-it]" for n in (732, 733)},
         **{f"loopmetric.detectors._replies:{n}": "tests/detectors/test_untold_turns.py::test_replies_in_a_row_when_"
            "turns_are_not_recorded[a-reply-its-calls-tool-span-follows-acted]" for n in (776, 780, 781)}},
        tests={
            "loopmetric/detectors/_already_said.py": (
                "tests/detectors/test_already_said.py", "tests/detectors/test_restated_replies.py"),
            "loopmetric/detectors/_replies.py": tuple(f"tests/detectors/test_{name}.py" for name in (
                "asked_while_lacking", "restated_replies", "already_said")),
            "loopmetric/readers/_inference.py": (
                "tests/readers/test_inference.py", "tests/readers/test_conformance_chat.py",
                "tests/readers/test_reader_deepeval.py", "tests/readers/test_exported_formats.py"),
            "loopmetric/_canonical.py": ("tests/test_canonical.py", "tests/test_canonical_shortcuts.py")},
        sample={"loopmetric/detectors/_already_said.py::already_said": 24,
                "loopmetric/detectors/_replies.py::_restated": 8,
                "loopmetric/readers/_inference.py::other_side_turn": 30,
                "loopmetric/_canonical.py::canonical_json": 30}),
    "09acb40": FunctionRun(
        ("loopmetric/detectors/_replies.py::_widest", "loopmetric/detectors/_replies.py::detect_repeated_replies",
         *(f"loopmetric/readers/_inference.py::{f}" for f in ("_text_parts", "_words", "_text"))),
        {"loopmetric.detectors._replies:205": _UNRECORDED_UNREAD,
         "loopmetric.readers._inference:436": "`others_end` is read as true or false: None is false as False is"},
        {"loopmetric.detectors._replies:196": "tests/detectors/test_untold_turns.py::test_replies_in_a_row_when_turns_"
         "are_not_recorded[a-reply-its-calls-tool-span-follows-acted]",
         "loopmetric.readers._inference:441": "tests/readers/test_inference.py::test_other_side_turn[a-user-calling-"
         "tools-its-words-in-two-parts-each-on-its-line]",
         "loopmetric.readers._inference:464": f"{_PARTS}[plain-string-parts-each-on-its-line]",
         **{f"loopmetric.readers._inference:{n}": f"{_PARTS}[a-text-part-beside-a-tool-result-part-is-no-turn]"
            for n in (455, 458, 465, 466, 470, 471)}},
        tests={
            "loopmetric/detectors/_replies.py": tuple(f"tests/detectors/test_{name}.py" for name in (
                "asked_while_lacking", "restated_replies", "already_said", "untold_turns")),
            "loopmetric/readers/_inference.py": tuple(f"tests/readers/test_{name}.py" for name in (
                "inference", "conformance_chat", "conformance_deepeval", "reader_deepeval", "exported_formats"))},
        # (`detect_repeated_replies`: the lines that call `_widest` with both links' findings)
        lines={"loopmetric/detectors/_replies.py::detect_repeated_replies": (189, 194)}),
    "8c44702": FunctionRun(
        ("loopmetric/readers/_chat.py::read_chat", "loopmetric/readers/_chat.py::_remember",
         "loopmetric/readers/_builder.py::answer", "loopmetric/detectors/_replies.py::_answers_input",
         "loopmetric/detectors/_replies.py::_declined_again", "loopmetric/cli/_hook.py::run_event",
         "loopmetric/cli/_hook.py::_event_options", "loopmetric/hooks/_install.py::missing"),
        {**{f"loopmetric.readers._chat:{n}": "`latest` is read only against the reply position of a remembered call, "
            "and a call is remembered only once a reply asking for calls has set `latest` (a message merged into a "
            "waiting reply comes after one): its first value is never read" for n in (239, 240, 241)},
         "loopmetric.detectors._replies:1306": "`getattr`'s default is followed by `or \"\"`: None and \"\" both read "
         "as \"\"",
         "loopmetric.cli._hook:201": "argparse reads `add_help` only as a truth value: None adds no -h/--help, as "
         "False does",
         "loopmetric.hooks._install:147": "a command shlex cannot split (an unbalanced quote) is warned of, naming the "
         "whole command (`program or base`), with `program` None as with the whole text looked up on PATH; they "
         "differ only when a program named by that whole text, quote included, is on PATH",
         "loopmetric.hooks._install:166": "`XX.XX`, a folder not in the working directory, resolves under it and is "
         "searched from upwards: the first folder with a config file is the working directory's, as from `.` (but "
         "for a folder named `XX.XX` there)"},
        {
            **{f"loopmetric.cli._hook:{n}": f"{_EVENT}::test_a_wrong_flag_fails_open_with_its_line_in_the_log[a-misspelt-flag-fails-open-and-says-so]" for n in (187, 189, 191, 209, 210, 211)},
            **{f"loopmetric.cli._hook:{n}": f"{_EVENT}::test_the_event_call_reads_its_flags[action-nudge-nudges]" for n in (186, 199, 205, 206, 207, 208)},
            **{f"loopmetric.cli._hook:{n}": f"{_EVENT}::test_the_event_call_reads_its_flags[no-flags-the-default-action-nudges-after-three]" for n in (179, 180, 181, 184, 185, 192, 195)},
            **{f"loopmetric.cli._hook:{n}": f"{_EVENT}::test_the_event_call_reads_its_flags[twin-action-log-only-writes-the-log]" for n in (183, 196, 198)},
            **{f"loopmetric.cli._hook:{n}": f"{_EVENT}::test_the_state_dir_flag_keeps_the_state_there_not_in_the_environments" for n in (194,)},
            # (the survivors pinned by d5ddbaf, 04d95a2 and e6bea6b: rows of the chat reader's conformance tables,
            # the hook's in-process event rows, the installer's warnings, replies taking up a turn before the last)
            **{f"loopmetric.readers._chat:{n}": f"{_CHAT_ROW}sdk-messages-parallel-calls-answered-out-of-order-by-id-usage-user-parts]" for n in (243, 244, 245, 246, 247, 248, 249)},
            **{f"loopmetric.readers._chat:{n}": f"{_CHAT_ROW}text-action-declared-by-a-developer-message]" for n in (267, 268)},
            "loopmetric.readers._chat:288": f"{_CHAT_ROW}text-action-declared-by-the-first-user-prompt-after-a-system-prompt]",
            **{f"loopmetric.readers._chat:{n}": f"{_CHAT_ROW}twin-a-system-message-after-a-reply-declares-no-action]" for n in (296, 297)},
            **{f"loopmetric.readers._chat:{n}": f"{_CHAT_ROW}a-team-chat-each-members-turn-a-call-of-the-lead-its-own-calls-a-reply-of-its-own]"
               for n in (298, 299, 300, 304, 305, 306, 307, 308, 309, 310, 312, 313, 314, 315, 316, 317, 318, 319, 320,
                         321, 322, 323, 325, 326, 327, 328, 350, 351, 352, 353, 356, 357, 359, 360)},
            "loopmetric.readers._chat:303": f"{_CHAT_ROW}a-leads-reply-of-calls-alone-after-a-members-turn-is-a-reply-of-its-own]",
            **{f"loopmetric.readers._chat:{n}": f"{_CHAT_SPANS}team-members-in-agent-spans-of-their-own]" for n in (311, 324, 358, 361)},
            "loopmetric.readers._chat:334": f"{_CHAT_ROW}a-call-among-the-content-parts-without-an-id-is-a-call-still]",
            "loopmetric.readers._chat:347": f"{_CHAT_ROW}text-action-answered-by-the-last-message-like-an-observation]",
            "loopmetric.readers._chat:349": f"{_CHAT_ROW}a-leads-reply-without-text-adds-nothing-to-what-a-member-is-told]",
            **{f"loopmetric.readers._chat:{n}": f"{_CHAT_SPANS}calls-of-one-turn-one-message-each-in-the-main-agent-answered-where-asked]" for n in (384, 393, 402, 491)},
            "loopmetric.readers._chat:430": f"{_CHAT_ROW}a-function-message-naming-its-call-by-id-is-paired-by-it]",
            **{f"loopmetric.readers._chat:{n}": f"{_CHAT_ROW}a-failed-result-without-text-is-a-failed-call-saying-error]" for n in (447, 448, 449)},
            "loopmetric.readers._chat:462": f"{_CHAT_ROW}a-result-given-again-under-its-id-is-another-run-of-the-call]",
            "loopmetric.detectors._replies:1314": "tests/detectors/test_detectors.py::test_repeated_replies[twin-reply-taking-up-a-name-told-a-turn-before-the-last]",
            "loopmetric.detectors._replies:1320": "tests/detectors/test_detectors.py::test_repeated_replies[twin-a-draft-taking-up-a-figure-told-a-turn-before-the-last]",
            **{f"loopmetric.cli._hook:{n}": f"{_EVENT}::test_a_wrong_flag_fails_open_with_its_line_in_the_log[a-wrong-value-fails-open-its-usage-error-on-stderr]" for n in (182, 200, 202)},
            **{f"loopmetric.cli._hook:{n}": f"{_EVENT}::test_a_wrong_flag_fails_open_with_its_line_in_the_log[an-abbreviated-help-flag-fails-open-with-nothing-on-stdout]" for n in (203, 204)},
            "loopmetric.hooks._install:142": f"{_INSTALL}the-hooks-modules-not-importing-here-are-said]",
            **{f"loopmetric.hooks._install:{n}": f"{_INSTALL}a-command-not-on-path-says-the-command-the-agent-cannot-run-and-what-to-do]" for n in (154, 160, 161, 162)},
            "loopmetric.hooks._install:167": f"{_INSTALL}no-toml-parser-to-read-the-config-file-is-said]",
        },
        tests={
            "loopmetric/readers/_chat.py": ("tests/readers/test_conformance_chat.py", "tests/readers/test_reader_chat.py"),
            "loopmetric/readers/_builder.py": ("tests/readers/test_conformance_chat.py", "tests/readers/test_builder.py"),
            "loopmetric/detectors/_replies.py": tuple(f"tests/detectors/test_{name}.py" for name in (
                "detectors", "pinned_detectors", "reworded_repeats", "restated_replies")),
            "loopmetric/cli/_hook.py": ("tests/hooks/test_hook_imports.py", "tests/hooks/test_hook_command.py",
                                        "tests/hooks/test_hook_event_in_process.py"),
            "loopmetric/hooks/_install.py": ("tests/hooks/test_hook_install.py",)},
        sample={"loopmetric/detectors/_replies.py::_declined_again": 20, "loopmetric/detectors/_replies.py::_answers_input": 15,
                "loopmetric/cli/_hook.py::run_event": 15, "loopmetric/hooks/_install.py::missing": 15},
        # (`read_chat`: the lines of the one-turn and answered-by-id rules and the output read once)
        lines={"loopmetric/readers/_chat.py::read_chat": (174, 242)}),
    # The fifteenth session: the same proposal and the same choice asked again (a module of its
    # own), facts left aside while the other side pushes back and a line of facts said once among
    # refusals (`_replies`), the JUnit report's count of files skipped.
    "0b07895": FunctionRun(
        targets=("loopmetric/detectors/_proposals.py::proposal_of", "loopmetric/detectors/_proposals.py::says_failed",
                 "loopmetric/detectors/_proposals.py::_words", "loopmetric/detectors/_proposals.py::_jaccard",
                 "loopmetric/detectors/_proposals.py::same_proposal", "loopmetric/detectors/_proposals.py::_same_again",
                 "loopmetric/detectors/_proposals.py::_close", "loopmetric/detectors/_proposals.py::_finding",
                 "loopmetric/detectors/_proposals.py::choice_of", "loopmetric/detectors/_proposals.py::_nearest",
                 "loopmetric/detectors/_proposals.py::same_choice", "loopmetric/detectors/_proposals.py::_choice_finding",
                 "loopmetric/detectors/_replies.py::_closed", "loopmetric/detectors/_replies.py::_aside"),
        equivalent={
            "loopmetric.detectors._proposals:108": "`added <= said` -> `added < said`: `said` holds the words of every "
            "reply before, so the earlier proposal's words, which `added` never holds; the two sets are never equal",
            "loopmetric.detectors._proposals:151": "the letter X added to the characters stripped after a question: "
            "only a question followed by a capital X reads otherwise",
            "loopmetric.detectors._proposals:189": "an empty turn read as \"XXXX\": neither names an option (no stem "
            "of a question's options is \"xxxx\"), so the choice reads as not made either way",
        },
        pinned={
            "loopmetric.detectors._proposals:10": "tests/detectors/test_same_proposal.py::test_what_a_reply_proposes[span-after-a-block-on-its-line]",
            "loopmetric.detectors._proposals:23": "tests/detectors/test_same_proposal.py::test_other_fixes_and_fixes_taken_up_are_no_loop[fixes-sharing-a-word-or-two]",
            "loopmetric.detectors._proposals:96": "tests/detectors/test_same_proposal.py::test_a_word_told_two_turns_back_taken_up_is_no_loop",
            "loopmetric.detectors._proposals:107": "tests/detectors/test_same_proposal.py::test_the_same_proposal_again_is_a_loop[shares-exactly-the-bound]",
            "loopmetric.detectors._proposals:149": "tests/detectors/test_same_proposal.py::test_the_options_a_question_offers[bold-question]",
            "loopmetric.detectors._proposals:150": "tests/detectors/test_same_proposal.py::test_the_options_a_question_offers[bold-question]",
            "loopmetric.detectors._proposals:175": "tests/detectors/test_same_proposal.py::test_a_run_of_tool_calls_alone_asks_no_choice",
            # (a row of a file outside the run's list, seen to fail with the mutant put in by hand: the same offer
            # reworded three times is a loop at three)
            "loopmetric.detectors._replies:800": "tests/detectors/test_same_act_again.py::test_the_same_act_in_other_words_is_a_loop[offer-reworded-3-times]",
        },
        tests={"loopmetric/detectors/_proposals.py": ("tests/detectors/test_same_proposal.py",),
               "loopmetric/detectors/_replies.py": ("tests/detectors/test_left_aside.py",
                                                    "tests/detectors/test_restated_replies.py")},
        sample={"loopmetric/detectors/_proposals.py::same_proposal": 12,
                "loopmetric/detectors/_proposals.py::same_choice": 12,
                "loopmetric/detectors/_proposals.py::_finding": 4,
                "loopmetric/detectors/_proposals.py::_choice_finding": 4,
                "loopmetric/detectors/_replies.py::_closed": 20, "loopmetric/detectors/_replies.py::_aside": 15}),
}
