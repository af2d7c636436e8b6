"""pydantic-evals: `LoopEvaluator`, the loop check as an evaluator of a `Dataset`.

    >>> import logfire
    >>> logfire.configure(send_to_logfire=False)      # record spans, send nothing
    >>> logfire.instrument_pydantic_ai()               # or Agent(..., capabilities=[Instrumentation()])
    >>> from loopmetric.integrations.pydantic_evals import LoopEvaluator
    >>> dataset = Dataset(name="agents", cases=[...], evaluators=[LoopEvaluator()])
    >>> dataset.evaluate_sync(task).print(include_reasons=True)

The evaluator reads `ctx.span_tree`, the OpenTelemetry spans recorded while the
task ran (pydantic-evals records them when logfire is configured), as
loopmetric's OTLP reader reads spans: GenAI semantic conventions (what
pydantic-ai and Logfire write: `gen_ai.operation.name`, `gen_ai.tool.name`,
`gen_ai.tool.call.arguments` and `.result`, `gen_ai.output.messages`) or
OpenInference (`openinference.span.kind`, `tool.name`, `input.value`,
`output.value`). Other spans are read as plain spans (checked for call-graph
cycles only). It returns, per case, the score (`loop_score`) and the verdict at
the threshold (`no_loops`), each with the reason; the same as `detect_loops` on
the same spans.

In a dataset file: `Dataset.from_file(path, custom_evaluator_types=[LoopEvaluator])`
with `evaluators: [LoopEvaluator]` or `- LoopEvaluator: {threshold: 0.7}`.

Needs pydantic-evals, an optional extra: `pip install "loopmetric[pydantic-evals]"`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal, Optional

try:
    from pydantic_evals.evaluators import EvaluationReason, Evaluator, EvaluatorContext
    from pydantic_evals.otel import SpanTree, SpanTreeRecordingError
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        'loopmetric.integrations.pydantic_evals needs pydantic-evals: pip install "loopmetric[pydantic-evals]"'
    ) from error

from .._engine import detect_loops
from .._errors import TraceReadError
from .._model import Trace
from .._report import LoopReport
from .._settings import LoopSettings
from ..readers import read_otlp_traces

__all__ = ["LoopEvaluator", "read_span_tree", "span_dicts"]

_OUTPUTS = ("both", "score", "assertion")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_ERROR_KEYS = ("exception.message", "gen_ai.tool.call.result", "tool_response", "output.value")
_HOW = ("pydantic-evals records the task's spans when OpenTelemetry is set up: "
        "logfire.configure(send_to_logfire=False), and logfire.instrument_pydantic_ai() "
        "(or Agent(..., capabilities=[Instrumentation()])) for pydantic-ai agents.")
_NO_SPANS = "No spans were recorded for this case, so no trace to score. " + _HOW


def _hex(value: Any, width: int) -> str:
    return format(value, f"0{width}x") if isinstance(value, int) else str(value)


def _nanos(moment: Any) -> int:
    if not isinstance(moment, datetime):
        return 0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def _error_text(attributes: Any) -> Optional[str]:
    """What a failed span says went wrong. The span tree keeps no status description and no
    events, so the text comes from the attributes (pydantic-ai puts a tool's error in its result)."""
    for key in _ERROR_KEYS:
        value = attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def span_dicts(span_tree: SpanTree) -> list[dict[str, Any]]:
    """The nodes of a span tree as OTLP-shaped span dicts, in start order, all in one trace."""
    spans = []
    for node in span_tree:
        failed = getattr(node, "status", "unset") == "error"
        spans.append({
            "traceId": "pydantic-evals-task",  # one task run is one trace, however many trace ids it spans
            "spanId": _hex(node.span_id, 16),
            "parentSpanId": "" if node.parent_span_id is None else _hex(node.parent_span_id, 16),
            "name": node.name,
            "startTimeUnixNano": _nanos(node.start_timestamp),
            "attributes": dict(node.attributes),
            "status": {"code": 2, "message": _error_text(node.attributes)} if failed else {"code": 0},
        })
    return spans


def read_span_tree(span_tree: SpanTree, *, name: str = "") -> Trace:
    """The `Trace` of a pydantic-evals `SpanTree` (`ctx.span_tree`), read by the OTLP reader.

    Raises `TraceReadError` when the tree holds no spans.
    """
    if not isinstance(span_tree, SpanTree):
        raise TypeError(f"Expected argument `span_tree` to be a pydantic_evals SpanTree, "
                        f"but got {type(span_tree).__name__}.")
    spans = span_dicts(span_tree)
    if not spans:
        raise TraceReadError(_NO_SPANS)
    [trace] = read_otlp_traces(spans, name=name)
    return trace


@dataclass(repr=False)
class LoopEvaluator(Evaluator[object, object, object]):
    """Scores the task's recorded spans for loops: 1.0 clean .. 0.0 severe looping.

    `output`: "both" (default) gives `loop_score` (a score) and `no_loops` (an
    assertion: the score is at least `threshold`), "score" or "assertion" one of
    them; each carries loopmetric's reason. `settings` are `LoopSettings` fields
    (`window`, `repetition_threshold`, ...). A case whose spans were not recorded
    fails with a reason saying how to record them; it never passes.
    """

    threshold: float = LoopSettings.threshold
    output: Literal["both", "score", "assertion"] = "both"
    settings: Optional[dict[str, Any]] = None
    evaluation_name: Optional[str] = field(default=None)

    def __post_init__(self) -> None:
        """Check the arguments and build the settings once: a bad value fails here, not per case."""
        if self.output not in _OUTPUTS:
            raise ValueError(f"Expected argument `output` to be one of {', '.join(map(repr, _OUTPUTS))}, "
                             f"but got {self.output!r}.")
        if self.settings is not None and not isinstance(self.settings, dict):
            raise ValueError(f"Expected argument `settings` to be a dict of LoopSettings fields, "
                             f"but got {type(self.settings).__name__}.")
        options = {**(self.settings or {}), "threshold": self.threshold}
        self._settings = LoopSettings.from_kwargs(**options)  # invalid names or values raise here

    def get_default_evaluation_name(self) -> str:
        """`evaluation_name`, else "loop_score": the name of the score in reports."""
        return self.evaluation_name if isinstance(self.evaluation_name, str) else "loop_score"

    def report(self, ctx: EvaluatorContext[object, object, object]) -> LoopReport:
        """loopmetric's report on the case's spans (`detect_loops` on them).

        Raises `TraceReadError` when no spans were recorded.
        """
        try:
            span_tree = ctx.span_tree
        except SpanTreeRecordingError as error:
            raise TraceReadError(f"Spans were not recorded ({error.message}). {_HOW}") from None
        return detect_loops(read_span_tree(span_tree, name=getattr(ctx, "name", None) or ""),
                            settings=self._settings)

    def evaluate(self, ctx: EvaluatorContext[object, object, object]) -> Any:
        """The score and verdict of the case's spans (a failing verdict saying why when there are none)."""
        try:
            report = self.report(ctx)
        except TraceReadError as error:  # nothing to score: a failing verdict that says why
            score, success, reason, threshold = 0.0, False, str(error), self._settings.effective_threshold
        else:
            score, success, reason, threshold = report.score, report.success, report.reason, report.threshold
            if report.tool_calls == 0 and report.llm_outputs == 0:
                reason += (f" (none of the {report.spans} spans is a tool call or an LLM output: only "
                           "GenAI or OpenInference attributes mark them)")
        scored = EvaluationReason(value=score, reason=reason)
        against = f"score {score:.2f}, threshold {threshold:g}"
        if self.output == "score":
            return scored
        if self.output == "assertion":
            return EvaluationReason(value=success, reason=f"{reason} ({against})")
        name = self.get_default_evaluation_name()  # both: the reason once, beside the score
        return {name: scored,
                "no_loops" if self.evaluation_name is None else f"{name}_pass": EvaluationReason(success, against)}
