"""Report identity: every field of every report, dumped to a file, so two versions can be compared.

    python -m benchmarks.report_identity dump OUT.jsonl [--generated 10000]
    python -m benchmarks.report_identity compare BEFORE.jsonl AFTER.jsonl

A speed change must not change a report. `dump` scores, at default settings, the
examples, the traced corpus (`benchmarks/corpus`), every trace and trajectory
under `../shared` (every record of every file, the runs of `real_runs` among
them) and generated traces (typical traces as `benchmarks.throughput` writes
them, the speed benchmark's shapes at small sizes, and mutated traces as
`benchmarks.fuzz` makes them), and writes one line per trace: its id and
`LoopReport.to_dict()` (score, reason, findings with their fingerprints, notes,
...) or the error it raised. `compare` names the first differences; it exits 1
when there are any.

To take the baseline from another checkout, run it there (`python -m` puts the working
folder first on the path, before PYTHONPATH): `cd /path/to/other && python -m
benchmarks.report_identity dump base.jsonl`, or check the revision out with `git worktree add`.
"""

from __future__ import annotations

import json
import random
import signal
import sys
from pathlib import Path
from typing import Any, Iterator, Optional

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
_SUFFIXES = (".json", ".jsonl", ".traj")


_BUDGET_SECONDS = 60


class _OverBudget(Exception):
    pass


def _report(trace: Any) -> Any:
    """The report's fields, the error raised, or a note that scoring took over a minute
    (a few mutated traces send a reader into minutes of work; they are named, not waited for)."""
    from loopmetric import detect_loops

    def stop(*_: Any) -> None:
        raise _OverBudget

    previous = signal.signal(signal.SIGALRM, stop) if hasattr(signal, "SIGALRM") else None
    if previous is not None:
        signal.alarm(_BUDGET_SECONDS)
    try:
        return detect_loops(trace).to_dict()
    except _OverBudget:
        return {"over_budget": f"over {_BUDGET_SECONDS} s"}
    except Exception as error:  # noqa: BLE001 - an error is a result to compare
        return {"error": f"{type(error).__name__}: {error}"}
    finally:
        if previous is not None:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)


def _analyzed(loaded: Any) -> Any:
    from loopmetric._engine import analyze
    from loopmetric._settings import LoopSettings

    if loaded.trace is None:
        return {"error": loaded.error}
    try:
        return analyze(loaded.trace, LoopSettings()).to_dict()
    except Exception as error:  # noqa: BLE001
        return {"error": f"{type(error).__name__}: {error}"}


def _files(folder: Path) -> Iterator[Path]:
    if folder.is_dir():
        yield from sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in _SUFFIXES)


def reports(generated: int = 10_000) -> Iterator[tuple[str, Any]]:
    """(id, report dict or {"error": ...}) of every trace, in a fixed order."""
    from loopmetric.readers import load_traces

    from . import fuzz, speed, throughput
    from .corpus import CORPUS, load_corpus
    from .real_runs import SOURCES, runs

    files = [p for p in _files(ROOT / "examples")]
    files += list(_files(SHARED / "traces")) + list(_files(SHARED / "trajectories"))
    covered = {p.resolve() for p in files}
    missing = [run.id for name in SOURCES if SOURCES[name].document is None  # a text log is no trace file
               for run in runs(name) if run.path.resolve() not in covered]
    if missing:
        raise RuntimeError(f"real runs not covered by the file walk: {missing[:5]}")
    for path in files:
        for index, loaded in enumerate(load_traces(str(path))):
            yield f"file:{path.relative_to(ROOT.parent)}#{index}:{loaded.name}", _analyzed(loaded)
    if CORPUS.exists():
        for row in load_corpus():
            yield f"corpus:{row['id']}", _report(row["trace"])
    rng = random.Random(13)
    typical = generated * 6 // 10
    for index in range(typical):
        yield f"typical:{index}", _report(throughput.typical_trace(rng, index))
    shapes = tuple(speed.SHAPES)
    for index in range(generated // 10):
        shape = shapes[index % len(shapes)]
        yield f"shape:{shape}:{index}", _report(speed.make_trace(10 + index % 90, shape, seed=index))
    bases = [json.dumps(seed) for seed in fuzz.seeds()]  # each case starts from a pristine copy
    for index in range(generated - typical - generated // 10):
        case = random.Random(index)
        yield f"fuzz:{index}", _report(fuzz.mutate(json.loads(case.choice(bases)), case))


def dump(out: Path, generated: int) -> int:
    count = 0
    with out.open("w", encoding="utf-8") as handle:
        for key, report in reports(generated):
            handle.write(json.dumps([key, report], sort_keys=True, default=repr) + "\n")
            handle.flush()
            count += 1
    return count


def same_place(key: str) -> str:
    """A report's id with the checkout's own folder name taken out of a file's path
    (`file:wt-base/examples/a.json#0:a` and `file:main/examples/a.json#0:a` are one file), so
    a dump of a worktree compares with a dump of the main checkout; files under `shared/` keep it."""
    if not key.startswith("file:"):
        return key
    folder, _, rest = key[len("file:"):].partition("/")
    return key if folder == SHARED.name or not rest else f"file:./{rest}"


def compare(before: Path, after: Path, show: int = 10) -> list[str]:
    """The ids whose lines differ (or that one file lacks)."""
    a = [(same_place(key), report) for key, report in
         (json.loads(line) for line in before.read_text(encoding="utf-8").splitlines())]
    b = [(same_place(key), report) for key, report in
         (json.loads(line) for line in after.read_text(encoding="utf-8").splitlines())]
    old, new = dict(a), dict(b)
    differ = [key for key in dict.fromkeys([k for k, _ in a] + [k for k, _ in b]) if old.get(key) != new.get(key)]
    for key in differ[:show]:
        print(f"DIFFERS {key}\n  before: {json.dumps(old.get(key))[:600]}\n  after:  {json.dumps(new.get(key))[:600]}")
    slow = [key for key in old if "over_budget" in old[key] or "over_budget" in new.get(key, {})]
    print(f"{len(a)} / {len(b)} reports; {len(differ)} differ; {len(slow)} over the time budget: {slow[:5]}")
    return differ


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) >= 2 and argv[0] == "dump":
        generated = int(argv[argv.index("--generated") + 1]) if "--generated" in argv else 10_000
        print(f"{dump(Path(argv[1]), generated)} reports written to {argv[1]}")
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return 1 if compare(Path(argv[1]), Path(argv[2])) else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
