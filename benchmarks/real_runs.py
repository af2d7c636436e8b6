"""The real runs of `../shared/trajectories`, the labelled sample, and a viewer.

    python -m benchmarks.real_runs sample          # the sampled run ids
    python -m benchmarks.real_runs show ID [ID...] # a run's steps, compact, for labelling

The sample is drawn with a fixed seed, stratified by the longest run of
identical actions that the data's own `loop_signals.jsonl` reports (a
heuristic computed independently of loopmetric), so both loops and non-loops
are present; the runs the data README documents as loops are added. Each was
labelled by reading its steps: a loop is an action, or a short cycle of
actions, repeated at least 3 times without progress. Labels and a reason for
each are in `labels/real_runs.csv`. The data itself stays in `../shared`.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "trajectories"
SWE = SHARED / "sweagent-java-multi-swe-bench"
TAU = SHARED / "tau-bench-gpt4o-airline" / "gpt-4o-airline.json"
LABELS = Path(__file__).resolve().parent / "labels" / "real_runs.csv"
README_LOOPS = ("deepseek-coder-v2/google__gson-1787", "deepseek-coder-v2/fasterxml__jackson-core-1182",
                "deepseek-coder-v2/fasterxml__jackson-core-1053", "deepseek-coder-v2/fasterxml__jackson-core-980",
                "deepseek-coder-v2/fasterxml__jackson-databind-1650",
                "gpt-4o-mini-2024-07-18/fasterxml__jackson-databind-4230",
                "gpt-4o-mini-2024-07-18/fasterxml__jackson-databind-4159",
                "gpt-4o-mini-2024-07-18/fasterxml__jackson-databind-4365")


def available() -> bool:
    return SWE.is_dir() and TAU.is_file()


def _signals(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "loop_signals.jsonl").read_text().splitlines() if line.strip()]


def swe_runs() -> dict[str, Path]:
    """run id ("<model>/<instance>") -> .traj path"""
    out = {}
    for model in sorted(p for p in SWE.iterdir() if p.is_dir()):
        for path in sorted(model.rglob("*.traj")):
            out[f"{model.name.split('_', 2)[-1]}/{path.stem}"] = path
    return out


def swe_sample(seed: int = 2026) -> list[str]:
    runs = swe_runs()
    strata: dict[str, list[str]] = {"3+": [], "2": [], "1": []}
    for model in sorted(p for p in SWE.iterdir() if p.is_dir()):
        for row in _signals(model):
            run = f"{model.name.split('_', 2)[-1]}/{Path(row['file']).stem}"
            if run in runs:
                key = "3+" if row["max_run_action"] >= 3 else str(max(1, row["max_run_action"]))
                strata[key].append(run)
    rng = random.Random(seed)
    chosen: list[str] = []
    for key, size in (("3+", 14), ("2", 5), ("1", 16)):
        chosen += rng.sample(sorted(strata[key]), min(size, len(strata[key])))
    chosen += [run for run in README_LOOPS if run in runs and run not in chosen]
    return chosen


def tau_sample(seed: int = 2026) -> list[str]:
    signals = _signals(TAU.parent)
    flagged = [r["idx"] for r in signals if r["max_run_action"] >= 2 or r["max_abab"] > 0]
    rng = random.Random(seed)
    rest = sorted(set(range(len(signals))) - set(flagged))
    return [f"tau/{i}" for i in sorted(set(flagged) | set(rng.sample(rest, 20)))]


def load_run(run_id: str) -> Any:
    """The parsed record of one run (SWE-agent .traj dict or tau-bench chat list)."""
    if run_id.startswith("tau/"):
        return _tau_records()[int(run_id.split("/")[1])]["traj"]
    return json.loads(swe_runs()[run_id].read_text())


_TAU_CACHE: list = []


def _tau_records() -> list:
    if not _TAU_CACHE:
        _TAU_CACHE.extend(json.loads(TAU.read_text()))
    return _TAU_CACHE


def read_run(run_id: str):
    from loopmetric.readers import read_chat_messages, read_swe_agent

    data = load_run(run_id)
    return read_chat_messages(data, name=run_id) if run_id.startswith("tau/") else read_swe_agent(data, name=run_id)


def labels() -> list[dict[str, str]]:
    with LABELS.open(newline="") as rows:
        return list(csv.DictReader(rows))


def _digest(text: Any) -> str:
    return hashlib.sha1(str(text).encode()).hexdigest()[:6]


def _lines(run_id: str) -> Iterator[str]:
    data = load_run(run_id)
    if run_id.startswith("tau/"):
        for n, m in enumerate(data):
            role = m.get("role")
            if role == "assistant" and m.get("tool_calls"):
                for c in m["tool_calls"]:
                    f = c["function"]
                    yield f"{n:>3} CALL {f['name']} {f['arguments'][:110]}"
            elif role == "tool":
                yield f"{n:>3}   -> [{_digest(m.get('content'))}] {str(m.get('content'))[:90]!r}"
            elif role in ("assistant", "user"):
                yield f"{n:>3} {role.upper()[:4]} {str(m.get('content'))[:110]!r}"
        return
    steps = data.get("trajectory", [])
    n = 0
    while n < len(steps):
        action = str(steps[n].get("action", "")).strip().replace("\n", " | ")
        end = n + 1
        while end < len(steps) and str(steps[end].get("action", "")).strip().replace("\n", " | ") == action:
            end += 1
        observations = [str(steps[i].get("observation", "")) for i in range(n, end)]
        yield f"{n:>3} [{_digest(action)}] {action[:100]!r}"
        yield f"      -> [{_digest(observations[0])}] {observations[0][:100]!r}"
        if end - n > 1:  # the same action again: shown once with a count
            yield (f"      (same action {end - n - 1} more times; {len(set(map(_digest, observations)))} distinct "
                   f"observations; last: {observations[-1][:70]!r})")
        n = end


def show(run_id: str, out=sys.stdout) -> None:
    print(f"=== {run_id}", file=out)
    for line in _lines(run_id):
        print(line, file=out)


def main(argv: Optional[list[str]] = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not available():
        print(f"{SHARED} is not present; nothing to do.")
        return
    if argv[:1] == ["sample"]:
        print("\n".join(swe_sample() + tau_sample()))
    elif argv[:1] == ["show"]:
        for run_id in argv[1:]:
            show(run_id)


if __name__ == "__main__":
    main()


# -- real runs as deepeval trace dicts, so both metrics score the same input ---------------
def _span(type_: str, name: str, input: Any, output: Any) -> dict:
    return {"type": type_, "name": name, "input": input, "output": output, "children": []}


def as_trace_dict(run_id: str) -> dict:
    """SWE-agent: per step an LLM span (the thought) and a tool span named by the
    command's first word (input: the whole command, output: the observation).
    tau-bench: assistant text as LLM spans; each tool call a tool span with its
    JSON arguments as input and the tool message as output."""
    data = load_run(run_id)
    children: list[dict] = []
    if run_id.startswith("tau/"):
        results = {m.get("tool_call_id"): m.get("content") for m in data if m.get("role") == "tool"}
        for message in data:
            if message.get("role") != "assistant":
                continue
            if message.get("content"):
                children.append(_span("llm", "assistant", None, message["content"]))
            for call in message.get("tool_calls") or ():
                function = call["function"]
                try:
                    args = json.loads(function["arguments"])
                except ValueError:
                    args = function["arguments"]
                children.append(_span("tool", function["name"], args, results.get(call.get("id"))))
    else:
        for step in data.get("trajectory", []):
            children.append(_span("llm", "model", None, step.get("thought") or step.get("response") or ""))
            command = str(step.get("action", "")).strip()
            if command:
                children.append(_span("tool", command.split(None, 1)[0], command, step.get("observation")))
    return {"type": "agent", "name": run_id, "input": run_id, "output": None, "children": children}
