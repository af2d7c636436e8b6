"""Invariance: one run, one verdict, whatever recorded it.

    python -m benchmarks.invariance                       # writes benchmarks/results/invariance.md
    python -m benchmarks.invariance --sample 5 --sources tau webshop

Every labelled run (`real_runs`: the labels of `labels/*.csv` and the three folders an
independent reader labelled; and the traced corpus of `corpus.py`) is turned into a neutral
list of steps (`_renderings.Step`: system prompt, the other side's turns, model replies with
their tool calls, tool results) taken from the raw record (the coding source's five recorders'
own formats, which no converter here reads: from loopmetric's reading of the file,
`steps_from_trace`, its results as read, volatile tokens masked), and rendered into every format
loopmetric reads (`_renderings.RENDERINGS`), and replayed through real frameworks recorded by
their own tracers (`_library_renderings`: pydantic-ai with OpenTelemetry, LangGraph with
OpenInference, the Agents SDK's tracing, deepeval `@observe` with the LLM input whole, newest, or
text actions as tool spans (one per reply, or one per code block), LangChain `messages_to_dict`; `--library-sample N` replays a fixed-seed
sample of N runs per source, "k of n" in the table). A team's chat (Magentic-One) is also written with
every member signed by its `name` (`(named speakers)`: OpenAI chat, LangChain messages). Each rendering is written to a file and scored
the way the command line scores it: `load_traces` on the file, `analyze` at default settings;
a file with no readable trace, or a record that cannot be read, is a predicted loop (never a
pass), as `accuracy.real_rows` counts it. When a file yields several traces, the run is a
predicted loop when any of them fails.

The reference of a run is its native reading, what `benchmarks.accuracy` scores: the source's
own file read by `load_traces` (a text log: the chat messages of `real_runs`' `document`; a
corpus case: the trace dict deepeval handed to metrics). Per source and rendering the table
gives n, loopmetric's F1 against the labels, and how many runs change verdict or worst pattern
against the reference, with the first changed run ids.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator, Optional

from ._common import RESULTS, Confusion, markdown_table
from ._library_renderings import LIBRARY_HOLDS, LIBRARY_RENDERINGS
from ._renderings import HOLDS as OWN_HOLDS
from ._renderings import RENDERINGS as OWN_RENDERINGS
from ._renderings import UNTOLD, Call, Step, chat_messages

# The project's own renderings, then those real libraries write (`_library_renderings`).
RENDERINGS = {**OWN_RENDERINGS, **LIBRARY_RENDERINGS}
HOLDS = {**OWN_HOLDS, **LIBRARY_HOLDS}
# Library renderings replay a run through a framework: slower. `--library-sample N` replays a
# fixed-seed sample of N runs per source through them (the project's renderings still see every run).
LIBRARY_SEED = 20261206

REFERENCE = "reference (native reading)"
SHOWN_IDS = 6


# -- the neutral steps of a run, from its raw record ---------------------------------------------------
def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # content parts
        parts = [p.get("text") if isinstance(p, dict) else p for p in value]
        texts = [p for p in parts if isinstance(p, str)]
        if len(texts) == len(parts):
            return "\n".join(texts)
    return json.dumps(value, ensure_ascii=False, default=str)


class _Ids:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"call_{self.n}"


def _args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return {"input": raw}
    if isinstance(raw, dict):
        return raw
    return {"input": raw}


def steps_from_chat(messages: list[Any]) -> list[Step]:
    """OpenAI-style chat messages (tau-bench, tau2-bench, MINT, mini-swe-agent, the ReAct logs'
    documents) as neutral steps: tool calls only where a message holds `tool_calls`."""
    ids = _Ids()
    steps: list[Step] = []
    pending: list[Call] = []  # calls awaiting their results, in order
    by_id: dict[str, Call] = {}
    for m in messages:
        if not isinstance(m, dict):
            continue
        role, content = m.get("role"), _text(m.get("content"))
        raw_calls = m.get("tool_calls") or []
        if role == "system":
            steps.append(Step("system", content))
        elif role in ("assistant", "user") and raw_calls:
            calls = []
            for raw in raw_calls:
                function = raw.get("function") or raw
                call = Call(str(function.get("name")), _args(function.get("arguments")), ids())
                by_id[str(raw.get("id") or call.id)] = call
                calls.append(call)
            pending += calls
            steps.append(Step("reply", content, tuple(calls), actor=str(role)))
        elif role == "assistant":
            steps.append(Step("reply", content))
        elif role in ("tool", "function"):
            found = by_id.get(str(m.get("tool_call_id") or m.get("id"))) or (pending[0] if pending else None)
            if found is not None:
                call = found
            else:  # a result nothing asked for: a call known only by its result
                call = Call(str(m.get("name") or "tool"), {}, ids())
                steps.append(Step("reply", "", (call,)))
            if call in pending:
                pending.remove(call)
            steps.append(Step("result", content, call_id=call.id, name=call.name, is_error=m.get("error") is True))
        else:
            steps.append(Step("other", content, who=str(role)))
    return steps


def _first_word(command: str) -> str:
    words = command.split(None, 1)
    return words[0] if words else "action"


def steps_from_swe(record: dict[str, Any]) -> list[Step]:
    ids = _Ids()
    steps: list[Step] = []
    history = record.get("history") or []
    for m in history[:2]:  # the system prompt and the task, as the run's first LLM input held them
        if isinstance(m, dict) and m.get("role") in ("system", "user"):
            steps.append(Step("system" if m["role"] == "system" else "other", _text(m.get("content")), who="task"))
    for step in record.get("trajectory") or []:
        thought = step.get("thought") if isinstance(step.get("thought"), str) else step.get("response") or ""
        action = str(step.get("action") or "").strip()
        observation = _text(step.get("observation"))
        if action:
            call = Call(_first_word(action), {"command": action}, ids())
            steps += [Step("reply", thought, (call,)), Step("result", observation, call_id=call.id, name=call.name)]
        else:
            steps.append(Step("reply", thought))
            if observation.strip():
                steps.append(Step("other", observation, who="harness"))
    return steps


def steps_from_intercode(record: dict[str, Any]) -> list[Step]:
    ids = _Ids()
    steps = [Step("other", _text(record.get("query")), who="task")]
    history = record.get("turn_history") or {}
    observations, valid = history.get("observations") or [], history.get("valid_action") or []
    for n, action in enumerate(history.get("actions") or []):
        command = str(action).strip()
        call = Call(_first_word(command), {"command": command}, ids())
        steps.append(Step("reply", "", (call,)))
        if n < len(observations):
            ok = valid[n] if n < len(valid) else True
            steps.append(Step("result", _text(observations[n]), call_id=call.id, name=call.name,
                              is_error=ok is False))
    return steps


def steps_from_group_chat(record: dict[str, Any]) -> list[Step]:
    """Magentic-One: `Orchestrator (-> X)` asks agent X (a call), X's next message answers it,
    `A (thought)` is a reply, anything else a turn of the other side; replies and answers keep
    their speaker's name."""
    import re

    ids = _Ids()
    steps: list[Step] = []
    pending: Optional[Call] = None
    for m in record.get("history") or []:
        role, text = str(m.get("role") or ""), _text(m.get("content"))
        delegation = re.match(r"^\s*([^()]+?)\s*\(\s*->\s*([^()]+?)\s*\)\s*$", role)
        thought = re.match(r"^\s*([^()]+?)\s*\(\s*thought\s*\)\s*$", role, re.IGNORECASE)
        if delegation:
            pending = Call(delegation.group(2).strip(), {"instruction": text}, ids())
            steps.append(Step("reply", "", (pending,), speaker=delegation.group(1).strip()))
        elif thought:
            steps.append(Step("reply", text, speaker=thought.group(1).strip()))
        elif pending is not None and role.strip() == pending.name:
            steps.append(Step("result", text, call_id=pending.id, name=pending.name, speaker=pending.name))
            pending = None
        else:
            steps.append(Step("other", text, who=role.strip().lower() or "input"))
    return steps


def steps_of_run(run: Any) -> list[Step]:
    from . import real_runs

    record = real_runs.raw_record(run)
    source = run.source
    document = real_runs.SOURCES[source].document
    if document is not None:
        return steps_from_chat(document(run))
    if source == "swe":
        return steps_from_swe(record)
    if source == "ctf":
        return steps_from_intercode(record)
    if source == "m1":
        return steps_from_group_chat(record)
    if source == "tau":
        return steps_from_chat(record.get("traj") or [])
    if source in ("tau2", "miniswe"):
        return steps_from_chat(record.get("messages") or [])
    if source == "service":  # (tau-bench keeps the conversation under "traj", tau2-bench under "messages")
        return steps_from_chat(record.get("traj") or record.get("messages") or [])
    if source == "mint":
        return steps_from_chat((record.get("state") or {}).get("history") or [])
    if source == "coding":  # five recorders' own formats: read back from loopmetric's reading of the file
        return steps_from_trace(next(item for _, item in real_runs.read_runs([run])).trace)
    raise KeyError(source)


def steps_from_trace(trace: Any) -> list[Step]:
    """A run as loopmetric read it (the coding agents' own recordings: OpenHands, Gemini CLI, Claude
    Code, Codex, chat exports, whose raw formats no converter here reads): the task, each turn of
    the other side, each reply with the calls that follow it, each call's result as read (its
    volatile tokens masked, `ToolCall.result`). What the reader inferred (a text action's call)
    is written as a call."""
    ids = _Ids()
    steps: list[Step] = [Step("other", trace.task, who="task")] if trace is not None and trace.task else []
    for step in trace.steps if trace is not None else ():
        if step.kind == "input":
            steps.append(Step("other", step.text, who=step.source))
        elif step.kind == "llm":
            steps.append(Step("reply", step.text))
        else:
            call = Call(step.name, _args(step.args), ids())
            steps.append(Step("reply", "", (call,)))
            steps.append(Step("result", step.result or "", call_id=call.id, name=call.name, is_error=step.error))
    return _merge_calls(steps)


def steps_from_trace_dict(trace: Any) -> list[Step]:
    """A deepeval trace dict (the traced corpus): the root's input is the task, each LLM span a
    reply, each tool span a call with its result, nested agents read in order."""
    ids = _Ids()
    root = trace.get("trace_dict", trace) if isinstance(trace, dict) else trace
    steps: list[Step] = [Step("other", _text(root.get("input")), who="task")]
    stack = list(reversed(root.get("children") or []))
    while stack:
        span = stack.pop()
        if not isinstance(span, dict):
            continue
        kind = span.get("type")
        if kind == "llm":
            output = span.get("output")
            # a chat model's message (LangChain's AIMessage, deepeval's LlmOutput): its text; the calls
            # it asks for are the tool spans that follow
            steps.append(Step("reply", _text(output.get("content")) if isinstance(output, dict) else _text(output)))
        elif kind in ("tool", "retriever"):
            call = Call(str(span.get("name")), _args(span.get("input")), ids())
            error, output = span.get("error"), span.get("output")
            if isinstance(output, dict) and "content" in output:  # a LangChain ToolMessage
                error = error or (_text(output.get("content")) if output.get("status") == "error" else None)
                output = output.get("content")
            steps.append(Step("reply", "", (call,)))
            steps.append(Step("result", _text(error) if error else _text(output), call_id=call.id,
                              name=call.name, is_error=bool(error)))
        stack.extend(reversed(span.get("children") or []))
    return _merge_calls(steps)


def _merge_calls(steps: list[Step]) -> list[Step]:
    """A reply followed by the calls it made (recorded as spans after it) is one reply with those calls."""
    out: list[Step] = []
    for step in steps:
        if step.kind == "reply" and not step.text and step.calls and out:
            last = next((i for i in range(len(out) - 1, -1, -1) if out[i].kind == "reply"), None)
            between = out[last + 1:] if last is not None else []
            if last is not None and all(s.kind == "result" for s in between):
                prior = out[last]
                out[last] = Step("reply", prior.text, prior.calls + step.calls, actor=prior.actor)
                continue
        out.append(step)
    return out


# -- scoring a document the way the command line does ---------------------------------------------------
def score_file(path: Path, *, untold: bool = False) -> dict[str, Any]:
    """{loop, score, pattern, reason} of a file: every trace in it at default settings (the one
    that scores lowest speaks for the file); an unread record or an empty file is a loop.
    `untold`: read each trace as a recording of what the model was not told
    (`Trace.turns_recorded` False), as a format without LLM input text is read."""
    from loopmetric import load_traces

    loaded = list(load_traces(str(path)))
    if not loaded:
        return {"loop": True, "score": None, "pattern": "(not read)", "reason": "no trace in the file"}
    if untold:
        loaded = [dataclasses.replace(item, trace=dataclasses.replace(item.trace, turns_recorded=False))
                  if item.trace is not None else item for item in loaded]
    verdicts = [_verdict_of_loaded(item) for item in loaded]
    unread = [v for v in verdicts if v["score"] is None]
    if unread:
        return unread[0]
    worst = min(verdicts, key=lambda v: v["score"])
    return dict(worst, loop=any(v["loop"] for v in verdicts))


def score_document(document: Any, folder: Path, name: str, *, untold: bool = False) -> dict[str, Any]:
    path = folder / f"{name}.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    try:
        return score_file(path, untold=untold)
    finally:
        path.unlink()


def _verdict_of_loaded(item: Any) -> dict[str, Any]:
    from loopmetric import LoopSettings, analyze

    if item is None or item.trace is None:
        why = item.error if item is not None else "no such record"
        return {"loop": True, "score": None, "pattern": "(not read)", "reason": f"not read: {why}"}
    try:
        report = analyze(item.trace, LoopSettings())
    except (ValueError, TypeError) as error:  # e.g. a trace with no steps: never a pass
        return {"loop": True, "score": None, "pattern": "(not read)", "reason": f"not read: {error}"}
    pattern = report.worst.pattern if report.worst is not None else None
    return {"loop": not report.success, "score": report.score, "reason": report.reason,
            "pattern": str(getattr(pattern, "value", pattern)) if pattern is not None else "-"}


# -- the runs ------------------------------------------------------------------------------------------
def labelled_runs(sources: Optional[list[str]], sample: Optional[int]) -> Iterator[dict[str, Any]]:
    """{id, source, half, loop, steps, reference} of each decided labelled run (unsure left out)."""
    from . import real_runs

    names = [s for s in (sources or [*real_runs.SOURCES, "corpus"]) if s != "corpus"]
    for source in names:
        labelled = {row["run"]: row for row in real_runs.labels(source) if row["label"] != "unsure"}
        runs = [run for run in real_runs.runs(source) if run.id in labelled]
        if sample is not None:
            runs = runs[:sample]
        for run, item in real_runs.read_runs(runs):
            yield {"id": run.id, "source": source, "half": real_runs.half_of(run.id),
                   "loop": labelled[run.id]["label"] == "loop", "steps": steps_of_run(run),
                   "reference": _verdict_of_loaded(item)}
    if sources is None or "corpus" in sources:
        from .corpus import CORPUS, load_corpus

        if CORPUS.exists():
            rows = load_corpus()
            if sample is not None:
                rows = rows[:sample] + rows[-sample:]
            for row in rows:
                from loopmetric.readers import read_trace

                item = type("Loaded", (), {"trace": read_trace(row["trace"]), "error": None})()
                yield {"id": f"corpus/{row['id']}", "source": "corpus", "half": "all", "loop": bool(row["loop"]),
                       "steps": steps_from_trace_dict(row["trace"]), "reference": _verdict_of_loaded(item)}


def library_sample(ids: list[str], size: Optional[int]) -> frozenset[str]:
    """The runs of one source replayed through the library renderings: all, or `size` of them drawn
    with a fixed seed (the same runs every time)."""
    import random

    if size is None or size >= len(ids):
        return frozenset(ids)
    return frozenset(random.Random(f"{LIBRARY_SEED}/{ids[0].split('/', 1)[0]}").sample(sorted(ids), size))


# A rendering that holds the whole conversation so far in each model call's span grows with the
# replies times the conversation: a coding chat export of 1,352 steps is 0.7 to 1.5 GB in such a
# format, and reading a few of them held the machine's memory (the whole run was stopped at 24 GB).
# A rendering that would pass this size is left out for that run, and the results say so.
LARGEST_MB = 500.0
_PROBE = 100  # steps of the two prefixes a rendering's size is estimated from


def estimated_mb(render: Any, steps: list[Any]) -> float:
    """The size in MB the rendering `render` would give `steps`, from the sizes of the first
    `_PROBE` and `2 * _PROBE` steps' renderings: growing with the square of the steps (each span
    holding the conversation so far) or in proportion, or anything between. 0 for a run short
    enough to render whole."""
    if len(steps) <= 2 * _PROBE:
        return 0.0
    small = len(json.dumps(render(steps[:_PROBE]), ensure_ascii=False))
    large = len(json.dumps(render(steps[:2 * _PROBE]), ensure_ascii=False))
    exponent = min(2.0, max(1.0, math.log2(large / max(small, 1))))
    return large * (len(steps) / (2 * _PROBE)) ** exponent / 1e6


def measure(sources: Optional[list[str]] = None, sample: Optional[int] = None,
            renderings: Optional[list[str]] = None, library: Optional[int] = None) -> list[dict[str, Any]]:
    """One row per run: its label, reference verdict and the verdict of each rendering (a library
    rendering only for the runs of `library_sample`)."""
    chosen_all = renderings or list(RENDERINGS)
    rows = []
    runs = list(labelled_runs(sources, sample))
    replayed: set[str] = set()
    for source in dict.fromkeys(r["source"] for r in runs):
        replayed |= library_sample([r["id"] for r in runs if r["source"] == source], library)
    with tempfile.TemporaryDirectory() as folder:
        for n, run in enumerate(runs):
            chosen = [name for name in chosen_all if name not in LIBRARY_RENDERINGS or run["id"] in replayed]
            run["rendered"], run["held"], run["too_large"] = {}, {}, {}
            whole = chat_messages(run["steps"])
            controls: dict[str, dict[str, Any]] = {}  # the chat rendering of what a format holds
            for name in chosen:
                if name in HOLDS:
                    held = chat_messages(HOLDS[name](run["steps"]))
                    untold = name in UNTOLD
                    if held != whole or untold:
                        key = json.dumps([held, untold], sort_keys=True, ensure_ascii=False)
                        if key not in controls:
                            controls[key] = score_document(held, Path(folder), f"h{n}", untold=untold)
                        run["held"][name] = controls[key]
            for name in chosen:
                try:
                    size = estimated_mb(RENDERINGS[name], run["steps"])
                    if size > LARGEST_MB:
                        run["too_large"][name] = size
                        continue
                    document = RENDERINGS[name](run["steps"])
                except Exception as error:  # noqa: BLE001 - a renderer bug is reported, not hidden
                    run["rendered"][name] = {"loop": True, "score": None, "pattern": "(render failed)",
                                             "reason": f"{type(error).__name__}: {error}"}
                    continue
                run["rendered"][name] = score_document(document, Path(folder), f"r{n}")
            del run["steps"]
            rows.append(run)
    return rows


# -- the table -----------------------------------------------------------------------------------------
HEADER = ["source", "rendering", "n", "F1", "TP/FP/FN", "verdict changed", "worst pattern changed", "changed runs"]


def table(rows: list[dict[str, Any]], renderings: list[str]) -> tuple[list[list[str]], dict[str, int]]:
    sources = list(dict.fromkeys(r["source"] for r in rows))
    lines = []
    changed_total: dict[str, int] = defaultdict(int)
    for source in [*sources, "all"]:
        members = [r for r in rows if source in ("all", r["source"])]
        for name in [REFERENCE, *renderings]:
            counts = Confusion()
            verdicts, patterns = [], []
            members = [r for r in rows if source in ("all", r["source"]) and (name == REFERENCE or name in r["rendered"])]
            for r in members:
                got = r["reference"] if name == REFERENCE else r["rendered"][name]
                counts.add(r["loop"], got["loop"])
                if name != REFERENCE:
                    if got["loop"] != r["reference"]["loop"]:
                        verdicts.append(r["id"])
                    elif got["pattern"] != r["reference"]["pattern"]:
                        patterns.append(r["id"])
            lost = sum(1 for r in members if r["id"] in verdicts and not_recorded(r, name)) if name != REFERENCE else 0
            verdicts = [i for i in verdicts if not any(r["id"] == i and not_recorded(r, name) for r in members)]
            if name != REFERENCE and source == "all":
                changed_total[name] = len(verdicts)
            shown = ", ".join(f"`{i}`" for i in verdicts[:SHOWN_IDS]) + (" ..." if len(verdicts) > SHOWN_IDS else "")
            cells = [source, name, str(len(members)), f"{counts.f1:.3f}", f"{counts.tp}/{counts.fp}/{counts.fn}",
                     "-" if name == REFERENCE else str(len(verdicts)) + (f" (+{lost})" if lost else ""),
                     "-" if name == REFERENCE else str(len(patterns)), "" if source == "all" else shown]
            lines.append(cells)
    return lines, dict(changed_total)


def not_recorded(row: dict[str, Any], name: str) -> bool:
    """Whether a run's change of verdict in a rendering is what the format does not record: the
    OpenAI chat rendering of what the format holds (`HOLDS`) gets the rendering's verdict."""
    held = row.get("held", {}).get(name)
    return held is not None and held["loop"] == row["rendered"][name]["loop"] != row["reference"]["loop"]


def changes(rows: list[dict[str, Any]], name: str) -> tuple[int, int]:
    """(changes the reading makes, changes what the format does not record explains) of verdicts."""
    changed = [r for r in rows if name in r["rendered"] and r["rendered"][name]["loop"] != r["reference"]["loop"]]
    lost = sum(1 for r in changed if not_recorded(r, name))
    return len(changed) - lost, lost


def matrix(rows: list[dict[str, Any]], renderings: list[str]) -> str:
    """Runs whose verdict changed, per source and rendering (n: the source's runs): those the
    reading changes, then in brackets those the format's missing record explains."""
    sources = list(dict.fromkeys(r["source"] for r in rows))
    lines = []
    for source in [*sources, "all"]:
        members = [r for r in rows if source in ("all", r["source"])]
        cells = []
        for name in renderings:
            reading, lost = changes(members, name)
            n = sum(1 for r in members if name in r["rendered"])
            cells.append(f"{reading}" + (f" (+{lost})" if lost else "") + (f" of {n}" if n != len(members) else ""))
        lines.append([source, str(len(members))] + cells)
    return markdown_table(["source", "n", *renderings], lines)


def report(rows: list[dict[str, Any]], renderings: list[str], seconds: float, command: str) -> str:
    import os

    lines, _ = table(rows, renderings)
    load = os.getloadavg()
    out = ["# Invariance: one run, one verdict, whatever recorded it", "",
           __doc__.split("\n\n", 2)[2].strip(), "",
           f"Command: `{command}`; {len(rows)} runs x {len(renderings)} renderings in {seconds:.0f} s, "
           f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min).", "",
           "Target: 0 runs change verdict on every source, where the format records what the verdict "
           "rests on.", "",
           "## Runs that change verdict against the native reading", "",
           "Per source (rows) and rendering (columns); the last row adds up every source. The first "
           "figure counts the changes the reading makes; '(+k)' counts those that what the format does "
           "not record explains (`_renderings.HOLDS`: the OpenAI chat rendering of only what the format "
           "holds gets the same changed verdict): the step counter records no turn of the other side (its "
           "control is read as a recording of what the model was not told, `_renderings.UNTOLD`), a "
           "span format no turn after the last model call (a text action's last observation), the "
           "Responses API no error flag, and some formats no user calling tools; an agent loop (the library "
           "replays) no words of the other side between a tool call and the next reply.", "",
           matrix(rows, renderings), "",
           "## Per source and rendering", "",
           "F1 against the labels (unsure left out); 'verdict changed' and 'worst pattern changed' "
           "(same verdict, another worst pattern) count runs against the reference, the source's native "
           "reading; 'changed runs' names the first runs whose verdict changed "
           "(`python -m benchmarks.invariance --show RUN RENDERING` writes the rendered file).", "",
           markdown_table(HEADER, lines), ""]
    large = [(r["id"], name, size) for r in rows for name, size in r.get("too_large", {}).items()]
    if large:
        out += ["## Renderings too large to write here", "",
                f"Left out of the tables above (counted in no column): a rendering whose file would pass "
                f"{LARGEST_MB:.0f} MB (`LARGEST_MB`, estimated from two prefixes of the run: each model "
                "call's span holding the whole conversation so far grows with replies x conversation).", "",
                markdown_table(["run", "rendering", "estimated size, MB"],
                               [[f"`{i}`", name, f"{size:,.0f}"] for i, name, size in large]), ""]
    return "\n".join(out)


def _short(verdict: dict[str, Any]) -> dict[str, Any]:
    return {"loop": verdict["loop"], "pattern": verdict["pattern"], "reason": verdict["reason"][:160]}


def changed_runs(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs some rendering reads to another verdict or worst pattern: the reference (with its
    reason, shortened) and each rendering that differs as [loop, worst pattern]; `--show RUN
    RENDERING` writes the rendered file for `loopmetric explain`."""
    out = []
    for r in rows:
        changed = {k: [v["loop"], v["pattern"]] for k, v in r["rendered"].items()
                   if (v["loop"], v["pattern"]) != (r["reference"]["loop"], r["reference"]["pattern"])}
        if changed:
            out.append({"id": r["id"], "label": "loop" if r["loop"] else "no_loop",
                        "reference": _short(r["reference"]), "changed": changed,
                        "not_recorded": [k for k in changed if not_recorded(r, k)]})
    return out


def write_rendering(run_id: str, rendering: str, out: Path) -> Path:
    """The file of one run in one rendering, for `loopmetric explain`."""
    if run_id.startswith("corpus/"):
        from .corpus import load_corpus

        row = next(r for r in load_corpus() if f"corpus/{r['id']}" == run_id)
        steps = steps_from_trace_dict(row["trace"])
    else:
        from . import real_runs

        steps = steps_of_run(real_runs.run_by_id(run_id))
    path = out / (run_id.replace("/", "_") + "." + rendering.split(" (")[0].replace(" ", "_").lower()
                  + (("_" + rendering.split(" (")[1].rstrip(")").replace(" ", "_")) if " (" in rendering else "")
                  + ".json")
    path.write_text(json.dumps(RENDERINGS[rendering](steps), ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def main(argv: Optional[list[str]] = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=None, help="the first N labelled runs of each source")
    parser.add_argument("--sources", nargs="+", default=None, help="sources of real_runs, and `corpus`")
    parser.add_argument("--renderings", nargs="+", default=None, choices=list(RENDERINGS))
    parser.add_argument("--library-sample", type=int, default=None,
                        help="replay only N runs per source (fixed seed) through the library renderings")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--show", nargs=2, metavar=("RUN", "RENDERING"), default=None,
                        help="write one run's rendering to --out and print its path")
    args = parser.parse_args(argv)
    if args.show:
        args.out.mkdir(parents=True, exist_ok=True)
        path = write_rendering(args.show[0], args.show[1], args.out)
        print(path)
        return str(path)
    renderings = args.renderings or list(RENDERINGS)
    started = time.perf_counter()
    rows = measure(args.sources, args.sample, renderings, args.library_sample)
    seconds = time.perf_counter() - started
    command = "python -m benchmarks.invariance" + " ".join(
        [""] + ([f"--sample {args.sample}"] if args.sample else [])
        + ([f"--library-sample {args.library_sample}"] if args.library_sample else []) + (["--sources", *args.sources] if args.sources
                                                                       else []))
    text = report(rows, renderings, seconds, command)
    if args.sample is None and args.sources is None and args.renderings is None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "invariance.md").write_text(text)
        (args.out / "invariance_changed.jsonl").write_text(
            "".join(json.dumps(row) + "\n" for row in changed_runs(rows)))
    print(text)
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
