"""Conversations written blind: does the conversation rule find loops in chats nobody here wrote?

    python -m benchmarks.conversations      # writes benchmarks/results/conversations.md

`benchmarks/conversations/` holds 60 customer-service conversations (OpenAI chat messages) written by
hand by a helper who never ran, imported or read loopmetric (CC0; its README says how), with a label
per conversation: about half are an agent saying the same thing in other words turn after turn, half
are healthy twins that look alike on the surface. A fixed seed splits them into a design half and a
held-out half: rules may be studied on the design half only. Each conversation is scored the way the
command line scores a chat file (`detect_loops` on the messages, default settings), and with
`semantic=True` when the default embedder is installed.
"""

from __future__ import annotations

import csv
import json
import random
import sys
import time
from pathlib import Path
from typing import Any, Optional

from ._common import Confusion, markdown_table, parser

FOLDER = Path(__file__).resolve().parent / "conversations"
SEED = "convo-set/design"


def labelled() -> list[dict[str, str]]:
    """The rows of `labels.csv`, each with its `half` (design or held-out, by the fixed seed)."""
    with open(FOLDER / "labels.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    ids = sorted(row["id"] for row in rows)
    design = set(random.Random(SEED).sample(ids, len(ids) // 2))
    for row in rows:
        row["half"] = "design" if row["id"] in design else "held-out"
    return rows


def verdicts(rows: list[dict[str, str]], semantic: bool = False) -> dict[str, bool]:
    """Whether loopmetric fails each conversation (a predicted loop)."""
    from loopmetric import LoopSettings, detect_loops

    settings = LoopSettings(semantic=semantic)
    return {row["id"]: not detect_loops(json.loads((FOLDER / f"{row['id']}.json").read_text()),
                                         settings=settings).success for row in rows}


def _semantic_available() -> bool:
    try:
        import wordllama  # noqa: F401
    except ImportError:
        return False
    return True


def report(rows: list[dict[str, str]], signals: dict[str, dict[str, bool]], seconds: float) -> str:
    header = ["signal", "half", "n (unsure left out)", "TP", "FP", "FN", "TN", "precision", "recall", "F1"]
    table = []
    for name, found in signals.items():
        for half in ("design", "held-out", "both"):
            counts = Confusion()
            for row in rows:
                if row["label"] != "unsure" and half in ("both", row["half"]):
                    counts.add(row["label"] == "loop", found[row["id"]])
            table.append([name, half, str(counts.n), str(counts.tp), str(counts.fp), str(counts.fn), str(counts.tn),
                          f"{counts.precision:.3f}", f"{counts.recall:.3f}", f"{counts.f1:.3f}"])
    words = signals["words (default)"]
    misses = [row["id"] for row in rows if row["half"] == "design" and row["label"] != "unsure"
              and (row["label"] == "loop") != words[row["id"]]]
    labels = {lab: sum(1 for row in rows if row["label"] == lab) for lab in ("loop", "no_loop", "unsure")}
    return "\n".join([
        "# Conversations written blind",
        "",
        __doc__.split("\n\n", 2)[2].strip(),
        "",
        f"Command: `python -m benchmarks.conversations`; {len(rows)} conversations ({labels['loop']} loop, "
        f"{labels['no_loop']} no_loop, {labels['unsure']} unsure) in {seconds:.1f} s.",
        "",
        markdown_table(header, table),
        "",
        "Design-half conversations the default settings get wrong (the held-out half is not listed): "
        + (", ".join(f"`{i}`" for i in sorted(misses)) or "none") + ".",
        "",
    ])


def main(argv: Optional[list[str]] = None) -> str:
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    rows = labelled()
    started = time.perf_counter()
    signals: dict[str, dict[str, Any]] = {"words (default)": verdicts(rows)}
    if _semantic_available():
        signals["semantic=True (wordllama)"] = verdicts(rows, semantic=True)
    text = report(rows, signals, time.perf_counter() - started)
    if not args.smoke:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "conversations.md").write_text(text)
    print(text)
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
