"""Robustness: a seeded mutation fuzzer and scale limits.

    python -m benchmarks.fuzz            # 10,000 mutated traces + the scale rows; results/robustness.md

Mutations start from real traces (`../shared/traces`, when present), the
traced-agent corpus and the examples, and break them the way traces arrive
broken: fields deleted, wrong types, None everywhere, strings where lists go,
huge and empty strings, NaN and infinities, bytes, sets, arbitrary objects,
dicts and lists that contain themselves. The contract checked on every one:
`detect_loops` returns a report whose score is in [0, 1] and whose JSON form
round-trips, or rejects the input with one of the two documented errors whose
message says what was given (`TraceReadError` when the mutation left no
readable trace, `TypeError` when it left something that cannot hold one trace,
e.g. two OTLP trace ids). Anything else is a failure, printed with its seed.

The scale rows run one trace each in a fresh process and report wall time
and, from a second run, peak memory (tracemalloc; the input is built first).
"""

from __future__ import annotations

import copy
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

from ._common import RESULTS, in_fresh_process, markdown_table, parser, peak_memory

ROOT = Path(__file__).resolve().parents[1]


class Opaque:
    """An arbitrary object: not JSON, with a repr that must never be called."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:  # pragma: no cover - reading it would be a bug
        raise AssertionError("loopmetric called repr() on a trace object")


def seeds() -> list[Any]:
    """The traces mutations start from."""
    out: list[Any] = []
    for path in sorted((ROOT / "examples").glob("*.json")):
        data = json.loads(path.read_text())
        out.append(data.get("trace_dict", data) if isinstance(data, dict) else data)
    shared = ROOT.parent / "shared" / "traces"
    for path in sorted(shared.glob("*.json")) if shared.is_dir() else ():
        out.append(json.loads(path.read_text()))
    corpus = Path(__file__).resolve().parent / "corpus" / "traced.jsonl.gz"
    if corpus.exists():
        from .corpus import load_corpus

        out.extend(row["trace"] for row in load_corpus()[::9])
    return out


def _nodes(value: Any) -> list[tuple[Any, Any]]:
    """(container, key) of every place in a JSON-like value, iteratively."""
    places: list[tuple[Any, Any]] = []
    stack = [value]
    seen: set[int] = set()
    while stack and len(places) < 50_000:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            for key in list(node):
                places.append((node, key))
                stack.append(node[key])
        elif isinstance(node, list):
            for index in range(len(node)):
                places.append((node, index))
                stack.append(node[index])
    return places


_REPLACEMENTS: tuple[Callable[[random.Random, Any], Any], ...] = (
    lambda rng, old: None,
    lambda rng, old: "",
    lambda rng, old: "x" * rng.choice((1, 10_000, 200_000)),
    lambda rng, old: rng.choice((math.nan, math.inf, -math.inf, -0.0, 10**30, -(2**70))),
    lambda rng, old: b"\xff\xfe bytes",
    lambda rng, old: {"a", "b", 3},
    lambda rng, old: Opaque(old),
    lambda rng, old: "not a list",
    lambda rng, old: [old, old],
    lambda rng, old: {"children": old, "type": rng.choice(("llm", "tool", "agent", 7))},
    lambda rng, old: rng.choice((True, 0, -1, 3.5)),
    lambda rng, old: [],
    lambda rng, old: {},
    lambda rng, old: ("a", "tuple"),
    lambda rng, old: "\ud800 lone surrogate \x00 nul",
    lambda rng, old: _as_json_text(old),
)


def _as_json_text(value: Any) -> str:
    """A JSON string where an object was (arguments recorded as text), cut short."""
    try:
        return json.dumps(value)[:500]
    except (TypeError, ValueError, RecursionError):
        return "{"


def mutate(trace: Any, rng: random.Random, count: Optional[int] = None) -> Any:
    """A broken copy of `trace`: 1-8 random mutations, sometimes a cycle."""
    trace = copy.deepcopy(trace)
    for _ in range(count or rng.randint(1, 8)):
        places = _nodes(trace)
        if not places:
            return rng.choice((None, "", [], {}, 3, Opaque(1)))
        container, key = rng.choice(places)
        action = rng.random()
        if action < 0.15 and isinstance(container, dict):
            del container[key]
        elif action < 0.25:
            container[key] = container  # a dict or list that contains itself
        elif action < 0.3 and isinstance(container, (dict, list)):
            container[key] = trace  # a reference back to the root
        else:
            container[key] = rng.choice(_REPLACEMENTS)(rng, container[key])
    return trace


def check(trace: Any) -> Optional[str]:
    """None when the contract holds, else what went wrong."""
    from loopmetric import TraceReadError, detect_loops

    try:
        report = detect_loops(trace)
    except (TraceReadError, TypeError) as error:
        if str(error).startswith("Expected"):
            return None  # rejected with a message that says why: within the contract
        return f"{type(error).__name__} without a clear message: {error}"
    except Exception as error:  # noqa: BLE001 - any other exception breaks the contract
        return f"{type(error).__name__}: {error}"
    if not 0.0 <= report.score <= 1.0 or report.success != (report.score >= report.threshold):
        return f"score {report.score} / success {report.success} out of contract"
    try:
        json.loads(json.dumps(report.to_dict(), allow_nan=False))
    except (TypeError, ValueError) as error:
        return f"report is not plain JSON: {error}"
    return None


def fuzz(examples: int, seed: int = 0) -> tuple[int, list[str]]:
    rng = random.Random(seed)
    bases = seeds()
    failures: list[str] = []
    for index in range(examples):
        case_seed = rng.randrange(2**32)
        case_rng = random.Random(case_seed)
        trace = mutate(case_rng.choice(bases), case_rng)
        problem = check(trace)
        if problem:
            failures.append(f"seed {case_seed}: {problem}")
    return examples, failures


# -- scale limits ------------------------------------------------------------------
def _deep(n: int) -> dict:
    root = {"type": "agent", "name": "root", "input": "task", "children": []}
    parent = root
    for i in range(n):
        child = {"type": "tool" if i % 2 else "llm", "name": f"s{i % 5}", "input": {"i": i},
                 "output": f"out {i}", "children": []}
        parent["children"].append(child)
        parent = child
    return root


def _wide(n: int) -> dict:
    return {"type": "agent", "name": "root", "input": "task",
            "children": [{"type": "tool", "name": "lookup", "input": {"id": i}, "output": f"row {i}"}
                         for i in range(n)]}


def _huge_output(megabytes: int) -> dict:
    rng = random.Random(1)
    words = [rng.choice(("alpha", "beta", "gamma", "delta", "step", "tool", "value")) for _ in range(200_000)]
    text = (" ".join(words) + " ") * (megabytes * 1_000_000 // (len(" ".join(words)) + 1) + 1)
    return {"type": "agent", "name": "root", "children": [
        {"type": "llm", "name": "model", "output": text[: megabytes * 1_000_000]},
        {"type": "llm", "name": "model", "output": text[: megabytes * 1_000_000 - 7] + " changed"}]}


def _different_outputs(megabytes: int) -> dict:
    """Two huge LLM outputs back to back that share no text (the costly case for similarity)."""
    outputs = []
    for seed in (2, 3):
        rng = random.Random(seed)
        words = [f"{rng.choice(('alpha', 'beta', 'gamma', 'delta'))}{rng.randint(0, 10**6)}" for _ in range(100_000)]
        block = " ".join(words)
        outputs.append((block + " ") * (megabytes * 1_000_000 // (len(block) + 1) + 1))
    return {"type": "agent", "name": "root", "children": [
        {"type": "llm", "name": "model", "output": text[: megabytes * 1_000_000]} for text in outputs]}


def _identical_calls(n: int) -> dict:
    return {"type": "agent", "name": "root", "children": [
        {"type": "tool", "name": "poll", "input": {"job": 1}, "output": "running"} for _ in range(n)]}


SCALE = {
    "chain of spans, deep": (_deep, 100_000, 5_000),
    "children of one root": (_wide, 200_000, 10_000),
    "one LLM output, MB (two of them)": (_huge_output, 20, 1),
    "two different LLM outputs, MB each": (_different_outputs, 20, 1),
    "identical consecutive calls": (_identical_calls, 10_000, 1_000),
}


def _scale_run(name: str, size: int) -> tuple[float, int, float, int]:
    build, _, _ = SCALE[name]
    trace = build(size)
    from loopmetric import detect_loops

    start = time.perf_counter()
    report = detect_loops(trace)
    elapsed = time.perf_counter() - start
    peak = peak_memory(lambda: detect_loops(trace))  # a second run: tracing slows Python code several times
    return elapsed, peak, report.score, len(report.findings)


def scale_row(name: str, size: int, timeout: float = 600) -> tuple:
    """("ok", seconds, peak bytes, score, findings), or ("error", message) / ("timeout", None)."""
    status, value = in_fresh_process(_scale_run, name, size, timeout=timeout)
    if status == "ok":
        return (status, *value)
    return (status,) if value is None else (status, value)


def main(argv: Optional[list[str]] = None) -> str:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    examples = 50 if args.smoke else args.examples
    start = time.perf_counter()
    count, failures = fuzz(examples, args.seed)
    fuzz_time = time.perf_counter() - start
    rows = []
    for name, (_, big, small) in SCALE.items():
        size = small if args.smoke else big
        result = scale_row(name, size)
        if result[0] == "ok":
            _, elapsed, peak, score, findings = result
            rows.append([name, f"{size:,}", f"{elapsed:.2f} s", f"{peak / 1e6:.0f} MB", f"{score:.2f}",
                         str(findings)])
        else:
            rows.append([name, f"{size:,}", " ".join(map(str, result)), "-", "-", "-"])
        print(" | ".join(rows[-1]), flush=True)
    lines = ["# Robustness", "",
             f"Mutation fuzzer: {count:,} mutated traces (seed {args.seed}) in {fuzz_time:.1f} s; "
             f"{len(failures)} broke the contract.", ""]
    lines += [f"- {failure}" for failure in failures[:50]]
    lines += ["", "Scale limits (one trace each, fresh process; peak memory traced while scoring):", "",
              markdown_table(["trace", "size", "time", "peak memory", "score", "findings"], rows), "",
              "Command: `python -m benchmarks.fuzz`.", ""]
    text = "\n".join(lines)
    if not (args.smoke and args.out == RESULTS):  # a smoke run never overwrites the committed result
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "robustness.md").write_text(text)
    print(f"fuzz: {count} examples, {len(failures)} failures in {fuzz_time:.1f} s")
    for failure in failures[:10]:
        print("  " + failure)
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
