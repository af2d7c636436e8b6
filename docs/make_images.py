"""Renders the README's timeline pictures from the example traces.

    python docs/make_images.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loopmetric.plot import plot_timeline  # noqa: E402
from loopmetric.readers import load_traces  # noqa: E402

PICTURES = {
    "timeline_repeated_call.png": ("looping_agent.json", "A repeated call"),
    "timeline_alternating.png": ("otlp_openinference.json", "A-B-A-B (LangGraph, OpenInference)"),
    "timeline_healthy.png": ("healthy_agent.json", "A healthy run"),
}


def main(out: Path = ROOT / "docs" / "images") -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (example, title) in PICTURES.items():
        [loaded] = list(load_traces(str(ROOT / "examples" / example)))
        fig = plot_timeline(loaded.trace, title=title)
        fig.savefig(out / name, dpi=100)
        written.append(out / name)
    return written


if __name__ == "__main__":
    print("\n".join(map(str, main())))
