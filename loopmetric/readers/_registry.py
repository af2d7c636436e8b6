"""One entry point for every format: what a value holds, and the traces in it.

`detect_format` names the format of parsed JSON (or live objects) from its
shape; `records` yields the traces a document holds, each read on demand, so
that one bad record of a file does not keep the others from being read;
`read_trace` turns any single value a user may hold (a `Trace`, a trace dict,
JSON text or bytes, message objects, a pydantic-ai run result) into one
`Trace`, or raises an error that says what was given and what is accepted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Optional

from .._canonical import as_mapping
from .._errors import TraceReadError, describe
from .._gc import without_collector_pauses
from .._model import Trace
from ._anthropic import is_anthropic, read_anthropic_messages
from ._atif import is_atif, read_atif
from ._chat import read_chat_messages
from ._claude_code import is_claude_code, is_claude_code_line, read_claude_code, slim_claude_code_line
from ._codex import is_codex, is_codex_line, read_codex, slim_codex_line
from ._deepeval import read_deepeval_trace
from ._gemini import is_gemini, read_gemini_contents
from ._gemini_cli import is_gemini_cli, is_gemini_cli_line, read_gemini_cli
from ._intercode import is_intercode_run, read_intercode
from ._json import TEXT_TYPES, parse_all
from ._langchain import is_langchain, read_langchain_messages
from ._magentic import is_group_chat, read_group_chat
from ._mlflow import live_trace_dict
from ._openai_agents import is_openai_agents, read_openai_agents_spans
from ._openhands import is_openhands, read_openhands
from ._otlp import is_otlp, read_otlp_traces
from ._otlp._wire import live_spans
from ._pydantic_ai import read_pydantic_ai_messages
from ._responses import is_responses, read_responses_items
from ._smolagents import is_smolagents, read_smolagents_steps
from ._sweagent import read_swe_agent
from ._platforms import PLATFORMS  # platform exports: MLflow, Langfuse, LangSmith

__all__ = ["ACCEPTED", "FORMATS", "REGISTRY", "Format", "LoadedTrace", "NotATrace", "detect_format", "line_format",
           "read_trace", "records"]

Records = Iterator[tuple[str, Callable[[], Trace]]]


class NotATrace(TraceReadError):
    """The JSON parsed but is none of the known trace formats."""


@dataclass(frozen=True)
class LoadedTrace:
    """One trace read from a file, or the error that kept it from being read.

    `name` is the file name, with `#index` (the record's place among the
    records of the file, from 0) when the file holds several; `label` is what
    the source calls the record (a task id, a trace id, a line), kept out of
    the name so that the name stays an id.
    """

    name: str
    trace: Optional[Trace] = None
    error: Optional[str] = None
    not_a_trace: bool = False  # parsed, but no known trace format
    index: Optional[int] = None  # the record's place in a file of several
    label: str = ""


@dataclass(frozen=True)
class Format:
    """One trace format: its name, what it is (for errors), how to recognise it, how to read it.

    `sniff_object` looks at a JSON object (a mapping), `sniff_list` at the first
    item of a JSON array; either may be None when the format is never that
    shape. `records(data, name)` yields (label, read) for each trace the
    document holds. Rows are tried in `REGISTRY` order: the first that
    recognises a document names its format.
    """

    name: str
    accepted: str
    records: Callable[[Any, str], Records]
    sniff_object: Optional[Callable[[Mapping[str, Any]], bool]] = None
    sniff_list: Optional[Callable[[Mapping[str, Any]], bool]] = None
    sniff: Optional[Callable[[Any], bool]] = None  # any shape (OTLP: an export, a list of spans, ...)
    # A format written as JSON Lines whose whole file is one trace (a coding agent's session):
    # `line` tells one parsed line of it, `slim` drops from a line what the reader never reads
    # (a big file's lines are slimmed as they are parsed).
    line: Optional[Callable[[Mapping[str, Any]], bool]] = None
    slim: Optional[Callable[[Any], Any]] = None


# -- the rows: how each format is recognised and read -----------------------------------------

def _tau_records(data: Any, name: str) -> Records:
    for record in data if isinstance(data, (list, tuple)) else [data]:
        m = as_mapping(record)
        label = f"task {m.get('task_id')} trial {m.get('trial')}" if m is not None and "task_id" in m else ""
        yield label, partial(read_chat_messages, m.get("traj") if m is not None else record, name=name)


def _otlp_records(data: Any, name: str) -> Records:
    for trace in read_otlp_traces(data):
        yield trace.name, partial(dataclasses.replace, trace, name=name)


def _openai_agents_records(data: Any, name: str) -> Records:
    for trace in read_openai_agents_spans(data):
        yield trace.name, partial(dataclasses.replace, trace, name=name)


def _tau2_records(data: Any, name: str) -> Records:
    m = as_mapping(data) or {}
    items = m.get("simulations") if "simulations" in m else [data]
    for record in items if isinstance(items, (list, tuple)) else []:
        r = as_mapping(record) or {}
        yield (f"task {r.get('task_id')}" if "task_id" in r else "",
               partial(read_chat_messages, r.get("messages"), name=name, source="tau2-bench"))


def _intercode_records(data: Any, name: str) -> Records:
    m = as_mapping(data) or {}
    runs = [(None, m)] if is_intercode_run(m) else list(m.items())
    for key, run in runs:
        yield "" if key is None else f"task {key}", partial(read_intercode, run, name=name)


def _mint_records(data: Any, name: str) -> Records:
    state = as_mapping((as_mapping(data) or {}).get("state")) or {}
    yield "", lambda: read_chat_messages(state.get("history"), name=name, source="mint")


def _one(reader: Callable[..., Trace]) -> Callable[[Any, str], Records]:
    """`records` of a format whose document is one trace."""

    def one(data: Any, name: str) -> Records:
        yield "", lambda: reader(data, name=name)

    return one


def _has_list(key: str) -> Callable[[Mapping[str, Any]], bool]:
    return lambda m: isinstance(m.get(key), list)


def _is_deepeval(m: Mapping[str, Any]) -> bool:
    return "trace_dict" in m or "children" in m or ("name" in m and ("type" in m or "input" in m or "output" in m))


def _is_pydantic_ai(first: Mapping[str, Any]) -> bool:
    return isinstance(first.get("parts"), (list, tuple)) and first.get("kind") in ("request", "response")


def _is_mint(m: Mapping[str, Any]) -> bool:
    state = as_mapping(m.get("state"))
    return state is not None and isinstance(state.get("history"), list)


def _is_intercode(m: Mapping[str, Any]) -> bool:
    return is_intercode_run(m) or bool(m) and all(is_intercode_run(as_mapping(v)) for v in list(m.values())[:20])


# A JSON array is read by the first item's shape, in priority order tau-bench, pydantic-ai,
# chat, deepeval: each list sniff below leaves out the shapes of the ones before it.
def _list_chat(first: Mapping[str, Any]) -> bool:
    return "role" in first and not _has_list("traj")(first) and not _is_pydantic_ai(first)


def _list_deepeval(first: Mapping[str, Any]) -> bool:
    return (("children" in first or ("type" in first and "name" in first)) and "role" not in first
            and not _has_list("traj")(first) and not _is_pydantic_ai(first))


def _list_pydantic_ai(first: Mapping[str, Any]) -> bool:
    return _is_pydantic_ai(first) and not _has_list("traj")(first)


REGISTRY: tuple[Format, ...] = (
    Format("otlp", "OTLP/OpenTelemetry span JSON", _otlp_records, sniff=is_otlp),
    # coding agents' own recordings: JSON Lines sessions first, each file one trace
    Format("claude-code", "Claude Code session transcripts or stream-json output", _one(read_claude_code),
           sniff=is_claude_code, line=is_claude_code_line, slim=slim_claude_code_line),
    Format("codex", "Codex CLI session rollouts", _one(read_codex), sniff=is_codex, line=is_codex_line,
           slim=slim_codex_line),
    Format("gemini-cli", "Gemini CLI sessions", _one(read_gemini_cli), sniff=is_gemini_cli, line=is_gemini_cli_line),
    Format("openhands", "OpenHands events (a trajectory or an evaluation record's history)", _one(read_openhands),
           sniff=is_openhands),
    Format("atif", "ATIF trajectories (Harbor, Terminal-Bench trajectory.json)", _one(read_atif), sniff=is_atif),
    *(Format(name, accepted, read, sniff=sniff) for name, accepted, read, sniff in PLATFORMS),  # platform exports
    Format("openai-agents", "OpenAI Agents SDK spans (span.export() dicts)", _openai_agents_records,
           sniff=is_openai_agents),
    # exported message formats, each sniffed on its first items only, before chat and deepeval
    # (Anthropic first: its messages may carry `"type": "message"` as Responses-API items do)
    Format("anthropic", "Anthropic Messages (tool_use / tool_result blocks)", _one(read_anthropic_messages),
           sniff=is_anthropic),
    Format("responses", "OpenAI Responses-API items (the Agents SDK's to_input_list())",
           _one(read_responses_items), sniff=is_responses),
    Format("langchain", "LangChain messages (messages_to_dict or dumpd)", _one(read_langchain_messages),
           sniff=is_langchain),
    Format("smolagents", "smolagents memory steps (agent.memory.get_full_steps())", _one(read_smolagents_steps),
           sniff=is_smolagents),
    Format("gemini", "Gemini contents (parts with functionCall / functionResponse)", _one(read_gemini_contents),
           sniff=is_gemini),
    Format("swe-agent", "a SWE-agent .traj dict", _one(read_swe_agent), sniff_object=_has_list("trajectory")),
    Format("tau2-bench", "tau2-bench record", _tau2_records, sniff_object=_has_list("simulations")),
    Format("intercode", "an InterCode run", _intercode_records, sniff_object=_is_intercode),
    Format("magentic-one", "a Magentic-One log", _one(read_group_chat), sniff_object=is_group_chat),
    Format("mint", "a MINT record", _mint_records, sniff_object=_is_mint),
    Format("deepeval", "a deepeval trace dict", _one(read_deepeval_trace),
           sniff_object=_is_deepeval, sniff_list=_list_deepeval),
    Format("chat", "OpenAI-style chat messages", _one(read_chat_messages),
           sniff_object=lambda m: _has_list("messages")(m) or _has_list("conversation")(m), sniff_list=_list_chat),
    Format("tau-bench", "a tau-bench", _tau_records, sniff_object=_has_list("traj"), sniff_list=_has_list("traj")),
    Format("pydantic-ai", "a pydantic-ai message history (or its run result)", _one(read_pydantic_ai_messages),
           sniff_list=_list_pydantic_ai),
)
_BY_NAME = {row.name: row for row in REGISTRY}

FORMATS = tuple(row.name for row in REGISTRY)
# What errors say is accepted: written as prose (a test checks it names every row's `accepted`).
ACCEPTED = ("a Trace, a deepeval trace dict, OTLP/OpenTelemetry span JSON, Claude Code session transcripts or "
            "stream-json output, Codex CLI session rollouts, Gemini CLI sessions, OpenHands events (a trajectory or "
            "an evaluation record's history), ATIF trajectories (Harbor, Terminal-Bench trajectory.json), "
            "OpenAI Agents SDK spans "
            "(span.export() dicts), OpenAI Responses-API items (the Agents SDK's to_input_list()), "
            "Anthropic Messages (tool_use / tool_result blocks), LangChain messages (messages_to_dict or dumpd), "
            "smolagents memory steps (agent.memory.get_full_steps()), Gemini contents (parts with functionCall / "
            "functionResponse), a pydantic-ai message history (or its run result), OpenAI-style chat messages, "
            "a tau-bench or tau2-bench record, a SWE-agent .traj dict, an InterCode run, a Magentic-One log, "
            "a MINT record, an MLflow trace, a Langfuse trace or a LangSmith run, as objects or as JSON text "
            "or bytes")


def line_format(documents: list[Any], fmt: Optional[str] = None) -> Optional[str]:
    """The format of which the parsed documents of a file are the lines, when the whole file is one
    trace of it (a Claude Code transcript, a Codex rollout): every document a line of it, the list of
    them recognised as it. `fmt` (a --format) names the only row tried."""
    for row in REGISTRY:
        if row.line is None or fmt is not None and row.name != fmt:
            continue
        if all((m := as_mapping(d)) is not None and row.line(m) for d in documents) and (
                fmt is not None or row.sniff is not None and row.sniff(documents)):
            return row.name
    return None


def slim_lines(first: Any, fmt: Optional[str] = None) -> Optional[Callable[[Any], Any]]:
    """What the line format whose line `first` (a file's first parsed line) is drops from each line
    as it is parsed (`Format.slim`); None when it is no such line (or not of `fmt`, when given)."""
    m = as_mapping(first)
    for row in REGISTRY:
        if row.line is not None and row.slim is not None and m is not None and row.line(m) and (
                fmt is None or row.name == fmt):
            return row.slim
    return None


# A span dict of deepeval's shape holding nothing else (what a tracer's own dump of spans holds): its
# `type` and `name` text, no key outside these, and no list under `input`. No row before "deepeval"
# recognises such a dict (each looks for a key of its own, or, for Responses-API items, for a list under
# `input`; InterCode's for a dict of runs, and a name is text), and "deepeval" does: it is told at once,
# without the sniffers of every other format (`tests/readers/test_registry_shortcut.py` checks both ways).
_SPAN_ONLY_KEYS = frozenset({"type", "name", "input", "output", "children", "tools_called", "error",
                             "input_token_count", "output_token_count", "cost", "cost_per_input_token",
                             "cost_per_output_token"})


def _plain_span(data: Any) -> bool:
    """Whether `data` is a span dict of deepeval's shape and nothing else (see `_SPAN_ONLY_KEYS`)."""
    return (type(data) is dict and type(data.get("type")) is str and type(data.get("name")) is str
            and data.keys() <= _SPAN_ONLY_KEYS and not isinstance(data.get("input"), (list, tuple)))


def detect_format(data: Any) -> str:
    """One of `FORMATS`, from the shape of parsed JSON or live objects (the first row of
    `REGISTRY` that recognises it)."""
    if _plain_span(data):  # (most traces scored one at a time: no sniffer of another format asked)
        return "deepeval"
    return _format_by_rows(data)


def _format_by_rows(data: Any) -> str:
    """`detect_format` without its shortcut: each row of `REGISTRY` asked in turn."""
    for row in REGISTRY:
        if row.sniff is not None and row.sniff(data):
            return row.name
    m = as_mapping(data) if not isinstance(data, (list, tuple)) else None
    if m is not None:
        for row in REGISTRY:
            if row.sniff_object is not None and row.sniff_object(m):
                return row.name
        keys = ", ".join(sorted(map(str, m))[:8])
        raise NotATrace(f"not a known trace format ({'keys: ' + keys if keys else 'an empty object'}"
                        f"{_wrapped_chat(m)})")
    if isinstance(data, (list, tuple)) and data:
        first = as_mapping(data[0]) or {}
        for row in REGISTRY:
            if row.sniff_list is not None and row.sniff_list(first):
                return row.name
    what = _list_shape(data) if isinstance(data, (list, tuple)) else f"a {type(data).__name__}"
    raise NotATrace(f"not a known trace format ({what})")


def _list_shape(data: Any) -> str:
    """What a list no row recognises holds, for the error: empty, or what its first item is."""
    if not data:
        return "an empty list"
    first = as_mapping(data[0])
    if first is None:
        return f"a list of {len(data)} items, the first a {type(data[0]).__name__}"
    keys = ", ".join(sorted(map(str, first))[:8])
    return f"a list of {len(data)} items, the first with {'keys: ' + keys if keys else 'no keys'}"


def _wrapped_chat(m: Mapping[str, Any]) -> str:
    """A hint for chat logs in a wrapper no reader knows: nested messages, request/response pairs."""
    if "request" in m and "response" in m:
        return "; request/response pairs: write the request's messages plus the reply as one list of messages"
    for key, value in list(m.items())[:20]:
        inner = as_mapping(value) if not isinstance(value, (list, tuple, str)) else None
        if inner is not None and any(isinstance(inner.get(k), list) for k in ("messages", "conversation")):
            return f"; chat messages nested under {key!r}: write that object (or its messages list) alone"
    return ""


def records(data: Any, fmt: str, name: str) -> Records:
    """(label, read) for each trace a parsed document of format `fmt` holds.

    `read()` gives a `Trace` named `name`; `label` is what the source calls the
    record ("task 12 trial 0", "trace 4bf92f3577b34da6"), "" when nothing.
    """
    row = _BY_NAME.get(fmt)
    if row is None:
        raise ValueError(f"Expected a format among {', '.join(FORMATS)}, but got {fmt!r}.")
    return row.records(data, name)


def _run_result_messages(value: Any) -> Optional[list]:
    """The messages of a pydantic-ai run result (`result.all_messages()`), else None."""
    kind = type(value)
    if kind.__module__.startswith("pydantic_ai") and kind.__name__ in ("AgentRunResult", "StreamedRunResult"):
        return list(value.all_messages())
    return None


@without_collector_pauses
def read_trace(value: Any, *, format: Optional[str] = None, name: str = "") -> Trace:  # noqa: A002
    """The one trace `value` holds, read by the reader of its format.

    Raises `TraceReadError` for None, for text that is not JSON, for content of
    no known format and for a trace with nothing in it; `TypeError` for what
    cannot hold one trace (a number, a path, a list or iterator of traces).
    """
    if isinstance(value, Trace):
        return value
    if isinstance(value, LoadedTrace):
        if value.trace is None:
            raise TraceReadError(f"The trace {value.name!r} could not be read: {value.error}")
        return value.trace
    if value is None:
        raise TraceReadError(f"Expected a trace, but got None (nothing was recorded). Accepted: {ACCEPTED}.")
    messages = _run_result_messages(value)
    if messages is not None:
        return read_pydantic_ai_messages(messages, name=name)
    value = live_trace_dict(value)  # an mlflow.entities.Trace: its dict, read like one from a file
    value = live_spans(value)  # OpenTelemetry SDK spans (get_finished_spans()): their span JSON, as dicts
    _reject_non_traces(value)
    data = _parse(value)
    try:
        fmt = format or detect_format(data)
    except NotATrace as error:
        raise NotATrace(f"Expected a trace, but the {_kind(value)} given is {error}. Accepted: {ACCEPTED}.") from None
    found = list(records(data, fmt, name))
    if len(found) != 1:
        if not found:  # a record of no run (tau2-bench's `simulations: []`): nothing recorded, not several traces
            raise TraceReadError(f"Expected a trace, but the {fmt} content holds none (nothing was recorded).")
        raise TypeError(
            f"Expected one trace, but the {fmt} content holds {len(found)} traces; read them with "
            "load_traces(path), or score each: [detect_loops(t) for t in traces]."
        )
    return found[0][1]()


def _kind(value: Any) -> str:
    return "JSON text" if isinstance(value, TEXT_TYPES) else type(value).__name__


def _parse(value: Any) -> Any:
    """Parsed JSON text or bytes; span batches of one OTLP export (or Agents SDK spans) become one list."""
    if not isinstance(value, TEXT_TYPES):
        return value
    found = parse_all(value)
    if len(found) == 1:
        return found[0]
    if all(is_otlp(d) for d in found) or all(is_openai_agents(d) for d in found) or line_format(found):
        return found
    raise TypeError(
        f"Expected JSON text of one trace, but it holds {len(found)} JSON documents; "
        "read them with load_traces(path), or score each: [detect_loops(t) for t in traces]."
    )


def _reject_non_traces(value: Any) -> None:
    if isinstance(value, TEXT_TYPES) or isinstance(value, Mapping):
        if isinstance(value, str) and value.lstrip("\ufeff \t\r\n")[:1] not in ("{", "["):
            raise TraceReadError(
                "Expected JSON text of a trace, but got a string that is not JSON "
                f"({value.strip()[:40]!r}); to read a file, use load_traces(path)."
            )
        return
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(item, (Trace, LoadedTrace)) for item in value):
            raise TypeError(
                f"Expected one trace, but got a {type(value).__name__} of {len(value)} traces; "
                "score each: [detect_loops(t) for t in traces]."
            )
        return
    if hasattr(value, "__fspath__"):
        raise TypeError(f"Expected a trace, but got a path ({value}); to read a file, use load_traces(path).")
    if hasattr(value, "_trace_dict"):
        raise TypeError(f"Expected a trace, but got {describe(value)}; pass its `_trace_dict`.")
    if isinstance(value, Iterable) or isinstance(value, (int, float, bool, set, frozenset)):
        raise TypeError(
            f"Expected one trace, but got {describe(value)}; pass one trace "
            "(or score each: [detect_loops(t) for t in traces]). Accepted: " + ACCEPTED + "."
        )
    if as_mapping(value) is None:
        raise TypeError(f"Expected a trace, but got {describe(value)}. Accepted: {ACCEPTED}.")
