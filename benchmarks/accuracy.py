"""Accuracy: loopmetric and deepeval's AgentLoopDetectionMetric on labelled traces.

    python -m benchmarks.accuracy            # writes benchmarks/results/accuracy.md

"Predicted loop" is `success is False` at default settings, for both metrics,
on the same trace dicts. Two sets: the traced-agent corpus (`corpus.py`:
scripted agents recorded through deepeval `@observe`, LangGraph and pydantic-ai)
and the labelled sample of real runs (`real_runs.py`, skipped when
`../shared/trajectories` is absent).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from typing import Optional

from ._common import Confusion, deepeval_verdict, loopmetric_verdict, markdown_table, parser

METRICS = {"lm": "loopmetric", "de": "deepeval (success is False)", "de_any": "deepeval (score < 1.0)"}
HEADER = ["set", "n", "metric", "TP", "FP", "FN", "TN", "precision", "recall", "F1", "accuracy"]


def _score(rows: list[dict]) -> list[dict]:
    for row in rows:
        row["lm"], row["lm_score"], row["lm_reason"] = loopmetric_verdict(row["trace"])
        row["de"], row["de_score"], row["de_reason"] = deepeval_verdict(row["trace"])
        # deepeval's metric at its most favourable rule: any signal below 1.0 counts as a loop.
        row["de_any"] = None if row["de_score"] is None else row["de_score"] < 1.0
        row["de_any_reason"] = row["de_reason"]
    return rows


def _table(groups: dict[str, list[dict]]) -> tuple[list[list[str]], dict[str, tuple[Confusion, Confusion]]]:
    lines, totals = [], {}
    for name, rows in groups.items():
        counts = {key: Confusion() for key in METRICS}
        for row in rows:
            for key, confusion in counts.items():
                confusion.add(row["loop"], row[key])
        totals[name] = (counts["lm"], counts["de"], counts["de_any"])
        for key, label in METRICS.items():
            errors = f" ({counts[key].errors} raised)" if counts[key].errors else ""
            lines.append([name, str(len(rows)), label + errors, *counts[key].cells()])
    return lines, totals


def _misses(rows: list[dict], key: str) -> list[str]:
    out = []
    for row in rows:
        if bool(row[key]) != bool(row["loop"]):
            kind = "missed loop" if row["loop"] else "false alarm"
            out.append(f"- `{row['id']}` ({kind}; label: {row['reason']}): {row[key + '_reason'][:200]}")
    return out


def corpus_rows(smoke: bool) -> list[dict]:
    from .corpus import load_corpus

    rows = load_corpus()
    if smoke:
        rows = rows[:3] + rows[-3:]
    return rows


def real_rows(smoke: bool) -> list[dict]:
    from . import real_runs

    if not real_runs.available():
        return []
    labelled = real_runs.labels()
    if smoke:
        labelled = labelled[:2] + labelled[-2:]
    return [{"id": row["run"], "family": "tau-bench" if row["run"].startswith("tau/") else "swe-agent",
             "selection": row["selection"], "loop": row["loop"] == "1", "reason": row["reason"],
             "trace": real_runs.as_trace_dict(row["run"])} for row in labelled]


def main(argv: Optional[list[str]] = None) -> str:
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    corpus = _score(corpus_rows(args.smoke))
    real = _score(real_rows(args.smoke))
    sections = ["# Accuracy: loopmetric vs deepeval's AgentLoopDetectionMetric", "",
                "Predicted loop = `success is False` at default settings; both metrics score the same trace dicts. "
                "deepeval's metric cannot fail a trace for one loop at its default threshold (one severe signal "
                "scores 0.60), so it is also shown with the rule most favourable to it: any score below 1.0 "
                "is a predicted loop.",
                "Command: `python -m benchmarks.accuracy`.", ""]
    by_family: dict[str, list[dict]] = defaultdict(list)
    for row in corpus:
        by_family[f"{'loop' if row['loop'] else 'progress'}: {row['family']}"].append(row)
    by_integration: dict[str, list[dict]] = defaultdict(list)
    for row in corpus:
        by_integration[row["integration"]].append(row)
    overall, totals = _table({"traced corpus, all": corpus})
    sections += ["## Traced-agent corpus", "", markdown_table(HEADER, overall), "",
                 "By integration:", "", markdown_table(HEADER, _table(dict(sorted(by_integration.items())))[0]), "",
                 "By family (a loop family has no negatives and a progress family no positives, so read TP/FN or "
                 "FP/TN):", "", markdown_table(HEADER, _table(dict(sorted(by_family.items())))[0]), ""]
    sections += ["loopmetric errors:", ""] + (_misses(corpus, "lm") or ["- none"]) + [""]
    sections += ["deepeval (score < 1.0) errors:", ""] + (_misses(corpus, "de_any") or ["- none"]) + [""]
    if real:
        primary = [r for r in real if r["selection"] != "audit"]
        audit = [r for r in real if r["selection"] == "audit"]
        groups = {"real runs (sample)": primary,
                  "  swe-agent": [r for r in primary if r["family"] == "swe-agent"],
                  "  tau-bench": [r for r in primary if r["family"] == "tau-bench"]}
        real_lines, real_totals = _table(groups)
        totals.update(real_totals)
        sections += ["## Labelled real runs", "",
                     "A seeded sample stratified by the data's own heuristic, plus the loops its README documents; "
                     "each labelled by reading its steps (`benchmarks/labels/real_runs.csv`).", "",
                     markdown_table(HEADER, real_lines), ""]
        if audit:
            found = sum(1 for r in audit if r["lm"])
            sections += [f"Audit (not in the sample above): {len(audit)} tau-bench records that loopmetric fails "
                         "and the sample did not draw were read; all are loops by the label rule "
                         f"(loopmetric flags {found}/{len(audit)}, deepeval "
                         f"{sum(1 for r in audit if r['de'])}/{len(audit)}).", ""]
        sections += ["loopmetric errors:", ""] + (_misses(primary, "lm") or ["- none"]) + [""]
        sections += ["deepeval (score < 1.0) errors:", ""] + (_misses(primary, "de_any") or ["- none"]) + [""]
    else:
        sections += ["## Labelled real runs", "", "Skipped: ../shared/trajectories is not present.", ""]
    text = "\n".join(sections)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "accuracy.md").write_text(text)
    for name, (ours, theirs, lenient) in totals.items():
        print(f"{name.strip():<22} n={ours.n:<4} loopmetric F1 {ours.f1:.2f} (P {ours.precision:.2f} "
              f"R {ours.recall:.2f})   deepeval F1 {theirs.f1:.2f}, with score < 1.0 as a loop {lenient.f1:.2f} "
              f"(P {lenient.precision:.2f} R {lenient.recall:.2f})")
    print(f"written to {args.out / 'accuracy.md'}")
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
