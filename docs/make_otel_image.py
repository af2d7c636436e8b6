"""Renders docs/images/otel_loop_span.png: a tracing view of a looping pydantic-ai run (scripted
model, offline) recorded with `LoopSpanProcessor`, its `loopmetric.loop` span beside the run.

    python docs/make_otel_image.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples"))


def record() -> list:
    """The finished spans of the scripted looping agent of `examples/record.py`, loop span included."""
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from record import in_memory_tracer, scripted_pydantic_ai_agent

    from loopmetric.otel import LoopSpanProcessor

    provider, exporter = in_memory_tracer()
    provider.add_span_processor(LoopSpanProcessor())
    agent = scripted_pydantic_ai_agent(
        capabilities=[Instrumentation(settings=InstrumentationSettings(tracer_provider=provider))])
    agent.run_sync("Download the export report for job 42.")
    return list(exporter.get_finished_spans())


def draw(spans: list, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from loopmetric.otel import LOOP_SPAN_NAME

    by_id = {s.context.span_id: s for s in spans}

    def depth(span) -> int:
        d = 0
        while span.parent is not None and span.parent.span_id in by_id:
            span, d = by_id[span.parent.span_id], d + 1
        return d

    ordered = sorted(spans, key=lambda s: (s.start_time, s.name == LOOP_SPAN_NAME))
    t0 = min(s.start_time for s in spans)
    width = max(s.end_time for s in spans) - t0
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(ordered) + 1))
    for row, span in enumerate(ordered):
        start, end = (span.start_time - t0) / 1e6, (span.end_time - t0) / 1e6
        loop = span.name == LOOP_SPAN_NAME
        label = "  " * depth(span) + span.name
        if loop:
            a = span.attributes
            label += f"  [{a['loopmetric.pattern']} at steps {', '.join(map(str, a['loopmetric.steps']))}]"
        ax.barh(row, max(end - start, width / 1e6 / 150), left=start, height=0.6,
                color="#d62728" if loop else "#7f9cc7")
        ax.text(start, row, " " + label, va="center", ha="left", fontsize=8,
                color="#d62728" if loop else "black", fontweight="bold" if loop else "normal")
    ax.set_yticks([])
    ax.invert_yaxis()
    ax.set_xlabel("ms since the run started")
    ax.set_title("A looping pydantic-ai run as a tracing backend shows it: the loopmetric.loop spans (red)")
    ax.set_xlim(0, width / 1e6 * 1.6)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(out: Path = ROOT / "docs" / "images") -> Path:
    return draw(record(), out / "otel_loop_span.png")


if __name__ == "__main__":
    print(main())
