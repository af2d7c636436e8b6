"""What the benchmark scripts share: both metrics on one trace, confusion counts, output."""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")

RESULTS = Path(__file__).resolve().parent / "results"


def loopmetric_verdict(trace: Any) -> tuple[bool, float, str]:
    """(predicted loop, score, reason) of loopmetric at default settings."""
    from loopmetric import detect_loops

    report = detect_loops(trace)
    return (not report.success), report.score, report.reason


def deepeval_verdict(trace: Any) -> tuple[Optional[bool], Optional[float], str]:
    """(predicted loop, score, reason) of deepeval's own AgentLoopDetectionMetric at
    default settings; (None, None, error) when it raises."""
    from deepeval.metrics import AgentLoopDetectionMetric
    from deepeval.test_case import LLMTestCase

    from loopmetric.readers._deepeval import unwrap_trace_dict

    metric = AgentLoopDetectionMetric(async_mode=False)
    case = LLMTestCase(input="benchmark", actual_output="benchmark")
    case._trace_dict = unwrap_trace_dict(trace)  # what deepeval itself puts there
    try:
        metric.measure(case)
    except Exception as error:  # noqa: BLE001 - a crash is a result to report
        return None, None, f"{type(error).__name__}: {error}"
    return (not metric.success), metric.score, metric.reason or ""


def peak_memory(fn: Callable[[], Any]) -> int:
    """Peak bytes traced by tracemalloc while `fn` runs (what is built before is not counted)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _send_result(fn: Callable[..., Any], args: tuple, out: Any) -> None:
    try:
        out.send(("ok", fn(*args)))
    except BaseException as error:  # noqa: BLE001 - reported to the parent
        out.send(("error", f"{type(error).__name__}: {str(error)[:200]}"))


def in_fresh_process(fn: Callable[..., Any], *args: Any, timeout: float = 600) -> tuple[str, Any]:
    """`fn(*args)` in a forked process: ("ok", value), ("error", message) or ("timeout", None).

    Each measurement starts from the same state and a hang or crash cannot take the
    benchmark down with it.
    """
    context = mp.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_send_result, args=(fn, args, send))
    process.start()
    if not receive.poll(timeout):
        process.kill()
        process.join()
        return "timeout", None
    result = receive.recv()
    process.join()
    return result


@dataclass
class Confusion:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    errors: int = 0  # the metric raised; counted as "no loop predicted"

    def add(self, truth: bool, predicted: Optional[bool]) -> None:
        if predicted is None:
            self.errors += 1
            predicted = False
        if truth and predicted:
            self.tp += 1
        elif truth:
            self.fn += 1
        elif predicted:
            self.fp += 1
        else:
            self.tn += 1

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def accuracy(self) -> float:
        return (self.tp + self.tn) / self.n if self.n else 0.0

    def cells(self) -> list[str]:
        return [str(self.tp), str(self.fp), str(self.fn), str(self.tn), f"{self.precision:.2f}",
                f"{self.recall:.2f}", f"{self.f1:.2f}", f"{self.accuracy:.2f}"]


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--smoke", action="store_true", help="a tiny run, to check the script works")
    p.add_argument("--out", type=Path, default=RESULTS, help="folder for the Markdown and PNG results")
    return p


def write_ratio_report(out: Path, name: str, title: str, how: str, header: list[str], rows: list[list[str]],
                       worst: float, smoke: bool) -> str:
    """Write `results/<name>.md` of a scorer's cost next to `detect_loops` (target: within 1.5x)."""
    import os

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    text = "\n".join([
        f"# {title}", "",
        "Each cell is the fastest of the rounds, each the mean of back-to-back calls over about 0.2 s, " + how,
        f"Command: `python -m benchmarks.{name}`{' --smoke' if smoke else ''}; load average at the end: {load:.2f}.",
        "",
        markdown_table(header, rows), "",
        f"Largest ratio: {worst:.2f}x (target: within 1.5x of `detect_loops`: {'met' if worst <= 1.5 else 'not met'}).",
        ""])
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.md").write_text(text)
    print(f"largest ratio {worst:.2f}x\nwritten to {out / (name + '.md')}")
    return text


def timed(fn: Callable[[], Any], repeats: int, budget: float = 0.2) -> float:
    """Seconds per call: the fastest of `repeats` rounds, each the mean over about `budget` seconds."""
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-6)
    number = max(1, int(budget / once))
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best
