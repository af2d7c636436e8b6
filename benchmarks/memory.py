"""Memory and depth limits of `loopmetric score`, written to
`benchmarks/results/memory.md`.

Memory: a file of about `--size` MB of each main format (OpenAI chat, deepeval trace dict,
OTLP JSON; `_shapes`, generated, never committed) is scored by `loopmetric score FILE --json`
in a fresh process; its peak resident memory (`VmHWM`, the probe's own) is set against the file's size,
against `json.loads` of the same file in a fresh process (the floor of reading it at all),
and against `loopmetric score` of a tiny trace (the constant: the interpreter and every import). The target:
peak at most 4x the file's size plus that constant.

Depth: span trees (`_shapes.span_chain`) read from memory (`detect_loops` on the dict) and
from a file (`loopmetric score`, `--jobs 1`, and `--jobs 2` beside a second file so that
the workers start): the same verdict on every path, up to the deepest tree a file can hold
(`_deep_json.MAX_DEPTH` levels of JSON); one level more is an error naming the depth.

    python -m benchmarks.memory                  # 50 MB files, trees to the maximum (a few minutes)
    python -m benchmarks.memory --size 2 --quick  # small files and depths (the smoke test)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from benchmarks._shapes import SIZED_SHAPES, span_chain, write_json

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"

_PROBE = r"""
import json, resource, sys
mode, path = sys.argv[1], sys.argv[2]
if mode == "score":
    from loopmetric.cli import main
    code = main(["score", path, "--json"])
elif mode == "json":
    with open(path, encoding="utf-8") as handle:
        value = json.loads(handle.read())
    code = 0
sys.stdout.flush()
# The peak of this program alone: VmHWM, the high-water mark of the memory map exec made. Linux's
# ru_maxrss keeps the peak of the process before exec, the benchmark's own (the big file it made).
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    pass
print(json.dumps({"kb": peak, "code": code}), file=sys.stderr)
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}


def peak_mb(mode: str, path: str) -> tuple[float, int]:
    """(peak resident MB, exit code) of a fresh process that scores / json.loads / only imports."""
    done = subprocess.run([sys.executable, "-c", _PROBE, mode, path], capture_output=True, text=True, env=_env(),
                          timeout=1800)
    last = done.stderr.strip().splitlines()[-1]
    report = json.loads(last)
    return report["kb"] / 1024, report["code"]


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f}"


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()
    except OSError:
        return f"load average: {_load()}"


def memory_rows(size_mb: float, folder: Path) -> list[dict[str, Any]]:
    rows = []
    base, _ = peak_mb("score", str(ROOT / "examples" / "healthy_agent.json"))  # every import, a tiny trace
    for name, make in SIZED_SHAPES.items():
        path = folder / f"{name.split()[0].lower()}.json"
        target = int(size_mb * 1_000_000)
        probe = write_json(path, make(1_000_000))
        size = write_json(path, make(max(1, int(1_000_000 * target / probe))))
        loads, _ = peak_mb("json", str(path))
        score, code = peak_mb("score", str(path))
        mb = size / 1_000_000
        rows.append({"shape": name, "file MB": mb, "base MB": base, "json.loads MB": loads, "score MB": score,
                     "exit": code, "score ratio": (score - base) / mb, "json ratio": (loads - base) / mb,
                     "bound MB": 4 * mb + base})
        path.unlink()
    return rows


def _verdict_of_memory(depth: int, loop: bool) -> str:
    from loopmetric import detect_loops

    report = detect_loops(span_chain(depth, loop=loop))
    return f"{report.score:.2f} {'pass' if report.success else 'FAIL'}"


def _verdict_of_file(path: Path, jobs: int, other: Optional[Path]) -> str:
    args = [sys.executable, "-m", "loopmetric", "score", str(path), *([str(other)] if other else []),
            "--json", "--jobs", str(jobs)]
    done = subprocess.run(args, capture_output=True, text=True, env=_env(), timeout=1800)
    for line in done.stdout.splitlines():
        row = json.loads(line)
        if row["name"].endswith(path.name):
            return f"{row['score']:.2f} {'pass' if row['success'] else 'FAIL'}"
    return "error: " + done.stderr.strip().splitlines()[0].split(": ", 2)[-1] if done.stderr.strip() else "no output"


def depth_rows(depths: list[int], folder: Path) -> list[dict[str, Any]]:
    other = folder / "other.json"
    write_json(other, span_chain(3, loop=False))
    rows = []
    for depth in depths:
        for loop in (True, False):
            path = folder / f"chain_{depth}.json"
            write_json(path, span_chain(depth, loop=loop))
            start = time.perf_counter()
            memory = _verdict_of_memory(depth, loop)
            seconds = time.perf_counter() - start
            one = _verdict_of_file(path, 1, None)
            two = _verdict_of_file(path, 2, other)
            rows.append({"depth": depth, "twin": "loop" if loop else "healthy", "memory": memory, "file --jobs 1": one,
                         "file --jobs 2": two, "same": memory == one == two, "memory s": seconds})
            path.unlink()
    return rows


def jobs_row(folder: Path, *, fuzzed: int = 3000, seed: int = 0) -> dict[str, Any]:
    """`loopmetric score --json` of the traced corpus and a fuzz set with `--jobs 1` and `--jobs 2`:
    the same reports and the same messages, byte for byte (the last stderr line, the time taken, aside)."""
    import gzip
    import random

    from benchmarks.fuzz import mutate, seeds

    corpus, fuzz = folder / "corpus", folder / "fuzz"
    corpus.mkdir()
    fuzz.mkdir()
    with gzip.open(ROOT / "benchmarks" / "corpus" / "traced.jsonl.gz", "rt", encoding="utf-8") as handle:
        for i, line in enumerate(handle):
            (corpus / f"{i:04d}.json").write_text(json.dumps(json.loads(line)["trace"]))
    rng, written = random.Random(seed), 0
    originals = seeds()
    for _ in range(fuzzed):
        try:
            text = json.dumps(mutate(rng.choice(originals), rng))
        except (TypeError, ValueError):  # a cycle or an object JSON cannot hold: not a file anyone has
            continue
        (fuzz / f"{written:05d}.json").write_text(text)
        written += 1
    outputs = []
    for jobs in (1, 2):
        done = subprocess.run([sys.executable, "-m", "loopmetric", "score", str(corpus), str(fuzz), "--json",
                               "--jobs", str(jobs)], capture_output=True, text=True, env=_env(), timeout=1800)
        outputs.append((done.returncode, done.stdout, done.stderr.strip().splitlines()[:-1]))
    return {"corpus": len(list(corpus.iterdir())), "fuzz": written, "seed": seed, "mutated": fuzzed,
            "reports": len(outputs[0][1].splitlines()), "messages": len(outputs[0][2]),
            "exit": (outputs[0][0], outputs[1][0]), "same": outputs[0] == outputs[1]}


def beyond_row(folder: Path) -> dict[str, Any]:
    """A span tree one level of JSON deeper than the maximum, through `score`."""
    from loopmetric._deep_json import MAX_DEPTH

    path = folder / "too_deep.json"
    times = MAX_DEPTH // 2 + 1
    path.write_text('{"type":"agent","children":[' * times + "{}" + "]}" * times)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "loopmetric", "score", str(path)], capture_output=True, text=True,
                          env=_env(), timeout=600)
    seconds = time.perf_counter() - start
    path.unlink()
    return {"exit": done.returncode, "stderr": done.stderr.strip().replace(str(path), "too_deep.json"),
            "seconds": seconds, "traceback": "Traceback" in done.stderr}


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def render(memory: list[dict], depth: list[dict], beyond: dict, jobs: dict, *, command: str, load_before: str,
           load_after: str) -> str:
    from loopmetric._deep_json import MAX_DEPTH

    met = all(row["score MB"] <= row["bound MB"] for row in memory)
    parts = [
        "# Memory and depth limits of `loopmetric score`",
        "",
        f"Command: `{command}`. `uptime` before: `{load_before}`; after: `{load_after}`.",
        "",
        "## Peak memory (fresh process each, its own `VmHWM`)",
        "",
        "Files generated by `benchmarks/_shapes.py` (`sized_chat`, `sized_chat_long`, `sized_deepeval`, `sized_otlp`):",
        "turn after turn of a reply, a call and its result (long results: a 40 KB file read each time; OTLP: one",
        "`execute_tool` span per call, GenAI semantic conventions), the last five calls repeated (each file is a",
        "loop). *base* is `loopmetric score` of a tiny trace (the",
        "interpreter and every import); the bound is 4x the file's size plus base.",
        "",
        _table(["shape", "file MB", "base MB", "json.loads MB (x file, over base)", "score MB (x file, over base)",
                "bound MB", "within"],
               [[r["shape"], f"{r['file MB']:.1f}", f"{r['base MB']:.0f}",
                 f"{r['json.loads MB']:.0f} ({r['json ratio']:.1f}x)", f"{r['score MB']:.0f} ({r['score ratio']:.1f}x)",
                 f"{r['bound MB']:.0f}", "yes" if r["score MB"] <= r["bound MB"] else "no"] for r in memory]),
        "",
        f"Within 4x + constant on every shape: {'yes' if met else 'no'}. `json.loads` of the file alone, the"
        " parsed tree any reader of the whole document holds, is "
        + ", ".join(f"{r['json ratio']:.1f}x" for r in memory) + " of the file over base; what scoring adds to it: "
        + ", ".join(f"{r['score MB'] - r['json.loads MB']:.0f} MB" for r in memory) + ".",
        "",
        "## `--jobs 1` and `--jobs 2` on the traced corpus and a fuzz set",
        "",
        f"`loopmetric score CORPUS FUZZ --json`: the {jobs['corpus']} traces of the traced corpus and the "
        f"{jobs['fuzz']} of {jobs['mutated']} mutated traces (`benchmarks.fuzz.mutate`, seed {jobs['seed']}) that "
        f"JSON can hold, one file each: {jobs['reports']} reports and {jobs['messages']} messages on stderr, exit "
        f"{jobs['exit'][0]} and {jobs['exit'][1]}; the same bytes with `--jobs 1` and `--jobs 2`: "
        f"{'yes' if jobs['same'] else '**no**'}.",
        "",
        "## Depth: the same verdict from memory and from a file, `--jobs 1` and `--jobs 2`",
        "",
        "`span_chain(depth)`: `depth` nested agent spans (2 levels of JSON each), five calls at the bottom; the",
        f"loop twin's agents share one name. A file holds at most {MAX_DEPTH:,} levels of JSON",
        f"(`loopmetric/_deep_json.py`), a span tree of {(MAX_DEPTH - 4) // 2:,} agent spans.",
        "",
        _table(["depth", "twin", "memory", "file --jobs 1", "file --jobs 2", "same", "memory s"],
               [[f"{r['depth']:,}", r["twin"], r["memory"], r["file --jobs 1"], r["file --jobs 2"],
                 "yes" if r["same"] else "**no**", f"{r['memory s']:.1f}"] for r in depth]),
        "",
        f"Deepest span tree with the same verdict on every path: "
        f"{max((r['depth'] for r in depth if r['same']), default=0):,} agent spans.",
        "",
        f"One level of JSON more than {MAX_DEPTH:,}: exit {beyond['exit']} after {beyond['seconds']:.1f} s, "
        f"{'a traceback' if beyond['traceback'] else 'no traceback'}:",
        "",
        "```",
        beyond["stderr"],
        "```",
        "",
    ]
    return "\n".join(parts)


def main(argv: Optional[list[str]] = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=50.0, help="MB of each generated file (default 50)")
    parser.add_argument("--quick", action="store_true", help="small depths only (the smoke test)")
    parser.add_argument("--output", type=Path, default=RESULTS / "memory.md")
    args = parser.parse_args(argv)
    from loopmetric._deep_json import MAX_DEPTH

    depths = [490, 2_000] if args.quick else [490, 2_000, 100_000, (MAX_DEPTH - 4) // 2]
    before = _uptime()
    with tempfile.TemporaryDirectory() as folder:
        memory = memory_rows(args.size, Path(folder))
        depth = depth_rows(depths, Path(folder))
        beyond = beyond_row(Path(folder))
        jobs = jobs_row(Path(folder), fuzzed=300 if args.quick else 3000)
    command = "python -m benchmarks.memory" + ("" if argv is None else " " + " ".join(argv)).rstrip()
    text = render(memory, depth, beyond, jobs, command=command, load_before=before, load_after=_uptime())
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text)
    print(text)
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
