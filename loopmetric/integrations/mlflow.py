"""MLflow 3: `LoopScorer`, the loop check as a scorer of `mlflow.genai.evaluate`.

    >>> import mlflow
    >>> from loopmetric.integrations.mlflow import LoopScorer
    >>> mlflow.genai.evaluate(data=[{"inputs": {"question": "..."}}], predict_fn=agent,
    ...                       scorers=[LoopScorer()])

The scorer reads the run's `mlflow.entities.Trace` (its spans, their types,
inputs, outputs, status and events) as loopmetric's MLflow reader reads the
JSON of `Trace.to_json()`: `CHAT_MODEL` and `LLM` spans are LLM outputs (the
tool calls they ask for read from their outputs), `TOOL` and `RETRIEVER`
spans tool calls (a span with status ERROR an error result), the rest the tree
around them. It returns a `Feedback` named `loop_detection`: the value is the
score (0.0 severe looping .. 1.0 clean, `value="score"`) or "yes"/"no" at the
threshold (`value="pass_fail"`, what MLflow's judges return: evaluate reports
the pass rate); the rationale is loopmetric's reason; the metadata holds the
score, the threshold, `score_breakdown` and the worst finding's pattern and
steps (JSON text: MLflow keeps metadata values as strings). Same verdict and
score as `detect_loops(trace.to_json())`.

A trace that cannot be read (no trace, no spans) fails: value 0.0 or "no",
with the reason in the rationale, never a pass.

For production monitoring, register a `@scorer` function that calls
`loop_feedback` (MLflow registers decorator scorers by their source, so the
import goes inside):

    >>> from mlflow.genai.scorers import scorer, ScorerSamplingConfig
    >>> @scorer
    ... def loop_detection(trace):
    ...     from loopmetric.integrations.mlflow import loop_feedback
    ...     return loop_feedback(trace)
    >>> loop_detection.register().start(sampling_config=ScorerSamplingConfig(sample_rate=1.0))

Needs MLflow 3, an optional extra: `pip install "loopmetric[mlflow]"`.
"""

from __future__ import annotations

import inspect
import json
from typing import Any, Literal, Optional

try:
    from mlflow.entities import AssessmentSource, Feedback
    from mlflow.entities.assessment_source import AssessmentSourceType
    from mlflow.genai.judges import CategoricalRating
    from mlflow.genai.scorers import Scorer
except ImportError as error:  # the core install: no MLflow
    raise ImportError(
        "loopmetric.integrations.mlflow needs MLflow 3 (mlflow.genai), which is not installed: "
        'pip install "loopmetric[mlflow]" (detect_loops, the readers and the command line work without it).'
    ) from error

from pydantic import PrivateAttr

from .._engine import detect_loops, resolve_settings
from .._errors import TraceReadError
from .._report import LoopReport
from .._settings import LoopSettings
from ..readers._mlflow import read_mlflow_trace

__all__ = ["LoopScorer", "loop_feedback"]

Value = Literal["score", "pass_fail"]
_VALUES = ("score", "pass_fail")
_SOURCE_ID = "loopmetric"


def _settings(settings: Optional[LoopSettings], options: dict[str, Any]) -> LoopSettings:
    if settings is not None and not isinstance(settings, LoopSettings):
        raise TypeError("Expected argument `settings` to be a LoopSettings or None, "
                        f"but got {type(settings).__name__}.")
    return resolve_settings(settings, options)  # validates names and values


def _check_value(value: Any) -> None:
    if value not in _VALUES:
        raise ValueError(f"Expected argument `value` to be one of {', '.join(map(repr, _VALUES))}, but got {value!r}.")


def loop_feedback(trace: Any, *, settings: Optional[LoopSettings] = None, value: Value = "score",
                  name: Optional[str] = None, **options: Any) -> Feedback:
    """The `Feedback` for one MLflow trace (an `mlflow.entities.Trace`, its dict or its JSON).

    `options` are `LoopSettings` fields (`threshold`, `window`, ...), on top of
    `settings`. Invalid settings raise `ValueError`; a trace that cannot be read
    gives a failing feedback. `name` is the feedback's name, the column
    `mlflow.genai.evaluate` writes it to (`<name>/value`); by default the name
    of the function that calls `loop_feedback` (the `@scorer` it is returned
    from), so a scorer of yours never lands in `LoopScorer()`'s
    `loop_detection` column; called from no function, `default_name(value)`.
    """
    _check_value(value)
    resolved = _settings(settings, options)
    if name is None:
        name = _caller_name(value)
    return _feedback(trace, resolved, value, name)


def default_name(value: str) -> str:
    """A scorer's name when none is given: `loop_detection` (the score) or `no_loops` (pass/fail)."""
    return "loop_detection" if value == "score" else "no_loops"


def _caller_name(value: str) -> str:
    """The name of the function that called `loop_feedback`, or `default_name(value)` at module level."""
    frame = inspect.currentframe()
    caller = frame.f_back.f_back if frame is not None and frame.f_back is not None else None
    code = caller.f_code.co_name if caller is not None else "<module>"
    return code if code.isidentifier() else default_name(value)


def _feedback(trace: Any, settings: LoopSettings, value: str, name: str) -> Feedback:
    source = AssessmentSource(source_type=AssessmentSourceType.CODE, source_id=_SOURCE_ID)
    try:
        if trace is None:
            raise TraceReadError("Expected an MLflow trace, but got None (the scorer was given no trace)")
        report = detect_loops(read_mlflow_trace(trace), settings=settings)
    except (TraceReadError, TypeError) as error:  # never a silent pass
        rationale = f"The trace could not be read, so it fails: {error}"
        return Feedback(name=name, value=0.0 if value == "score" else CategoricalRating.NO, rationale=rationale,
                        source=source, metadata={"score": "0.0", "success": "false",
                                                 "threshold": str(settings.effective_threshold)})
    return Feedback(name=name, value=_value(report, value), rationale=report.reason, source=source,
                    metadata=_metadata(report))


def _value(report: LoopReport, value: str) -> Any:
    if value == "score":
        return report.score
    return CategoricalRating.YES if report.success else CategoricalRating.NO


def _metadata(report: LoopReport) -> dict[str, str]:
    worst = report.worst
    metadata = {
        "score": str(report.score),
        "success": "true" if report.success else "false",
        "threshold": str(report.threshold),
        "score_breakdown": json.dumps(dict(report.score_breakdown), sort_keys=True),
        "findings": str(len(report.findings)),
        "looped_steps": str(report.looped_steps),
    }
    if worst is not None:
        metadata.update(worst_pattern=worst.pattern, worst_severity=worst.severity,
                        worst_steps=json.dumps(list(worst.steps)), worst_tools=json.dumps(list(worst.tools)))
    return metadata


class LoopScorer(Scorer):
    """Scores a traced agent run for loops: 0.0 (severe looping) .. 1.0 (clean), or "yes"/"no".

    `LoopScorer(value="pass_fail", threshold=0.7)`: `settings` and the keyword
    `options` (`LoopSettings` fields) as `detect_loops` takes them; `value`
    "score" (a float) or "pass_fail" ("yes" when the score reaches the
    threshold); `name` the scorer's and its feedback's name, the column
    `mlflow.genai.evaluate` writes (`<name>/value`): by default
    `loop_detection` for the score and `no_loops` for pass/fail, so
    `LoopScorer()` and `LoopScorer(value="pass_fail")` side by side never share
    a column. Give two scorers of other settings two names.
    Deterministic: no LLM, no network.
    """

    name: str = "loop_detection"
    value: Value = "score"
    _settings: LoopSettings = PrivateAttr(default_factory=LoopSettings)

    def __init__(self, settings: Optional[LoopSettings] = None, *, value: Value = "score",
                 name: Optional[str] = None, **options: Any) -> None:
        """Validate `value` and the settings now, not at the first trace."""
        _check_value(value)
        resolved = _settings(settings, options)
        super().__init__(name=name or default_name(value), value=value)  # type: ignore[call-arg]  # a field of this pydantic model
        self._settings = resolved

    @property
    def settings(self) -> LoopSettings:
        """The settings every trace is scored with."""
        return self._settings

    def __call__(self, *, trace: Any = None) -> Feedback:  # type: ignore[override]  # a trace-only scorer
        """The `Feedback` for one trace (what `mlflow.genai.evaluate` calls per row)."""
        return _feedback(trace, self._settings, self.value, self.name)
