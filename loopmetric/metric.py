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
import inspect
from dataclasses import fields, replace
from typing import Any, Optional

try:
    from deepeval.metrics import BaseMetric
    from deepeval.metrics.indicator import metric_progress_indicator
    from deepeval.metrics.utils import construct_verbose_logs
except ImportError as error:  # the core install: no deepeval
    raise ImportError(
        "AgentLoopDetectionMetric needs deepeval, which is not installed: "
        'pip install "loopmetric[deepeval]" (detect_loops, the readers and the command line work without it).'
    ) from error

from ._engine import detect_loops, no_trace_report, resolve_settings
from ._errors import TraceReadError
from ._findings import Finding
from ._numbers import count
from ._report import LoopReport
from ._settings import ALIASES, LoopSettings

__all__ = ["AgentLoopDetectionMetric", "SHARED_INSTANCE_WARNING"]

SHARED_INSTANCE_WARNING = (
    "One AgentLoopDetectionMetric instance is scoring several spans in deepeval's async component-level "
    "evaluation; deepeval reads the instance's score after measuring them together, so every span may show "
    "the verdict of the last one. Create the metric per span with "
    "update_current_span(metrics=[AgentLoopDetectionMetric()]), or run with AsyncConfig(run_async=False)."
)



class AgentLoopDetectionMetric(BaseMetric):
    """Scores a traced agent run from 0.0 (severe looping) to 1.0 (clean).

    Sub-scores (`score_breakdown`): `tool_repetition` (repeated calls, repeated
    results, cycles of calls), `reasoning_stagnation` (repeated and
    near-duplicate LLM outputs) and `call_graph_cycles` (spans re-entering
    themselves with identical input). The evidence is in `findings` and
    `reason`. Deterministic: no LLM, no API key, no network.

    After `measure(test_case)`, this instance holds that test case's `score`,
    `success`, `reason`, `score_breakdown` and `report`. After
    `dataset.evals_iterator(metrics=[metric])`, deepeval has scored a copy per
    trace and this instance holds none of them (`score` is None): each test
    case's score, success and reason are in
    `deepeval.test_run.global_test_run_manager.get_test_run().test_cases[i].metrics_data`;
    deepeval keeps no `score_breakdown` there, so it is in that entry's
    `verbose_logs` with `verbose_mode=True` (one `signal: value` line each), or
    `detect_loops` gives it again from the same trace.
    """

    _required_params: list = []  # type: ignore[assignment]  # deepeval's own metrics list params here

    def __init__(
        self,
        threshold: Optional[float] = None,
        repetition_threshold: Optional[int] = None,
        similarity_threshold: Optional[float] = None,
        check_tool_repetition: Optional[bool] = None,
        check_reasoning_stagnation: Optional[bool] = None,
        check_call_graph_cycles: Optional[bool] = None,
        include_reason: bool = True,
        async_mode: bool = True,
        strict_mode: Optional[bool] = None,
        verbose_mode: bool = False,
        flaky: bool = False,
        *,
        settings: Optional[LoopSettings] = None,
        **options: Any,
    ) -> None:
        """deepeval's arguments, in deepeval's order and with its defaults (a drop-in
        takes `AgentLoopDetectionMetric(0.5, 3)` and `flaky=`); the settings among them and
        `options` are `LoopSettings` fields (or a whole `settings`, with the ones given on top;
        None: not given); `include_reason`, `async_mode`, `verbose_mode` and `flaky` are deepeval's."""
        given = {"threshold": threshold, "repetition_threshold": repetition_threshold,
                 "similarity_threshold": similarity_threshold, "check_tool_repetition": check_tool_repetition,
                 "check_reasoning_stagnation": check_reasoning_stagnation,
                 "check_call_graph_cycles": check_call_graph_cycles, "strict_mode": strict_mode}
        for name, value in given.items():
            if value is not None:
                options[name] = value
        # One declaration per setting: every setting is a `LoopSettings` field, validated
        # there (ValueError names the argument); the metric's attributes of the same names
        # are properties over `self.settings`, so setting one later changes the verdict.
        self.settings = resolve_settings(settings, options)
        self.include_reason = include_reason
        self.async_mode = async_mode
        self.verbose_mode = verbose_mode
        self.flaky = flaky
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
        """Score `test_case._trace_dict`; the score (also on `self.score`, with the reason)."""
        with metric_progress_indicator(self, _show_indicator=_show_indicator, _in_component=_in_component):
            return self._evaluate(test_case)

    async def a_measure(self, test_case: Any, _show_indicator: bool = True, _in_component: bool = False,
                        *args: Any, **kwargs: Any) -> float:
        """`measure`, for deepeval's async runs: the same body (nothing here awaits)."""
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
        """Whether the last score passed the threshold (1.0 in strict mode); False after an error."""
        if self.error is not None or self.score is None:
            self.success = False
        else:
            self.success = self.score >= self.settings.effective_threshold  # strict_mode: 1.0
        return self.success

    @property
    def __name__(self) -> str:
        """The name deepeval shows."""
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
        self.score_breakdown = None  # type: ignore[assignment]  # no trace read yet
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
        self.score_breakdown = dict(report.score_breakdown) if report.has_trace else None  # type: ignore[assignment]
        self.reason = report.reason if self.include_reason else None
        self.verbose_logs = construct_verbose_logs(self, steps=_verbose_steps(report))


def _verbose_steps(report: LoopReport) -> list[str]:
    steps = [
        f"Trace: {count(report.spans, 'span')}, {count(report.tool_calls, 'tool call')}, "
        f"{count(report.llm_outputs, 'LLM output')}",
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



def _setting(name: str, field: str) -> property:
    """`metric.<name>`: the setting in `metric.settings`; assigning it validates and replaces it."""

    def get(self: AgentLoopDetectionMetric) -> Any:
        return getattr(self.settings, field)

    def set_(self: AgentLoopDetectionMetric, value: Any) -> None:
        self.settings = replace(self.settings, **{field: value})

    return property(get, set_, doc=f"`LoopSettings.{field}` of this metric's settings.")


for _field in fields(LoopSettings):
    setattr(AgentLoopDetectionMetric, _field.name, _setting(_field.name, _field.name))
for _alias, _field_name in ALIASES.items():
    setattr(AgentLoopDetectionMetric, _alias, _setting(_alias, _field_name))

# help() and deepeval's `copy_metrics` (which rebuilds a metric from the instance attributes
# its constructor names: here `settings` and deepeval's four flags) see every setting by name:
# deepeval's arguments first, in its order and with its defaults, then the other settings.
_DEEPEVAL_ARGUMENTS = (  # deepeval's AgentLoopDetectionMetric.__init__, in order
    ("threshold", LoopSettings.threshold, float), ("repetition_threshold", LoopSettings.repeated_call_threshold, int),
    ("similarity_threshold", LoopSettings.similarity_threshold, float),
    ("check_tool_repetition", LoopSettings.check_tool_repetition, bool),
    ("check_reasoning_stagnation", LoopSettings.check_reasoning_stagnation, bool),
    ("check_call_graph_cycles", LoopSettings.check_call_graph_cycles, bool),
    ("include_reason", True, bool), ("async_mode", True, bool), ("strict_mode", LoopSettings.strict_mode, bool),
    ("verbose_mode", False, bool), ("flaky", False, bool))
AgentLoopDetectionMetric.__init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    + [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=kind)
       for name, default, kind in _DEEPEVAL_ARGUMENTS]
    + [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type)
       for f in fields(LoopSettings) if f.name not in dict((n, d) for n, d, _ in _DEEPEVAL_ARGUMENTS)]
    + [inspect.Parameter("settings", inspect.Parameter.KEYWORD_ONLY, default=None)]
)
