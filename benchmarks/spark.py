"""Spark: typical traces per second per core, one process vs `--jobs 2` vs Spark `local[2]`.

    python -m benchmarks.spark              # 100,000 traces; writes results/spark.md
    python -m benchmarks.spark --smoke      # 200 traces, to check the script works

The typical traces of `benchmarks.throughput` (deepeval, 20-60 spans, about one
in four loops), written as 20 JSON Lines files. The same files are scored three
ways, each a fresh command timed from start to exit: `loopmetric score --json`
(one process), `loopmetric score --json --jobs 2` (a file per task) and
`loopmetric spark --master local[2]` (Spark reads the lines, scores them in two
Python workers, writes Parquet). Each command also runs on one trace: that time
is its fixed start-up cost, and (all - one trace) / traces its rate. The
break-even size is where Spark's start-up is paid back by its rate.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

from ._common import markdown_table, parser
from .throughput import typical_trace

FILES = 20
ROOT = Path(__file__).resolve().parents[1]
QUIET = ("--conf", "spark.ui.enabled=false", "--conf", "spark.ui.showConsoleProgress=false")
COMMANDS = {  # name: (cores, arguments after `loopmetric`); Spark first, the figure the README sizes with
    "Spark `local[2]` (`loopmetric spark`)": (2, ("spark", "--master", "local[2]", *QUIET)),
    "one process (`loopmetric score`)": (1, ("score", "--json")),
    "`loopmetric score --jobs 2`": (2, ("score", "--json", "--jobs", "2")),
}
BASELINE = "one process (`loopmetric score`)"


def write_jsonl(folder: Path, count: int, files: int = FILES, seed: int = 0) -> list[Path]:
    """`count` typical traces, one a line, spread over `files` JSON Lines files."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    handles = [open(folder / f"part-{k:03d}.jsonl", "w", encoding="utf-8") for k in range(files)]
    try:
        for index in range(count):
            handles[index % files].write(json.dumps(typical_trace(rng, index)) + "\n")
    finally:
        for handle in handles:
            handle.close()
    return sorted(folder.iterdir())


def _run(arguments: tuple[str, ...], folder: Path, out: Path) -> tuple[float, int]:
    """Seconds the command took from start to exit, and how many traces it reported failing."""
    command = [sys.executable, "-m", "loopmetric.cli", *arguments, str(folder)]
    if arguments[0] == "spark":
        command += ["--output", str(out / "results.parquet"), "--overwrite"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))),
           "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}
    with open(out / "stdout", "w") as stdout:
        start = time.perf_counter()
        done = subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, text=True, env=env)
        elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
    text = (out / "stdout").read_text()
    if arguments[0] == "spark":  # the summary line: "N traces, F failed; ..."
        failed = int(text.strip().splitlines()[-1].split(" failed")[0].rsplit(" ", 1)[-1])
    else:
        failed = sum(not json.loads(line)["success"] for line in text.splitlines())
    return elapsed, failed


def _sizing(startup: float, rate: float, one_startup: float, one_rate: float) -> str:
    """Traces from which this command is faster than one process (startup + n / rate)."""
    if rate != rate:  # nan: too few traces to tell the rate from the start-up
        return "n/a"
    if rate <= one_rate:
        return "never (not faster per trace)"
    return f"{(startup - one_startup) / (1 / one_rate - 1 / rate):,.0f}"


def main(argv: Optional[list[str]] = None) -> str:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--traces", type=int, default=100_000)
    args = p.parse_args(argv)
    count = 200 if args.smoke else args.traces
    with tempfile.TemporaryDirectory() as tmp:
        data, one, out = Path(tmp, "traces"), Path(tmp, "one"), Path(tmp, "out")
        write_jsonl(data, count)
        write_jsonl(one, 1, files=1)
        out.mkdir()
        size = sum(path.stat().st_size for path in data.iterdir())
        verdicts: set[int] = set()
        measured: dict[str, tuple[float, float]] = {}  # name: (start-up s, elapsed s)
        for name, (cores, arguments) in COMMANDS.items():
            startup, _ = _run(arguments, one, out)
            elapsed, failed = _run(arguments, data, out)
            verdicts.add(failed)
            measured[name] = startup, elapsed
            print(f"{name}: {elapsed:.1f} s for {count} traces ({failed} failed), start-up {startup:.1f} s",
                  flush=True)
            _write(args.out, count, size, verdicts, measured)  # so far, should a later command not finish
    if len(verdicts) != 1:
        raise RuntimeError(f"The three commands disagree on how many traces fail: {sorted(verdicts)}")
    return _write(args.out, count, size, verdicts, measured)


def _rate(count: int, startup: float, elapsed: float) -> float:
    """Traces per second once started (nan when the run is too short to tell)."""
    return count / (elapsed - startup) if elapsed > startup else float("nan")


def _rows(count: int, measured: dict[str, tuple[float, float]]) -> list[list[str]]:
    base = measured.get(BASELINE)
    rows = []
    for name, (startup, elapsed) in measured.items():
        cores, rate = COMMANDS[name][0], _rate(count, startup, elapsed)
        even = "" if base is None or name == BASELINE else _sizing(startup, rate, base[0], _rate(count, *base))
        rows.append([name, str(cores), f"{startup:.1f} s", f"{elapsed:.1f} s", f"{count / elapsed:,.0f}",
                     f"{rate:,.0f}", f"{rate / cores:,.0f}", even])
    return rows


def _write(out: Path, count: int, size: int, verdicts: set[int], measured: dict[str, tuple[float, float]]) -> str:
    header = ["command", "cores", "start-up (1 trace)", f"{count:,} traces", "traces / s (all)",
              "traces / s (after start-up)", "traces / s per core", "faster than one process from (traces)"]
    load = os.getloadavg()[0]
    text = "\n".join([
        "# Spark", "",
        f"{count:,} typical traces (deepeval, 20-60 spans, {size / 1e6:,.0f} MB as {FILES} JSON Lines files; "
        f"{min(verdicts):,} fail), scored by each command from start to exit on a {os.cpu_count()}-core machine "
        f"(load average {load:.1f} when it ended: the machine is shared, so rates vary from run to run). "
        "Start-up is the same command on one trace; the rate after start-up is "
        "traces / (time - start-up). Command: `python -m benchmarks.spark`.", "",
        markdown_table(header, _rows(count, measured)), "",
    ])
    out.mkdir(parents=True, exist_ok=True)
    (out / "spark.md").write_text(text)
    print(text, flush=True)
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
