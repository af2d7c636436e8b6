"""Speed of two versions of loopmetric in one run: a refactor or a new rule must not be slower.

    python -m benchmarks.versions [--before 2e5b972] [--spans 5000] [--traces 2000] [--rounds 3]

The `loopmetric/` package of `--before` (a git revision of this repository) is
unpacked into a temporary folder; this checkout is "after". Each round runs, for
each version in turn, a fresh Python process with that version first on the
path, which times on the same generated inputs:

* `detect_loops` on one trace of each shape of `benchmarks.speed` (`--spans`
  spans, parsed dict; the best of 3 calls), next to `json.loads` of its text;
* the throughput job of `benchmarks.throughput`: `--traces` typical traces
  (20-60 spans) as JSON text, each parsed and scored (`detect_loops`);
* for "after", when `loopmetric[semantic]` is installed, the same throughput job
  with `semantic=True` (its budget: at most 3x the cost of off).

The best of `--rounds` rounds is kept for each cell, so a burst of load on the
machine falls on both versions alike; the load average is printed with the
result. Writes `benchmarks/results/versions.md` (with `--after REV`, two past revisions:
`benchmarks/results/history/versions_<before>_<after>.md`).

Two fresh processes differ by a few percent on the same work (`json.loads` of
the same text is timed in each: its time moves as much), so the same timings are
also taken in one process: the two packages imported side by side under other
names (`lm_before`, `lm_after`), each call of one followed by the same call of
the other, the order swapped every round, the best of `--rounds` x 3 kept.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path
from typing import Any, Optional

from ._common import markdown_table, parser

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, random, sys, threading, time
sys.setrecursionlimit(1_000_000)  # json.dumps/loads of the deep shape recurse in C: a big stack, in a thread
threading.stack_size(1024 * 1024 * 1024)
import loopmetric
from loopmetric import detect_loops
from benchmarks.speed import SHAPES, make_trace
from benchmarks.throughput import typical_trace

def body():
    spans, traces, semantic = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
    out = {"file": loopmetric.__file__, "shapes": {}}
    assert loopmetric.__file__.startswith(sys.argv[4]), (loopmetric.__file__, sys.argv[4])  # the version asked for
    detect_loops(make_trace(100, "distinct"))  # imports and first-call costs out of the timings
    for shape in SHAPES:
        text = json.dumps(make_trace(spans, shape))
        parse = score = float("inf")
        for _ in range(3):
            start = time.perf_counter(); data = json.loads(text); parse = min(parse, time.perf_counter() - start)
            start = time.perf_counter(); detect_loops(data); score = min(score, time.perf_counter() - start)
        out["shapes"][shape] = {"json_loads": parse, "loopmetric": score}
    rng = random.Random(0)
    texts = [json.dumps(typical_trace(rng, i)) for i in range(traces)]
    def job(**options):
        start = time.perf_counter()
        for text in texts:
            detect_loops(json.loads(text), **options)
        return time.perf_counter() - start
    start = time.perf_counter()
    for text in texts:
        json.loads(text)
    out["throughput_json_loads"] = time.perf_counter() - start
    out["throughput"] = job()
    if semantic and hasattr(loopmetric.LoopSettings(), "semantic"):  # a version that has the setting
        try:
            import wordllama  # noqa: F401
            out["throughput_semantic"] = job(semantic=True)
        except ImportError:
            pass
    print(json.dumps(out))


worker = threading.Thread(target=body)
worker.start()
worker.join()
"""


_SAME_PROCESS = r"""
import json, random, sys, threading, time
sys.setrecursionlimit(1_000_000)
threading.stack_size(1024 * 1024 * 1024)

def body():
    folder, spans, traces, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    from benchmarks.speed import SHAPES, make_trace
    from benchmarks.throughput import typical_trace
    sys.path.insert(0, folder)
    import lm_before, lm_after
    versions = {"before": lm_before, "after": lm_after}
    for version in versions.values():
        version.detect_loops(make_trace(100, "distinct"))  # imports and first-call costs out of the timings
    loaded = {m for m in sys.modules if m.split(".")[0] == "loopmetric"}
    out = {"shapes": {}}

    def race(work):
        best = {"before": float("inf"), "after": float("inf")}
        for r in range(rounds):
            for name in (("before", "after") if r % 2 == 0 else ("after", "before")):
                best[name] = min(best[name], work(versions[name]))
        return best

    def one_trace(text):
        def work(version):
            data = json.loads(text)
            start = time.perf_counter(); version.detect_loops(data); return time.perf_counter() - start
        return work

    for shape in SHAPES:
        out["shapes"][shape] = race(one_trace(json.dumps(make_trace(spans, shape))))
    rng = random.Random(0)
    texts = [json.dumps(typical_trace(rng, i)) for i in range(traces)]

    def job(version):
        start = time.perf_counter()
        for text in texts:
            version.detect_loops(json.loads(text))
        return time.perf_counter() - start

    out["throughput"] = race(job)
    # Neither copy may reach the checkout's own package while timed.
    out["leaked"] = sorted(m for m in sys.modules if m.split(".")[0] == "loopmetric" and m not in loaded)
    print(json.dumps(out))

worker = threading.Thread(target=body)
worker.start()
worker.join()
"""


def _same_process(before: Path, after: Optional[Path], spans: int, traces: int, rounds: int) -> dict[str, Any]:
    """Both versions timed in one process, in turn (see the module docstring)."""
    import shutil

    with tempfile.TemporaryDirectory() as folder:
        for name, root in (("lm_before", before), ("lm_after", after or ROOT)):
            shutil.copytree(root / "loopmetric", Path(folder) / name, ignore=shutil.ignore_patterns("__pycache__"))
        out = _child(_SAME_PROCESS, [folder, str(spans), str(traces), str(rounds)], [], folder)
    if out["leaked"]:
        raise SystemExit(f"A copy imported the checkout's own package while timed: {out['leaked']}")
    return out


def _unpack(revision: str, into: Path) -> Path:
    """The `loopmetric/` package of `revision`, unpacked under `into`."""
    archive = subprocess.run(["git", "archive", "--format=tar", revision, "loopmetric"], cwd=ROOT,
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into)  # noqa: S202 - our own repository's archive
    return into


def _child(code: str, argv: list[str], path: list[str], cwd: str) -> dict[str, Any]:
    """What `code` prints as JSON on its last line, run in a fresh Python from `cwd` with `path`, then this
    checkout, on its path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path + [str(ROOT)]), "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}
    done = subprocess.run([sys.executable, "-c", code, *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=3600)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:  # the timing thread failed: say why
        raise SystemExit(done.stderr[-3000:])
    return json.loads(lines[-1])


def _run(package_root: Optional[Path], spans: int, traces: int, semantic: bool) -> dict[str, Any]:
    path = [str(package_root)] if package_root else []
    with tempfile.TemporaryDirectory() as elsewhere:  # not ROOT: the working folder comes first on the path
        return _child(_CHILD, [str(spans), str(traces), "1" if semantic else "0", str(package_root or ROOT)],
                      path, elsewhere)


def _best(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    best = rounds[0]
    for other in rounds[1:]:
        for shape, cell in other["shapes"].items():
            for key, value in cell.items():
                best["shapes"][shape][key] = min(best["shapes"][shape][key], value)
        for key in ("throughput", "throughput_json_loads", "throughput_semantic"):
            if key in other:
                best[key] = min(best.get(key, other[key]), other[key])
    return best


def main(argv: Optional[list[str]] = None) -> str:
    p = parser("Speed of two versions of loopmetric in one run.")
    p.add_argument("--before", default="2e5b972", help="git revision to compare with (default: main before the layout was rebuilt)")
    p.add_argument("--after", default=None, help="git revision to measure (default: this checkout)")
    p.add_argument("--spans", type=int, default=5_000)
    p.add_argument("--traces", type=int, default=2_000)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    if args.smoke:
        args.spans, args.traces, args.rounds = 200, 50, 1
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        old = _unpack(args.before, Path(tmp) / "before")
        new = _unpack(args.after, Path(tmp) / "after") if args.after else None
        before, after = [], []
        for _ in range(args.rounds):  # in turn, so a burst of load falls on both
            before.append(_run(old, args.spans, args.traces, semantic=False))
            after.append(_run(new, args.spans, args.traces, semantic=True))
        same = _same_process(old, new, args.spans, args.traces, 3 * args.rounds)
    load_after = os.getloadavg()
    b, a = _best(before), _best(after)
    head = args.after or subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                        text=True).stdout
    rows = []
    for shape in a["shapes"]:
        bb, aa = b["shapes"][shape], a["shapes"][shape]
        rows.append([f"{shape}, {args.spans:,} spans", f"{bb['loopmetric'] * 1000:.1f} ms",
                     f"{aa['loopmetric'] * 1000:.1f} ms", f"**{aa['loopmetric'] / bb['loopmetric']:.2f}**",
                     f"{bb['loopmetric'] / bb['json_loads']:.1f}x", f"{aa['loopmetric'] / aa['json_loads']:.1f}x"])
    rows.append([f"throughput, {args.traces:,} typical traces", f"{args.traces / b['throughput']:,.0f} traces/s",
                 f"{args.traces / a['throughput']:,.0f} traces/s", f"**{a['throughput'] / b['throughput']:.2f}**",
                 f"{b['throughput'] / b['throughput_json_loads']:.1f}x",
                 f"{a['throughput'] / a['throughput_json_loads']:.1f}x"])
    table = markdown_table(["what", f"before ({args.before})", f"after ({head.strip()})", "after / before time",
                            "before / json.loads", "after / json.loads"], rows)
    semantic = ""
    if "throughput_semantic" in a:
        semantic = (f"\n`semantic=True` on the same {args.traces:,} typical traces (after): "
                    f"{args.traces / a['throughput_semantic']:,.0f} traces/s, "
                    f"**{a['throughput_semantic'] / a['throughput']:.2f}x** the time of `semantic=False`.\n")
    same_rows = [[f"{shape}, {args.spans:,} spans", f"{cell['before'] * 1000:.1f} ms", f"{cell['after'] * 1000:.1f} ms",
                  f"**{cell['after'] / cell['before']:.2f}**"] for shape, cell in same["shapes"].items()]
    cell = same["throughput"]
    same_rows.append([f"throughput, {args.traces:,} typical traces", f"{args.traces / cell['before']:,.0f} traces/s",
                      f"{args.traces / cell['after']:,.0f} traces/s", f"**{cell['after'] / cell['before']:.2f}**"])
    same_table = markdown_table(["what (one process)", f"before ({args.before})", f"after ({head.strip()})",
                                 "after / before time (one process)"], same_rows)
    after_flag = f" --after {args.after}" if args.after else ""
    text = (f"# Two versions in one run\n\nCommand: `python -m benchmarks.versions --before {args.before}{after_flag} "
            f"--spans {args.spans} --traces {args.traces} --rounds {args.rounds}`. Each cell is the best of "
            f"{args.rounds} rounds; in each round the two versions ran in turn, each in a fresh process "
            "(detect_loops on the parsed dict, best of 3 calls per shape).\n\n" + table + "\n" + semantic +
            f"\nThe same in one process: both packages imported side by side, each call of one followed by the same "
            f"call of the other, the order swapped every round, the best of {3 * args.rounds} rounds (two fresh "
            "processes differ by a few percent on the same work: see `before / json.loads` and "
            "`after / json.loads` above, the same `json.loads` in each).\n\n" + same_table + "\n" +
            f"\nLoad average (1, 5, 15 min) at the start {tuple(round(x, 2) for x in load_before)}, at the end "
            f"{tuple(round(x, 2) for x in load_after)}; 2 cores.\n")
    if not args.smoke:
        # two named revisions: a record of the past, in history/; this checkout against one: the current result
        name = f"history/versions_{args.before}_{args.after}.md" if args.after else "versions.md"
        (args.out / name).parent.mkdir(parents=True, exist_ok=True)
        (args.out / name).write_text(text)
    print(text)
    return text


if __name__ == "__main__":  # pragma: no cover
    main()
