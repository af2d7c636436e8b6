"""Speed and scale: loopmetric and deepeval's metric on the same synthetic traces.

    python -m benchmarks.speed          # writes results/speed.md and results/speed.png

Traces of 100 to 50,000 spans: an agent whose LLM spans carry outputs of about
2,000 characters and whose tool spans carry arguments and results, in four
shapes: `distinct` (LLM and tool spans alternate, every output different),
`text-heavy` (LLM outputs of about 2,000 characters drawn from a small shared
vocabulary, alternating with tool spans of short arguments and results: nearly
all the bytes are LLM text), `near-identical` (LLM outputs back to back that
differ by a few words, so each is compared with the 4 before it: the worst case
for text similarity) and `deep` (as distinct, each span the child of the
previous one). For each, in a fresh process: wall time and peak traced memory
of `json.loads` of the serialized trace (the floor: any metric must at least
parse it), of loopmetric's `detect_loops` on the parsed dict (deepeval
imported, as inside the metric; one small trace scored first, so imports are
not counted), and of deepeval's `AgentLoopDetectionMetric.measure`; the
ratios, with a summary at 5,000 spans; and the exponent of a power-law fit of
loopmetric's time against size from 1,000 spans up. The timed runs of
json.loads and loopmetric alternate. deepeval's metric runs up to
`--deepeval-max-spans` (5,000) and gets at most `--deepeval-timeout` seconds
per trace (60); larger sizes of that shape are skipped once it times out.

The same large result repeated (`_shapes.repeated_result`): an agent reads one service log of
1, 3 or 10 MB (`--repeated-mb`) 3, 6 or 20 times (`--repeated-times`), against a healthy trace of
the same JSON size in small steps, every call different; both with `detect_loops` on the parsed
dict, in fresh processes, taken in turn. The target: at most 2x the healthy trace, and the time
linear in the distinct text (about the same for 3 and 20 repeats of one log; the fitted exponent
against the log's size). `--repeated-only` runs this part alone (written to
results/speed_repeated.md; the full run puts it in speed.md).

Many large tool results, then many turns telling facts (`_shapes.told_facts_chat`): an OpenAI chat
of 100, 200 or 400 (`--facts-results`) distinct logs of 20 KB, then as many rounds of a customer
turn and an agent reply, each telling numbers; the conversation rule asks of every fact whether a
tool told it already. The time per MB of distinct tool text stays flat when that costs as the text
read once, and rises with the count when it costs the text times the facts. `--facts-only` runs
this part alone (written to results/speed_facts.md; the full run puts it in speed.md).
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
import time
from typing import Any, Optional

from ._common import in_fresh_process, markdown_table, parser, peak_memory
from ._shapes import repeated_result, told_facts_chat

SIZES = (100, 1_000, 5_000, 20_000, 50_000)
SHAPES = ("distinct", "text-heavy", "near-identical", "deep")
TARGET_SPANS = 5_000
_WORDS = ("agent tool search result query answer model step plan check file value error page data user "
          "order report status job service config table index token cache region update").split()
_SMALL_VOCABULARY = "the agent reads a file and writes the answer to check each value in order".split()


def _text(rng: random.Random, chars: int = 2_000) -> str:
    words: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(_WORDS) + (str(rng.randint(0, 999)) if rng.random() < 0.2 else "")
        words.append(word)
        size += len(word) + 1
    return " ".join(words)


def _vocabulary_text(rng: random.Random, chars: int = 2_000) -> str:
    words: list[str] = []
    size = 0
    while size < chars:
        words.append(rng.choice(_SMALL_VOCABULARY))
        size += len(words[-1]) + 1
    return " ".join(words)


def make_trace(spans: int, shape: str, seed: int = 0) -> dict[str, Any]:
    """A deepeval trace dict with `spans` spans (root included)."""
    rng = random.Random(seed)
    base = _text(rng)
    nodes: list[dict[str, Any]] = []
    for i in range(spans - 1):
        if shape == "text-heavy":
            if i % 2 == 0:
                nodes.append({"type": "llm", "name": "model", "input": {"step": i}, "output": _vocabulary_text(rng),
                              "input_token_count": 800, "output_token_count": 400, "children": []})
            else:
                nodes.append({"type": "tool", "name": rng.choice(("read_file", "write_file")),
                              "input": {"path": f"src/file{i}.py"}, "output": f"ok: {i} lines", "children": []})
            continue
        if i % 2 == 0 or shape == "near-identical":  # near-identical: LLM outputs back to back
            if shape == "near-identical":
                words = base.split()
                for _ in range(5):
                    words[rng.randrange(len(words))] = rng.choice(_WORDS)
                output = " ".join(words)
            else:
                output = _text(rng)
            nodes.append({"type": "llm", "name": "model", "input": {"step": i}, "output": output,
                          "input_token_count": 800, "output_token_count": 400, "children": []})
        else:
            nodes.append({"type": "tool", "name": rng.choice(("search", "fetch", "read")),
                          "input": {"query": f"q{i}", "page": i % 7}, "output": f"result {i}: " + _text(rng, 200),
                          "children": []})
    root = {"type": "agent", "name": "agent", "input": "task", "output": "done", "children": []}
    if shape == "deep":
        parent = root
        for node in nodes:
            parent["children"].append(node)
            parent = node
    else:
        root["children"] = nodes
    return root


def _measure(kind: str, text: str, memory: bool) -> tuple[float, int]:
    """(seconds, peak traced bytes or 0) of one run of `kind` over the trace text."""
    if kind == "json":
        work = lambda: json.loads(text)  # noqa: E731
    else:
        trace = json.loads(text)
        if kind == "loopmetric":
            import deepeval.metrics  # noqa: F401 - the process the metric runs in

            from loopmetric import detect_loops

            detect_loops(make_trace(20, "near-identical"))  # imports and first-call set-up, not timed
            work = lambda: detect_loops(trace)  # noqa: E731
        else:
            from deepeval.metrics import AgentLoopDetectionMetric
            from deepeval.test_case import LLMTestCase

            metric = AgentLoopDetectionMetric(async_mode=False)
            case = LLMTestCase(input="benchmark", actual_output="benchmark")
            case._trace_dict = trace
            work = lambda: metric.measure(case)  # noqa: E731
    if memory:
        return 0.0, peak_memory(work)
    start = time.perf_counter()
    work()
    return time.perf_counter() - start, 0


def run_isolated(kind: str, text: str, *, memory: bool = False, timeout: float = 600) -> tuple[str, Any]:
    """One measurement in a fresh process: ("ok", (s, bytes)) / ("error", msg) / ("timeout", None)."""
    return in_fresh_process(_measure, kind, text, memory, timeout=timeout)


def fit_exponent(points: list[tuple[int, float]]) -> Optional[float]:
    """Least-squares slope of log(time) against log(size)."""
    points = [(math.log(n), math.log(t)) for n, t in points if t > 0]
    if len(points) < 2:
        return None
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    num = sum((x - mx) * (y - my) for x, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return num / den if den else None


def _best(kind: str, text: str, repeats: int, timeout: float) -> tuple[str, Any]:
    """The fastest of `repeats` isolated runs (timing noise only ever adds time)."""
    best: Optional[float] = None
    for _ in range(repeats):
        status, value = run_isolated(kind, text, timeout=timeout)
        if status != "ok":
            return status, value
        best = value[0] if best is None else min(best, value[0])
    return "ok", best


def _best_pair(text: str, repeats: int) -> tuple[float, float]:
    """The fastest of `repeats` runs of json.loads and of loopmetric, taken in turn (so a
    burst of load on the machine falls on both)."""
    floor: list[float] = []
    ours: list[float] = []
    for _ in range(repeats):
        for kind, times in (("json", floor), ("loopmetric", ours)):
            status, value = run_isolated(kind, text)
            if status != "ok":
                raise RuntimeError(f"{kind} failed: {value}")
            times.append(value[0])
    return min(floor), min(ours)


def main(argv: Optional[list[str]] = None) -> str:
    """Runs in a thread with a large stack: `json.dumps`/`json.loads` of a 50,000-deep
    trace recurse in C (the measured processes are forked from this thread)."""
    import threading

    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
    sys.setrecursionlimit(1_000_000)
    threading.stack_size(1024 * 1024 * 1024)
    result: list[str] = []
    try:
        worker = threading.Thread(target=lambda: result.append(_main(argv)))
        worker.start()
        worker.join()
    finally:  # both are process-wide: leave the caller's as they were
        sys.setrecursionlimit(old_limit)
        threading.stack_size(old_stack)
    if not result:
        raise RuntimeError("the speed benchmark failed; see the traceback above")
    return result[0]


REPEATED_MB = (1.0, 3.0, 10.0)
REPEATED_TIMES = (3, 6, 20)


def repeated_results(megabytes: tuple[float, ...], times: tuple[int, ...], repeats: int) -> tuple[str, bool]:
    """The same large result repeated against its healthy twin: a markdown section, and whether
    every cell met the target (at most 2x the healthy trace)."""
    rows: list[list[str]] = []
    by_size: dict[int, list[tuple[float, float]]] = {}
    met = True
    for mb in megabytes:
        for count in times:
            log_chars = int(mb * 1_000_000)
            loop_text = json.dumps(repeated_result(log_chars * count, count))
            healthy_text = json.dumps(repeated_result(len(loop_text), count, loop=False))
            loop: list[float] = []
            healthy: list[float] = []
            for _ in range(repeats):
                for text, times_taken in ((loop_text, loop), (healthy_text, healthy)):
                    status, value = run_isolated("loopmetric", text)
                    if status != "ok":
                        raise RuntimeError(f"loopmetric failed on the repeated result: {value}")
                    times_taken.append(value[0])
            ours, theirs = min(loop), min(healthy)
            met = met and ours <= 2 * theirs
            by_size.setdefault(count, []).append((log_chars, ours))
            rows.append([f"{mb:g} MB", str(count), f"{len(loop_text) / 1e6:.1f} MB", f"{ours * 1e3:.0f}",
                         f"{theirs * 1e3:.0f}", f"**{ours / theirs:.2f}x**", f"{ours / mb * 1e3:.0f}"])
            print(" | ".join(rows[-1]), flush=True)
    fitted = ", ".join(f"{count} repeats: {e:.2f}" if (e := fit_exponent(points)) is not None else f"{count}: -"
                       for count, points in by_size.items())
    header = ["distinct result", "repeats", "JSON size", "loopmetric ms", "healthy trace of the same size ms",
              "repeated / healthy", "ms per MB of distinct text"]
    section = "\n".join([
        "## The same large result repeated", "",
        "An agent reads one service log (`_shapes.log_text`: a timestamp on every line, request ids, durations, "
        "counters) again and again, a short reply before each read, against a healthy trace of the same JSON size "
        "in small steps (a reply, a call, about 900 characters of words), every call different. `detect_loops` on "
        f"the parsed dict, each cell the fastest of {repeats} runs, each in a fresh process, the two taken in turn. "
        "Target: at most 2x the healthy trace; the time grows with the distinct text, not with its repeats.", "",
        markdown_table(header, rows), "",
        f"Fitted exponent of loopmetric's time against the size of the repeated log, at each number of repeats: "
        f"{fitted}. Every cell at most 2x the healthy trace: {'yes' if met else '**no**'}. "
        f"Load average (1, 5, 15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}.", ""])
    return section, met


FACTS_RESULTS = (100, 200, 400)
FACTS_RESULT_CHARS = 20_000


def told_facts(counts: tuple[int, ...], repeats: int, result_chars: int = FACTS_RESULT_CHARS) -> str:
    """Many large tool results, then many turns telling facts: a markdown section of loopmetric's
    time per MB of distinct tool text at each count."""
    rows: list[list[str]] = []
    for count in counts:
        messages = told_facts_chat(count, result_chars)
        tool_mb = sum(len(m["content"]) for m in messages if m["role"] == "tool") / 1e6
        text = json.dumps(messages)
        floor, ours = _best_pair(text, repeats)
        rows.append([str(count), f"{tool_mb:.1f} MB", f"{len(text) / 1e6:.1f} MB", f"{floor * 1e3:.0f}",
                     f"{ours * 1e3:.0f}", f"**{ours / tool_mb * 1e3:.0f}**"])
        print(" | ".join(rows[-1]), flush=True)
    header = ["tool results (and rounds of turns)", "distinct tool text", "JSON size", "json.loads ms",
              "loopmetric ms", "loopmetric ms per MB of distinct tool text"]
    return "\n".join([
        "## Many large tool results, then many turns telling facts", "",
        f"An OpenAI chat (`_shapes.told_facts_chat`): the agent reads N distinct service logs of about "
        f"{result_chars // 1000} KB each (N calls, N results), then the customer and the agent talk for N rounds, "
        "each turn and each reply telling numbers (an order number, a count, a day, an amount); the conversation "
        "rule asks of every fact whether a tool had told it. Columns: N; the characters of the N results; the "
        "JSON file's size; `json.loads` of it and loopmetric's `detect_loops` on the parsed list, each the "
        f"fastest of {repeats} runs in fresh processes, taken in turn; loopmetric's time divided by the distinct "
        "tool text. A cost linear in the text keeps the last column flat as N grows; a cost of the text times "
        "the facts makes it rise with N (before 6593465, which reads each distinct text once into a set: "
        "167, 223 and 321 ms per MB at 100, 200 and 400, one run each in a slot).", "",
        markdown_table(header, rows), "",
        f"Load average (1, 5, 15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}.", ""])


def _main(argv: Optional[list[str]] = None) -> str:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--deepeval-timeout", type=float, default=60.0)
    p.add_argument("--deepeval-max-spans", type=int, default=TARGET_SPANS,
                   help="larger traces are not given to deepeval's metric (it takes 30 s and more)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per cell (the fastest is kept)")
    p.add_argument("--repeated-mb", type=float, nargs="*", default=list(REPEATED_MB),
                   help="sizes of the repeated result, in MB")
    p.add_argument("--repeated-times", type=int, nargs="*", default=list(REPEATED_TIMES),
                   help="how many times the result is repeated")
    p.add_argument("--repeated-only", action="store_true", help="only the repeated-result shape")
    p.add_argument("--facts-results", type=int, nargs="*", default=list(FACTS_RESULTS),
                   help="how many large tool results (and rounds of turns telling facts) the chat holds")
    p.add_argument("--facts-only", action="store_true",
                   help="only the shape of many large tool results and turns telling facts")
    p.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES), help="the shapes to run (all)")
    p.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="spans of each shape's traces")
    args = p.parse_args(argv)
    sizes = (50, 200) if args.smoke else tuple(args.sizes)
    repeats = 1 if args.smoke else args.repeats
    megabytes = (0.05, 0.2) if args.smoke else tuple(args.repeated_mb)
    times = (3, 20) if args.smoke else tuple(args.repeated_times)
    facts_counts = (5, 10) if args.smoke else tuple(args.facts_results)
    if args.facts_only:
        text = "\n".join(["# Speed: many large tool results, then many turns telling facts", "",
                           f"Command: `{' '.join(['python -m benchmarks.speed', *(argv or [])])}`.", "",
                           told_facts(facts_counts, repeats)])
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "speed_facts.md").write_text(text)
        print(f"written to {args.out / 'speed_facts.md'}")
        return text
    if args.repeated_only:
        section, _ = repeated_results(megabytes, times, repeats)
        text = "\n".join(["# Speed: the same large result repeated", "",
                           "Command: `python -m benchmarks.speed --repeated-only`.", "", section])
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "speed_repeated.md").write_text(text)
        print(f"written to {args.out / 'speed_repeated.md'}")
        return text
    rows: list[list[str]] = []
    series: dict[str, dict[str, list[tuple[int, float]]]] = {s: {"loopmetric": [], "deepeval": [], "json": []}
                                                             for s in args.shapes}
    exponents: dict[str, Optional[float]] = {}
    summary: list[list[str]] = []
    for shape in args.shapes:
        deepeval_gave_up = False
        for n in sizes:
            text = json.dumps(make_trace(n, shape))
            floor, ours = _best_pair(text, repeats)
            mem_json = run_isolated("json", text, memory=True)[1][1]
            mem_ours = run_isolated("loopmetric", text, memory=True)[1][1]
            if n > args.deepeval_max_spans:
                theirs, note = None, "not run"
            elif deepeval_gave_up:
                theirs, note = None, f"skipped (over {args.deepeval_timeout:.0f} s at a smaller size)"
            else:
                status, theirs = _best("deepeval", text, 1, args.deepeval_timeout)
                note = ""
                if status == "timeout":
                    theirs, note, deepeval_gave_up = None, f"over {args.deepeval_timeout:.0f} s", True
                elif status == "error":
                    theirs, note = None, f"raised {theirs}"
            series[shape]["json"].append((n, floor))
            series[shape]["loopmetric"].append((n, ours))
            if theirs is not None:
                series[shape]["deepeval"].append((n, theirs))
            if n == TARGET_SPANS or (args.smoke and n == sizes[-1]):
                summary.append([shape, f"{n:,}", f"{floor * 1e3:.1f}", f"{ours * 1e3:.1f}",
                                f"{theirs:.2f} s" if theirs is not None else note,
                                f"**{ours / floor:.1f}x**", f"**{theirs / ours:.0f}x**" if theirs is not None else "-"])
            rows.append([shape, f"{n:,}", f"{len(text) / 1e6:.1f} MB", f"{floor * 1e3:.1f}", f"{ours * 1e3:.1f}",
                         f"{ours / floor:.1f}x", f"{theirs:.3f} s" if theirs is not None else note,
                         f"{theirs / ours:.0f}x" if theirs is not None else "-",
                         f"{theirs / floor:.0f}x" if theirs is not None else "-",
                         f"{mem_json / 1e6:.1f}", f"{mem_ours / 1e6:.1f}", f"{mem_ours / mem_json:.2f}x"])
            print(" | ".join(rows[-1]), flush=True)
        exponents[shape] = fit_exponent([(n, t) for n, t in series[shape]["loopmetric"] if n >= 1_000])
    header = ["shape", "spans", "JSON size", "json.loads ms", "loopmetric ms", "loopmetric / json.loads",
              "deepeval", "deepeval / loopmetric", "deepeval / json.loads", "parsed trace MB (peak of json.loads)",
              "loopmetric peak MB", "loopmetric peak / parsed"]
    fitted = ", ".join(f"{s}: {e:.2f}" if e is not None else f"{s}: -" for s, e in exponents.items())
    summary_header = ["shape", "spans", "json.loads ms", "loopmetric ms", "deepeval", "loopmetric / json.loads",
                      "deepeval / loopmetric"]
    text = "\n".join([
        "# Speed and scale", "",
        f"Each cell is the fastest of {repeats} runs, each in a fresh process, json.loads and loopmetric taken "
        "in turn (memory: one run under tracemalloc). loopmetric starts from the parsed dict, with deepeval "
        "imported, as the metric does inside deepeval.",
        f"Command: `{' '.join(['python -m benchmarks.speed', *(argv or [])])}`.", "",
        f"## Every shape at {TARGET_SPANS if not args.smoke else sizes[-1]:,} spans", "",
        markdown_table(summary_header, summary), "",
        "## Every size", "",
        markdown_table(header, rows), "",
        f"Fitted exponent of loopmetric's time against spans, 1,000 spans and up: {fitted}.", "",
        repeated_results(megabytes, times, repeats)[0],
        told_facts(facts_counts, repeats)])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "speed.md").write_text(text)
    _plot(series, args.out / "speed.png")
    print(f"exponents: {fitted}\nwritten to {args.out / 'speed.md'}")
    return text


# Panel titles in the README's words for the four shapes.
PANEL_TITLES = {
    "distinct": "alternating: LLM and tool spans, every output different",
    "text-heavy": "text-heavy: long LLM outputs, tool spans between",
    "near-identical": "near-duplicates: each LLM output like the last",
    "deep": "deep: a chain of nested spans",
}


def _plot(series: dict[str, dict[str, list[tuple[int, float]]]], path) -> None:
    _figure(series).savefig(path, dpi=110)


def _figure(series: dict[str, dict[str, list[tuple[int, float]]]]):
    """Time against spans, one panel per shape, the legend below the panels."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5 * len(series), 4.4), layout="constrained")
    axes = fig.subplots(1, len(series), sharey=True, squeeze=False)[0]
    styles = {"loopmetric": ("tab:blue", "o-"), "deepeval": ("tab:red", "s-"), "json": ("tab:gray", "^--")}
    labels = {"loopmetric": "loopmetric", "deepeval": "deepeval AgentLoopDetectionMetric", "json": "json.loads"}
    for ax, (shape, lines) in zip(axes, series.items()):
        for kind, points in lines.items():
            if points:
                color, style = styles[kind]
                ax.plot([n for n, _ in points], [t for _, t in points], style, color=color, label=labels[kind])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(PANEL_TITLES.get(shape, shape), fontsize=10)
        ax.set_xlabel("spans")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("seconds per trace")
    # Below the panels, where it covers no data.
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=3, frameon=False)
    return fig


if __name__ == "__main__":
    main(sys.argv[1:])
