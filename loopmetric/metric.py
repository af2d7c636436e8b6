"""`AgentLoopDetectionMetric`: a drop-in for deepeval's metric of the same name.

A thin adapter: it reads `test_case._trace_dict`, calls the engine
(`loopmetric.detect_loops`) and copies the report onto the metric. `measure`
and `a_measure` share one body; the value they return is the score of the
trace they were given, even when one instance is used concurrently.

Needs deepeval, an optional extra: `pip install "loopmetric[deepeval]"`;
without it, importing this module raises `ImportError` naming the extra.
"""

from __future__ import annotations

import warnings
from dataclasses import fields
from typing import Any, Callable, Optional

try:
    from deepeval.metrics import BaseMetric
    from deepeval.metrics.indicator import metric_progress_indicator
    from deepeval.metrics.utils import construct_verbose_logs
except ImportError as error:  # the core install: no deepeval
    raise ImportError(
        "AgentLoopDetectionMetric needs deepeval, which is not installed: "
        'pip install "loopmetric[deepeval]" (detect_loops, the readers and the command line work without it).'
    ) from error

from ._detect import detect_loops, no_trace_report
from ._errors import TraceReadError
from ._findings import Finding
from ._report import LoopReport
from ._settings import LoopSettings

__all__ = ["AgentLoopDetectionMetric", "SHARED_INSTANCE_WARNING"]

SHARED_INSTANCE_WARNING = (
    "One AgentLoopDetectionMetric instance is scoring several spans in deepeval's async component-level "
    "evaluation; deepeval reads the instance's score after measuring them together, so every span may show "
    "the verdict of the last one. Create the metric per span with "
    "update_current_span(metrics=[AgentLoopDetectionMetric()]), or run with AsyncConfig(run_async=False)."
)

_DEFAULTS = LoopSettings()
_SETTING_NAMES = frozenset(f.name for f in fields(LoopSettings))


class AgentLoopDetectionMetric(BaseMetric):
    """Scores a traced agent run from 0.0 (severe looping) to 1.0 (clean).

    Sub-scores (`score_breakdown`): `tool_repetition` (repeated calls, repeated
    results, cycles of calls), `reasoning_stagnation` (repeated and
    near-duplicate LLM outputs) and `call_graph_cycles` (spans re-entering
    themselves with identical input). The evidence is in `findings` and
    `reason`. Deterministic: no LLM, no API key, no network.
    """

    _required_params: list = []

    def __init__(
        self,
        threshold: float = _DEFAULTS.threshold,
        repetition_threshold: int = _DEFAULTS.repetition_threshold,
        similarity_threshold: float = _DEFAULTS.similarity_threshold,
        check_tool_repetition: bool = True,
        check_reasoning_stagnation: bool = True,
        check_call_graph_cycles: bool = True,
        include_reason: bool = True,
        async_mode: bool = True,
        strict_mode: bool = False,
        verbose_mode: bool = False,
        window: Optional[int] = _DEFAULTS.window,
        repeated_result_threshold: Optional[int] = _DEFAULTS.repeated_result_threshold,
        repeated_error_threshold: Optional[int] = _DEFAULTS.repeated_error_threshold,
        alternating_calls_threshold: Optional[int] = _DEFAULTS.alternating_calls_threshold,
        repeated_text_threshold: Optional[int] = _DEFAULTS.repeated_text_threshold,
        similar_attempts_threshold: Optional[int] = _DEFAULTS.similar_attempts_threshold,
        revisited_calls_threshold: Optional[int] = _DEFAULTS.revisited_calls_threshold,
        rejected_output_threshold: Optional[int] = _DEFAULTS.rejected_output_threshold,
        reply_similarity_threshold: float = _DEFAULTS.reply_similarity_threshold,
        text_window: int = _DEFAULTS.text_window,
        min_similarity_words: int = _DEFAULTS.min_similarity_words,
        aggregation: str = _DEFAULTS.aggregation,
        semantic: bool = _DEFAULTS.semantic,
        embedder: Optional[Callable[[list[str]], Any]] = None,
    ) -> None:
        settings = {name: value for name, value in locals().items() if name in _SETTING_NAMES}
        self.settings = LoopSettings(**settings)  # validated: ValueError names the argument
        # Every argument under its own name: deepeval rebuilds metrics from these.
        for name, value in settings.items():
            setattr(self, name, value)
        self.include_reason = include_reason
        self.async_mode = async_mode
        self.verbose_mode = verbose_mode
        self.requires_trace = True
        self.model = None
        self.using_native_model = True
        self.evaluation_model = None
        self.evaluation_cost = 0
        self.findings: tuple[Finding, ...] = ()
        self.report: Optional[LoopReport] = None

    # -- deepeval's interface ----------------------------------------------
    def measure(self, test_case: Any, _show_indicator: bool = True, _in_component: bool = False,
                *args: Any, **kwargs: Any) -> float:
        with metric_progress_indicator(self, _show_indicator=_show_indicator, _in_component=_in_component):
            return self._evaluate(test_case)

    async def a_measure(self, test_case: Any, _show_indicator: bool = True, _in_component: bool = False,
                        *args: Any, **kwargs: Any) -> float:
        if _in_component:
            self._warn_if_shared_across_spans()
        with metric_progress_indicator(self, async_mode=True, _show_indicator=_show_indicator,
                                       _in_component=_in_component):
            return self._evaluate(test_case)

    def _warn_if_shared_across_spans(self) -> None:
        """deepeval's async component-level run gathers every span's `a_measure`
        on the one instance given to `@observe(metrics=[...])`, then reads its
        attributes: each span shows the last verdict. Say so, once per instance."""
        self._component_spans = getattr(self, "_component_spans", 0) + 1
        if self._component_spans == 2:
            warnings.warn(SHARED_INSTANCE_WARNING, UserWarning, stacklevel=2)

    def is_successful(self) -> bool:
        if self.error is not None or self.score is None:
            self.success = False
        else:
            self.success = self.score >= self.settings.effective_threshold
        return self.success

    @property
    def __name__(self) -> str:  # type: ignore[override]
        return "Agent Loop Detection"

    # -- the one body ------------------------------------------------------
    def _evaluate(self, test_case: Any) -> float:
        self._reset()
        trace = getattr(test_case, "_trace_dict", None)
        if trace is None:
            report = no_trace_report(self.settings)
        else:
            try:
                report = detect_loops(trace, settings=self.settings)
            except (TraceReadError, TypeError) as error:  # never a silent pass
                report = no_trace_report(self.settings, f"The trace could not be read, so it fails: {error}")
        self._publish(report)
        return report.score

    def _reset(self) -> None:
        self.score = None
        self.success = None
        self.reason = None
        self.score_breakdown = None
        self.error = None
        self.findings = ()
        self.report = None
        self.verbose_logs = None
        self.evaluation_cost = 0

    def _publish(self, report: LoopReport) -> None:
        self.report = report
        self.findings = report.findings
        self.score = report.score
        self.success = report.success
        self.score_breakdown = dict(report.score_breakdown) if report.has_trace else None
        self.reason = report.reason if self.include_reason else None
        self.verbose_logs = construct_verbose_logs(self, steps=_verbose_steps(report))


def _verbose_steps(report: LoopReport) -> list[str]:
    steps = [
        f"Trace: {report.spans} spans, {report.tool_calls} tool calls, {report.llm_outputs} LLM outputs",
    ]
    for signal, value in report.score_breakdown.items():
        steps.append(f"{signal}: {value}")
    for finding in report.findings:
        steps.append(
            f"[{finding.severity}] {finding.pattern} x{finding.count} steps={list(finding.steps)} "
            f"fingerprints={list(finding.fingerprints)}: {finding.message}"
        )
    for note in report.notes:
        steps.append(f"note: {note}")
    steps.append(f"Score: {report.score} (threshold {report.threshold})")
    steps.append(f"Reason: {report.reason}")
    return steps

