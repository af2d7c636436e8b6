"""Cost of `loopmetric hook claude-code`: wall time per hook call, process start included.

    python -m benchmarks.hook                     # the issue's shape: 2,000 tool calls, a 50 MB transcript;
                                                  # writes results/hook.md (run it alone, on a quiet machine)
    python -m benchmarks.hook --calls 200 --transcript-mb 5 --every 10 --out /tmp   # smaller

A session of `--calls` tool calls (PreToolUse then PostToolUse each; most calls different, every
tenth call a failing one repeated, so the guard nudges and refuses too) is fed to the hook, its
transcript growing as the session does to `--transcript-mb` at the end. Every `--every`-th event
runs as Claude Code runs it, `python -m loopmetric hook claude-code` with the event on stdin (its
wall time); the others run in this process through `run_hook` (the hook's own work, no process
start), so the measured calls see the state a session of that length has. Then a `Stop` that reads
the whole transcript. Next to it: `python -c "import loopmetric"`, what every call pays before the
hook's own work; the hook's own work is the difference of the medians (and of the 95th
percentiles), and `run_hook` in process; `python -c pass`, and the hook call beyond it. A process
started from a source tree without cached bytecode (PYTHONDONTWRITEBYTECODE, a fresh checkout)
compiles every module it imports, work an installed package never does: the header says how many
of the tree's modules had it, and the same calls run again on a copy compiled as pip installs it
(`bytecode compiled, as installed`). The 1-minute load average is written as it was at the
start and at the end (a busy machine makes every row slower), with the issue's target: the hook's
own work beyond starting Python and importing loopmetric within 20 ms at p95.
"""

from __future__ import annotations

import compileall
import importlib.util
import io
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._common import markdown_table, parser

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 20.0  # the hook's own work at p95, beyond starting Python and importing loopmetric


def _load() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _events(calls: int, folder: Path, transcript: Path) -> list[dict]:
    out = []
    for n in range(1, calls + 1):
        looping = n % 10 in (7, 8, 9, 0)  # a run of 4 same failing calls in every ten
        args = {"command": "cat /nonexistent" if looping else f"sed -n {n}p src/module.py"}
        base = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(folder), "tool_name": "Bash",
                "tool_input": args, "tool_use_id": f"toolu_{n:05d}", "permission_mode": "default"}
        out.append({**base, "hook_event_name": "PreToolUse"})
        if looping:
            out.append({**base, "hook_event_name": "PostToolUseFailure",
                        "error": "Exit code 1\ncat: /nonexistent: No such file or directory"})
        else:
            out.append({**base, "hook_event_name": "PostToolUse",
                        "tool_response": {"stdout": f"line {n} of src/module.py", "stderr": "", "interrupted": False}})
    return out


def _transcript_line(n: int, size: int) -> str:
    text = "x" * max(0, size - 400)
    return json.dumps({"type": "assistant", "message": {"id": f"msg_{n}", "role": "assistant", "content": [
        {"type": "text", "text": text},
        {"type": "tool_use", "id": f"toolu_{n:05d}", "name": "Bash", "input": {}}],
        "usage": {"input_tokens": 1000, "output_tokens": 50}}}) + "\n"


def _process(payload: str, env: dict, cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "loopmetric", "hook", "claude-code"], input=payload, env=env,
                          cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stderr
    return elapsed


def main() -> None:
    options = parser(__doc__.splitlines()[0])
    options.add_argument("--calls", type=int, default=2000)
    options.add_argument("--every", type=int, default=20, help="run every N-th event as a process")
    options.add_argument("--imports", type=int, default=30, help="runs of python -c 'import loopmetric'")
    options.add_argument("--transcript-mb", type=float, default=50.0)
    args = options.parse_args()
    if args.smoke:
        args.calls, args.every, args.imports, args.transcript_mb = 40, 10, 3, 0.5
    from loopmetric.hooks import run_hook

    load_start = _load()
    folder = Path(tempfile.mkdtemp(prefix="loopmetric-hook-bench-"))
    try:
        text = _run(args, folder, run_hook, load_start)
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # the transcript is --transcript-mb large
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "hook.md").write_text(text, encoding="utf-8")
    print(text)


def _bytecode(package: Path) -> tuple[int, int]:
    """(modules of `package` whose cached bytecode is fresh, modules): without it each process compiles
    every module it imports from source (PYTHONDONTWRITEBYTECODE, a fresh checkout), unlike an install."""
    fresh = total = 0
    for source in package.rglob("*.py"):
        total += 1
        cached = Path(importlib.util.cache_from_source(str(source)))
        if cached.exists():
            header, stat = cached.read_bytes()[:16], source.stat()
            fresh += header[8:16] == struct.pack("<II", int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF)
    return fresh, total


def _installed(folder: Path) -> Path:
    """A copy of the tree's package with its bytecode compiled, as pip installs it: the folder to put on the path."""
    into = folder / "installed"
    shutil.copytree(ROOT / "loopmetric", into / "loopmetric", ignore=shutil.ignore_patterns("__pycache__"))
    compileall.compile_dir(str(into / "loopmetric"), quiet=1)
    return into


def _run(args, folder: Path, run_hook, load_start: float) -> str:
    state, transcript = folder / "state", folder / "transcript.jsonl"
    # every process runs in `folder`, outside the tree: `python -m` and `-c` put the working folder first on
    # the path, before PYTHONPATH, so run from the tree each would import the tree's package whatever the row
    env = {**os.environ, "LOOPMETRIC_HOOK_DIR": str(state), "PYTHONPATH": str(ROOT)}
    # the same calls on the compiled copy, each on a copy of the state the source tree's call sees
    state_installed = folder / "state-installed"
    env_installed = {**env, "LOOPMETRIC_HOOK_DIR": str(state_installed), "PYTHONPATH": str(_installed(folder))}
    fresh, modules = _bytecode(ROOT / "loopmetric")
    line_size = int(args.transcript_mb * 1e6 / args.calls)
    bare, imports, imports_installed = [], [], []
    for _ in range(args.imports):  # interleaved, so a change of load falls on every row alike
        for code, times, where in (("pass", bare, env), ("import loopmetric", imports, env),
                                   ("import loopmetric", imports_installed, env_installed)):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env=where, cwd=folder, check=True)
            times.append(time.perf_counter() - start)
    processes, processes_installed, inside, decisions = [], [], [], 0
    with transcript.open("w") as file:
        for index, event in enumerate(_events(args.calls, folder, transcript)):
            if event["hook_event_name"] == "PreToolUse":
                file.write(_transcript_line(int(event["tool_use_id"][6:]), line_size))
                file.flush()
            payload = json.dumps(event)
            if index % args.every == 0:
                shutil.rmtree(state_installed, ignore_errors=True)
                if state.exists():
                    shutil.copytree(state, state_installed, ignore=shutil.ignore_patterns("*.lock", "hook.log"))
                processes_installed.append(_process(payload, env_installed, folder))
                processes.append(_process(payload, env, folder))
                continue
            out = io.StringIO()
            start = time.perf_counter()
            run_hook("claude-code", stdin=io.StringIO(payload), stdout=out, stderr=io.StringIO(), directory=str(state))
            inside.append(time.perf_counter() - start)
            decisions += bool(out.getvalue())
    stop = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(folder),
            "hook_event_name": "Stop", "stop_hook_active": False}
    stop_time = _process(json.dumps(stop), env, folder)
    size = transcript.stat().st_size / 1e6
    ms = 1000.0

    def p50(values: list[float]) -> float:
        return statistics.median(values) * ms

    def p95(values: list[float]) -> float:
        return _percentile(values, 0.95) * ms

    def timed(what: str, values: list[float]) -> list[str]:
        return [what, str(len(values)), f"{p50(values):.0f}", f"{p95(values):.0f}"]

    def less(what: str, minuend: list[float], subtrahend: list[float]) -> list[str]:
        return [what, "", f"{p50(minuend) - p50(subtrahend):.0f}", f"{p95(minuend) - p95(subtrahend):.0f}"]

    rows = [
        timed("python -c pass", bare),
        timed("python -c 'import loopmetric'", imports),
        timed("hook call as a process (PreToolUse, PostToolUse)", processes),
        less("the hook's own work: process minus import", processes, imports),
        ["the hook's own work: run_hook in process", str(len(inside)), f"{p50(inside):.1f}", f"{p95(inside):.1f}"],
        less("the whole hook call beyond a bare Python: process minus python -c pass", processes, bare),
        timed("bytecode compiled, as installed: python -c 'import loopmetric'", imports_installed),
        timed("bytecode compiled, as installed: hook call as a process", processes_installed),
        less("bytecode compiled, as installed: the hook's own work, hook call less import", processes_installed,
             imports_installed),
        [f"Stop, reading the whole {size:.1f} MB transcript, as a process", "1", f"{stop_time * ms:.0f}", ""],
    ]
    load_end = _load()
    own_p95 = p95(processes) - p95(imports)
    installed_p95 = p95(processes_installed) - p95(imports_installed)

    def verdict(value: float) -> str:
        return "met" if value <= TARGET_MS else "NOT met"

    return "\n".join([
        "# The Claude Code hook: wall time per call", "",
        f"A session of {args.calls:,} tool calls ({2 * args.calls:,} events; {decisions} decisions in process), "
        f"its transcript {size:.1f} MB at the end; every {args.every}th event run as a process. "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} cores; 1-minute load average {load_start:.2f} at the "
        f"start, {load_end:.2f} at the end. `python -m benchmarks.hook`"
        + (" (a smaller run than the issue's 2,000 calls and 50 MB: its options were changed)"
           if (args.calls, args.transcript_mb) != (2000, 50.0) else "") + ".", "",
        f"The first rows run the tree as it is: {fresh} of its {modules} modules had fresh bytecode cached, so each "
        "process compiled the rest it imports from source. The rows `bytecode compiled, as installed` run the same "
        "calls (each on a copy of the same state) on a copy of the package compiled as pip installs it. The rows "
        "are run interleaved; a difference of two percentiles is noisy.", "",
        markdown_table(["what", "n", "p50 ms", "p95 ms"], rows), "",
        f"The issue's target, the hook's own work beyond starting Python and importing loopmetric within "
        f"{TARGET_MS:.0f} ms at p95: {own_p95:.0f} ms, {verdict(own_p95)}; compiled as installed, "
        f"{installed_p95:.0f} ms, {verdict(installed_p95)}.", ""])


if __name__ == "__main__":
    main()
