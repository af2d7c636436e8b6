"""What a machine's coding sessions cost: `loopmetric score` on a folder of Claude Code sessions.

    python -m benchmarks.coding_sessions            # 100 sessions; writes benchmarks/results/coding_sessions.md
    python -m benchmarks.coding_sessions --sessions 10 --rounds 1 --out /tmp/x

The sessions are Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`) written
the way `examples/record_coding_agents.py` writes its sample, in five shapes drawn in turn by a fixed
seed: healthy work (files read, edited, tests whose output moves and then passes), the same failing
test re-run with nothing changed, edits on top of edits whose test says the same thing
(`fruitless_changes`), no-op commands answered with nothing, and exploration (many different files
read, a few fixes tried). The command runs as a user runs it, a process of its own: its wall time and
peak memory (the process's own accounting, `wait4`) over `--rounds` runs, with the load average at
the start and the end, and the head of the table it prints (the most wasteful sessions first).
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

from ._common import parser

ROOT = Path(__file__).resolve().parents[1]
SEED = 54
SHAPES = ("healthy", "retried", "fruitless", "no-ops", "exploring")


def _writer():
    spec = importlib.util.spec_from_file_location("record_coding_agents", ROOT / "examples" / "record_coding_agents.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _code(rng: random.Random, lines: int) -> str:
    names = ["total", "price", "items", "cart", "discount", "tax", "order", "user", "account", "ledger"]
    return "\n".join(f"{n:4d}\t    {rng.choice(names)}_{rng.randrange(999)} = compute({rng.choice(names)})"
                     for n in range(1, lines + 1))


def session(shape: str, rng: random.Random) -> list[tuple[str, dict, str, bool]]:
    """The tool calls of one session of `shape`: (tool, arguments, result, is_error)."""
    test = ("Bash", {"command": "python -m pytest tests/test_cart.py -q"})
    failing = "F\n" + "=" * 60 + "\nFAILED tests/test_cart.py::test_total - assert 41 == 42\n1 failed in 0.31s"
    run: list[tuple[str, dict, str, bool]] = []
    for k in range(rng.randrange(8, 20)):  # every session first reads the code it works on
        run.append(("Read", {"file_path": f"src/module_{k}.py"}, _code(rng, rng.randrange(40, 160)), False))
    if shape == "healthy":
        left = ["total", "tax", "discount", "shipping", "coupon", "refund", "currency", "rounding"]
        for k in range(rng.randrange(4, 9)):  # each edit fixes one test: the failures listed move on
            run.append(("Edit", {"file_path": f"src/module_{k}.py", "old_string": f"v{k}", "new_string": f"w{k}"},
                        f"The file src/module_{k}.py has been updated.\n{_code(rng, 12)}", False))
            failures = "\n".join(f"FAILED tests/test_cart.py::test_{name} - assert False" for name in left[k:])
            run.append((*test, f"{failures}\n{len(left) - k} failed in 0.2{k}s", True))
        run.append((*test, "1 passed in 0.12s", False))
    elif shape == "retried":
        run += [(*test, failing, True)] * rng.randrange(4, 8)
    elif shape == "fruitless":
        run.append((*test, failing, True))
        for k in range(rng.randrange(7, 12)):
            run.append(("Edit", {"file_path": "src/cart.py", "old_string": f"try {k}", "new_string": f"try {k + 1}"},
                        f"The file src/cart.py has been updated.\n{_code(rng, 12)}", False))
            run.append((*test, failing, True))
    elif shape == "no-ops":
        noops = [": ls -la", "}", ": python3 eval.py"]
        run += [("Bash", {"command": noops[k % 3]}, "", False) for k in range(rng.randrange(9, 30))]
    else:  # exploring: more files read, a few fixes tried, each answered differently
        for k in range(rng.randrange(20, 40)):
            run.append(("Grep", {"pattern": f"def f{k}", "path": "src"}, _code(rng, rng.randrange(3, 30)), False))
        for k in range(3):
            run.append(("Edit", {"file_path": "src/cart.py", "old_string": f"a{k}", "new_string": f"b{k}"},
                        f"The file src/cart.py has been updated.\n{_code(rng, 12)}", False))
            name = ["parse", "format", "round"][k]
            run.append((*test, f"FAILED tests/test_cart.py::test_{name} - assert {name}() is None\n1 failed", True))
    return run


def write_sessions(folder: Path, count: int) -> int:
    """`count` session files under `folder/<project>/`, in turn of `SHAPES`; their total size in bytes."""
    writer = _writer()
    rng = random.Random(SEED)
    size = 0
    for index in range(count):
        shape = SHAPES[index % len(SHAPES)]
        lines = writer.claude_transcript(session(shape, rng))
        for line in lines:  # one session id a file, as Claude Code writes them
            if "sessionId" in line:
                line["sessionId"] = f"session-{index:03d}"
        path = folder / f"-work-project-{index % 7}" / f"session-{index:03d}-{shape}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(line) + "\n" for line in lines)
        path.write_text(text)
        size += len(text.encode())
    return size


def _run(folder: Path) -> tuple[float, float, str]:
    """One `loopmetric score FOLDER` as a process: (wall seconds, peak resident MB, what it printed)."""
    env = {**os.environ, "COLUMNS": "200"}
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "loopmetric", "score", str(folder)], stdout=out,
                                   stderr=subprocess.STDOUT, env=env, cwd=folder)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        printed = out.read().decode()
    return wall, usage.ru_maxrss / 1024, printed


def main(argv: Optional[list[str]] = None) -> str:
    cli = parser(__doc__)
    cli.add_argument("--sessions", type=int, default=100, help="how many session files")
    cli.add_argument("--rounds", type=int, default=3, help="how many runs of the command")
    args = cli.parse_args(argv)
    if args.smoke:
        args.sessions, args.rounds = 10, 1
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "projects"
        size = write_sessions(folder, args.sessions)
        runs = [_run(folder) for _ in range(args.rounds)]
    load_end = os.getloadavg()
    walls = [wall for wall, _, _ in runs]
    peaks = [peak for _, peak, _ in runs]
    printed = runs[-1][2].splitlines()
    table = [line for line in printed if line.startswith(("┃", "│"))]
    lines = [
        "# `loopmetric score` on a folder of Claude Code sessions",
        "",
        "Written by `python -m benchmarks.coding_sessions"
        + (f" --sessions {args.sessions}" if args.sessions != 100 else "")
        + (f" --rounds {args.rounds}" if args.rounds != 3 else "") + "`.",
        "",
        f"- sessions: {args.sessions} Claude Code transcripts in 7 project folders, {size / 1e6:.1f} MB, shapes "
        + ", ".join(SHAPES) + " in turn (seed 54)",
        f"- load average (1 min) at the start: {load_start[0]:.2f}; at the end: {load_end[0]:.2f}; "
        f"{os.cpu_count()} cores",
        f"- runs: {args.rounds}, each a process of its own (`python -m loopmetric score FOLDER`)",
        "",
        "| figure | min | median | max |",
        "|---|---|---|---|",
        f"| wall time, s | {min(walls):.2f} | {statistics.median(walls):.2f} | {max(walls):.2f} |",
        f"| peak resident memory, MB | {min(peaks):.0f} | {statistics.median(peaks):.0f} | {max(peaks):.0f} |",
        f"| sessions per second (median) | | {args.sessions / statistics.median(walls):.0f} | |",
        "",
        "What it printed (the header, the first 14 rows, the most wasteful sessions first, and the summary line):",
        "",
        "```text",
        *[line.replace(tmp, "") for line in table[:15]],
        printed[-1] if printed else "",
        "```",
        "",
    ]
    text = "\n".join(lines)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "coding_sessions.md").write_text(text)
    print(text)
    return text


if __name__ == "__main__":
    main()
