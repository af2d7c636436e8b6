"""Mutation testing: does the suite notice a deliberate one-line bug in the engine?

    python -m benchmarks.mutation                   # mutmut on the engine, one worker; writes results/mutation.md
    python -m benchmarks.mutation --modules loopmetric.detectors loopmetric._scoring   # only these modules
    python -m benchmarks.mutation --hand            # the bugs a review found surviving, one at a time
    python -m benchmarks.mutation --hand --suite --before main   # ... on the whole suite, now and at main
    python -m benchmarks.mutation --functions --rev REV --only ID ...   # survivors of a recorded run, on HEAD

Slow (not part of the test run). mutmut copies the sources into `mutants/` (ignored by
git) and runs only the tests that reach the mutated function, stopping at the first
failure. `--hand` re-applies each bug a review of the suite found surviving to a copy
of the tree and runs the suite on it: every one must now be killed.

The mutation score is killed / (killed + surviving mutants that are not equivalent). A survivor is either killed by
a new test of behaviour or listed in `EQUIVALENT` with the reason no user could see
the difference.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
# The modules of the first run (2 shared cores: one worker); the rest of the engine
# is configured in pyproject.toml and runs with --modules.
FIRST_RUN = ("loopmetric.detectors", "loopmetric._scoring", "loopmetric._canonical", "loopmetric.detectors._similarity")


@dataclass(frozen=True)
class HandMutant:
    """One deliberate bug: `old` replaced by `new` (exactly once) in `path`."""

    id: str
    path: str
    old: str
    new: str
    what: str  # what a user would see
    test: str  # the test that kills it
    also: tuple[tuple[str, str], ...] = ()  # more edits of the same mutant (old, new)


HAND = (
    HandMutant("volatile-keys-unmasked", "loopmetric/_canonical.py",
               "    if \"\\\"\" in text and _VOLATILE_KEY_VALUE.search(text) is not None:\n        text = _VOLATILE_KEY_VALUE",
               "    if False:\n        text = _VOLATILE_KEY_VALUE",
               "a poll whose only change is elapsed_ms passes",
               "tests/test_mutation_kills.py::test_volatile_keys_do_not_hide_a_poll"),
    HandMutant("iterative-encoder-unsorted", "loopmetric/_canonical.py",
               "pairs = sorted(((_key(k), v) for k, v in value.items()), key=lambda kv: kv[0])",
               "pairs = [(_key(k), v) for k, v in value.items()]",
               "the same arguments with keys in another order read as different calls",
               "tests/test_mutation_kills.py::test_key_order_never_tells_calls_apart"),
    HandMutant("repeated-result-ignores-window", "loopmetric/detectors/_tool_calls.py",
               "    calls = model.calls\n    window = settings.window\n",
               "    calls = model.calls\n    window = None\n",
               "a result repeated far apart, beyond `window`, fails the trace",
               "tests/test_mutation_kills.py::test_repeated_result_respects_window"),
    HandMutant("fail-under-inclusive", "loopmetric/cli/_gate.py",
               "if passed / total >= fail_under:", "if passed / total > fail_under:",
               "a gate at 0.5 with one of two traces passing exits 1",
               "tests/test_mutation_kills.py::test_fail_under_gate"),
    HandMutant("claims-no-exact-preference", "loopmetric/readers/_matching.py",
               "found = _first_free(by_key.get((name, args)), start, end, taken)\n            if found is None:",
               "found = None\n            if found is None:",
               "a tools_called entry fills the wrong call of its name",
               "tests/test_mutation_kills.py::test_tools_called_entries_match_each_real_call_once"),
    HandMutant("claims-no-name-fallback", "loopmetric/readers/_matching.py",
               "found = _first_free(by_name.get(name), start, end, taken)",
               "found = None",
               "a tools_called entry whose arguments were recorded differently counts the call twice",
               "tests/test_mutation_kills.py::test_tools_called_entries_match_each_real_call_once"),
    HandMutant("claims-neither-exact-nor-name", "loopmetric/readers/_matching.py",
               "found = _first_free(by_key.get((name, args)), start, end, taken)\n            if found is None:",
               "found = None\n            if found is None:",
               "every tools_called entry is a call of its own: one real call counted twice",
               "tests/test_acceptance.py::test_progress_passes",
               also=(("found = _first_free(by_name.get(name), start, end, taken)", "found = None"),)),
    HandMutant("pending-requests-never-cleared", "loopmetric/readers/_matching.py",
               "                by_key.clear()\n                by_name.clear()\n",
               "",
               "three calls read as two: a later execution is folded into an old request",
               "tests/test_mutation_kills.py::test_requests_answered_by_executions"),
    HandMutant("similarity-cutoff-plus-0.1", "loopmetric/detectors/_text.py",
               "cutoff = settings.similarity_threshold\n", "cutoff = settings.similarity_threshold + 0.1\n",
               "near-duplicate reasoning at similarity 0.85-0.95 passes",
               "tests/test_mutation_kills.py::test_near_duplicate_outputs_at_the_threshold"),
    HandMutant("similarity-min-not-max", "loopmetric/detectors/_similarity.py",
               "best = max(jaccard, ratio)", "best = min(jaccard, ratio)",
               "reworded outputs with few shared word pairs pass",
               "tests/test_mutation_kills.py::test_near_duplicate_outputs_at_the_threshold"),
    HandMutant("new-observation-all-not-any", "loopmetric/detectors/_text.py",
               "if not window_info.issuperset(pending):",
               "if window_info.isdisjoint(pending):",
               "a new tool result next to an old one no longer resets text repetition",
               "tests/test_mutation_kills.py::test_new_observation_resets_text_repetition"),
    HandMutant("benchmark-f1-formula", "benchmarks/_common.py",
               "return 2 * p * r / (p + r) if p + r else 0.0", "return (p + r) / 2 if p + r else 0.0",
               "the benchmark reports the mean of precision and recall as F1",
               "tests/benchmarks/test_benchmarks_common.py::test_confusion_counts_and_rates"),
    HandMutant("benchmark-fp-fn-swapped", "benchmarks/_common.py",
               "        elif truth:\n            self.fn += 1\n        elif predicted:\n            self.fp += 1",
               "        elif truth:\n            self.fp += 1\n        elif predicted:\n            self.fn += 1",
               "missed loops counted as false alarms (precision and recall swapped)",
               "tests/benchmarks/test_benchmarks_common.py::test_confusion_counts_and_rates"),
)

# Each mutant of HAND on the suite of main at 2bf7e7c (the tests before that review), as
# `--hand --suite --before 2bf7e7c` measured it on 2026-12-01: True = killed. Shown in the
# report's "before" column unless --before measures it again.
BEFORE_AT_MAIN = {
    "volatile-keys-unmasked": False, "iterative-encoder-unsorted": False, "repeated-result-ignores-window": False,
    "fail-under-inclusive": False, "claims-no-exact-preference": False, "claims-no-name-fallback": False,
    "claims-neither-exact-nor-name": True, "pending-requests-never-cleared": False,
    "similarity-cutoff-plus-0.1": True, "similarity-min-not-max": True, "new-observation-all-not-any": False,
    "benchmark-f1-formula": False, "benchmark-fp-fn-swapped": False,
}

# The whole suite but what is slow and tests other things (notebooks, plots, benchmark
# smoke runs, live framework integrations, the minute-long fuzz and scale rows).
SUITE = ["tests/", "--ignore=tests/docs/test_notebooks.py", "--ignore=tests/test_plot.py",
         "--ignore=tests/benchmarks/test_benchmarks.py", "--ignore=tests/test_integrations.py",
         "--deselect=tests/test_robustness.py::test_mutation_fuzzer_few_hundred",
         "--deselect=tests/test_robustness.py::test_scale_rows_finish_with_the_right_answer"]


def _copy_tree(into: Path, root: Path = ROOT) -> None:
    for name in ("loopmetric", "tests", "benchmarks", "examples", "pyproject.toml", "README.md"):
        source = root / name
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=shutil.ignore_patterns("__pycache__", "mutants"))
        elif source.exists():
            shutil.copy2(source, into / name)


def apply(mutant: HandMutant, root: Path) -> None:
    path = root / mutant.path
    text = path.read_text()
    for old, new in ((mutant.old, mutant.new), *mutant.also):
        if text.count(old) != 1:
            raise SystemExit(f"{mutant.id}: the code it mutates moved ({old!r} found {text.count(old)} times)")
        text = text.replace(old, new)
    path.write_text(text)


def run_hand(mutants: tuple[HandMutant, ...], tests: list[str], source: Path = ROOT,
             timeout: float = 900) -> list[tuple[HandMutant, bool]]:
    """Each mutant alone in a fresh copy of the tree `source`; killed when the tests fail."""
    out = []
    for mutant in (None, *mutants):
        with tempfile.TemporaryDirectory(prefix="loopmetric-mutant-") as tmp:
            root = Path(tmp)
            _copy_tree(root, source)
            if mutant is not None:
                apply(mutant, root)
            env = dict(os.environ, PYTHONPATH=str(root), DEEPEVAL_TELEMETRY_OPT_OUT="YES")
            try:
                result = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                                        cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
                killed = result.returncode != 0
            except subprocess.TimeoutExpired:  # a mutant that never ends is caught too (mutmut: "timeout")
                result, killed = None, True
            if mutant is None:
                if killed:
                    raise SystemExit("the tests fail without any mutant:\n" + (result.stdout[-2000:] if result else ""))
                continue
            print(f"{mutant.id:<36} {'killed' if killed else 'SURVIVED'}", flush=True)
            out.append((mutant, killed))
    return out


# Survivors of the mutmut run that no user could tell apart from the original, by
# mutant name, with the reason. A name is `module.x_function__mutmut_N`; the number is
# stable while the function's code is unchanged.
_CUTOFF_ONLY = ("rapidfuzz's `score_cutoff` only lets it give up early and return 0.0 for a ratio below the "
                "cutoff; here Jaccard is below the cutoff too, so `best >= cutoff` discards that ratio either way")
EQUIVALENT: dict[str, str] = {
    "loopmetric.detectors._similarity.x_similarity__mutmut_1": (
        "the default `cutoff` 0.0 -> 1.0: both callers (text and reply detectors) always pass their threshold"),
    "loopmetric.detectors._similarity.x_similarity__mutmut_4": (
        "`and` -> `or` on both texts having bigrams: with one side empty the Jaccard is 0 / |union| = 0.0, "
        "the value it starts from"),
    "loopmetric.detectors._similarity.x_similarity__mutmut_8": (
        "`else 0.0` -> `else 1.0` for an empty union: inside the branch both bigram sets are non-empty"),
    "loopmetric.detectors._similarity.x_similarity__mutmut_11": (
        "`cutoff > 0` -> `cutoff >= 0`: every caller passes a threshold that LoopSettings keeps in (0, 1]"),
    "loopmetric.detectors._similarity.x_similarity__mutmut_16": _CUTOFF_ONLY,
    "loopmetric.detectors._tool_calls.x__result_finding__mutmut_2": (
        "`run[0]` -> `run[1]` as the call that names the finding: every call of a run has the same "
        "fingerprint (so the same name) and the same outcome (so the same error flag and outcome)"),
    "loopmetric.detectors._similarity.x_similarity__mutmut_19": _CUTOFF_ONLY,
    "loopmetric.detectors._similarity.x_similarity__mutmut_20": _CUTOFF_ONLY,
}

# Survivors of the last mutmut run killed by tests written after it, each checked with
# `--verify NAME` (put back alone in a copy of the tree, the tests fail). A new mutmut run
# finds them killed and they can go.
_KILLS = "tests/test_mutation_kills.py"
KILLED_SINCE: dict[str, str] = {
    **{f"loopmetric.detectors._call_graph.x__path_between__mutmut_{n}": _KILLS for n in (2, 5, 8, 9, 13, 14)},
    **{f"loopmetric.detectors._similarity.x_similarity__mutmut_{n}": _KILLS for n in (2, 3, 5)},
    "loopmetric.detectors._text.x_detect_repeated_text__mutmut_1": _KILLS,
    "loopmetric.detectors._text.x__finding__mutmut_6": _KILLS,
    "loopmetric.detectors._text.x__finding__mutmut_7": _KILLS,
}

_STATUS = {1: "killed", 3: "killed", -24: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
           36: "timeout", 37: "caught by type check", None: "not checked", 2: "not checked"}


def _mutmut(args: list[str], log: Optional[Path] = None) -> int:
    # The tests must import the mutated copy, not the worktree nor the editable install; the
    # folder must exist before Python starts, or the import system caches it as missing.
    (ROOT / "mutants").mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "mutants"), DEEPEVAL_TELEMETRY_OPT_OUT="YES")
    with open(log or os.devnull, "w") as out:
        return subprocess.run([sys.executable, "-m", "mutmut", *args], cwd=ROOT, env=env, stdout=out,
                              stderr=subprocess.STDOUT).returncode


def statuses() -> dict[str, str]:
    """mutant name -> status of the last mutmut run, read from mutmut's own records."""
    out = {}
    for meta in sorted((ROOT / "mutants").rglob("*.py.meta")):
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            status = _STATUS.get(code, "suspicious")
            out[name] = "killed" if status == "survived" and name in KILLED_SINCE else status
    return out


def module_of(name: str) -> str:
    return re.split(r"\.x[_\u01c1]", name, maxsplit=1)[0]


def summary(found: dict[str, str]) -> tuple[list[list[str]], list[str]]:
    """A row per module (those never run included) and the surviving non-equivalent mutants."""
    by_module: dict[str, Counter] = defaultdict(Counter)
    for name, status in found.items():
        if status == "survived" and name in EQUIVALENT:
            status = "equivalent"
        by_module[module_of(name)][status] += 1
    rows = []
    for module in sorted(by_module):
        counts = by_module[module]
        total = sum(counts.values())
        killed = counts["killed"] + counts["timeout"]
        checked = total - counts["not checked"]
        scored = killed + counts["survived"]
        score = "not run" if not scored else f"{killed}/{scored} = {killed / scored:.4f}" + (
            "" if checked == total else f" (partial: {checked} of {total} checked)")
        rows.append([f"`{module}`", str(total), str(checked), str(killed), str(counts["survived"]),
                     str(counts["equivalent"]), str(counts["no tests"]), score])
    survivors = sorted(n for n, s in found.items() if s == "survived" and n not in EQUIVALENT)
    return rows, survivors


# What the survivors of the last run are, by group (read with `mutmut show NAME`).
NOTES = """\
## Reading the survivors

- **Wording only** (`_tool_calls._outcome_words`, most of `_text._finding`, `_scoring.reason_for`):
  they change a finding's message or the reason, never a verdict, score, pattern or steps. The
  reason texts have their own tests and owner; these are left to them. Not wording: `_text._finding`
  34, 42 and 50 drop or unround the `similarity` a near-duplicate finding reports (not pinned yet).
- **`_canonical`**: the fallback encoder (`_encode_iteratively`, `_encode_scalar`, `_key`) for what
  `json` cannot encode (mixed key types, cycles, 100,000-deep nesting, NaN) and the reading of plain
  objects (`plain_object`, `_object_fields`): the tests check that such values are read without
  raising, and (a test added since) that key order never tells calls apart, but not the exact text of
  every odd value, so two different odd values encoded alike would go unnoticed.
- **`_similarity` 10, 12**: the fast path returns the bigram Jaccard as soon as it passes the
  cutoff, so the `similarity` a finding reports is that Jaccard, not the max of the two measures the
  docstring promises; these mutants report the max and change only that figure. 26: `>` for `>=`
  where the Indel ratio equals the threshold exactly.
- **`_rejections._repeats_next`, `_replies._same` / `_answers_input` / `_after_input`**: the
  look-ahead that lets a chain of rejected outputs start, and the reply comparison's edge cases
  (a reply that answers the input, the similarity exactly at the threshold): not yet pinned.
- **`_similarity.Words.__init__`**: how an output longer than 40,000 characters is cut to its head
  and tail. Only the scale rows of `tests/test_robustness.py` have such outputs, and they are left
  out of the mutmut selection for their minutes; no fast test has one yet.
- `_tool_calls._result_finding` 16 was running when the run was stopped; its status is not
  trustworthy.
"""


def report(found: dict[str, str], command: str) -> str:
    from ._common import markdown_table

    rows, survivors = summary(found)
    killed = sum(1 for s in found.values() if s in ("killed", "timeout"))
    scored = killed + len(survivors)
    lines = ["# Mutation testing", "",
             f"Command: `{command}` (mutmut {_version()}, one worker; the test selection is "
             "`[tool.mutmut]` in `pyproject.toml`). Score = killed / (killed + surviving non-equivalent); "
             "a module whose mutants were not all checked is marked partial, one never run says so.", "",
             markdown_table(["module", "mutants", "checked", "killed", "survived", "equivalent", "no tests", "score"],
                            rows), "",
             f"All checked: {killed} killed, {len(survivors)} survived"
             + (f", score {killed}/{scored} = {killed / scored:.4f}." if scored else "."), ""]
    since = sorted(n for n in KILLED_SINCE if n in found)
    lines += ["## Killed by tests written after the run", "",
              "Counted as killed above; each checked with `python -m benchmarks.mutation --verify NAME`.", ""]
    lines += [f"- `{n}`: `{KILLED_SINCE[n]}`" for n in since] or ["- none"]
    lines += [""]
    lines += ["## Equivalent mutants", ""] + ([f"- `{n}`: {why}" for n, why in sorted(EQUIVALENT.items())]
                                            or ["- none listed"]) + [""]
    lines += [NOTES]
    lines += ["## Surviving mutants (not yet killed)", ""] + ([f"- `{n}`" for n in survivors] or ["- none"]) + [""]
    return "\n".join(lines)


def hand_report(results: list[tuple[HandMutant, bool]], tests: list[str],
                before: Optional[dict[str, bool]] = None) -> str:
    from ._common import markdown_table

    before = before or {}
    rows = [[m.id, f"`{m.path}`", m.what,
             {True: "killed", False: "survived", None: "-"}[before.get(m.id)],
             "killed" if killed else "SURVIVED", f"`{m.test}`"] for m, killed in results]
    return "\n".join(["## The hand mutants", "",
                      "Each bug put back alone in a copy of the tree (`python -m benchmarks.mutation --hand`), "
                      f"tests run on it: `{' '.join(tests)}`. Before: the whole suite of main at 2bf7e7c "
                      "(`--hand --suite --before 2bf7e7c`; the engine's bugs on the `[tool.mutmut]` selection, "
                      "the benchmark's on `tests/benchmarks/test_benchmarks.py`).", "",
                      markdown_table(["mutant", "file", "what a user would see", "before", "now", "killed by"],
                                     rows), ""])


def from_mutmut(name: str) -> HandMutant:
    """A mutant of the last mutmut run as a hand mutant (its diff, from `mutmut show`), to
    check on a copy of the tree that a new test kills it while mutmut is busy elsewhere."""
    shown = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.splitlines()
    path = next(line[4:].strip() for line in shown if line.startswith("--- "))
    old = "\n".join(line[1:] for line in shown if line.startswith("-") and not line.startswith("---"))
    new = "\n".join(line[1:] for line in shown if line.startswith("+") and not line.startswith("+++"))
    return HandMutant(name, path, old, new, "", "")


def _version() -> str:
    from importlib.metadata import version

    return version("mutmut")


def main(argv: Optional[list[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hand", action="store_true", help="the bugs a review found surviving, each alone, on the tests that kill them")
    parser.add_argument("--modules", nargs="*", default=list(FIRST_RUN), help="dotted module prefixes to mutate")
    parser.add_argument("--suite", action="store_true", help="with --hand: the whole suite, not the killing tests")
    parser.add_argument("--before", metavar="REV", help="with --hand: also run each on the suite of REV")
    parser.add_argument("--verify", nargs="*", metavar="MUTANT",
                        help="put these mutmut mutants back one at a time and run the engine's tests")
    parser.add_argument("--report-only", action="store_true", help="write the report from the last mutmut run (with --functions: of the mutants run so far)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    # --- a seeded, stratified sample on each module's unit tests (benchmarks/_mutation_sample.py)
    parser.add_argument("--sample", type=int, metavar="N", help="a stratified sample of N mutants of every module of the package")
    parser.add_argument("--seed", type=int, default=0, help="with --sample: the sample's seed")
    parser.add_argument("--rev", default="HEAD", help="with --sample: the commit whose tree is mutated and tested")
    parser.add_argument("--only", nargs="*", metavar="ID", help="with --sample: run these mutants of the sample again; "
                        "with --functions: these survivors of the run at --rev, on the tree of --on (REV.verified.jsonl)")
    parser.add_argument("--on", default="HEAD", help="with --functions --only: the later commit to run them on")
    parser.add_argument("--list", action="store_true", help="with --sample: list the sample, run nothing")
    parser.add_argument("--resume", action="store_true", help="with --sample: skip mutants already run")
    parser.add_argument("--timeout-factor", type=float, default=4.0, help="with --sample: x the unmutated time")
    parser.add_argument("--min-timeout", type=float, default=30.0, help="with --sample: seconds")
    parser.add_argument("--part", default="0/1", metavar="K/N", help="with --sample: every N-th mutant not run yet")
    parser.add_argument("--functions", nargs="*", metavar="PATH::FUNCTION",
                        help="every mutant of these functions (none given: the last recorded run's, on its commit)")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="with --functions: run at most N mutants not run yet (a run in parts)")
    args = parser.parse_args(argv)
    if args.functions is not None:
        from ._mutation_sample import FUNCTION_RUNS, functions_main

        rev = args.rev if args.functions or args.rev != "HEAD" else list(FUNCTION_RUNS)[-1]
        known = FUNCTION_RUNS.get(rev)
        targets = args.functions or (list(known.targets) if known else [])
        if not targets:
            raise SystemExit(f"Expected function names or a --rev of a recorded run ({', '.join(FUNCTION_RUNS)}), "
                             f"but got --rev {rev}.")
        if args.only:  # survivors of that run, run again on a later tree: the measure of their pins
            from ._mutation_sample import functions_verify

            if known is None:
                raise SystemExit(f"Expected --only with the --rev of a recorded run ({', '.join(FUNCTION_RUNS)}), "
                                 f"but got --rev {rev}.")
            functions_verify(rev, args.only, args.on, args.out, known.pinned, known.tests)
            return
        functions_main(targets, rev, args.out, known.equivalent if known else {}, known.pinned if known else {},
                       known.tests if known else {}, known.sample if known else {}, args.limit, args.report_only,
                       known.lines if known else {})
        return
    if args.sample:
        from ._mutation_sample import sample_main

        sample_main(args.sample, args.seed, args.rev, args.only, args.list, args.resume, args.report_only,
                    args.timeout_factor, args.min_timeout, args.out, args.part)
        return
    # --- end of the sample
    out = args.out / "mutation.md"
    if args.verify:
        run_hand(tuple(from_mutmut(name) for name in args.verify), SUITE)
        return
    if args.hand:
        tests = SUITE + ["tests/benchmarks/test_benchmarks.py"] if args.suite else sorted({m.test.split("::")[0] for m in HAND})
        before = BEFORE_AT_MAIN
        if args.before:
            with tempfile.TemporaryDirectory(prefix="loopmetric-before-") as tmp:
                archive = subprocess.run(["git", "archive", args.before], cwd=ROOT, check=True, capture_output=True)
                subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
                engine = tuple(m for m in HAND if not m.path.startswith("benchmarks/"))
                bench = tuple(m for m in HAND if m.path.startswith("benchmarks/"))
                before = {m.id: killed for m, killed in run_hand(engine, SUITE, Path(tmp))
                          + run_hand(bench, ["tests/benchmarks/test_benchmarks.py"], Path(tmp))}
        results = run_hand(HAND, tests)
        text = out.read_text() if out.exists() else "# Mutation testing\n"
        head = text.split("## The hand mutants")[0].rstrip("\n")
        section = hand_report(results, tests, before)
        out.write_text(head + "\n\n" + section)
        print(section)
        return
    command = "python -m benchmarks.mutation" + (f" --modules {' '.join(args.modules)}"
                                                  if args.modules != list(FIRST_RUN) else "")
    if not args.report_only:
        _mutmut(["run", "--max-children", "1", *[f"{m}.*" for m in args.modules]], ROOT / "mutants" / "run.log")
    text = report(statuses(), command)
    tail = out.read_text().split("## The hand mutants", 1) if out.exists() else []
    if len(tail) == 2:
        text += "\n## The hand mutants" + tail[1]
    args.out.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
