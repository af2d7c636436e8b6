"""Accuracy: loopmetric, deepeval's AgentLoopDetectionMetric and OpenHands-style rules on labelled runs.

    python -m benchmarks.accuracy            # writes benchmarks/results/accuracy.md

"Predicted loop" is `success is False` at default settings. Two sets:

* the traced-agent corpus (`corpus.py`: scripted agents recorded through
  deepeval `@observe`, LangGraph and pydantic-ai), scored from the trace dicts
  deepeval handed to metrics;
* every labelled real run of `../shared/trajectories` (`real_runs.py`,
  labels and rubric in `labels/`), read through `load_traces`, the path the
  command line uses, and reported per source and per half (design / held-out).
  deepeval's metric and the OpenHands-style rules score the same steps
  loopmetric read; a run loopmetric cannot read counts as a predicted loop
  (it never passes). Runs labelled `unsure` are left out of every score.
"""

from __future__ import annotations

import csv
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Optional

from ._common import Confusion, deepeval_verdict, loopmetric_verdict, markdown_table, parser

METRICS = {"lm": "loopmetric", "de": "deepeval (success is False)", "de_any": "deepeval (score < 1.0)",
           "oh": "OpenHands-style rules"}
HEADER = ["set", "n", "metric", "TP", "FP", "FN", "TN", "precision", "recall", "F1", "accuracy"]
TARGETS = {"held_out_f1": 0.92, "held_out_precision": 0.95, "per_source_f1": 0.85, "per_source_loops": 10,
           "corpus_f1": 0.98}


def _score_corpus(rows: list[dict]) -> list[dict]:
    for row in rows:
        row["lm"], row["lm_score"], row["lm_reason"] = loopmetric_verdict(row["trace"])
        row["de"], row["de_score"], row["de_reason"] = deepeval_verdict(row["trace"])
        row["de_any"] = None if row["de_score"] is None else row["de_score"] < 1.0
        row["de_any_reason"] = row["de_reason"]
        row["oh"], row["oh_reason"] = None, ""
    return rows


def _table(groups: dict[str, list[dict]], metrics: dict[str, str]) -> tuple[list[list[str]], dict[str, dict]]:
    lines, totals = [], {}
    for name, rows in groups.items():
        counts = {key: Confusion() for key in metrics}
        for row in rows:
            for key, confusion in counts.items():
                confusion.add(row["loop"], row[key])
        totals[name] = counts
        for key, label in metrics.items():
            errors = f" ({counts[key].errors} raised)" if counts[key].errors else ""
            lines.append([name, str(len(rows)), label + errors, *counts[key].cells()])
    return lines, totals


def _misses(rows: list[dict], key: str) -> list[str]:
    out = []
    for row in rows:
        if bool(row[key]) != bool(row["loop"]):
            kind = "missed loop" if row["loop"] else "false alarm"
            steps = f", steps {row['steps']}" if row.get("steps") else ""
            out.append(f"- `{row['id']}` ({kind}{steps}; label: {row['reason']}): {row[key + '_reason'][:300]}")
    return out


def corpus_rows(smoke: bool) -> list[dict]:
    from .corpus import load_corpus

    rows = load_corpus()
    if smoke:
        rows = rows[:3] + rows[-3:]
    return rows


def as_deepeval_dict(trace: Any) -> dict:
    """The steps loopmetric read, as the trace dict deepeval's metric takes: an
    LLM span per output, a tool span per call (canonical arguments as input)."""
    children: list[dict] = []
    for step in trace.steps:
        if step.kind == "llm":
            children.append({"type": "llm", "name": "llm", "input": None, "output": step.text, "children": []})
        elif step.kind == "tool":
            children.append({"type": "tool", "name": step.name, "input": json.loads(step.args),
                             "output": step.result, "children": []})
    return {"type": "agent", "name": trace.name or "run", "input": trace.name, "output": None,
            "children": children}


def real_rows(smoke: bool, sources: Optional[list[str]] = None) -> list[dict]:
    """Every labelled run, read by `load_traces` (once per file) and scored by the three metrics."""
    from loopmetric import LoopSettings, analyze

    from . import real_runs
    from ._openhands import openhands_verdict

    settings = LoopSettings()
    rows: list[dict] = []
    for source in sources or list(real_runs.SOURCES):
        labelled = {row["run"]: row for row in real_runs.labels(source)}
        runs = [run for run in real_runs.runs(source) if run.id in labelled]
        if smoke:
            runs = runs[:2]
        for run, item in real_runs.read_runs(runs):
            label = labelled[run.id]
            row = {"id": run.id, "source": source, "half": real_runs.half_of(run.id),
                   "label": label["label"], "loop": label["label"] == "loop", "reason": label["reason"],
                   "steps": label["steps"]}
            if item is None or item.trace is None:
                why = item.error if item is not None else "no such record"
                row.update(lm=True, lm_reason=f"not read (never a pass): {why}", de=None, de_any=None,
                           de_reason=why, de_any_reason=why, oh=None, oh_reason=why)
            else:
                report = analyze(item.trace, settings)
                row["trace"] = item.trace
                row.update(lm=not report.success, lm_reason=report.reason, lm_score=report.score)
                row["de"], row["de_score"], row["de_reason"] = deepeval_verdict(as_deepeval_dict(item.trace))
                row["de_any"] = None if row["de_score"] is None else row["de_score"] < 1.0
                row["de_any_reason"] = row["de_reason"]
                row["oh"], row["oh_reason"] = openhands_verdict(item.trace)
            rows.append(row)
    return rows


def _real_sections(real: list[dict]) -> tuple[list[str], dict[str, dict]]:
    from .real_runs import SOURCES

    decided = [r for r in real if r["label"] != "unsure"]
    unsure = len(real) - len(decided)
    groups: dict[str, list[dict]] = {}
    for half in ("design", "held-out"):
        groups[f"all sources, {half}"] = [r for r in decided if r["half"] == half]
    for source in SOURCES:
        for half in ("design", "held-out"):
            members = [r for r in decided if r["source"] == source and r["half"] == half]
            if members:
                groups[f"{source}, {half}"] = members
    for source in SOURCES:
        members = [r for r in decided if r["source"] == source]
        if members:
            groups[f"{source}, both halves"] = members
    lines, totals = _table(groups, METRICS)
    out = ["## Labelled real runs", "",
           f"Every run of every source, labelled by reading its steps (`benchmarks/labels/`, rubric in its README; ReAct HotpotQA, ReAct WebShop and mini-swe-agent by an independent reader, `labels.json` in their folders); "
           f"{len(decided)} decided, {unsure} `unsure` left out. Each source is split in two halves by a fixed "
           "seed (`python -m benchmarks.real_runs split`): rules were designed on the design half only; the "
           "held-out half is reported apart. " + " ".join(_kept_out_note(decided, name) for name in KEPT_OUT), "",
           markdown_table(HEADER, lines), ""]
    for half in ("design", "held-out"):
        members = [r for r in decided if r["half"] == half]
        out += [f"loopmetric errors, {half} half:", ""] + (_misses(members, "lm") or ["- none"]) + [""]
    return out, totals


# Defaults decided on the labelled runs: each value is scored on both halves (README, "How it scores").
TRADE_OFFS = {"repeated_result_threshold": (3, 4)}


# The sources kept out of the repository (a licence missing for some files): the variable naming their
# folder, the folder under ../shared/trajectories once they are there, and what they are.
KEPT_OUT = {
    "coding": ("LOOPMETRIC_CODING_RUNS", "coding-agents",
               "coding agents as their own tools wrote them (OpenHands, Gemini CLI, Claude Code, Codex, exported "
               "Claude Code and Codex chats)"),
    "service": ("LOOPMETRIC_SERVICE_RUNS", "service-agents",
                "customer-service agents with a simulated customer as their benchmarks wrote them (tau-bench "
                "airline and retail with Qwen3-4B, tau2-bench telecom with gpt-4o, airline and telecom with "
                "grok-3; collected on 2026-12-07, first scored on fd2074b before any rule had seen them)"),
}


def _kept_out_note(decided: list[dict], source: str) -> str:
    """Where a source kept out of the repository came from, and whether this run had it."""
    from .real_runs import SOURCES

    variable, shared, what = KEPT_OUT[source]
    count = sum(1 for r in decided if r["source"] == source)
    where = f"`{variable}`, or `../shared/trajectories/{shared}`"
    provenance = f"`benchmarks/labels/{source}_provenance.md`"
    if not count:
        return (f"`{source}` (public runs of {what.split(' as ')[0]}, labelled blind in `labels/{source}.csv`) was "
                f"not in this run: its folder ({where}) was absent; {provenance} says where each run comes from.")
    folder = SOURCES[source].root
    return (f"`{source}`: {count} public runs of {what}, labelled blind in `labels/{source}.csv` (provenance and "
            f"licences in {provenance}), read from {folder.name if folder else shared!r} ({where}); a run without "
            f"them gives the other sources' rows unchanged.")


def trade_off_section(real: list[dict]) -> list[str]:
    """loopmetric's F1 per half for each value of the settings in TRADE_OFFS."""
    from loopmetric import LoopSettings, analyze

    decided = [r for r in real if r["label"] != "unsure"]
    lines = []
    for name, values in TRADE_OFFS.items():
        for value in values:
            settings = LoopSettings(**{name: value})
            cells = [f"`{name}={value}`"]
            for half in ("design", "held-out"):
                counts = Confusion()
                for row in decided:
                    if row["half"] == half:
                        if settings == LoopSettings() or "trace" not in row:  # the defaults: scored already
                            loop = row["lm"]
                        else:
                            loop = not analyze(row["trace"], settings).success
                        counts.add(row["loop"], loop)
                cells += [f"{counts.f1:.3f}", f"{counts.precision:.3f}", f"{counts.recall:.3f}"]
            lines.append(cells)
    header = ["setting", "design F1", "design P", "design R", "held-out F1", "held-out P", "held-out R"]
    return ["## Defaults decided on the labelled runs", "", markdown_table(header, lines), ""]


def different_failing_attempts(trace: Any) -> int:
    """The most different argument lists one tool failed with in a run (an error, or a
    result reporting a failure in words)."""
    from loopmetric.detectors._news import failure_kind

    failing: dict[str, set] = defaultdict(set)
    for call in trace.tool_calls:
        if call.error or failure_kind(call) is not None:
            failing[call.name].add(call.call)
    return max((len(calls) for calls in failing.values()), default=0)


def revisits_then_news(trace: Any) -> int:
    """Calls that go back to a call made earlier (not the one just before), counted only
    when a call after the last of them still returns a result not seen before in the run:
    backtracking on the way to something new."""
    seen_calls: set = set()
    seen_outcomes: set = set()
    revisits, last_revisit, news_after = 0, -1, False
    previous = None
    for index, call in enumerate(trace.tool_calls):
        if call.call in seen_calls and call.call != previous:
            revisits, last_revisit, news_after = revisits + 1, index, False
        elif call.outcome is not None and call.outcome not in seen_outcomes and last_revisit >= 0:
            news_after = True
        seen_calls.add(call.call)
        if call.outcome is not None:
            seen_outcomes.add(call.outcome)
        previous = call.call
    return revisits if news_after else 0


def far_apart_reruns(trace: Any) -> int:
    """The most times one call (the same name and arguments) was made with other calls
    between each time and the one before."""
    runs: dict[str, int] = defaultdict(int)
    previous = None
    for call in trace.tool_calls:
        if call.call != previous:
            runs[call.call] += 1
        previous = call.call
    return max(runs.values(), default=0)


def different_calls_answered_alike(trace: Any) -> int:
    """The most calls of one tool in a row (each the next of its tool), none failing, each with an
    argument list new to the streak and each returning the result of the one before once numbers
    are masked: code run at different places, each answered by a harness's countdown alone."""
    from loopmetric.detectors._news import failure_kind, info_units

    best = 0
    streaks: dict[str, tuple[frozenset, set, int]] = {}  # tool -> (units, argument lists, length)
    for call in trace.tool_calls:
        if call.result is None or call.error or failure_kind(call) is not None:
            streaks.pop(call.name, None)
            continue
        units = info_units(call.result)
        streak = streaks.get(call.name)
        if streak is not None and streak[0] == units and call.call not in streak[1]:
            streak = (units, streak[1] | {call.call}, streak[2] + 1)
        else:
            streak = (units, {call.call}, 1)
        streaks[call.name] = streak
        best = max(best, streak[2])
    return best


EXPLORATION = (
    ("different attempts failing alike", different_failing_attempts,
     "`no_loop` runs in which one tool failed (an error, or a result reporting a failure in words) with 3 or more "
     "different argument lists: the agent trying different targets."),
    ("backtracking", revisits_then_news,
     "`no_loop` runs with 3 or more calls going back to a call made earlier (not the one just before), with a call "
     "after the last of them still returning a result not seen before: a walk through known places to new ones."),
    ("far-apart re-runs", far_apart_reruns,
     "`no_loop` runs in which one call (the same name and arguments) was made 3 or more times with other calls "
     "between: a build or a test re-run after changes."),
    ("different calls answered alike", different_calls_answered_alike,
     "`no_loop` runs in which one tool was called 3 or more times in a row with a different argument list each "
     "time, none failing, each answered by the result of the one before once numbers are masked (code run at "
     "different places, each answered by a harness's steps-left line alone)."),
)


def exploration_section(real: list[dict]) -> list[str]:
    """Per kind of exploration, source and half: the `no_loop` runs of that kind (the
    counter of `EXPLORATION` at 3 or more), and how many each metric fails."""
    from .real_runs import SOURCES

    out = []
    for title, counter, description in EXPLORATION:
        lines = []
        for source in SOURCES:
            for half in ("design", "held-out"):
                rows = [r for r in real if r["source"] == source and r["half"] == half and r["label"] == "no_loop"
                        and "trace" in r and counter(r["trace"]) >= 3]
                alarms = [sum(1 for r in rows if r[key]) for key in ("lm", "de_any", "oh")]
                lines.append([source, half, str(len(rows)), *map(str, alarms)])
        lines.append([f"all sources ({title})", "both", *(str(sum(int(line[k]) for line in lines))
                                                         for k in range(2, 6))])
        header = ["source", "half", f"no_loop runs ({title})", "loopmetric false alarms",
                  "deepeval (score < 1.0) false alarms", "OpenHands-style false alarms"]
        out += [f"## Exploration: {title}", "", description + " Target: no false alarm.", "",
                markdown_table(header, lines), ""]
    return out


def semantic_section(real: list[dict]) -> list[str]:
    """loopmetric with `semantic=True` (wordllama, offline) beside the default, per source and half."""
    try:
        import wordllama  # noqa: F401
    except ImportError:
        return ["## Meaning (semantic=True)", "", 'Skipped: wordllama is not installed (`loopmetric[semantic]`).', ""]
    from loopmetric import LoopSettings, analyze

    from .real_runs import SOURCES

    settings = LoopSettings(semantic=True)
    decided = [r for r in real if r["label"] != "unsure"]
    for row in decided:
        row["lm_semantic"] = row["lm"] if "trace" not in row else not analyze(row["trace"], settings).success
    lines = []
    for source in ["all sources", *SOURCES]:
        for half in ("design", "held-out"):
            rows = [r for r in decided if r["half"] == half and source in ("all sources", r["source"])]
            if not rows:
                continue
            cells = [source, half, str(len(rows))]
            for key in ("lm", "lm_semantic"):
                counts = Confusion()
                for row in rows:
                    counts.add(row["loop"], row[key])
                cells += [f"{counts.tp}/{counts.fp}/{counts.fn}", f"{counts.precision:.3f}", f"{counts.recall:.3f}",
                          f"{counts.f1:.3f}"]
            lines.append(cells)
    header = ["set", "half", "n", "off TP/FP/FN", "off P", "off R", "off F1", "on TP/FP/FN", "on P", "on R", "on F1"]
    return ["## Meaning (semantic=True)", "",
            "loopmetric at the defaults (off) and with `LoopSettings(semantic=True)` (on: wordllama 0.4.0.post1 "
            "loaded from its wheel, no network), on the same runs.", "", markdown_table(header, lines), ""]


SECOND_READING = Path(__file__).resolve().parent / "labels" / "second_reading"


def _kappa(pairs: list[tuple[bool, bool]]) -> float:
    """Cohen's kappa of two readers' loop / no_loop calls on the same runs."""
    n = len(pairs)
    agree = sum(a == b for a, b in pairs) / n
    first, second = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    chance = first * second + (1 - first) * (1 - second)
    return 1.0 if chance == 1 else (agree - chance) / (1 - chance)


def second_reading_section(real: list[dict]) -> list[str]:
    """A second reader's labels of a source (`labels/second_reading/<source>.csv`, read blind to the
    first labels and to every verdict): how often the two agree, and loopmetric scored by each."""
    files = sorted(SECOND_READING.glob("*.csv")) if SECOND_READING.is_dir() else []
    lines = []
    for path in files:
        with path.open(newline="", encoding="utf-8") as handle:
            second = {row["run"]: row["label"] for row in csv.DictReader(handle)}
        for half in ("design", "held-out"):
            rows = [r for r in real if r["id"] in second and r["half"] == half]
            if not rows:
                continue
            both = [r for r in rows if r["label"] != "unsure" and second[r["id"]] != "unsure"]
            pairs = [(r["loop"], second[r["id"]] == "loop") for r in both]
            agree = sum(a == b for a, b in pairs)
            readings = {"first reader": [(r["lm"], r["loop"]) for r in rows if r["label"] != "unsure"],
                        "second reader": [(r["lm"], second[r["id"]] == "loop") for r in rows
                                          if second[r["id"]] != "unsure"],
                        "both readers agree": [(r["lm"], r["loop"]) for r in both if r["loop"] == (second[r["id"]] == "loop")]}
            for name, scored in readings.items():
                counts = Confusion()
                for predicted, truth in scored:
                    counts.add(truth, predicted)
                lines.append([path.stem, half, f"{agree} of {len(pairs)}" if name == "first reader" else "",
                              f"{_kappa(pairs):.2f}" if name == "first reader" and pairs else "", name,
                              str(sum(y for _, y in scored)), str(counts.tp), str(counts.fp), str(counts.fn),
                              f"{counts.precision:.2f}", f"{counts.recall:.2f}", f"{counts.f1:.3f}"])
    if not lines:
        return []
    header = ["source", "half", "readers agree", "kappa", "labels of", "loops", "TP", "FP", "FN", "precision",
              "recall", "F1"]
    return ["## A second reader", "",
            "A second reader labelled the same runs again by the same rubric, with the same viewer, blind to the "
            "first labels and to every verdict (`benchmarks/labels/second_reading/`). Runs either reader called "
            "`unsure` are left out of the agreement; loopmetric at default settings scored against each "
            "reader's labels, and on the runs where both agree.", "",
            markdown_table(header, lines), ""]


def targets_summary(totals: dict[str, dict]) -> list[str]:
    """Each target of the issue, met or missed, compared unrounded."""
    lines = []

    def check(label: str, value: float, target: float) -> None:
        verdict = "met" if value >= target else f"MISSED by {target - value:.3f}"
        lines.append(f"- {label}: {value:.3f} (target >= {target}): {verdict}")

    if "all sources, held-out" in totals:
        held = totals["all sources, held-out"]["lm"]
        check("real runs, held-out half, F1", held.f1, TARGETS["held_out_f1"])
        check("real runs, held-out half, precision", held.precision, TARGETS["held_out_precision"])
        for name, counts in totals.items():
            if name.endswith(", held-out") and not name.startswith("all"):
                lm = counts["lm"]
                if lm.tp + lm.fn >= TARGETS["per_source_loops"]:
                    check(f"{name} ({lm.tp + lm.fn} loops), F1", lm.f1, TARGETS["per_source_f1"])
    if "traced corpus, all" in totals:
        check("traced corpus, F1", totals["traced corpus, all"]["lm"].f1, TARGETS["corpus_f1"])
    return lines


def main(argv: Optional[list[str]] = None) -> str:
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    corpus = _score_corpus(corpus_rows(args.smoke))
    real = real_rows(args.smoke)
    corpus_metrics = {k: v for k, v in METRICS.items() if k != "oh"}
    sections = ["# Accuracy: loopmetric vs deepeval's AgentLoopDetectionMetric and OpenHands-style rules", "",
                "Predicted loop = `success is False` at default settings. deepeval's metric cannot fail a trace for "
                "one loop at its default threshold (one severe signal scores 0.60), so it is also shown with the "
                "rule most favourable to it: any score below 1.0 is a predicted loop. OpenHands-style rules: "
                "`benchmarks/_openhands.py`.",
                "Command: `python -m benchmarks.accuracy`.", ""]
    by_family: dict[str, list[dict]] = defaultdict(list)
    for row in corpus:
        by_family[f"{'loop' if row['loop'] else 'progress'}: {row['family']}"].append(row)
    by_integration: dict[str, list[dict]] = defaultdict(list)
    for row in corpus:
        by_integration[row["integration"]].append(row)
    overall, totals = _table({"traced corpus, all": corpus}, corpus_metrics)
    sections += ["## Traced-agent corpus", "", markdown_table(HEADER, overall), "",
                 "By integration:", "",
                 markdown_table(HEADER, _table(dict(sorted(by_integration.items())), corpus_metrics)[0]), "",
                 "By family (a loop family has no negatives and a progress family no positives, so read TP/FN or "
                 "FP/TN):", "", markdown_table(HEADER, _table(dict(sorted(by_family.items())), corpus_metrics)[0]),
                 ""]
    sections += ["loopmetric errors:", ""] + (_misses(corpus, "lm") or ["- none"]) + [""]
    if real:
        real_lines, real_totals = _real_sections(real)
        totals.update(real_totals)
        sections += (real_lines + second_reading_section(real) + exploration_section(real) + semantic_section(real)
                     + trade_off_section(real))
    else:
        sections += ["## Labelled real runs", "", "Skipped: ../shared/trajectories is not present.", ""]
    summary = targets_summary(totals)
    sections[6:6] = ["## Targets", ""] + summary + [""]
    text = "\n".join(sections)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "accuracy.md").write_text(text)
    for name, counts in totals.items():
        ours, theirs, rules = counts["lm"], counts["de_any"], counts.get("oh")
        extra = f"   OpenHands F1 {rules.f1:.3f}" if rules is not None and rules.n else ""
        print(f"{name:<26} n={ours.n:<4} loopmetric F1 {ours.f1:.3f} (P {ours.precision:.3f} R {ours.recall:.3f}; "
              f"TP {ours.tp} FP {ours.fp} FN {ours.fn})   deepeval(<1.0) F1 {theirs.f1:.3f}{extra}")
    print("\n".join(summary))
    print(f"written to {args.out / 'accuracy.md'}")
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
