"""Watch every instrumented agent live: an OpenTelemetry span processor that finds loops.

    from loopmetric.otel import LoopSpanProcessor

    provider.add_span_processor(LoopSpanProcessor(on_loop=lambda trace_id, finding: ...))

Any framework that emits OpenTelemetry spans with the GenAI semantic conventions (pydantic-ai,
Logfire) or OpenInference (LangChain, LlamaIndex, CrewAI, DSPy, the OpenAI Agents SDK,
smolagents, ...) is watched at once, with the same span readers as `loopmetric score` and the
same guard core as `loopmetric.guard`. Needs the SDK: `pip install "loopmetric[otel]"`.
"""

from __future__ import annotations

from importlib.util import find_spec

_INSTALL = 'loopmetric.otel needs the OpenTelemetry SDK: pip install "loopmetric[otel]"'


def _sdk_installed() -> bool:
    try:
        return find_spec("opentelemetry.sdk.trace") is not None
    except (ImportError, ValueError):
        return False


if not _sdk_installed():
    raise ImportError(_INSTALL)

from ._processor import LOOP_SPAN_NAME, LoopSpanProcessor, ProcessorStats, guard_settings  # noqa: E402
from ._window import LiveFinding  # noqa: E402

__all__ = ["LOOP_SPAN_NAME", "LiveFinding", "LoopSpanProcessor", "ProcessorStats", "guard_settings"]
