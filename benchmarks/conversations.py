"""Conversations written blind: does the conversation rule find loops in chats nobody here wrote?

    python -m benchmarks.conversations      # writes benchmarks/results/conversations.md

Eight sets of conversations (OpenAI chat messages), each written by hand by a helper who never ran,
imported or read loopmetric (CC0; each folder's README says how), with a label per conversation: about
half are an agent saying the same thing in other words turn after turn, half are healthy twins that
look alike on the surface. `benchmarks/conversations/` (set 1, 2026-12-06): 60 customer-service chats.
`benchmarks/conversations2/` (set 2, 2026-12-07): 40 chats in other settings too (a coding assistant, a
tutor, a game master, a program polling an agent). `benchmarks/conversations3/` (set 3, 2026-12-07): 40
chats in settings neither set used (insurance claims, a registrar, a vet clinic, a legal-information bot,
kubectl and SQL helpers, a CI bot, a polled report agent), tool loops among them.
`benchmarks/conversations4/` (set 4, 2026-12-07, the eleventh session): 40 chats of agents with tools and a
policy facing a customer who pushes back (an airline, a bank, a parcel depot, a passport office, a
pharmacy, ...), in pairs of a loop and its healthy twin. `benchmarks/conversations5/` (set 5, 2026-12-07):
40 chats in settings no set used (an HR desk, a mortgage lender, ticketing, pet insurance, a council's
permits, ...), a fifth of them an assistant helping with a task (a spreadsheet formula, a small program,
a letter). `benchmarks/conversations6/` (set 6, 2026-12-07, the twelfth session): 40 chats, half of them
travel and retail customer service under a strict policy (an airline, a hotel chain, a train operator, car
rental, returns and warranties, ...), the rest other settings and a few assistants helping with a task.
`benchmarks/conversations7/` (set 7, 2026-12-07, the fourteenth session): 40 chats written the way chat
models write (long, polite, structured replies, the repeat often inside a longer reply whose other
sentences change), customers asking for an exception, offices, and six assistants helping with a task.
`benchmarks/conversations8/` (set 8, 2026-12-07, the fifteenth session): 40 chats, half of them in the voice of
a large chat model (long structured replies), half in the voice of a small terse one (a few plain
sentences): customer service, offices, and eight assistants helping with a task (a formula, a query, a
regular expression, a translation, a git problem, ...).
A fixed seed per set splits it into a design half
and a held-out half: rules may be studied on the design halves only. Each conversation is scored the
way the command line scores a chat file (`detect_loops` on the messages, default settings), and with
`semantic=True` when the default embedder is installed.
"""

from __future__ import annotations

import csv
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple, Optional

from ._common import Confusion, markdown_table, parser

FOLDER = Path(__file__).resolve().parent / "conversations"
SEED = "convo-set/design"


class ConversationSet(NamedTuple):
    """A set of blind-written conversations: its name in the report, its folder (`<id>.json` files and
    `labels.csv`) and the seed of its split."""

    name: str
    folder: Path
    seed: str


SETS = (ConversationSet("set 1", FOLDER, SEED),
        ConversationSet("set 2", FOLDER.with_name("conversations2"), "convo-set-2/design"),
        ConversationSet("set 3", FOLDER.with_name("conversations3"), "convo-set-3/design"),
        ConversationSet("set 4", FOLDER.with_name("conversations4"), "convo-set-4/design"),
        ConversationSet("set 5", FOLDER.with_name("conversations5"), "convo-set-5/design"),
        ConversationSet("set 6", FOLDER.with_name("conversations6"), "convo-set-6/design"),
        ConversationSet("set 7", FOLDER.with_name("conversations7"), "convo-set-7/design"),
        ConversationSet("set 8", FOLDER.with_name("conversations8"), "convo-set-8/design"))
# Sets 2 to 8 each scored whole once, by main at the commit named, before anyone here read one of its
# files: what the default settings found on conversations nobody had seen (loops found, loops, healthy
# failed, healthy).
FIRST_LOOK = {"set 2": ("874e1cb", 5, 20, 0, 19), "set 3": ("aa64679", 12, 19, 0, 20),
              "set 4": ("eeca039", 10, 20, 0, 20), "set 5": ("edad995", 11, 20, 0, 20),
              "set 6": ("83bd6d0", 12, 20, 0, 20), "set 7": ("09acb40", 13, 20, 1, 20),
              "set 8": ("b72e6eb", 11, 20, 0, 20)}


def labelled(which: Optional[ConversationSet] = None) -> list[dict[str, str]]:
    """The rows of each set's `labels.csv` (of `which` alone when given), each with its `set` and its
    `half` (design or held-out, by the set's fixed seed)."""
    rows: list[dict[str, str]] = []
    for each in SETS if which is None else (which,):
        with open(each.folder / "labels.csv", newline="") as handle:
            found = list(csv.DictReader(handle))
        ids = sorted(row["id"] for row in found)
        design = set(random.Random(each.seed).sample(ids, len(ids) // 2))
        for row in found:
            row["set"] = each.name
            row["half"] = "design" if row["id"] in design else "held-out"
        rows.extend(found)
    return rows


def path_of(row: dict[str, str]) -> Path:
    """The file of a labelled conversation."""
    return next(each.folder for each in SETS if each.name == row["set"]) / f"{row['id']}.json"


def verdicts(rows: list[dict[str, str]], semantic: bool = False) -> dict[str, bool]:
    """Whether loopmetric fails each conversation (a predicted loop)."""
    from loopmetric import LoopSettings, detect_loops

    settings = LoopSettings(semantic=semantic)
    return {row["id"]: not detect_loops(json.loads(path_of(row).read_text()), settings=settings).success
            for row in rows}


def _semantic_available() -> bool:
    try:
        import wordllama  # noqa: F401
    except ImportError:
        return False
    return True


def report(rows: list[dict[str, str]], signals: dict[str, dict[str, bool]], seconds: float) -> str:
    header = ["signal", "set", "half", "n (unsure left out)", "TP", "FP", "FN", "TN", "precision", "recall", "F1"]
    table = []
    names = list(dict.fromkeys(row.get("set", "set 1") for row in rows))
    for name, found in signals.items():
        for which in names + (["all sets"] if len(names) > 1 else []):
            for half in ("design", "held-out", "both"):
                counts = Confusion()
                for row in rows:
                    if (row["label"] != "unsure" and half in ("both", row["half"])
                            and which in ("all sets", row.get("set", "set 1"))):
                        counts.add(row["label"] == "loop", found[row["id"]])
                table.append([name, which, half, str(counts.n), str(counts.tp), str(counts.fp), str(counts.fn),
                              str(counts.tn), f"{counts.precision:.3f}", f"{counts.recall:.3f}", f"{counts.f1:.3f}"])
    words = signals["words (default)"]
    misses = [row["id"] for row in rows if row["half"] == "design" and row["label"] != "unsure"
              and (row["label"] == "loop") != words[row["id"]]]
    labels = {lab: sum(1 for row in rows if row["label"] == lab) for lab in ("loop", "no_loop", "unsure")}
    first = [f"First look at {name}: scored whole by main at {rev}, before anyone here read one of its files, the "
             f"default settings found {found} of {loops} loops and failed {failed} of {healthy} healthy "
             "conversations." for name, (rev, found, loops, failed, healthy) in FIRST_LOOK.items() if name in names]
    return "\n".join([
        "# Conversations written blind",
        "",
        __doc__.split("\n\n", 2)[2].strip(),
        "",
        f"Command: `python -m benchmarks.conversations`; {len(rows)} conversations ({labels['loop']} loop, "
        f"{labels['no_loop']} no_loop, {labels['unsure']} unsure) in {seconds:.1f} s, load average {_load()} "
        "(1, 5, 15 min) at the end.",
        "",
        markdown_table(header, table),
        "",
        *(line + "\n" for line in first),
        "Design-half conversations the default settings get wrong (the held-out halves are not listed): "
        + (", ".join(f"`{i}`" for i in sorted(misses)) or "none") + ".",
        "",
    ])


def _load() -> str:
    """The machine's load averages, which the time above depends on."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"


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
