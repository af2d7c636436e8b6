"""Hand-written one-line mutants of what a user sees (the audits of 2026-12-07, 2026-12-08, 2026-12-09,
2026-12-10, 2026-12-11, 2026-12-12, 2026-12-13, 2026-12-14 and 2026-12-15), and their runner.

    python -m benchmarks._hand_mutants --list [--round ROUND]
    python -m benchmarks._hand_mutants ID ...            # each on its module's tests
    python -m benchmarks._hand_mutants ID ... --folder   # each on its module's test folder
    python -m benchmarks._hand_mutants ID ... --rev REV  # on the tree of REV (default HEAD)
    python -m benchmarks._hand_mutants --report REV --round ROUND  # a round's table of the runs so far
                                                                   # (its first runs at REV)

Each audit is a round (`ROUNDS`: its date, its mutants, none of them a mutant of an earlier round).
Each mutant is put into a fresh copy of the committed tree (beside `../shared`, so the tests that read
the shared recordings run and do not skip), alone, and its tests run through `/work/bin/slot` when
present (at most two test runs on the machine); killed when they fail. One JSON line per run goes
to its round's `results/mutation_functions/hand_ROUND.jsonl`; the round's table is
`results/mutation_functions/hand_ROUND.md`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from .mutation import HandMutant, apply

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "benchmarks" / "results" / "mutation_functions"
SLOT = Path("/work/bin/slot")


class Audited(NamedTuple):
    """A hand mutant, the tests of its module (run first) and its module's test folder (for a module at
    the package's top, its top-level test files)."""

    mutant: HandMutant
    tests: tuple[str, ...]
    folder: str | tuple[str, ...]


def _m(id_: str, path: str, old: str, new: str, what: str, tests: tuple[str, ...], folder: str | tuple[str, ...],
       test: str = "") -> Audited:
    return Audited(HandMutant(id_, path, old, new, what, test), tests, folder)


def folder_tests(audited: Audited) -> tuple[str, ...]:
    """What `--folder` runs: the module's test folder (or its top-level test files)."""
    return (audited.folder,) if isinstance(audited.folder, str) else audited.folder


_R = "loopmetric/readers/"
EXPORTED = ("tests/readers/test_exported_formats.py", "tests/readers/test_reader_exported.py", "tests/readers/test_pinned_readers.py")
OTEL = ("tests/otel/test_processor.py", "tests/otel/test_live_equals_offline.py", "tests/otel/test_live_fields.py")
GUARD = ("tests/guard/test_guard.py", "tests/guard/test_guard_core.py", "tests/guard/test_guard_live_equals_offline.py")
HOOKS = ("tests/hooks/test_hook_command.py", "tests/hooks/test_hook_live_equals_offline.py", "tests/hooks/test_replay_sessions.py")
ROUND_1: tuple[Audited, ...] = (
    # -- readers, field by field
    _m("anthropic-cache-creation-tokens-unread", _R + "_anthropic.py",
       '"cache_creation_input_tokens")]', '"cache_creation_tokens")]',
       "a reply's tokens leave out the input tokens written to the prompt cache",
       EXPORTED, "tests/readers"),
    _m("codex-exit-code-dropped", _R + "_codex.py",
       'read["exit_code"] = metadata["exit_code"]', "pass",
       "a shell call that exits 1 reads as the same result as one that exits 0",
       ("tests/readers/test_reader_codex.py", "tests/readers/test_coding_agents.py"), "tests/readers"),
    _m("responses-assistant-messages-merged", _R + "_responses.py",
       "if self.text or self.group:\n                self.flush()\n            said",
       "if self.group:\n                self.flush()\n            said",
       "two assistant messages in a row (no call between) read as one reply",
       ("tests/readers/test_reader_openai_agents.py", *EXPORTED),
       "tests/readers"),
    _m("smolagents-nudge-only-observation-hides-error", _R + "_smolagents.py",
       "observations = observations[:observations.index(NUDGE_PREFIX)] or None",
       "observations = observations[:observations.index(NUDGE_PREFIX)]",
       "a failed step whose observations are only the guard's nudge reads with an empty result, not the error",
       EXPORTED, "tests/readers"),
    _m("langchain-ai-author-dropped", _R + "_langchain.py",
       'fields.get("usage_metadata")), fields.get("name"))', 'fields.get("usage_metadata")), None)',
       "AI messages signed by several agents (a team's chat) read as one agent's replies",
       (*EXPORTED, "tests/readers/test_group_chat.py"), "tests/readers"),
    _m("gemini-thought-text-read-as-reply", _R + "_gemini.py",
       'elif isinstance(p.get("text"), str) and not p.get("thought"):', 'elif isinstance(p.get("text"), str):',
       "a model's thought summary (a text part marked thought) is read as part of its reply",
       EXPORTED, "tests/readers"),
    _m("gemini-cli-thought-tokens-dropped", _R + "_gemini_cli.py",
       "None if output is None else output + (thoughts or 0.0))", "output)",
       "a Gemini CLI reply's tokens leave out its thinking tokens",
       ("tests/readers/test_reader_gemini_cli.py", "tests/readers/test_coding_agents.py"), "tests/readers"),
    _m("claude-code-first-line-usage-kept", _R + "_claude_code.py",
       "entry[2] = used or entry[2]", "entry[2] = entry[2] or used",
       "a reply written over several lines counts the first line's usage, not the last (final) one",
       ("tests/readers/test_reader_claude_code.py", "tests/readers/test_coding_agents.py"), "tests/readers"),
    _m("claude-code-sub-agent-before-its-call-result", _R + "_claude_code.py",
       "order = [(_after_result(main.entries, at), agent) for at, agent in order]",
       "order = [(at, agent) for at, agent in order]",
       "a sub-agent's steps stand between the Task call and its result instead of after the result",
       ("tests/readers/test_reader_claude_code.py", "tests/readers/test_coding_agents.py"), "tests/readers"),
    _m("chat-cost-beside-usage-dropped", _R + "_chat.py",
       '"cost": beside if cost is None else cost}', '"cost": cost}',
       "a reply's cost written beside its usage (tau2-bench) is lost when the usage has none",
       ("tests/readers/test_reader_chat.py", "tests/readers/test_conformance_chat.py"), "tests/readers"),
    _m("chat-first-user-prompt-not-declared", _R + "_chat.py",
       'if role != "user" or first_user:', 'if role != "user":',
       "actions declared in the first user prompt (no system prompt) are not read as actions",
       ("tests/readers/test_reader_chat.py", "tests/readers/test_conformance_chat.py"), "tests/readers"),
    _m("atif-unreferenced-sub-agent-at-the-root", _R + "_atif.py",
       "    for sub in embedded.values():  # embedded, but no result refers to it\n"
       "        _steps(converted, sub, span)",
       "    for sub in embedded.values():  # embedded, but no result refers to it\n"
       "        _steps(converted, sub, -1)",
       "an embedded sub-agent no result refers to is read as a second root agent, not under its parent",
       ("tests/readers/test_reader_atif.py", "tests/readers/test_coding_agents.py"), "tests/readers"),
    _m("langfuse-calculated-cost-dropped", _R + "_langfuse.py",
       'cost = raw.get("totalCost", raw.get("calculatedTotalCost"))', 'cost = raw.get("totalCost")',
       "a generation whose cost Langfuse calculated (calculatedTotalCost) has no cost",
       ("tests/readers/test_reader_platforms.py", "tests/readers/test_conformance_platforms.py"), "tests/readers"),
    _m("langsmith-tool-output-wrapper-kept", _R + "_langsmith.py",
       'if isinstance(outputs, Mapping) and set(outputs) == {"output"}:', "if False:",
       "a tool's return value is read wrapped in LangSmith's {\"output\": ...}",
       ("tests/readers/test_reader_platforms.py", "tests/readers/test_conformance_platforms.py"), "tests/readers"),
    # -- the OpenTelemetry span processor
    _m("otel-repeated-call-one-late", "loopmetric/otel/_processor.py",
       "repeated_call_threshold=min(2 * settings.repeated_call_threshold - 1, window)",
       "repeated_call_threshold=min(2 * settings.repeated_call_threshold, window)",
       "live alarms a repeated call one call later than the offline severe rung",
       OTEL, "tests/otel"),
    _m("otel-loop-span-under-the-completing-span", "loopmetric/otel/_processor.py",
       "under = window.parent if window is not None and window.parent is not None else context",
       "under = context",
       "the loop span hangs under the tool span that completed the loop, not beside it under its parent",
       OTEL, "tests/otel"),
    _m("otel-trace-end-not-checked", "loopmetric/otel/_processor.py",
       "found = found or window.finish()", "found = found",
       "calls still waiting when the trace ends are never checked: a loop they complete is missed live",
       OTEL, "tests/otel"),
    _m("otel-tool-name-not-cleaned", "loopmetric/otel/_adapter.py",
       'name = clean_tool_name(node.get("name")) or kind', 'name = node.get("name") or kind',
       "live, a tool span named `Function tool: search` is another tool than offline's `search`",
       OTEL, "tests/otel"),
    _m("otel-bare-value-request-not-matched", "loopmetric/otel/_window.py",
       'and bare_value_of(args, self.asked.get(id(c), "{}"))), None)', "and False), None)",
       "live, a tool span that ran the bare value of the requested arguments is not merged as offline merges it",
       OTEL, "tests/otel"),
    _m("otel-zero-cost-counted", "loopmetric/otel/_window.py",
       "if reply.cost:  # as offline", "if reply.cost is not None:  # as offline",
       "live findings report a cost of 0.0 where offline reports none",
       OTEL, "tests/otel"),
    # -- the framework guards
    _m("pydantic-guard-retry-not-a-result", "loopmetric/guard/_pydantic.py",
       "if isinstance(part, ToolReturnPart) or (isinstance(part, RetryPromptPart) and part.tool_name):",
       "if isinstance(part, ToolReturnPart):",
       "DetectLoops never sees a tool's retry prompt as its result: the same validation error repeated passes",
       GUARD, "tests/guard"),
    _m("guard-same-name-results-swapped", "loopmetric/guard/_record.py",
       "calls.pop(0).result = key", "calls.pop().result = key",
       "two calls of one tool sharing an id in one response get each other's results",
       GUARD, "tests/guard"),
    _m("guard-pending-call-breaks-a-run", "loopmetric/guard/_checks.py",
       "if call.consumed or call.pending:  # a result still to come", "if call.consumed:  # a result still to come",
       "a call whose result is still to come breaks a run of the same result",
       GUARD, "tests/guard"),
    _m("langchain-guard-error-flag-dropped", "loopmetric/guard/langchain.py",
       'error=message.status == "error")', "error=False)",
       "with mask_error_numbers, the LangChain middleware reads a failed tool message as a success: errors differing by a number are not one error",
       ("tests/guard/test_guard_langchain.py",), "tests/guard"),
    _m("smolagents-guard-nudge-replaces-observations", "loopmetric/guard/smolagents.py",
       'step.observations = (step.observations or "") + NUDGE_PREFIX + acted.loop.message',
       "step.observations = NUDGE_PREFIX + acted.loop.message",
       "the smolagents nudge replaces the step's observations: the model no longer sees the tool's output",
       ("tests/guard/test_guard_smolagents.py",), "tests/guard"),
    _m("agents-guard-outputs-after-an-input-missed", "loopmetric/guard/openai_agents.py",
       'while start > 0 and _get(items[start - 1], "type") == "function_call_output":',
       'while start > 1 and _get(items[start - 1], "type") == "function_call_output":',
       "the Agents SDK guard misses a call output that is the first item the model is sent",
       ("tests/guard/test_guard_openai_agents.py",), "tests/guard"),
    # -- the coding-agent hooks
    _m("hook-sub-agent-calls-mixed-with-main", "loopmetric/hooks/_claude_code.py",
       'return f"{session}.{agent}" if agent else session', "return session",
       "a sub-agent's calls and the main agent's are counted as one stream",
       HOOKS, "tests/hooks"),
    _m("hook-duration-ms-compared", "loopmetric/hooks/_claude_code.py",
       '_VOLATILE_KEYS = frozenset({"durationMs", ', "_VOLATILE_KEYS = frozenset({",
       "a tool response's durationMs makes every result new: a repeated result is never caught",
       HOOKS, "tests/hooks"),
    _m("hook-gemini-failure-read-as-success", "loopmetric/hooks/_gemini.py",
       "error=bool(failure), shown=content)", "error=False, shown=content)",
       "Gemini CLI's failed calls are recorded as successes",
       HOOKS, "tests/hooks"),
    _m("hook-result-to-any-waiting-call", "loopmetric/hooks/_session.py",
       "match = next((pair for pair in self.pending if pair[1] == tool), None)",
       "match = next(iter(self.pending), None)",
       "without call ids (Gemini CLI), a result goes to the oldest waiting call of any tool",
       HOOKS, "tests/hooks"),
    # -- the command line and the HTML report
    _m("cli-sort-waste-ignored", "loopmetric/cli/_score.py",
       'print_table(by_waste(reports) if args.sort == "waste" else reports,', "print_table(reports,",
       "`--sort waste` prints the table in file order",
       ("tests/cli/test_cli.py",), "tests/cli"),
    _m("cli-gate-exit-wins-over-unread", "loopmetric/cli/_gate.py",
       "return EXIT_USAGE if unread else EXIT_GATE if gate_failed else EXIT_OK",
       "return EXIT_GATE if gate_failed else EXIT_USAGE if unread else EXIT_OK",
       "an unreadable file with a failed gate exits 1, not 2",
       ("tests/cli/test_gate.py", "tests/cli/test_cli.py"), "tests/cli"),
    _m("html-pass-rate-leaves-out-unread", "loopmetric/html/_render.py",
       '"pass_rate": passed / total if total else None,', '"pass_rate": passed / len(rows) if rows else None,',
       "the page's pass rate leaves out the traces it could not read",
       ("tests/html/test_html_report.py",), "tests/html"),
    _m("html-worst-finding-mild-first", "loopmetric/html/_render.py",
       '{"severe": 0, "mild": 1}', '{"severe": 1, "mild": 0}',
       "the table's worst finding is a mild one when a severe one is there",
       ("tests/html/test_html_report.py",), "tests/html"),
    # -- the scorers and the deepeval metric
    _m("mlflow-worst-steps-first-only", "loopmetric/integrations/mlflow.py",
       "worst_steps=json.dumps(list(worst.steps))", "worst_steps=json.dumps(list(worst.steps)[:1])",
       "MLflow's feedback metadata names only the first step of the worst finding",
       ("tests/integrations/test_mlflow_scorer.py",), "tests/integrations"),
    _m("pydantic-evals-failed-spans-read-ok", "loopmetric/integrations/pydantic_evals.py",
       'failed = getattr(node, "status", "unset") == "error"', "failed = False",
       "a failed tool span of a pydantic-evals case is read as a success",
       ("tests/integrations/test_pydantic_evals_evaluator.py",), "tests/integrations"),
    _m("inspect-at-threshold-counted-looping", "loopmetric/integrations/inspect_ai.py",
       "return value < threshold", "return value <= threshold",
       "Inspect's loop_rate counts a sample scoring exactly the threshold (a pass) as looping",
       ("tests/integrations/test_inspect_scorer.py",), "tests/integrations"),
    _m("inspect-tool-error-flag-dropped", "loopmetric/integrations/inspect_ai.py",
       "entry.update(error=True, content=", "entry.update(content=",
       "an Inspect tool message with an error is read as a successful result",
       ("tests/integrations/test_inspect_scorer.py",), "tests/integrations"),
    _m("deepeval-strict-mode-ignored-by-is-successful", "loopmetric/metric.py",
       "self.success = self.score >= self.settings.effective_threshold",
       "self.success = self.score >= self.settings.threshold",
       "in strict mode with a threshold of 0, is_successful() passes a looping trace (its score 0.0)",
       ("tests/metric/test_metric.py", "tests/metric/test_metric_conformance.py"), "tests/metric"),
    _m("deepeval-include-reason-ignored", "loopmetric/metric.py",
       "self.reason = report.reason if self.include_reason else None", "self.reason = report.reason",
       "include_reason=False still fills the reason",
       ("tests/metric/test_metric.py", "tests/metric/test_metric_conformance.py"), "tests/metric"),
)

# The top-level test files, the "folder" of a module at the package's top (`_settings`, `_scoring`); the
# packaging test (a build and a fresh install) left out.
TOP = tuple(f"tests/test_{name}.py" for name in (
    "acceptance", "canonical", "deep_json", "engine", "gc", "integrations", "layers", "memo", "mutation_kills",
    "numbers", "patterns", "plot", "properties", "robustness", "scoring", "settings", "text_actions", "version"))
RESEARCH = "tests/readers/test_conformance_research.py"
CODING = "tests/readers/test_coding_agents.py"
PLATFORMS = ("tests/readers/test_reader_platforms.py", "tests/readers/test_conformance_platforms.py")
OTLP = ("tests/readers/test_reader_otlp.py", "tests/readers/test_conformance_otlp.py")
METRIC = ("tests/metric/test_metric.py", "tests/metric/test_metric_conformance.py")
ROUND_2: tuple[Audited, ...] = (
    # -- readers, field by field (formats round 1 did not touch, or other fields of them)
    _m("sweagent-response-not-the-reply", _R + "_sweagent.py",
       'thought = step.get("response") if isinstance(step.get("response"), str) else ""', 'thought = ""',
       "a SWE-agent step with no `thought` but a `response` reads as an empty reply",
       ("tests/readers/test_reader_sweagent.py", RESEARCH), "tests/readers"),
    _m("intercode-invalid-action-text-dropped", _R + "_intercode.py",
       'error = observation if isinstance(observation, str) and observation.strip() else "invalid action"',
       'error = "invalid action"',
       "every invalid InterCode action reads as one error text: different errors are one repeated error",
       (RESEARCH, "tests/readers/test_pinned_readers.py"), "tests/readers"),
    _m("magentic-any-speaker-answers-a-delegation", _R + "_magentic.py",
       "elif pending is not None and role.strip() == pending.name:", "elif pending is not None:",
       "in a Magentic-One log, the next message of any agent is read as the result of a delegation to another",
       (RESEARCH, "tests/readers/test_group_chat.py"), "tests/readers"),
    _m("openhands-accumulated-cost-per-reply", _R + "_openhands.py",
       "cost = total - spent[0] if total >= spent[0] else None", "cost = total",
       "each OpenHands reply costs the run's accumulated cost so far, not what it added",
       ("tests/readers/test_reader_openhands.py", CODING), "tests/readers"),
    _m("mlflow-prompt-tokens-unread", _R + "_mlflow.py",
       '"input_token_count": _number(usage, "input_tokens", "prompt_tokens"),',
       '"input_token_count": _number(usage, "input_tokens"),',
       "an MLflow model span whose token usage says `prompt_tokens` has no input tokens",
       PLATFORMS, "tests/readers"),
    _m("mlflow-exception-message-dropped", _R + "_mlflow.py",
       "return said", 'return "error"',
       "a failed MLflow tool span whose error is told only by its exception event reads as the bare text `error`",
       PLATFORMS, "tests/readers"),
    _m("otlp-openinference-cost-unread", _R + "_otlp/_semconv.py",
       'cost=_first_number(a, "operation.cost", "llm.cost.total", "gen_ai.usage.cost"),',
       'cost=_first_number(a, "operation.cost", "gen_ai.usage.cost"),',
       "an OpenInference LLM span's cost (`llm.cost.total`) is lost",
       OTLP, "tests/readers"),
    _m("otlp-exception-event-message-dropped", _R + "_otlp/_wire.py",
       'error = message if isinstance(message, str) and message else _exception_message(events) or "error"',
       'error = message if isinstance(message, str) and message else "error"',
       "a failed OTLP span with no status message reads as the bare text `error`, not its exception's message",
       OTLP, "tests/readers"),
    _m("atif-step-cost-dropped", _R + "_atif.py",
       "usage(metrics.prompt_tokens, metrics.completion_tokens, metrics.cost_usd)",
       "usage(metrics.prompt_tokens, metrics.completion_tokens, None)",
       "an ATIF agent step's `cost_usd` is lost",
       ("tests/readers/test_reader_atif.py", CODING), "tests/readers"),
    _m("codex-total-token-usage-read", _R + "_codex.py",
       'last = as_mapping(info.get("last_token_usage")) or {}', 'last = as_mapping(info.get("total_token_usage")) or {}',
       "a Codex reply's tokens are the session's running total, not the reply's own",
       ("tests/readers/test_reader_codex.py", CODING), "tests/readers"),
    _m("gemini-cli-rewritten-message-keeps-the-first", _R + "_gemini_cli.py",
       "messages[key if isinstance(key, (str, int)) else len(messages)] = m",
       "messages.setdefault(key if isinstance(key, (str, int)) else len(messages), m)",
       "a Gemini CLI message written again under its id (its calls' results filled in) reads as first written",
       ("tests/readers/test_reader_gemini_cli.py", CODING), "tests/readers"),
    _m("chat-result-id-field-not-paired", _R + "_chat.py",
       'call_id = message.get("tool_call_id", message.get("id"))', 'call_id = message.get("tool_call_id")',
       "a tool message naming its call by `id` (not `tool_call_id`) loses the call's arguments",
       ("tests/readers/test_reader_chat.py", "tests/readers/test_conformance_chat.py"), "tests/readers"),
    _m("openai-agents-error-data-dropped", _R + "_openai_agents.py",
       'return _text(data.get("error")) or _text(m.get("message")) or "error"',
       'return _text(m.get("message")) or "error"',
       "a failed Agents SDK function span reads as the SDK's generic message, not the tool's error text",
       ("tests/readers/test_reader_openai_agents.py", "tests/readers/test_conformance_openai_agents.py"),
       "tests/readers"),
    # -- the live side: the guard core, the coding-agent hooks, the span processor
    _m("guard-nudged-call-still-awaits-a-result", "loopmetric/guard/_core.py",
       "record.awaiting.remove(call)", "pass",
       "a call the guard nudged (it will not run) takes the result of the next call made",
       GUARD, "tests/guard"),
    _m("guard-nudges-forgotten-between-processes", "loopmetric/guard/_core.py",
       "        if self._nudged:\n", "        if False:\n",
       "a guard read back from its state (the command hooks) has forgotten its nudges: it nudges, never stops",
       GUARD, "tests/guard"),
    _m("hook-stopped-loop-not-refused-again", "loopmetric/hooks/_session.py",
       'if self.settings.action == "stop" and call_fingerprint(tool, args) in self.stopped:', "if False:",
       "with action stop, the call of a loop already stopped is let through the next time",
       HOOKS, "tests/hooks"),
    _m("hook-failure-nudge-as-block", "loopmetric/hooks/_claude_code.py",
       'if name == "PostToolUseFailure":', "if False:",
       "after a failed call (PostToolUseFailure), Claude Code gets `decision: block`, not additionalContext",
       HOOKS, "tests/hooks"),
    _m("hook-fails-open-on-value-errors-only", "loopmetric/hooks/_command.py",
       "except BaseException as error:", "except ValueError as error:",
       "a hook that cannot write its state (or any error but a ValueError) crashes instead of exiting 0",
       HOOKS, "tests/hooks"),
    _m("otel-remote-parent-root-never-finishes", "loopmetric/otel/_processor.py",
       "root = parent is None or parent.is_remote", "root = parent is None",
       "a trace continued from another service (its root's parent remote) is never finished: held until idle",
       OTEL, "tests/otel"),
    _m("otel-loop-span-failure-raises", "loopmetric/otel/_processor.py",
       'self._failed("emit", error)', "raise",
       "a loop span that cannot be emitted raises into the instrumented program, and on_loop is not called",
       OTEL, "tests/otel"),
    _m("otel-loop-span-tokens-dropped", "loopmetric/otel/_processor.py",
       'attributes["loopmetric.tokens"] = finding.tokens', "pass",
       "the loop span has no `loopmetric.tokens` attribute",
       OTEL, "tests/otel"),
    # -- the frontends
    _m("explain-failed-call-shown-as-result", "loopmetric/cli/_explain.py",
       'got = "error" if step.error else "result"', 'got = "result"',
       "`explain` shows a failed call's error as a result",
       ("tests/cli/test_cli_explain.py", "tests/cli/test_cli.py"), "tests/cli"),
    _m("junit-skipped-files-not-counted", "loopmetric/cli/_output.py",
       'tests="{len(reports) + len(errors) + len(skipped)}"', 'tests="{len(reports) + len(errors)}"',
       "the JUnit report's `tests` leaves out its skipped test cases",
       ("tests/cli/test_cli.py",), "tests/cli"),
    _m("html-failing-counts-passing-traces", "loopmetric/html/_render.py",
       'failing = Counter(f["pattern"] for r in rows if not r["success"] for f in r["findings"])',
       'failing = Counter(f["pattern"] for r in rows for f in r["findings"])',
       "the page's per-pattern `failing` count counts the findings of traces that pass",
       ("tests/html/test_html_report.py",), "tests/html"),
    _m("spark-unread-row-success-null", "loopmetric/spark/_score.py",
       "return (None, False, None, None, None, None, None, None, _utf8(message))",
       "return (None, None, None, None, None, None, None, None, _utf8(message))",
       "a Spark row whose trace cannot be read has `loop_success` null, not False",
       ("tests/spark/test_spark_batches.py", "tests/spark/test_spark.py"), "tests/spark"),
    _m("deepeval-type-error-raises", "loopmetric/metric.py",
       "except (TraceReadError, TypeError) as error:  # never a silent pass",
       "except TraceReadError as error:  # never a silent pass",
       "measure() on a trace of the wrong type raises instead of failing with the reason",
       METRIC, "tests/metric"),
    _m("settings-alias-error-names-the-field", "loopmetric/_settings.py",
       "message = message.replace(ALIASES[alias], alias)", "message = message",
       "a wrong `repetition_threshold` is reported as a wrong `repeated_call_threshold`, a name the user never wrote",
       ("tests/test_settings.py",), TOP),
    _m("settings-alternating-fits-one-call-per-repeat", "loopmetric/_settings.py",
       '("alternating_calls_threshold", self.alternating_calls_threshold, 2,',
       '("alternating_calls_threshold", self.alternating_calls_threshold, 1,',
       "an alternating_calls_threshold whose repeats cannot fit in the window is accepted",
       ("tests/test_settings.py",), TOP),
    # -- the score
    _m("scoring-geometric-not-renormalised", "loopmetric/_scoring.py",
       "value = math.exp(sum(WEIGHTS[s] * math.log(scores[s]) for s in signals) / total)",
       "value = math.exp(sum(WEIGHTS[s] * math.log(scores[s]) for s in signals))",
       "with a signal turned off, a mild finding scores higher than the weighted mean of the signals left",
       ("tests/test_scoring.py",), TOP),
    _m("scoring-reason-in-found-order", "loopmetric/_scoring.py",
       "ordered = sorted(findings, key=lambda f: worst_first(f.severity, f.steps))", "ordered = findings",
       "the reason names the findings in the order found, not severe first",
       ("tests/test_scoring.py",), TOP),
)
DETECTORS = ("tests/detectors/test_detectors.py", "tests/detectors/test_pinned_detectors.py")
EXPLAIN = ("tests/cli/test_cli_explain.py", "tests/cli/test_cli.py")
CLAUDE_CODE = ("tests/readers/test_reader_claude_code.py", CODING)
ROUND_3: tuple[Audited, ...] = (
    # -- the detectors as a user sees them (none of rounds 1 and 2 aimed at them)
    _m("cycles-poll-and-sleep-reported", "loopmetric/detectors/_cycles.py",
       "            if _polls(calls, start, period, length):", "            if False:",
       "a status poll and a sleep taken in turns while the status changes is reported as a cycle",
       DETECTORS, "tests/detectors"),
    _m("cycles-count-leaves-out-the-last-round", "loopmetric/detectors/_cycles.py",
       "count=length // period + (1 if length % period else 0),", "count=length // period,",
       "a cycle A-B-A-B-A (A made a third time) counts 2 rounds, not 3",
       DETECTORS, "tests/detectors"),
    _m("revisits-long-stretch-excused-as-a-detour", "loopmetric/detectors/_revisits.py",
       "if len(stretch) <= _DETOUR * threshold and any(states[stretch[-1] + 1:]):",
       "if any(states[stretch[-1] + 1:]):",
       "a stretch of revisits longer than three times the threshold is excused once the run reaches a new state",
       ("tests/detectors/test_revisit_walks.py", *DETECTORS), "tests/detectors"),
    _m("rejections-retry-prompt-said-as-same-input", "loopmetric/detectors/_rejections.py",
       'how = "a retry prompt" if retried else "the same input"', 'how = "the same input"',
       "a reply rejected by retry prompts is said to be rejected by `the same input`",
       ("tests/detectors/test_rejected_feedback.py", "tests/detectors/test_rejections_by_progress.py",
        "tests/detectors/test_pinned_detectors.py"), "tests/detectors"),
    _m("facts-full-stop-kept", "loopmetric/detectors/_facts.py",
       'frozenset(fact.rstrip(".") for fact in', "frozenset(fact for fact in",
       "a code that ends a sentence (`ZX91Q.`) is another fact than the same code mid-sentence: a restatement reads as news",
       ("tests/detectors/test_facts.py",), "tests/detectors"),
    # -- the masking of volatile text
    _m("mask-ids-product-code-masked", "loopmetric/_canonical.py",
       "generated = _HEX_ID.fullmatch(token) is not None or (not token.isupper() and not token.islower())",
       "generated = True",
       "with mask_error_numbers, errors naming two product codes in capitals (B09S5ZZ4MC) read as one error",
       ("tests/test_canonical.py",), TOP),
    _m("volatile-nonce-key-kept", "loopmetric/_canonical.py",
       '"latency_ms|took|took_ms|system_fingerprint|etag|nonce"', '"latency_ms|took|took_ms|system_fingerprint|etag"',
       "two calls whose JSON arguments differ only in a `nonce` field are two different calls",
       ("tests/test_canonical.py",), TOP),
    _m("repeated-result-message-hides-masking", "loopmetric/detectors/_obvious.py",
       'masked = " except for ids, clocks or counters" if len({calls[i].outcome for i in run}) > 1 else ""',
       'masked = ""',
       "a repeated result that differed only in ids or clocks is said to be the same result, without saying so",
       ("tests/detectors/test_obvious_loops.py", "tests/detectors/test_detectors.py"), "tests/detectors"),
    # -- the framework guards' adapters and guard-replay
    _m("smolagents-guard-second-run-continues-the-first", "loopmetric/guard/smolagents.py",
       "if guard is None or step.step_number == 1:", "if guard is None:",
       "a second run of one smolagents agent counts the calls of the first: a call made once in each is nudged",
       ("tests/guard/test_guard_smolagents.py",), "tests/guard"),
    _m("agents-guard-without-hooks-passes", "loopmetric/guard/openai_agents.py",
       "if not run.hooked:", "if False:",
       "a protected Agents SDK tool run without the guard's hooks lets every call through silently",
       ("tests/guard/test_guard_openai_agents.py",), "tests/guard"),
    _m("agents-guard-output-info-first-tool-only", "loopmetric/guard/openai_agents.py",
       'info = {"pattern": loop.pattern, "tool_names": list(loop.tool_names), "count": loop.count,',
       'info = {"pattern": loop.pattern, "tool_names": list(loop.tool_names)[:1], "count": loop.count,',
       "the Agents SDK guardrail's output_info names only the first tool of a cycle",
       ("tests/guard/test_guard_openai_agents.py",), "tests/guard"),
    _m("langchain-guard-stop-message-unprefixed", "loopmetric/guard/langchain.py",
       'out.append(AIMessage(f"Stopped: {decision.message}"', "out.append(AIMessage(decision.message",
       "the LangChain run stopped by the guard ends on the nudge's words, not `Stopped: ...`",
       ("tests/guard/test_guard_langchain.py",), "tests/guard"),
    _m("langchain-guard-nudge-a-success", "loopmetric/guard/langchain.py",
       'status="error",', 'status="success",',
       "the ToolMessage answering a call the LangChain guard did not run reads as the tool's success",
       ("tests/guard/test_guard_langchain.py",), "tests/guard"),
    _m("guard-replay-runs-joined", "loopmetric/guard/_replay.py",
       "if message_run is not None and message_run != run_id and run_id is not None:", "if False:",
       "a history continued over several runs is replayed as one run: a call made once per run is a loop",
       ("tests/guard/test_guard_replay.py",), "tests/guard"),
    # -- the scorers inside MLflow, pydantic-evals and Inspect
    _m("mlflow-unread-trace-metadata-success", "loopmetric/integrations/mlflow.py",
       'metadata={"score": "0.0", "success": "false",', 'metadata={"score": "0.0", "success": "true",',
       "the feedback on an MLflow trace that cannot be read says success `true` in its metadata",
       ("tests/integrations/test_mlflow_scorer.py",), "tests/integrations"),
    _m("pydantic-evals-named-assertion-is-no-loops", "loopmetric/integrations/pydantic_evals.py",
       '"no_loops" if self.evaluation_name is None else f"{name}_pass"', '"no_loops"',
       "two LoopEvaluators given their own names both write their verdict to one `no_loops` column",
       ("tests/integrations/test_pydantic_evals_evaluator.py",), "tests/integrations"),
    _m("pydantic-evals-no-genai-spans-unsaid", "loopmetric/integrations/pydantic_evals.py",
       "if report.tool_calls == 0 and report.llm_outputs == 0:", "if False:",
       "a case whose spans hold no tool call or LLM output passes clean without saying none was seen",
       ("tests/integrations/test_pydantic_evals_evaluator.py",), "tests/integrations"),
    _m("inspect-patterns-listed-per-finding", "loopmetric/integrations/inspect_ai.py",
       '"patterns": sorted({f.pattern for f in report.findings}),', '"patterns": [f.pattern for f in report.findings],',
       "Inspect's score metadata lists a pattern once per finding, in the order found",
       ("tests/integrations/test_inspect_scorer.py",), "tests/integrations"),
    _m("inspect-unread-sample-unexplained", "loopmetric/integrations/inspect_ai.py",
       "return Score(value=0.0, explanation=str(error),", "return Score(value=0.0, explanation=None,",
       "an Inspect sample that cannot be read scores 0.0 without an explanation",
       ("tests/integrations/test_inspect_scorer.py",), "tests/integrations"),
    # -- readers neither round touched there
    _m("langsmith-llm-cost-dropped", _R + "_langsmith.py",
       'run.get("total_cost")', "None",
       "a LangSmith LLM run's `total_cost` is lost",
       PLATFORMS, "tests/readers"),
    _m("langsmith-child-runs-in-listed-order", _R + "_langsmith.py",
       "kids.sort(key=lambda c: _order(c, 0))", "kids.sort(key=lambda c: 0)",
       "a LangSmith run's child runs listed out of order are read in the listed order, not by dotted_order",
       PLATFORMS, "tests/readers"),
    _m("langfuse-failed-tool-status-message-dropped", _R + "_langfuse.py",
       'error = (message if isinstance(message, str) and message else "error") if failed else None',
       'error = "error" if failed else None',
       "every failed Langfuse tool observation reads as the bare text `error`: different errors are one",
       PLATFORMS, "tests/readers"),
    _m("claude-code-meta-lines-read-as-the-user", _R + "_claude_code.py",
       'if line.get("isMeta") is True:', "if False:",
       "Claude Code's meta lines (notices written as the user) read as the user's turns",
       CLAUDE_CODE, "tests/readers"),
    _m("claude-code-result-line-cost-unsaid", _R + "_claude_code.py",
       'if kind == "result" and isinstance(cost, (int, float)) and not isinstance(cost, bool):', "if False:",
       "the total cost a Claude Code result line records is not said in the trace's notes",
       CLAUDE_CODE, "tests/readers"),
    _m("stream-number-cut-at-a-chunk", _R + "_stream.py",
       "if type(value) in (int, float) and len(self.text) - end < _NUMBER_LOOKAHEAD and self._more():",
       "if False:",
       "in a big JSON file, a number cut by the end of a chunk is read as its first digits",
       ("tests/readers/test_stream.py",), "tests/readers"),
    # -- the report and `explain`
    _m("report-worst-is-the-first-found", "loopmetric/_report.py",
       "return min(self.findings, key=lambda f: worst_first(f.severity, f.steps))", "return self.findings[0]",
       "a report's worst finding is the first found, a mild one before a severe one",
       ("tests/test_scoring.py", "tests/test_engine.py"), TOP),
    _m("explain-inferred-why-hidden", "loopmetric/cli/_explain.py",
       'if step.kind != "llm" and step.inferred:', "if False:",
       "`explain` no longer says why an input or a result was inferred",
       EXPLAIN, "tests/cli"),
    _m("explain-clean-trace-reason-hidden", "loopmetric/cli/_explain.py",
       "    if not report.findings:\n        shown.print(report.reason", "    if False:\n        shown.print(report.reason",
       "`explain` on a trace without loops prints no reason after the timeline",
       EXPLAIN, "tests/cli"),
    _m("explain-untold-turns-unsaid", "loopmetric/cli/_explain.py",
       'if not getattr(trace, "turns_recorded", True):', "if False:",
       "`explain` on a format that records no inputs does not say turns of the other side may lie unseen",
       EXPLAIN, "tests/cli"),
    _m("explain-no-text-reply-calls-uncounted", "loopmetric/cli/_explain.py",
       """return f"(no text; asked for {count(asked, 'tool call')})" if asked else "(no text)\"""",
       'return "(no text)"',
       "`explain` shows a reply that only asked for tools as `(no text)`, not how many calls it asked for",
       EXPLAIN, "tests/cli"),
)
PYDANTIC_AI = ("tests/readers/test_reader_pydantic_ai.py", "tests/readers/test_conformance_pydantic_ai.py")
SPARK = ("tests/spark/test_spark_batches.py", "tests/spark/test_spark.py")
ROUND_4: tuple[Audited, ...] = (
    # -- what `explain` prints and the reason's step lists
    _m("findings-six-steps-listed-with-an-ellipsis", "loopmetric/_findings.py",
       "if len(ordered) > shown:", "if len(ordered) >= shown:",
       "a reason naming six steps lists the first four and the last (`1, 2, 3, 4, ... and 6`), not all six",
       ("tests/test_scoring.py", "tests/test_engine.py"), TOP),
    _m("explain-marks-numbered-from-zero", "loopmetric/cli/_explain.py",
       "for index, finding in enumerate(report.findings, 1):\n        for step in finding.steps:",
       "for index, finding in enumerate(report.findings, 0):\n        for step in finding.steps:",
       "`explain` marks a loop's steps `#0 ...` while the finding below the timeline is `#1`",
       EXPLAIN, "tests/cli"),
    _m("explain-meaning-once-per-finding", "loopmetric/cli/_explain.py",
       "for pattern in dict.fromkeys(finding.pattern for finding in report.findings):",
       "for pattern in [finding.pattern for finding in report.findings]:",
       "`explain` prints a pattern's meaning once per finding of it, not once",
       EXPLAIN, "tests/cli"),
    _m("explain-only-skipped-files-exit-ok", "loopmetric/cli/_explain.py",
       "if skipped and not shown_any:", "if False:",
       "`explain` on a folder holding no trace (every file skipped) exits 0 having shown nothing",
       EXPLAIN, "tests/cli"),
    # -- the command line: the gate, its flag, its options
    _m("gate-share-equal-to-fail-under-fails", "loopmetric/cli/_gate.py",
       "if passed / total >= fail_under:", "if passed / total > fail_under:",
       "`--fail-under 0.5` fails a run where exactly half the traces pass",
       ("tests/cli/test_gate.py", "tests/cli/test_cli.py"), "tests/cli"),
    _m("gate-names-ten-and-zero-more", "loopmetric/cli/_gate.py",
       'if total > at_most else "")', 'if total >= at_most else "")',
       "the failed gate's line names ten traces below the threshold and says `and 0 more`",
       ("tests/cli/test_gate.py", "tests/cli/test_cli.py"), "tests/cli"),
    _m("fail-under-not-a-number-is-zero", "loopmetric/cli/_args.py",
       "        value = math.nan\n", "        value = 0.0\n",
       "`--fail-under abc` is taken as 0 (a gate that always holds), not a usage error",
       ("tests/cli/test_args.py", "tests/cli/test_cli.py"), "tests/cli"),
    _m("cli-unknown-flag-after-subcommand-ignored", "loopmetric/cli/__init__.py",
       "if unknown:  # a wrong flag", "if False:  # a wrong flag",
       "a misspelt flag after a subcommand (`score runs/ --fail-undr 0.9`) is ignored: the run goes on, exit 0",
       ("tests/cli/test_cli.py", "tests/cli/test_cli_usage.py"), "tests/cli"),
    # -- the HTML report
    _m("html-worst-steps-range-ends-at-the-second", "loopmetric/html/_render.py",
       'where = f" (steps {steps[0]}-{steps[-1]})"', 'where = f" (steps {steps[0]}-{steps[1]})"',
       "the HTML table's worst finding spans `steps 5-6` for a loop over steps 5 to 10",
       ("tests/html/test_html_report.py",), "tests/html"),
    _m("html-failed-call-content-unmarked", "loopmetric/html/_render.py",
       "return f\"{step.name}({step.args}) -> {'error: ' if step.error else ''}{outcome}\"",
       'return f"{step.name}({step.args}) -> {outcome}"',
       "a finding's repeated content shows a failed call's error as if it were its result",
       ("tests/html/test_html_report.py",), "tests/html"),
    _m("html-changed-settings-unmarked", "loopmetric/html/_render.py",
       "getattr(settings, f.name) != getattr(defaults, f.name))", "False)",
       "the page's settings table marks no setting as changed from its default",
       ("tests/html/test_html_report.py",), "tests/html"),
    # -- LoopSettings' checks
    _m("settings-threshold-equal-to-window-rejected", "loopmetric/_settings.py",
       "if value is not None and value * calls_per_repeat > window:",
       "if value is not None and value * calls_per_repeat >= window:",
       "a threshold that exactly fills the window (repeated_call_threshold=6, window=6) is rejected",
       ("tests/test_settings.py",), TOP),
    _m("settings-strict-mode-string-accepted", "loopmetric/_settings.py",
       '"check_call_graph_cycles", "strict_mode", "semantic"):', '"check_call_graph_cycles", "semantic"):',
       "strict_mode=\"false\" (a string) is accepted and turns strict mode on",
       ("tests/test_settings.py",), TOP),
    _m("settings-from-kwargs-refuses-the-alias", "loopmetric/_settings.py",
       "known = {f.name for f in fields(cls)} | set(aliases or ())", "known = {f.name for f in fields(cls)}",
       "LoopSettings.from_kwargs(repetition_threshold=4) (deepeval's name) is refused as unknown",
       ("tests/test_settings.py",), TOP),
    # -- the deepeval drop-in
    _m("deepeval-no-trace-breakdown-empty", "loopmetric/metric.py",
       "self.score_breakdown = dict(report.score_breakdown) if report.has_trace else None",
       "self.score_breakdown = dict(report.score_breakdown)",
       "a test case without a trace leaves score_breakdown `{}` (all signals silently absent), not None",
       METRIC, "tests/metric"),
    _m("deepeval-error-ignored-by-is-successful", "loopmetric/metric.py",
       "if self.error is not None or self.score is None:", "if self.score is None:",
       "is_successful() passes a metric deepeval marked with an error, when its last score passed",
       METRIC, "tests/metric"),
    _m("deepeval-shared-instance-warned-on-one-span", "loopmetric/metric.py",
       "if self._component_spans == 2:", "if self._component_spans == 1:",
       "the warning about one instance shared across spans is given when only one span was measured",
       (*METRIC, "tests/metric/test_metric_component_level.py"), "tests/metric"),
    _m("deepeval-verbose-logs-threshold-unsaid", "loopmetric/metric.py",
       'steps.append(f"Score: {report.score} (threshold {report.threshold})")',
       'steps.append(f"Score: {report.score}")',
       "verbose_mode's logs give the score without the threshold it was judged by",
       METRIC, "tests/metric"),
    # -- the pydantic-ai guard (DetectLoops) and the guard's record
    _m("detect-loops-escalate-nudges-again", "loopmetric/guard/_capability.py",
       'action = "nudge" if self._guard.action_for(loop) == "nudge" else ("error" if action == "nudge" else action)',
       'action = "nudge" if self._guard.action_for(loop) == "nudge" else action',
       "DetectLoops(escalate=True) nudges a loop that goes on after its nudge again, never stopping the run",
       GUARD, "tests/guard"),
    _m("detect-loops-stop-action-accepted", "loopmetric/guard/_capability.py",
       'if not (action in ("nudge", "error") if isinstance(action, str) else callable(action)):',
       'if not (action in ("nudge", "error", "stop") if isinstance(action, str) else callable(action)):',
       "DetectLoops(action='stop') is accepted when built and fails deep inside at the first loop",
       GUARD, "tests/guard"),
    _m("guard-success-numbers-masked", "loopmetric/guard/_record.py",
       "if settings.mask_error_numbers and outcome in _ERROR_OUTCOMES:", "if settings.mask_error_numbers:",
       "with mask_error_numbers, successful results differing only in a number are one repeated result",
       GUARD, "tests/guard"),
    _m("guard-text-streak-survives-a-call", "loopmetric/guard/_record.py",
       "            self.calls.extend(calls)\n            self.text, self.text_count = None, 0\n",
       "            self.calls.extend(calls)\n",
       "a response that calls a tool does not break a streak of identical text replies: they are counted across it",
       GUARD, "tests/guard"),
    # -- the coding-agent hooks
    _m("hook-nudge-promises-a-refusal-under-nudge", "loopmetric/hooks/_session.py",
       'if self.settings.action == "stop" else "")', 'if self.settings.action != "log" else "")',
       "with action nudge, the hook's nudge says the next such call will be refused (it never is)",
       HOOKS, "tests/hooks"),
    _m("hook-summary-last-three-of-three", "loopmetric/hooks/_session.py",
       'if counts["loops"] > 3 else f" ({shown})"', 'if counts["loops"] >= 3 else f" ({shown})"',
       "the session summary of exactly three loops says `(last 3: ...)` as if there were more",
       HOOKS, "tests/hooks"),
    _m("hook-action-flag-ignored", "loopmetric/hooks/_command.py",
       "    if action is not None:\n        settings = replace(", "    if False:\n        settings = replace(",
       "`loopmetric hook claude-code --action stop` acts as the config file says, not as the flag says",
       HOOKS, "tests/hooks"),
    _m("hook-end-event-unanswered", "loopmetric/hooks/_command.py",
       "if name not in tool_events and name not in end_events:", "if name not in tool_events:",
       "at the session's end (Stop, SessionEnd) the hook prints no summary of its loops",
       HOOKS, "tests/hooks"),
    # -- Spark scoring
    _m("spark-rescoring-a-scored-frame-unsaid", "loopmetric/spark/_score.py",
       "taken = [name for name in LOOP_COLUMNS if name in schema.fieldNames()]", "taken = []",
       "score_traces on a DataFrame already scored is not refused with what to do",
       SPARK, "tests/spark"),
    _m("spark-struct-null-fields-kept", "loopmetric/spark/_score.py",
       "for key in [key for key, field in item.items() if field is None]:", "for key in []:",
       "a struct column's row is scored with the null fields Spark's schema gave it, not as its JSON",
       SPARK, "tests/spark"),
    # -- a detector's words and a reader's fields
    _m("repeated-call-some-results-missing-said-none", "loopmetric/detectors/_tool_calls.py",
       "if outcomes == {None}:", "if None in outcomes:",
       "a repeated call of which one has no result says `No call recorded a result`",
       DETECTORS, "tests/detectors"),
    _m("pydantic-ai-denied-return-read-as-success", _R + "_pydantic_ai.py",
       '_ERROR_OUTCOMES = frozenset({"failed", "retried", "error", "denied"})',
       '_ERROR_OUTCOMES = frozenset({"failed", "retried", "error"})',
       "a pydantic-ai tool return whose outcome is `denied` reads as the tool's successful result",
       PYDANTIC_AI, "tests/readers"),
)
OPENHANDS = ("tests/readers/test_reader_openhands.py", CODING)
AGENTS_READER = ("tests/readers/test_reader_openai_agents.py", "tests/readers/test_conformance_openai_agents.py")
ROUND_5: tuple[Audited, ...] = (
    # -- readers no round touched there, field by field
    _m("codex-shell-output-read-with-its-duration", _R + "_codex.py",
       "reader.add(_unwrapped(payload))", "reader.add(payload)",
       "a Codex shell call's output is read as Codex's JSON wrapper, its duration in it: the same output twice is two results",
       ("tests/readers/test_reader_codex.py", CODING), "tests/readers"),
    _m("openhands-error-observation-read-as-success", _R + "_openhands.py",
       'error=observation == "error")', "error=False)",
       "an OpenHands `error` observation reads as the action's successful result",
       OPENHANDS, "tests/readers"),
    _m("gemini-cli-cancelled-call-read-as-success", _R + "_gemini_cli.py",
       '_FAILED = frozenset({"error", "cancelled"})', '_FAILED = frozenset({"error"})',
       "a Gemini CLI tool call the user cancelled reads as a successful call",
       ("tests/readers/test_reader_gemini_cli.py", CODING), "tests/readers"),
    _m("openai-agents-no-arguments-unsaid", _R + "_openai_agents.py",
       "if blind.get(trace_id):", "if False:",
       "Agents SDK function spans traced without their arguments are told apart by name only, and the notes do not say so",
       AGENTS_READER, "tests/readers"),
    _m("mlflow-trace-name-tag-ignored", _R + "_mlflow.py",
       'if isinstance(tags, Mapping) and isinstance(tags.get("mlflow.traceName"), str):', "if False:",
       "an MLflow trace is named by its root span, not the `mlflow.traceName` tag MLflow names it by",
       PLATFORMS, "tests/readers"),
    _m("langfuse-every-trace-named-the-file", _R + "_langfuse.py",
       'label = name if len(groups) == 1 else ""', "label = name",
       "each of several Langfuse traces in one file gets the file's name: the rows cannot be told apart",
       PLATFORMS, "tests/readers"),
    # -- the OpenTelemetry span processor's live decisions
    _m("otel-own-loop-spans-counted", "loopmetric/otel/_processor.py",
       "if scope is not None and scope.name == SCOPE:", "if False:",
       "the processor reads its own `loopmetric.loop` spans: `stats.spans` counts them",
       OTEL, "tests/otel"),
    _m("otel-on-loop-error-raises", "loopmetric/otel/_processor.py",
       'self._failed("on_loop", error)', "raise",
       "an `on_loop` callback that raises breaks the instrumented program instead of being logged and counted",
       OTEL, "tests/otel"),
    _m("otel-evicts-the-newest-trace", "loopmetric/otel/_processor.py",
       "self._traces.popitem(last=False)", "self._traces.popitem()",
       "beyond `max_traces`, the trace fed last is forgotten, not the one left longest: a live loop is missed",
       OTEL, "tests/otel"),
    _m("otel-failure-logged-every-time", "loopmetric/otel/_processor.py",
       "first = what not in self._logged", "first = True",
       "a failure inside the processor is logged at every span, not once",
       OTEL, "tests/otel"),
    _m("otel-zero-idle-seconds-accepted", "loopmetric/otel/_processor.py",
       "or not max_idle_seconds > 0):", "or max_idle_seconds < 0):",
       "`max_idle_seconds=0` is accepted: every trace is forgotten at once, no loop ever found",
       OTEL, "tests/otel"),
    # -- the framework guards' adapters
    _m("agents-guard-runs-share-one-record", "loopmetric/guard/openai_agents.py",
       "run = self._runs[id(usage)] = _Run(self._guard.fresh())", "run = self._runs[id(usage)] = _Run(self._guard)",
       "two runs of one AgentsLoopGuard count each other's calls: a call made once in each is nudged",
       ("tests/guard/test_guard_openai_agents.py",), "tests/guard"),
    _m("smolagents-guard-nudge-interrupts", "loopmetric/guard/smolagents.py",
       'if acted.action == "stop" and agent is not None:', "if agent is not None:",
       "with action nudge, the smolagents callback interrupts the agent instead of nudging it",
       ("tests/guard/test_guard_smolagents.py",), "tests/guard"),
    _m("smolagents-guard-agents-share-one-record", "loopmetric/guard/smolagents.py",
       "key = self if agent is None else agent", "key = self",
       "two agents served by one callback count each other's calls",
       ("tests/guard/test_guard_smolagents.py",), "tests/guard"),
    _m("langchain-guard-stop-raises", "loopmetric/guard/langchain.py",
       'and self.action == "error":', 'and self.action != "nudge":',
       "LoopGuardMiddleware(action='stop') raises LoopGuardError instead of ending the run with a message",
       ("tests/guard/test_guard_langchain.py",), "tests/guard"),
    _m("langchain-replay-reads-the-guards-messages", "loopmetric/guard/langchain.py",
       'if (message.response_metadata or {}).get("loopmetric"):', "if False:",
       "replaying a LangChain run the guard nudged counts the guard's own nudges as the tools' results",
       ("tests/guard/test_guard_langchain.py",), "tests/guard"),
    # -- the scorers inside MLflow, pydantic-evals and Inspect
    _m("mlflow-unread-pass-fail-yes", "loopmetric/integrations/mlflow.py",
       'value=0.0 if value == "score" else CategoricalRating.NO, rationale=rationale',
       'value=0.0 if value == "score" else CategoricalRating.YES, rationale=rationale',
       "LoopScorer(value='pass_fail') answers `yes` on a trace it cannot read",
       ("tests/integrations/test_mlflow_scorer.py",), "tests/integrations"),
    _m("mlflow-scorer-function-name-ignored", "loopmetric/integrations/mlflow.py",
       "return code if code.isidentifier() else default_name(value)", "return default_name(value)",
       "loop_feedback inside your own @scorer lands in LoopScorer's `loop_detection` column, not your scorer's",
       ("tests/integrations/test_mlflow_scorer.py",), "tests/integrations"),
    _m("pydantic-evals-assertion-reason-without-score", "loopmetric/integrations/pydantic_evals.py",
       'return EvaluationReason(value=success, reason=f"{reason} ({against})")',
       "return EvaluationReason(value=success, reason=reason)",
       "LoopEvaluator(output='assertion')'s reason does not say the score and the threshold it was judged by",
       ("tests/integrations/test_pydantic_evals_evaluator.py",), "tests/integrations"),
    _m("pydantic-evals-unread-threshold-not-strict", "loopmetric/integrations/pydantic_evals.py",
       "str(error), self._settings.effective_threshold", "str(error), self._settings.threshold",
       "in strict mode, a case with no spans says it was judged against the threshold given, not strict mode's 1",
       ("tests/integrations/test_pydantic_evals_evaluator.py",), "tests/integrations"),
    _m("inspect-unread-sample-success-true", "loopmetric/integrations/inspect_ai.py",
       'metadata={"success": False, "threshold"', 'metadata={"success": True, "threshold"',
       "an Inspect sample that cannot be read says success True in its score's metadata",
       ("tests/integrations/test_inspect_scorer.py",), "tests/integrations"),
    # -- the command line: guard-replay, targets, config files
    _m("guard-replay-saves-one-request-less", "loopmetric/cli/_guard_replay.py",
       "replayed.saved_requests = len(tokens) - stop + 1", "replayed.saved_requests = len(tokens) - stop",
       "guard-replay says stopping at the first loop saves one request fewer than it would (the loop's own not counted)",
       ("tests/guard/test_guard_replay.py", "tests/cli/test_cli.py"), "tests/cli"),
    _m("guard-replay-unreadable-file-exits-0", "loopmetric/cli/_guard_replay.py",
       "return EXIT_USAGE if errors else EXIT_OK", "return EXIT_OK",
       "guard-replay over a good run and a file it cannot read exits 0",
       ("tests/guard/test_guard_replay.py", "tests/cli/test_cli.py"), "tests/cli"),
    _m("targets-record-range-one-too-far", "loopmetric/cli/_targets.py",
       'f"#0 to #{len(loaded) - 1}"', 'f"#0 to #{len(loaded)}"',
       "asking for a record past the end (`runs.jsonl#7`) says the file holds `#0 to #3` for three records",
       ("tests/cli/test_cli.py",), "tests/cli"),
    _m("targets-named-non-trace-skipped", "loopmetric/cli/_targets.py",
       "if item.not_a_trace and not explicit:", "if item.not_a_trace:",
       "a file you named that holds no trace is skipped quietly beside others, not an unreadable file (exit 2)",
       ("tests/cli/test_cli.py",), "tests/cli"),
    _m("config-guard-table-read-as-settings", "loopmetric/cli/_config.py",
       "return {key: value for key, value in table.items() if not isinstance(value, dict)}", "return dict(table)",
       "a pyproject.toml with a [tool.loopmetric.guard] table makes `score` refuse `guard` as an unknown setting",
       ("tests/cli/test_config_file.py",), "tests/cli"),
    # -- what counts as the same call or result
    _m("canonical-address-unmasked", "loopmetric/_canonical.py",
       'return _ADDRESS.sub("0x*", text) if "0x" in text else text', "return text",
       "two calls whose arguments hold an object's repr at two memory addresses are two different calls",
       ("tests/test_canonical.py",), TOP),
    _m("volatile-anthropic-call-id-kept", "loopmetric/_canonical.py",
       r'r"\b(?:call|toolu|chatcmpl|msg|run|lc_run|req|resp|span|trace|item|fc|tool_call)"',
       r'r"\b(?:call|chatcmpl|msg|run|lc_run|req|resp|span|trace|item|fc|tool_call)"',
       "results quoting an Anthropic call id (`toolu_01...`) differ on every call: a repeated result is missed",
       ("tests/test_canonical.py",), TOP),
    _m("normalize-text-whitespace-kept", "loopmetric/_canonical.py",
       'return " ".join(text.split()).casefold()', "return text.casefold()",
       "two replies that differ only in line breaks or spaces are different texts",
       ("tests/test_canonical.py",), TOP),
    _m("fingerprint-lone-surrogate-crashes", "loopmetric/_fingerprint.py",
       'data.encode("utf-8", "surrogatepass")', 'data.encode("utf-8")',
       "a result holding a lone surrogate (`\"\\ud83d\"` in its JSON) crashes the scoring deep inside",
       ("tests/test_canonical.py", "tests/test_robustness.py"), TOP),
)
DETECT = ("tests/detectors/test_detectors.py", "tests/detectors/test_pinned_detectors.py")
SCORING = ("tests/test_scoring.py", "tests/test_engine.py")
DEEPEVAL_READER = ("tests/readers/test_reader_deepeval.py", "tests/readers/test_conformance_deepeval.py")
ROUND_6: tuple[Audited, ...] = (
    # -- the tool-call rules: each threshold's edge, what a finding says and reports
    _m("repeated-call-severe-one-call-later", "loopmetric/detectors/_tool_calls.py",
       "severity = _severity(len(run), low, 2 * low - 1)", "severity = _severity(len(run), low, 2 * low)",
       "the same call made 5 times with nothing new (threshold 3) is a mild loop, not severe: the score is 0.5, not 0",
       DETECT, "tests/detectors"),
    _m("repeated-error-said-as-same-result", "loopmetric/detectors/_tool_calls.py",
       '"Each call failed with the same error" if calls[0].error', '"Each call returned the same result" if calls[0].error',
       "a call failing the same way again and again is told as one returning the same result",
       DETECT, "tests/detectors"),
    _m("repeated-result-two-alike-a-loop", "loopmetric/detectors/_tool_calls.py",
       "severity = _severity(len(run), max(3, threshold - 1), threshold)",
       "severity = _severity(len(run), max(2, threshold - 1), threshold)",
       "a call returning the same result twice is a mild loop (two alike is never a loop)",
       DETECT, "tests/detectors"),
    _m("repeated-error-chain-ignores-the-window", "loopmetric/detectors/_tool_calls.py",
       "and (window is None or index - chain[-1] <= window)", "and True",
       "the same failing call made again farther apart than `window` calls still counts as one repeated error",
       DETECT, "tests/detectors"),
    _m("cycle-mild-at-one-and-a-half-rounds", "loopmetric/detectors/_cycles.py",
       'elif length >= 2 * period and threshold > 2:', 'elif length >= 2 * period - 1 and threshold > 2:',
       "A-B-A (one and a half rounds) is reported as a mild cycle",
       DETECT, "tests/detectors"),
    _m("cycle-rounds-said-whole", "loopmetric/detectors/_cycles.py",
       'shown = f"{rounds:.1f}".rstrip("0").rstrip(".")', "shown = str(length // period)",
       "a cycle of 2 calls repeated 2.5 times (A-B-A-B-A) says `2 times`",
       DETECT, "tests/detectors"),
    _m("call-graph-levels-one-fewer", "loopmetric/detectors/_call_graph.py",
       "count = len(ancestors) + 1", "count = len(ancestors)",
       "a span that re-entered itself once says `1 levels` and counts 1, not 2",
       DETECT, "tests/detectors"),
    _m("call-graph-long-path-miscounted", "loopmetric/detectors/_call_graph.py",
       'hops.insert(3, f"... {len(cycle) - 5} more ...")', 'hops.insert(3, f"... {len(cycle) - 6} more ...")',
       "a long cycle path shortened in the message says one span fewer left out than it left out",
       DETECT, "tests/detectors"),
    _m("revisits-mild-from-one-below", "loopmetric/detectors/_revisits.py",
       'return "mild" if count >= max(3, threshold - 2) else None', 'return "mild" if count >= max(3, threshold - 1) else None',
       "four revisits in a row that bring nothing new (threshold 6) are no longer a mild loop",
       ("tests/detectors/test_revisit_walks.py", *DETECT), "tests/detectors"),
    _m("revisits-tools-named-once-per-call", "loopmetric/detectors/_revisits.py",
       "tools = tuple(dict.fromkeys(c.name for c in calls))", "tools = tuple(c.name for c in calls)",
       "a revisit finding names each tool once per call (`'read', 'ls', 'read', ...`), not once",
       ("tests/detectors/test_revisit_walks.py", *DETECT), "tests/detectors"),
    # -- the score, the verdict and what a finding cost
    _m("score-at-threshold-fails", "loopmetric/_engine.py",
       "success=score >= threshold,", "success=score > threshold,",
       "a trace scoring exactly the threshold (a mild loop, 0.5 against 0.5) fails",
       SCORING, TOP),
    _m("reason-score-one-decimal", "loopmetric/_scoring.py",
       'head = f"Loop score {score:.2f}."', 'head = f"Loop score {score:.1f}."',
       "the reason says `Loop score 0.7.` for 0.66 (and `0.6` for a score of 0.55)",
       SCORING, TOP),
    _m("finding-tokens-leave-out-its-first-step", "loopmetric/_engine.py",
       "tokens=token_sums[last] - token_sums[first - 1] if has_tokens else None",
       "tokens=token_sums[last] - token_sums[first] if has_tokens else None",
       "a finding's tokens leave out what its first step spent",
       SCORING, TOP),
    _m("loop-tokens-counted-per-finding", "loopmetric/_engine.py",
       "loop_tokens = sum(tokens[step] for step in inside) if has_tokens else None",
       "loop_tokens = sum(f.tokens or 0.0 for f in priced) if has_tokens else None",
       "the tokens inside loops count a step twice when two findings cover it",
       SCORING, TOP),
    _m("severe-finding-pruned-under-a-mild-one", "loopmetric/_scoring.py",
       "and _RANK[other.severity] >= _RANK[finding.severity]", "and True",
       "a severe finding inside a longer mild one of the same call is dropped: the score rises from 0 to 0.5",
       SCORING, TOP),
    # -- the live guard core
    _m("guard-escalate-remembers-one-loop", "loopmetric/guard/_core.py",
       "_KEEP_NUDGED = 50", "_KEEP_NUDGED = 1",
       "with escalate, a loop nudged before another one is nudged again when it goes on, not stopped",
       GUARD, "tests/guard"),
    _m("guard-fresh-forgets-stop", "loopmetric/guard/_core.py",
       "return LoopGuard(self.settings, action=self.action)", "return LoopGuard(self.settings)",
       "a LoopGuard(action='stop') made fresh for the next run nudges instead of stopping",
       GUARD, "tests/guard"),
    _m("guard-repeated-call-nudge-says-count-as-window", "loopmetric/guard/_loop.py",
       'f"{window} tool calls, so calling it again is unlikely to help. {_ASK}")',
       'f"{count} tool calls, so calling it again is unlikely to help. {_ASK}")',
       "the nudge says `3 times ... in your last 3 tool calls` instead of the window it looked at",
       GUARD, "tests/guard"),
    _m("guard-cycle-nudge-counts-two-per-round", "loopmetric/guard/_loop.py",
       'return (f"Your last {count * len(names)} tool calls went round',
       'return (f"Your last {count * 2} tool calls went round',
       "the nudge for a cycle of three calls says 6 calls where 9 went round",
       GUARD, "tests/guard"),
    _m("guard-text-streak-not-restarted", "loopmetric/guard/_checks.py",
       "record.text_count = 0  # reported: the streak starts again from the next response", "pass",
       "after a nudge for the same reply three times, the very next same reply is nudged again at once",
       GUARD, "tests/guard"),
    # -- readers of deepeval trace dicts, OTLP spans and chat messages
    _m("deepeval-output-tokens-read-as-input", _R + "_deepeval.py",
       "output_tokens=float(tokens_out) if type(tokens_out) is int else finite_number(tokens_out),",
       "output_tokens=float(tokens_in) if type(tokens_in) is int else finite_number(tokens_out),",
       "an LLM span's output tokens read as its input token count",
       DEEPEVAL_READER, "tests/readers"),
    _m("deepeval-span-cost-ignored", _R + "_deepeval.py",
       '    if "cost" in m:\n', "    if False:\n",
       "an LLM span's own `cost` is ignored: its cost is None unless priced per token",
       DEEPEVAL_READER, "tests/readers"),
    _m("deepeval-failed-tool-without-output-unknown", _R + "_deepeval.py",
       "known=output is not None or bool(error))", "known=output is not None)",
       "a tool span that failed with an error and no output reads as a call whose result is unknown",
       DEEPEVAL_READER, "tests/readers"),
    _m("chat-error-result-read-as-success", _R + "_chat.py",
       'if message.get("error") is True:', "if False:",
       'a chat tool message marked `"error": true` reads as a successful result',
       ("tests/readers/test_reader_chat.py", "tests/readers/test_conformance_chat.py"), "tests/readers"),
    _m("otlp-openinference-completion-tokens-unread", _R + "_otlp/_semconv.py",
       'output_token_count=_first_number(a, "gen_ai.usage.output_tokens", "llm.token_count.completion",',
       'output_token_count=_first_number(a, "gen_ai.usage.output_tokens",',
       "an OpenInference LLM span's completion tokens (`llm.token_count.completion`) are not read",
       ("tests/readers/test_reader_otlp.py", "tests/readers/test_conformance_otlp.py"), "tests/readers"),
    # -- the command line's `score` output
    _m("score-json-rows-unnamed", "loopmetric/cli/_score.py",
       'print(json.dumps({**data, "name": name}, sort_keys=True))', "print(json.dumps(data, sort_keys=True))",
       "`score --json` rows do not say which file (and record) each is",
       ("tests/cli/test_cli.py",), "tests/cli"),
    _m("score-gate-counts-half-as-passing", "loopmetric/cli/_score.py",
       'below = [name for name, data in reports if not data["success"]]',
       'below = [name for name, data in reports if data["score"] < 0.5]',
       "`score --fail-under` counts a trace scoring 0.5 against threshold 0.7 as passing",
       ("tests/cli/test_cli.py", "tests/cli/test_gate.py"), "tests/cli"),
    _m("score-table-steps-end-at-the-second", "loopmetric/cli/_output.py",
       'return f"{steps[0]}-{steps[-1]}" if len(steps) > 1', 'return f"{steps[0]}-{steps[1]}" if len(steps) > 1',
       "the table's steps column ends a finding of 5 repeats at its second step",
       ("tests/cli/test_cli.py",), "tests/cli"),
    _m("score-summary-steps-of-the-worst-trace", "loopmetric/cli/_output.py",
       'sum(d["looped_steps"] for _, d in reports),', 'max(d["looped_steps"] for _, d in reports),',
       "the totals line's steps inside loops is the largest trace's, not the sum over traces",
       ("tests/cli/test_cli.py",), "tests/cli"),
    _m("score-summary-failed-counts-mild-passes", "loopmetric/cli/_output.py",
       'failed = sum(1 for _, data in reports if not data["success"])',
       'failed = sum(1 for _, data in reports if data["findings"])',
       "the totals line counts a trace that passed with a mild finding as failed",
       ("tests/cli/test_cli.py",), "tests/cli"),
)
REGISTRY_TESTS = ("tests/readers/test_format_registry.py", "tests/readers/test_registry_shortcut.py")
FILES_TESTS = ("tests/readers/test_reader_files.py", "tests/readers/test_format_registry.py")
RESEARCH = ("tests/readers/test_conformance_research.py", "tests/readers/test_pinned_readers.py")
HOOK_CLI = ("tests/hooks/test_hook_install.py", "tests/hooks/test_hook_command.py")
ROUND_7: tuple[Audited, ...] = (
    # -- the format registry: what it says of what it does not know, and how many traces it found
    _m("registry-request-response-hint-dropped", _R + "_registry.py",
       'if "request" in m and "response" in m:', "if False:",
       "a chat log of request/response pairs is refused without saying how to write it as one list of messages",
       REGISTRY_TESTS, "tests/readers"),
    _m("registry-empty-object-said-as-no-keys", _R + "_registry.py",
       "f\"not a known trace format ({'keys: ' + keys if keys else 'an empty object'}\"",
       "f\"not a known trace format ({'keys: ' + keys}\"",
       "an empty JSON object is refused as `(keys: )` instead of `(an empty object)`",
       REGISTRY_TESTS, "tests/readers"),
    _m("registry-no-trace-crashes-read-trace", _R + "_registry.py",
       "if len(found) != 1:", "if len(found) > 1:",
       "read_trace on a record holding no trace (tau2-bench `simulations: []`) crashes with an IndexError, "
       "not `holds 0 traces`",
       REGISTRY_TESTS, "tests/readers"),
    _m("registry-tau-label-without-trial", _R + "_registry.py",
       "label = f\"task {m.get('task_id')} trial {m.get('trial')}\"", "label = f\"task {m.get('task_id')}\"",
       "two trials of one tau-bench task are labelled alike (`task 3`), not `task 3 trial 0` and `task 3 trial 1`",
       REGISTRY_TESTS, "tests/readers"),
    _m("registry-agents-span-lines-refused-as-text", _R + "_registry.py",
       "if all(is_otlp(d) for d in found) or all(is_openai_agents(d) for d in found) or line_format(found):",
       "if all(is_otlp(d) for d in found) or line_format(found):",
       "read_trace on JSON text of Agents SDK spans one a line is refused as several documents",
       REGISTRY_TESTS, "tests/readers"),
    # -- loading files: what a file that holds nothing readable is said to be
    _m("files-blank-file-said-as-json-error", _R + "_files.py",
       "if not text or text.isspace():", "if not text:",
       "a file of blank lines is refused with a JSON parse error, not `empty file`",
       FILES_TESTS, "tests/readers"),
    _m("files-bad-line-said-one-early", _R + "_files.py",
       'where = f"line {line}" if len(found) > 1 else ""', 'where = f"line {line - 1}" if len(found) > 1 else ""',
       "a JSON Lines file's bad line 3 is said to be `line 2`",
       FILES_TESTS, "tests/readers"),
    _m("files-wrong-format-flag-unexplained", _R + "_files.py",
       "other = _looks_like(data) if fmt in FORMATS else None", "other = None",
       "a file read with the wrong --format fails without saying what it looks like (`leave --format out, or give "
       "--format X`)",
       FILES_TESTS, "tests/readers"),
    _m("files-format-finding-nothing-silent", _R + "_files.py",
       "if not records_:  # e.g. a --format", "if False:  # e.g. a --format",
       "a file read with a --format that finds no trace of its own in it is silently nothing, not an error",
       FILES_TESTS, "tests/readers"),
    _m("files-folder-not-searched-below", _R + "_files.py",
       'for p in sorted(path.rglob("*"))', 'for p in sorted(path.glob("*"))',
       "a folder's trace files in its subfolders are not found",
       FILES_TESTS, "tests/readers"),
    # -- Anthropic Messages
    _m("anthropic-error-result-read-as-success", _R + "_anthropic.py",
       'error=block.get("is_error") is True)', "error=False)",
       "a tool_result marked `is_error` reads as a successful result",
       EXPORTED, "tests/readers"),
    _m("anthropic-results-without-text-alike", _R + "_anthropic.py",
       "if isinstance(content, (list, tuple)) and not text and content:", "if False:",
       "two tool results holding only images (different ones) read as the same empty result",
       EXPORTED, "tests/readers"),
    _m("anthropic-server-tool-result-skipped", _R + "_anthropic.py",
       'results.append((b.get("tool_use_id"), b))', "pass",
       "a server tool's result (web_search_tool_result in the same message) is dropped: the search has no result",
       EXPORTED, "tests/readers"),
    # -- Responses-API items, hosted tools
    _m("responses-mcp-tool-name-lost", _R + "_responses.py",
       'tool = named if isinstance(named, str) and named else kind[:-len("_call")]', 'tool = kind[:-len("_call")]',
       "every MCP call reads as a call of `mcp`, not of the tool it named",
       (*EXPORTED, "tests/readers/test_reader_openai_agents.py"), "tests/readers"),
    _m("responses-hosted-error-read-as-success", _R + "_responses.py",
       "error if error else _output(result), bool(error)))", "error if error else _output(result), False))",
       "a hosted tool call that failed (an MCP call's `error`) reads as a successful result",
       (*EXPORTED, "tests/readers/test_reader_openai_agents.py"), "tests/readers"),
    _m("responses-web-search-action-unread", _R + "_responses.py",
       '_ARG_KEYS = ("arguments", "input", "action", "queries", "code")',
       '_ARG_KEYS = ("arguments", "input", "queries", "code")',
       "a web_search_call's `action` (its query) is not its arguments: different searches read as the same call",
       (*EXPORTED, "tests/readers/test_reader_openai_agents.py"), "tests/readers"),
    # -- Gemini contents (google-genai)
    _m("gemini-error-response-read-as-success", _R + "_gemini.py",
       'return m["error"] if m["error"] not in (None, "") else "error", True',
       'return m["error"] if m["error"] not in (None, "") else "error", False',
       "a functionResponse holding only an `error` reads as a successful result",
       EXPORTED, "tests/readers"),
    _m("gemini-failed-code-execution-read-as-success", _R + "_gemini.py",
       'failed = str(outcome.get("outcome", "OUTCOME_OK")) not in ("OUTCOME_OK", "Outcome.OUTCOME_OK")',
       "failed = False",
       "code execution whose outcome is OUTCOME_FAILED reads as a successful result",
       EXPORTED, "tests/readers"),
    _m("gemini-output-wrapper-kept", _R + "_gemini.py",
       'if m is not None and len(m) == 1 and "output" in m:', "if False:",
       "a functionResponse `{\"output\": X}` reads as the result `{\"output\": X}`, not X",
       EXPORTED, "tests/readers"),
    # -- research logs: Magentic-One, InterCode, SWE-agent
    _m("magentic-delegation-instruction-dropped", _R + "_magentic.py",
       'pending = ToolRequest(delegation.group("to").strip(), {"instruction": text})',
       'pending = ToolRequest(delegation.group("to").strip(), {"instruction": ""})',
       "the orchestrator's different instructions to one agent read as the same call",
       ("tests/readers/test_conformance_research.py", "tests/readers/test_group_chat.py"), "tests/readers"),
    _m("intercode-every-action-named-action", _R + "_intercode.py",
       'builder.add_tool_call(words[0] if words else "action", {"command": command}, observation, error,',
       'builder.add_tool_call("action", {"command": command}, observation, error,',
       "every InterCode turn is a call of `action`, not of the program it ran (`ls`, `cat`, `submit`)",
       RESEARCH, "tests/readers"),
    _m("sweagent-format-message-dropped", _R + "_sweagent.py",
       'elif isinstance(step.get("observation"), str) and step["observation"].strip():', "elif False:",
       "a SWE-agent step with no action (a reply the harness could not parse) loses the harness's format message",
       ("tests/readers/test_reader_sweagent.py", "tests/readers/test_conformance_research.py"), "tests/readers"),
    # -- the OpenTelemetry processor: traces that never end, the table of traces, the alarm's words
    _m("otel-idle-trace-counted-as-evicted", "loopmetric/otel/_processor.py",
       "self._stats.idle += 1", "self._stats.evicted += 1",
       "a trace forgotten for being idle is counted in `stats.evicted`, not `stats.idle`",
       OTEL, "tests/otel"),
    _m("otel-busy-trace-evicted-first", "loopmetric/otel/_processor.py",
       "self._traces.move_to_end(trace_id)", "pass",
       "beyond `max_traces`, the trace that began first is forgotten though it is still sending spans",
       OTEL, "tests/otel"),
    _m("otel-active-trace-forgotten-as-idle", "loopmetric/otel/_processor.py",
       "window.last_seen = now", "pass",
       "a long trace still sending spans is forgotten `max_idle_seconds` after it began: its loop is missed",
       OTEL, "tests/otel"),
    _m("otel-stop-alarm-unsaid", "loopmetric/otel/_processor.py",
       '": it went on after its first alarm, stop the run" if finding.action == "stop" else "",', '"",',
       "the warning for a loop that went on after its first alarm does not say to stop the run",
       OTEL, "tests/otel"),
    # -- `loopmetric hook`: a flag it does not know, installing twice, a settings file it cannot read
    _m("hook-misspelt-flag-runs-the-hook", "loopmetric/cli/_hook.py",
       "        if unknown:\n            raise ValueError", "        if False:\n            raise ValueError",
       "`loopmetric hook claude-code --actoin stop` runs the hook with the default action, not failing open with "
       "a line in hook.log",
       HOOK_CLI, "tests/hooks"),
    _m("hook-install-twice-says-installed", "loopmetric/cli/_hook.py",
       "{'installed the loopmetric hook in' if changed else 'already installed in'}",
       "{'installed the loopmetric hook in'}",
       "`hook install --write` a second time says `installed` again, not `already installed`",
       HOOK_CLI, "tests/hooks"),
    _m("hook-install-bad-settings-crashes", "loopmetric/cli/_hook.py",
       "except (OSError, ValueError) as error:", "except OSError as error:",
       "`hook install --write` into a settings file that is not a JSON object crashes with a traceback, not exit 2",
       HOOK_CLI, "tests/hooks"),
    # -- the Spark frontend's columns
    _m("spark-patterns-once-per-finding", "loopmetric/spark/_score.py",
       "sorted({f.pattern for f in report.findings})", "[f.pattern for f in report.findings]",
       "`loop_patterns` lists a pattern once per finding, in the order found, not each once sorted",
       SPARK, "tests/spark"),
)
ATTEMPTS = ("tests/detectors/test_attempt_exploration.py", *DETECT)
HOOK_SETTINGS = ("tests/hooks/test_hook_settings.py",)
ROUND_8: tuple[Audited, ...] = (
    # -- DetectLoops, the pydantic-ai capability: what the nudge carries, its span, a handler, a run of its own
    _m("detect-loops-nudge-origin-missing", "loopmetric/guard/_capability.py",
       '"origin": NUDGE_ORIGIN, "pattern": loop.pattern,', '"pattern": loop.pattern,',
       "a nudge in the message history has no `origin` in its metadata: it cannot be told from the user's own "
       "system prompts",
       GUARD, "tests/guard"),
    _m("detect-loops-fingerprints-in-span-without-content", "loopmetric/guard/_capability.py",
       "if ctx.trace_include_content:", "if True:",
       "the `loop detected` span carries the calls' fingerprints (a short argument recoverable from its hash) "
       "though the agent is instrumented with `include_content=False`",
       GUARD, "tests/guard"),
    _m("detect-loops-async-handler-not-awaited", "loopmetric/guard/_capability.py",
       "if inspect.isawaitable(outcome):", "if False:",
       "an async `LoopHandler` is never run (its coroutine is dropped): a loop it would stop goes on",
       GUARD, "tests/guard"),
    _m("detect-loops-runs-share-a-record", "loopmetric/guard/_capability.py",
       "return replace(self)", "return self",
       "two runs of one agent share what they recorded: the second run is nudged for calls the first made",
       GUARD, "tests/guard"),
    _m("guard-nudge-tool-name-unsanitised", "loopmetric/guard/_loop.py",
       'return "`" + _UNSAFE.sub("_", name) + "`"', 'return "`" + name + "`"',
       "a tool name holding backticks or a newline is written into the nudge the model reads as it is",
       GUARD, "tests/guard"),
    # -- the guard's settings and its words for a longer cycle
    _m("guard-nudge-three-call-cycle-and-and", "loopmetric/guard/_loop.py",
       'order = " and ".join(names) if len(names) == 2 else ", ".join(names[:-1]) + " and " + names[-1]',
       'order = " and ".join(names)',
       "the nudge for a cycle of three calls says `a` and `b` and `c`, not `a`, `b` and `c`",
       GUARD, "tests/guard"),
    _m("guard-settings-cycle-length-five-accepted", "loopmetric/guard/_settings.py",
       "or not 2 <= self.max_cycle_length <= MAX_CYCLE_LENGTH):", "or not 2 <= self.max_cycle_length):",
       "`max_cycle_length=5` is accepted (the offline metric looks for cycles of at most 4), not refused",
       GUARD, "tests/guard"),
    _m("guard-settings-flag-string-accepted", "loopmetric/guard/_settings.py",
       "if not isinstance(value, bool):", "if False:",
       "`escalate=\"no\"` (or a masking flag given as text) is accepted and read as on, not refused",
       GUARD, "tests/guard"),
    # -- the coding-agent hooks at run time: Gemini CLI's refusal, a session's loop tokens, a state kept
    _m("hook-gemini-refusal-as-block", "loopmetric/hooks/_gemini.py",
       'answer.output = {"decision": "deny", "reason": verdict.message}',
       'answer.output = {"decision": "block", "reason": verdict.message}',
       "Gemini CLI is answered `decision: block` for a refused call, not its documented `deny`",
       HOOKS, "tests/hooks"),
    _m("hook-loop-tokens-counted-per-line", "loopmetric/hooks/_transcript.py",
       'if not calls & loop_ids or message.get("id") == last:', "if not calls & loop_ids:",
       "the session summary counts an assistant message written over several transcript lines once per line",
       HOOKS, "tests/hooks"),
    _m("hook-loop-tokens-without-cache-reads", "loopmetric/hooks/_transcript.py",
       '"cache_creation_input_tokens", "cache_read_input_tokens"))', '"cache_creation_input_tokens"))',
       "the session summary's loop tokens leave out the tokens read from the prompt cache",
       HOOKS, "tests/hooks"),
    _m("hook-state-of-other-settings-reused", "loopmetric/hooks/_state.py",
       'if data.get("settings") != settings_key:', "if False:",
       "a session's state written at other settings (a config changed mid-session) is reused, not started again",
       ("tests/hooks/test_hook_state.py", *HOOKS), "tests/hooks"),
    # -- the hooks' config and install
    _m("hook-config-off-not-a-threshold-off", "loopmetric/hooks/_settings.py",
       'value.lower() in ("none", "off")', 'value.lower() == "none"',
       "`repeated_result_threshold = \"off\"` in the config is refused (the hook fails open), not the check off",
       HOOK_SETTINGS, "tests/hooks"),
    _m("hook-config-tool-table-ignores-the-table", "loopmetric/hooks/_settings.py",
       "tools[name] = replace(guard, ", "tools[name] = replace(base.guard, ",
       "a `[tools.NAME]` table starts from the defaults, not from the guard table's own settings above it",
       HOOK_SETTINGS, "tests/hooks"),
    _m("hook-config-error-names-no-file", "loopmetric/hooks/_config.py",
       'raise ValueError(f"{path}: {error}") from error', "raise ValueError(str(error)) from error",
       "a wrong setting in the config file is reported without the file it is in",
       HOOK_SETTINGS, "tests/hooks"),
    _m("hook-install-gemini-matcher-not-a-regex", "loopmetric/hooks/_install.py",
       '_MATCH_ALL = {"claude-code": "*", "codex": "*", "gemini": ".*"}',
       '_MATCH_ALL = {"claude-code": "*", "codex": "*", "gemini": "*"}',
       "`hook install gemini` writes the matcher `*`, not the regular expression `.*` Gemini CLI matches with",
       HOOK_CLI, "tests/hooks"),
    _m("hook-install-command-not-on-path-unsaid", "loopmetric/hooks/_install.py",
       "if not program or shutil.which(program) is None:", "if not program:",
       "`hook install` does not warn that its command is not on PATH (the hook would never run)",
       HOOK_CLI, "tests/hooks"),
    # -- the deepeval drop-in's fields
    _m("deepeval-findings-empty", "loopmetric/metric.py",
       "self.findings = report.findings", "self.findings = ()",
       "`metric.findings` is empty after a measure that found loops",
       METRIC, "tests/metric"),
    _m("deepeval-setting-assigned-later-ignored", "loopmetric/metric.py",
       "self.settings = replace(self.settings, **{field: value})", "replace(self.settings, **{field: value})",
       "`metric.threshold = 0.9` after construction is checked but does not change the verdict",
       METRIC, "tests/metric"),
    _m("deepeval-verbose-logs-notes-dropped", "loopmetric/metric.py",
       'steps.append(f"note: {note}")', "pass",
       "deepeval's verbose logs leave out the report's notes (what was not read, what was inferred)",
       METRIC, "tests/metric"),
    # -- the tool-call rules: similar attempts' words, repeated calls' words, the error rung
    _m("similar-attempts-failing-said-as-same-result", "loopmetric/detectors/_attempts.py",
       "failing = all(model.kinds[i] is not None for i in members)", "failing = False",
       "similar attempts that each failed the same way are said to be `each returning the same result`",
       ATTEMPTS, "tests/detectors"),
    _m("attempts-in-replies-said-when-each-its-own", "loopmetric/detectors/_news.py",
       "if attempts == len(members):", "if attempts > len(members):",
       "a finding over calls each made by a reply of its own says `The 4 calls were made in 4 replies: ...`",
       ("tests/detectors/test_news.py", *DETECT), "tests/detectors"),
    _m("repeated-call-different-results-said-alike", "loopmetric/detectors/_tool_calls.py",
       "elif len(outcomes) == 1:", "elif len(outcomes) >= 1:",
       "a repeated call whose results differed (nothing new in them) is said to have `returned the same result`",
       DETECT, "tests/detectors"),
    _m("repeated-error-judged-at-the-result-threshold", "loopmetric/detectors/_tool_calls.py",
       "threshold = settings.repeated_error_threshold if first.error else settings.repeated_result_threshold",
       "threshold = settings.repeated_result_threshold",
       "`repeated_error_threshold` is ignored: the same error is judged at the repeated-result rungs",
       DETECT, "tests/detectors"),
    # -- the format registry: what it says of what it does not know; platform exports; flat span lists
    _m("registry-nested-chat-hint-dropped", _R + "_registry.py",
       'if inner is not None and any(isinstance(inner.get(k), list) for k in ("messages", "conversation")):',
       "if False:",
       "chat messages nested under a wrapper's key are refused without saying which key to write alone",
       REGISTRY_TESTS, "tests/readers"),
    _m("registry-list-first-item-keys-unsaid", _R + "_registry.py",
       "return f\"a list of {len(data)} items, the first with {'keys: ' + keys if keys else 'no keys'}\"",
       'return f"a list of {len(data)} items"',
       "a JSON array no format recognises is refused without naming its first item's keys",
       REGISTRY_TESTS, "tests/readers"),
    _m("registry-path-string-parsed-as-json", _R + "_registry.py",
       'if isinstance(value, str) and value.lstrip("\\ufeff \\t\\r\\n")[:1] not in ("{", "["):', "if False:",
       "read_trace(\"run.json\") (a path, not JSON) fails as bad JSON, not saying to use load_traces(path)",
       REGISTRY_TESTS, "tests/readers"),
    _m("platforms-several-traces-unlabelled", _R + "_platforms.py",
       'yield (trace.name if len(traces) > 1 else ""), ', 'yield "", ',
       "the traces of a platform export holding several are not labelled with their names",
       PLATFORMS, "tests/readers"),
    _m("span-list-children-in-export-order", _R + "_span_list.py",
       "ordered = sorted(enumerate(items), key=lambda item: (item[1][2], item[0]))",
       "ordered = sorted(enumerate(items), key=lambda item: item[0])",
       "an export listing spans out of time order is read in the export's order, not by start time",
       PLATFORMS, "tests/readers"),
    _m("span-list-duplicate-id-overwrites", _R + "_span_list.py",
       'span_id = f"{span_id}#{seq}"', "pass",
       "a span id seen twice is not read as a separate span, as its note says",
       PLATFORMS, "tests/readers"),
)
HOOK_INSTALL = ("tests/hooks/test_hook_install.py",)
SDK_HOOKS = ("tests/hooks/test_claude_agent_sdk.py",)
CLI_ARGS = ("tests/cli/test_args.py", "tests/cli/test_cli.py")
CLI_CONFIG = ("tests/cli/test_config_file.py", "tests/cli/test_cli.py")
HTML = ("tests/html/test_html_report.py", "tests/html/test_html_svg.py")
ROUND_9: tuple[Audited, ...] = (
    # -- the coding-agent hooks' install and config
    _m("hook-install-project-folder-ignored", "loopmetric/hooks/_install.py",
       'return Path(project or ".") / project_file', 'return Path(".") / project_file',
       "`hook install --write --project DIR` writes into the current folder's settings file, not DIR's",
       HOOK_CLI, "tests/hooks"),
    _m("hook-install-foreign-hook-taken-for-ours", "loopmetric/hooks/_install.py",
       'return isinstance(command, str) and command.rstrip().endswith(f"hook {agent}") and "loopmetric" in command',
       'return isinstance(command, str) and command.rstrip().endswith(f"hook {agent}")',
       "another program's hook whose command ends in `hook claude-code` makes install add nothing (`already installed`)",
       HOOK_CLI, "tests/hooks"),
    _m("hook-install-hooks-not-an-object-crashes", "loopmetric/hooks/_install.py",
       "if not isinstance(hooks, dict):", "if False:",
       "`hook install --write` into a settings file whose `hooks` is a list crashes with a traceback, not exit 2 "
       "naming `hooks`",
       HOOK_CLI, "tests/hooks"),
    _m("hook-install-claude-failures-unhooked", "loopmetric/hooks/_install.py",
       '"claude-code": (("PreToolUse", "PostToolUse", "PostToolUseFailure"), ("Stop", "SubagentStop"),',
       '"claude-code": (("PreToolUse", "PostToolUse"), ("Stop", "SubagentStop"),',
       "`hook install claude-code` does not hook PostToolUseFailure: a failed call's result never reaches the hook",
       HOOK_CLI, "tests/hooks"),
    _m("hook-install-broken-config-unsaid", "loopmetric/hooks/_install.py",
       'said.append(f"the hook would fail open on the config file: {error}")', "pass",
       "`hook install` does not warn that the project's config file cannot be read (the hook would fail open on it)",
       HOOK_CLI, "tests/hooks"),
    _m("hook-config-misspelt-key-ignored", "loopmetric/hooks/_settings.py",
       "if unknown:\n            raise ValueError(f\"Expected settings among {sorted(_GUARD_FIELDS",
       "if False:\n            raise ValueError(f\"Expected settings among {sorted(_GUARD_FIELDS",
       "a misspelt key in the hooks' config table (`repeated_result_treshold`) is ignored, not refused",
       HOOK_SETTINGS, "tests/hooks"),
    # -- the guards: bad input, the Claude Agent SDK's fail-open
    _m("guard-empty-tool-name-accepted", "loopmetric/guard/_core.py",
       "if not isinstance(name, str) or not name:", "if not isinstance(name, str):",
       "`LoopGuard.before_call(\"\")` (a call with no tool name) is judged, not refused",
       GUARD, "tests/guard"),
    _m("guard-settings-and-keywords-both-accepted", "loopmetric/guard/_core.py",
       "elif options:\n            raise ValueError(f\"Expected either", "elif False:\n            raise ValueError(f\"Expected either",
       "`LoopGuard(settings=..., repeated_call_threshold=3)` silently drops the keyword, not refusing both",
       GUARD, "tests/guard"),
    _m("sdk-hooks-failure-raises-into-the-agent", "loopmetric/hooks/claude_agent_sdk.py",
       'LOG.warning("loopmetric hook failed open: %s: %s", type(error).__name__, error)', "raise",
       "a Claude Agent SDK callback that goes wrong raises into the agent instead of answering `{}` with a warning",
       SDK_HOOKS, "tests/hooks"),
    # -- the command line: flags, the config file, guard-replay's JSON
    _m("cli-fail-under-above-one-accepted", "loopmetric/cli/_args.py",
       "if not 0.0 <= value <= 1.0:", "if not 0.0 <= value:",
       "`--fail-under 90` (a percentage) is accepted and every run fails the gate, not a usage error",
       CLI_ARGS, "tests/cli"),
    _m("cli-config-file-wins-over-flag", "loopmetric/cli/_args.py",
       "chosen = {**configured(settings_class, config), **chosen}  # the flags win",
       "chosen = {**chosen, **configured(settings_class, config)}  # the flags win",
       "a setting in pyproject.toml wins over the same setting given as a flag",
       CLI_ARGS, "tests/cli"),
    _m("cli-settings-error-names-the-argument", "loopmetric/cli/_args.py",
       'message = message.replace(f"argument `{name}`", flag).replace(f"`{name}`", flag)', "message = message",
       "a wrong flag value is reported as `argument `window``, a Python name, not the flag `--window` the user typed",
       CLI_ARGS, "tests/cli"),
    _m("config-pyproject-without-table-hides-the-parent", "loopmetric/cli/_config.py",
       "        if data is None:\n            return None", "        if data is None:\n            data = {}",
       "a pyproject.toml without [tool.loopmetric] hides the config file of the folder above it",
       CLI_CONFIG, "tests/cli"),
    _m("guard-replay-json-stopped-at-a-nudge", "loopmetric/guard/_frameworks.py",
       '"stopped_at": next((s for s, _, d in acted if d.action == "stop"), None),',
       '"stopped_at": next((s for s, _, d in acted), None),',
       "`guard-replay --json` gives `stopped_at` the step of the first nudge, though the run was not stopped there",
       ("tests/guard/test_guard_replay.py", "tests/guard/test_guard_replay_frameworks.py"), "tests/guard"),
    # -- the HTML report
    _m("html-cut-content-unsaid", "loopmetric/html/_render.py",
       'return f"{text[:limit]}… ({number(len(text) - limit)} more characters)"', "return text[:limit]",
       "a finding's long repeated content is cut on the page without saying how much was left out",
       HTML, "tests/html"),
    _m("html-histogram-perfect-score-crashes", "loopmetric/html/_svg.py",
       "counts[min(int(score * bins), bins - 1)] += 1", "counts[int(score * bins)] += 1",
       "the report of a clean trace (score 1.0) crashes drawing the histogram",
       HTML, "tests/html"),
    _m("html-unread-row-shown-as-fail", "loopmetric/html/_render.py",
       'return [entry_.name, None, "unread", [], row["error"], None, None]',
       'return [entry_.name, None, "fail", [], row["error"], None, None]',
       "a file the report could not read is listed in the table as a failing trace, not as unread",
       HTML, "tests/html"),
    _m("html-pattern-traces-counted-per-finding", "loopmetric/html/_render.py",
       'traces_with = Counter(p for r in rows for p in {f["pattern"] for f in r["findings"]})',
       'traces_with = Counter(p for r in rows for p in [f["pattern"] for f in r["findings"]])',
       "the page's per-pattern `traces` counts a trace once per finding of the pattern, not once",
       HTML, "tests/html"),
    # -- Spark's columns and its command
    _m("spark-tokens-and-cost-swapped", "loopmetric/spark/_score.py",
       "report.looped_steps, report.loop_tokens, report.loop_cost,",
       "report.looped_steps, report.loop_cost, report.loop_tokens,",
       "`loop_tokens` holds the loop's cost and `loop_cost` its tokens",
       SPARK, "tests/spark"),
    _m("spark-null-struct-row-unexplained", "loopmetric/spark/_score.py",
       "if nested and value is None:", "if False:",
       "a null row of a struct column gets a generic loop_error, not why Spark left it null and what to do",
       SPARK, "tests/spark"),
    _m("spark-cli-overwrite-refused", "loopmetric/cli/_spark.py",
       'if overwrite or "://" in local or not os.path.exists(local):', 'if "://" in local or not os.path.exists(local):',
       "`loopmetric spark ... --output OUT --overwrite` is refused because OUT exists",
       ("tests/cli/test_cli_usage.py", "tests/cli/test_first_hour.py"), "tests/cli"),
    # -- the scorers inside MLflow, pydantic-evals and Inspect
    _m("mlflow-pass-fail-named-loop-detection", "loopmetric/integrations/mlflow.py",
       'return "loop_detection" if value == "score" else "no_loops"', 'return "loop_detection"',
       "LoopScorer(value='pass_fail') writes to the `loop_detection` column, the one LoopScorer() writes its score to",
       ("tests/integrations/test_mlflow_scorer.py",), "tests/integrations"),
    _m("pydantic-evals-score-output-gives-both", "loopmetric/integrations/pydantic_evals.py",
       'if self.output == "score":', "if False:",
       "LoopEvaluator(output='score') gives the score and the `no_loops` assertion, not the score alone",
       ("tests/integrations/test_pydantic_evals_evaluator.py",), "tests/integrations"),
    _m("inspect-foreign-score-counted-clean", "loopmetric/integrations/inspect_ai.py",
       "return True  # not a loop_score score: never counted as clean",
       "return False  # not a loop_score score: never counted as clean",
       "Inspect's loop_rate counts a sample whose score has no threshold (not loop_score's) as not looping",
       ("tests/integrations/test_inspect_scorer.py",), "tests/integrations"),
    # -- LoopSettings' checks and words
    _m("settings-alias-and-field-both-accepted", "loopmetric/_settings.py",
       "            if field in kwargs:\n                raise ValueError", "            if False:\n                raise ValueError",
       "LoopSettings(repetition_threshold=3, repeated_call_threshold=5) keeps one silently, not refusing both",
       ("tests/test_settings.py",), TOP),
    _m("settings-embedder-not-callable-accepted", "loopmetric/_settings.py",
       "if self.embedder is not None and not callable(self.embedder):", "if False:",
       "LoopSettings(embedder=\"wordllama\") (a name, not a callable) is accepted and fails later, deep in scoring",
       ("tests/test_settings.py",), TOP),
    _m("settings-optional-int-error-hides-none", "loopmetric/_settings.py",
       'allowed = f"an int >= {minimum}" + (" or None" if optional else "")', 'allowed = f"an int >= {minimum}"',
       "a wrong window or threshold is refused without saying None (off) is allowed too",
       ("tests/test_settings.py",), TOP),
    # -- the span processor's live findings
    _m("otel-reasoning-check-off-still-alarms", "loopmetric/otel/_processor.py",
       "repeated_text_threshold=settings.repeated_text_threshold if settings.check_reasoning_stagnation else None,",
       "repeated_text_threshold=settings.repeated_text_threshold,",
       "with check_reasoning_stagnation=False, live still alarms on replies repeated word for word (offline does not)",
       OTEL, "tests/otel"),
    _m("otel-replies-loop-warning-names-nothing", "loopmetric/otel/_processor.py",
       '", ".join(finding.tools) or "replies",', '", ".join(finding.tools),',
       "the warning for a loop of repeated replies says `()` where it says `(replies)`",
       OTEL, "tests/otel"),
    _m("otel-on-loop-not-callable-accepted", "loopmetric/otel/_processor.py",
       "if on_loop is not None and not callable(on_loop):", "if False:",
       "LoopSpanProcessor(on_loop=\"print\") is accepted; each alarm then fails inside the processor, unseen",
       OTEL, "tests/otel"),
)
ROUNDS: dict[str, tuple[Audited, ...]] = {"2026-12-07": ROUND_1, "2026-12-08": ROUND_2, "2026-12-09": ROUND_3,
                                         "2026-12-10": ROUND_4, "2026-12-11": ROUND_5,
                                         "2026-12-12": ROUND_6, "2026-12-13": ROUND_7, "2026-12-14": ROUND_8,
                                         "2026-12-15": ROUND_9}
MUTANTS: tuple[Audited, ...] = ROUND_1 + ROUND_2 + ROUND_3 + ROUND_4 + ROUND_5 + ROUND_6 + ROUND_7 + ROUND_8 + ROUND_9


def round_of(audited: Audited) -> str:
    return next(name for name, mutants in ROUNDS.items() if audited in mutants)


def results_of(round_: str) -> Path:
    """A round's JSON lines: one per run."""
    return RESULTS_DIR / f"hand_{round_}.jsonl"


def copy_tree(into: Path, rev: str) -> None:
    """The tree of commit `rev` of this checkout at `into` (what is committed: tests written since
    are not in it)."""
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    packed = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-C", str(into), "-xf", "-"], input=packed, check=True)


# pytest's summary lines of a failed test or a module that failed to load (not a log line captured at ERROR level)
_FAILURE = ("FAILED ", "ERROR tests/")


def _failing_test(failed: list[str]) -> str:
    """The first failure of a run that names a test (a run recorded before `_FAILURE` may hold log lines first)."""
    return next((line for line in failed if line.startswith(_FAILURE)), failed[0] if failed else "")


def run_one(audited: Audited, tests: tuple[str, ...], work: Path, rev: str) -> dict:
    tree = work / "tree"
    copy_tree(tree, rev)
    apply(audited.mutant, tree)
    command = [sys.executable, "-m", "pytest", *tests, "-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
    if SLOT.exists():
        command = [str(SLOT), *command]
    env = dict(os.environ, PYTHONPATH=str(tree), DEEPEVAL_TELEMETRY_OPT_OUT="YES")
    start = time.monotonic()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith(_FAILURE)]
    tail = done.stdout.strip().splitlines()[-1:] if done.stdout.strip() else []
    return {"id": audited.mutant.id, "rev": rev, "tests": list(tests), "killed": done.returncode != 0,
            "returncode": done.returncode, "failed": lines[:3] or tail, "seconds": round(time.monotonic() - start, 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--folder", action="store_true", help="the module's test folder, not its files")
    parser.add_argument("--tests", nargs="*", help="these tests instead")
    parser.add_argument("--rev", default="HEAD", help="the commit whose tree is mutated and tested")
    parser.add_argument("--report", metavar="BEFORE", help="print the table of the runs so far, BEFORE the commit "
                                                          "of the first runs")
    parser.add_argument("--round", choices=list(ROUNDS), default=list(ROUNDS)[-1],
                        help="the audit --report and --list are of (default: the last)")
    args = parser.parse_args(argv)
    by_id = {a.mutant.id: a for a in MUTANTS}
    if args.report:
        print(report(args.report, args.round))
        return
    if args.list:
        for a in ROUNDS[args.round]:
            print(f"{a.mutant.id:<48} {a.mutant.path}")
        return
    unknown = [i for i in args.ids if i not in by_id]
    if unknown:
        raise SystemExit(f"Expected mutant ids from --list, but got {unknown}.")
    rev = subprocess.run(["git", "rev-parse", "--short", args.rev], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.strip()
    work = Path(tempfile.mkdtemp(prefix="hand-mutant-"))
    if (ROOT.parent / "shared").is_dir():  # the copy's ../shared, so the tests reading the recordings run
        (work / "shared").symlink_to(ROOT.parent / "shared")
    try:
        for id_ in args.ids or list(by_id):
            audited = by_id[id_]
            tests = tuple(args.tests) if args.tests else folder_tests(audited) if args.folder else audited.tests
            result = run_one(audited, tests, work, rev)
            print(json.dumps(result), flush=True)
            with open(results_of(round_of(audited)), "a") as out:
                out.write(json.dumps(result) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)



def _line_of(audited: Audited, rev: str) -> int:
    text = subprocess.run(["git", "show", f"{rev}:{audited.mutant.path}"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    return text[:text.index(audited.mutant.old)].count("\n") + 1


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def report(before_rev: str, round_: str = "2026-12-07") -> str:
    """A round's table from its JSON lines: each mutant on its module's tests at `before_rev`, a survivor
    on its module's test folder there too, and on the tests that pin it (a later commit)."""
    runs = [json.loads(line) for line in results_of(round_).read_text().splitlines() if line.strip()]
    mutants = ROUNDS[round_]
    rows = []
    caught = folder_caught = pinned = survived = 0
    for audited in mutants:
        mutant = audited.mutant
        mine = [r for r in runs if r["id"] == mutant.id]
        first = next(r for r in mine if r["rev"] == before_rev and r["tests"] == list(audited.tests))
        folder = next((r for r in mine if r["rev"] == before_rev and r["tests"] == list(folder_tests(audited))), None)
        after = next((r for r in mine if r["rev"] != before_rev and r["killed"]), None)
        in_folder = folder is not None and folder["killed"]
        killer = (_failing_test(first["failed"]) if first["killed"] else _failing_test(after["failed"]) if after
                  else _failing_test(folder["failed"]) if folder is not None and in_folder else "").split(" - ")[0]
        killer = killer.removeprefix("FAILED ").strip()
        caught += first["killed"]
        if not first["killed"]:
            folder_caught += in_folder
            pinned += after is not None
            survived += after is None and not in_folder
        verdict_folder = "-" if first["killed"] else "not run" if folder is None else (
            "caught" if folder["killed"] else "survived")
        rows.append(f"| {len(rows) + 1} | `{mutant.id}` | `{mutant.path}:{_line_of(audited, before_rev)}` | "
                    f"`{_cell(mutant.old)}` -> `{_cell(mutant.new)}` | {_cell(mutant.what)} | "
                    f"{'caught' if first['killed'] else '**survived**'} | {verdict_folder} | "
                    f"{'' if first['killed'] else 'pinned: ' if after else 'folder: ' if in_folder else '**not pinned**'}"
                    f"`{killer}` |")
    head = (f"{len(mutants)} mutants at {before_rev}: {caught} caught by their module's tests, "
            f"{len(mutants) - caught} survived them; of those, {folder_caught} caught by their module's whole test "
            f"folder; {pinned} pinned since by a behaviour test (the mutant put back alone on the commit that adds "
            f"the test, the test seen to fail), {survived} neither pinned nor caught by the folder.")
    return "\n".join([head, "",
                      "| # | mutant | where | change | what a user would notice | module's tests | folder | killed by |",
                      "|---|---|---|---|---|---|---|---|", *rows, ""])


if __name__ == "__main__":
    main()
