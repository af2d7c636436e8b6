"""Throughput: typical traces per second, scoring a folder of trace files in one process.

    python -m benchmarks.throughput     # writes results/throughput.md

10,000 deepeval trace files of 20-60 spans each (LLM outputs of 100-600
characters, tool calls with arguments and results; about one in four loops),
written to a temporary folder, then scored the way `loopmetric score` does:
read the file, detect the format, read the trace, run the detectors. Reported
against `json.loads` of the same files (the floor) in the same run: the files
are taken in 20 slices, each read and parsed, then scored, in turn, so a burst
of load on the machine falls on both; the cost per trace is the ratio of the two
totals.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from ._common import markdown_table, parser

_TOOLS = ("search", "fetch_page", "read_file", "run_sql", "get_status", "send_email")
_PHRASES = ("Let me look up", "I will check", "Next I need", "The result shows", "Now I can compare",
            "To answer this I should fetch", "The table has", "I found that")


def typical_trace(rng: random.Random, index: int) -> dict[str, Any]:
    spans = rng.randint(20, 60)
    children: list[dict[str, Any]] = []
    stuck_at = rng.randrange(spans) if rng.random() < 0.25 else -1
    i = 0
    while len(children) < spans - 1:
        if i == stuck_at:
            call = {"type": "tool", "name": "get_status", "input": {"job": index}, "output": "running",
                    "children": []}
            children.extend(dict(call) for _ in range(4))
        text = " ".join(f"{rng.choice(_PHRASES)} item {rng.randint(1, 500)} in region {rng.randint(1, 9)}."
                        for _ in range(rng.randint(3, 15)))
        children.append({"type": "llm", "name": "gpt", "input": {"step": i}, "output": text,
                         "input_token_count": rng.randint(200, 4000), "output_token_count": rng.randint(20, 400),
                         "children": []})
        children.append({"type": "tool", "name": rng.choice(_TOOLS),
                         "input": {"q": f"query {rng.randint(1, 10_000)}", "limit": rng.choice((5, 10, 20))},
                         "output": f"{rng.randint(0, 50)} rows: " + "x" * rng.randint(20, 300), "children": []})
        i += 1
    return {"type": "agent", "name": f"run-{index}", "input": f"task {index}", "output": "done",
            "children": children[: spans - 1]}


def write_folder(folder: Path, count: int, seed: int = 0) -> list[Path]:
    rng = random.Random(seed)
    paths = []
    for index in range(count):
        path = folder / f"trace-{index:05d}.json"
        path.write_text(json.dumps(typical_trace(rng, index)))
        paths.append(path)
    return paths


def main(argv: Optional[list[str]] = None) -> str:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--traces", type=int, default=10_000)
    args = p.parse_args(argv)
    count = 200 if args.smoke else args.traces
    from loopmetric._engine import analyze
    from loopmetric._settings import LoopSettings
    from loopmetric.readers import load_traces

    settings = LoopSettings()
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_folder(Path(tmp), count)
        floor = elapsed = 0.0
        spans = failed = 0
        slices = 20
        for part in range(slices):
            chunk = paths[part::slices]
            start = time.perf_counter()
            for path in chunk:
                json.loads(path.read_text())  # the floor: read and parse only
            floor += time.perf_counter() - start
            start = time.perf_counter()
            for path in chunk:
                for loaded in load_traces(str(path)):
                    report = analyze(loaded.trace, settings)
                    failed += not report.success
                    spans += report.spans
            elapsed += time.perf_counter() - start
    rate = count / elapsed
    rows = [[f"{count:,}", f"{spans / count:.0f}", f"{failed:,}", f"{floor:.2f} s", f"{elapsed:.2f} s",
             f"{count / floor:,.0f}", f"**{rate:,.0f}**", f"{floor / count * 1e6:.0f} us",
             f"{elapsed / count * 1e6:.0f} us", f"**{elapsed / floor:.1f}x**"]]
    header = ["traces", "mean spans", "failed", "read + json.loads", "loopmetric (read, parse, score)",
              "json.loads traces / s", "loopmetric traces / s", "json.loads per trace", "loopmetric per trace",
              "loopmetric / json.loads per trace"]
    text = "\n".join(["# Throughput", "",
                      "One process, one core, files scored as `loopmetric score` does (without printing). "
                      "Command: `python -m benchmarks.throughput`.", "", markdown_table(header, rows), ""])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "throughput.md").write_text(text)
    print(f"{count} traces in {elapsed:.2f} s: {rate:,.0f} traces/s ({failed} failed); floor {floor:.2f} s")
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
