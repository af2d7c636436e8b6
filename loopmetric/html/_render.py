"""What the HTML report shows, as plain data, and the page rendered from it.

Each trace becomes an `Entry`: a row of the table (name, score, verdict,
patterns, worst finding) and a detail (the timeline rows prepared by
`loopmetric.plot.timeline_data`, the reason, each finding with the content
that repeated, truncated). Rows are embedded as one JSON array; details in
blocks of `CHUNK` traces that the browser parses only when a trace in the block
is opened (gzipped and base64-encoded past `COMPRESS_OVER` bytes, unpacked by
the browser's DecompressionStream). The JSON is escaped for HTML (`<`, `>`,
`&`, `'` as `\\u00XX`) and drawn in the browser with `textContent`, never parsed
as markup; everything the template prints is autoescaped by Jinja2.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import tempfile
from collections import Counter
from dataclasses import dataclass, fields
from importlib import resources
from typing import Any, Iterable, Optional, Sequence

from .._version import __version__
from .._numbers import count, money, number
from .._patterns import PATTERNS
from .._settings import LoopSettings
from ..plot import _CALL_COLOURS, _INPUT, _LLM, _PATTERN_COLOURS, _UNIQUE, timeline_data
from . import _svg

__all__ = ["CHUNK", "Entry", "entries_of", "entry", "render", "summary", "unread_entry", "write"]

CHUNK = 200  # traces per lazily parsed detail block
CONTENT_LIMIT = 300  # characters of repeated content shown per step
COMPRESS_OVER = 8_000_000  # bytes of detail JSON past which blocks are gzipped (1,000 typical traces: 3.6 MB)
PALETTE = list(dict.fromkeys([*_CALL_COLOURS, _UNIQUE, _LLM, *_PATTERN_COLOURS.values(), "#d62728", "black", _INPUT]))
_KIND = {"llm": 0, "tool": 1, "input": 2}  # a row's kind, as the page's script draws it
_COLOUR_INDEX = {colour: i for i, colour in enumerate(PALETTE)}


@dataclass(frozen=True)
class Entry:
    """One trace of the report: `row` for the table and the summary, `detail` for its view."""

    name: str
    row: dict[str, Any]  # report.to_dict() with name and steps drawn; {name, error} for an unread trace
    detail: dict[str, Any]


def _colour(colour: str) -> int:
    return _COLOUR_INDEX.get(colour, _COLOUR_INDEX["#d62728"])


def _cut(text: Any, limit: int = CONTENT_LIMIT) -> str:
    """At most `limit` characters, "… (N more characters)" saying what was left out."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({number(len(text) - limit)} more characters)"


def _content(step: Any) -> str:
    """What a step said or did, in full (cut later)."""
    if step.kind == "tool":
        outcome = "(no result)" if step.result is None else step.result
        return f"{step.name}({step.args}) -> {'error: ' if step.error else ''}{outcome}"
    if step.kind == "llm":
        return step.text or "(no text)"
    return f"input from {step.source}: {step.text}"


def entry(name: str, trace: Any, report: Any) -> Entry:
    """The row and detail of one scored trace (picklable: built in worker processes)."""
    data = timeline_data(trace, report)
    by_step = {step.step: step for step in trace.steps}
    findings = []
    for finding in report.findings:
        repeated: dict[str, list[int]] = {}
        for number_ in finding.steps:
            step = by_step.get(number_)
            if step is not None:
                repeated.setdefault(_cut(_content(step)), []).append(number_)
        findings.append({"pattern": finding.pattern, "severity": finding.severity, "count": finding.count,
                         "message": finding.message, "steps": list(finding.steps), "tools": list(finding.tools),
                         "similarity": finding.similarity, "tokens": finding.tokens, "cost": finding.cost,
                         "meaning": PATTERNS[finding.pattern].meaning if finding.pattern in PATTERNS else "",
                         "content": [[text, steps] for text, steps in repeated.items()]})
    detail = {
        "reason": report.reason,
        "notes": list(report.notes),  # what the reader skipped, and why
        "breakdown": dict(report.score_breakdown),
        "verdict": data.verdict,
        "legend": data.legend,
        "task": _cut(data.task) if data.task else "",  # what the agent was asked, above the timeline
        # one row per step: number, kind (0 an LLM output, 1 a tool call, 2 an input), colour, inside a loop, label
        "rows": [[step.step, _KIND.get(step.kind, 2), _colour(colour), int(step.step in data.marked), label]
                 for step, colour, label in zip(data.steps, data.colours, data.labels)],
        "columns": [[_colour(_PATTERN_COLOURS.get(f.pattern, "#d62728")), rows]
                    for f, rows in zip(data.findings, data.finding_rows)],
        "keys": [[shape, _colour(colour), text] for shape, colour, text in data.keys],
        "findings": findings,
    }
    row = {**report.to_dict(), "name": name, "steps": len(data.steps)}
    return Entry(name, row, detail)


def unread_entry(name: str, why: str) -> Entry:
    return Entry(name, {"name": name, "error": why}, {"error": why})


def _json(value: Any) -> str:
    """JSON that is safe inside a <script> block: no `<`, `>`, `&` or `'` left to end it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("'", "\\u0027").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _worst(row: dict) -> str:
    if "error" in row:
        return row["error"]
    findings = row["findings"]
    if not findings:
        return ""
    worst = min(findings, key=lambda f: ({"severe": 0, "mild": 1}.get(f["severity"], 2), f["steps"][:1]))
    steps = worst["steps"]
    where = f" (steps {steps[0]}-{steps[-1]})" if len(steps) > 1 else f" (step {steps[0]})" if steps else ""
    return f"{worst['severity']} {worst['pattern']}: {', '.join(worst['tools']) or '-'}{where}"


def summary(entries: Sequence[Entry]) -> dict[str, Any]:
    """The figures at the top of the page, as `loopmetric score` counts them: `scored` traces read and
    scored, `unread` files or records not read ("2 traces, 1 not read"); `total` both, what the pass
    rate is a share of (a trace not read never passes, as for `--fail-under`)."""
    rows = [e.row for e in entries if "error" not in e.row]
    unread = [e for e in entries if "error" in e.row]
    passed = sum(1 for r in rows if r["success"])
    findings = Counter(f["pattern"] for r in rows for f in r["findings"])
    traces_with = Counter(p for r in rows for p in {f["pattern"] for f in r["findings"]})
    failing = Counter(f["pattern"] for r in rows if not r["success"] for f in r["findings"])
    tokens = [r["loop_tokens"] for r in rows if r.get("loop_tokens") is not None]
    costs = [r["loop_cost"] for r in rows if r.get("loop_cost") is not None]
    total = len(rows) + len(unread)
    order = sorted(findings, key=lambda p: (-findings[p], p))
    worst = sorted((i for i, e in enumerate(entries) if "error" not in e.row and not e.row["success"]),
                   key=lambda i: (entries[i].row["score"], -entries[i].row["looped_steps"], entries[i].name))
    return {
        "total": total, "scored": len(rows), "passed": passed, "failed": len(rows) - passed, "unread": len(unread),
        "pass_rate": passed / total if total else None,
        "looped_steps": sum(r["looped_steps"] for r in rows),
        "loop_tokens": sum(tokens) if tokens else None, "loop_cost": sum(costs) if costs else None,
        "patterns": [{"name": p, "findings": findings[p], "traces": traces_with[p], "failing": failing[p],
                      "colour": _PATTERN_COLOURS.get(p, "#7f7f7f"),
                      "meaning": PATTERNS[p].meaning if p in PATTERNS else ""} for p in order],
        "worst": [{"index": i, "name": entries[i].name, "score": entries[i].row["score"],
                   "finding": _worst(entries[i].row)} for i in worst[:10]],
        "more_failing": max(0, len(worst) - 10),
    }


def _table_row(entry_: Entry) -> list:
    """[name, score or null, "pass"/"fail"/"unread", [patterns], worst finding or why unread, steps, looped steps]"""
    row = entry_.row
    if "error" in row:
        return [entry_.name, None, "unread", [], row["error"], None, None]
    patterns = sorted({f["pattern"] for f in row["findings"]})
    return [entry_.name, row["score"], "pass" if row["success"] else "fail", patterns, _worst(row), row["steps"],
            row["looped_steps"]]


def _settings_rows(settings: LoopSettings) -> list[tuple[str, str, bool]]:
    """(name, value, changed from the default) for every setting."""
    defaults = LoopSettings()
    return [(f.name, repr(getattr(settings, f.name)), getattr(settings, f.name) != getattr(defaults, f.name))
            for f in fields(LoopSettings)]


def _environment() -> Any:
    try:
        import jinja2
    except ImportError as error:
        raise ImportError('The HTML report needs Jinja2: pip install "loopmetric[report]"') from error
    return jinja2.Environment(
        loader=jinja2.PackageLoader("loopmetric.html", "templates"),
        autoescape=True,  # every template, whatever its name: trace content is untrusted
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _asset(name: str) -> str:
    return resources.files("loopmetric.html").joinpath("templates").joinpath(name).read_text(encoding="utf-8")


def _chunks(entries: Sequence[Entry], compress: Optional[bool]) -> tuple[list[Any], bool]:
    """The detail blocks, as JSON text, or gzipped and base64-encoded when they are large
    (the browser unpacks a block with DecompressionStream when a trace in it is opened)."""
    from markupsafe import Markup

    texts = [_json([e.detail for e in entries[start:start + CHUNK]]) for start in range(0, len(entries), CHUNK)]
    if compress is None:
        compress = sum(len(text) for text in texts) > COMPRESS_OVER
    if not compress:
        return [Markup(text) for text in texts], False
    # mtime=0: the same traces always give the same page
    return [base64.b64encode(gzip.compress(text.encode("utf-8"), mtime=0)).decode("ascii") for text in texts], True


def render(entries: Sequence[Entry], settings: LoopSettings, *, title: str = "loopmetric report",
           compress: Optional[bool] = None) -> str:
    """The whole page as one string; `compress` the detail blocks (None: when they are large)."""
    from markupsafe import Markup

    env = _environment()
    env.filters["number"] = number
    env.filters["money"] = money
    env.filters["count"] = count
    figures = summary(entries)
    script = _asset("report.js")
    chunks, packed = _chunks(entries, compress)
    page = env.get_template("report.html.j2").render(
        title=title,
        version=__version__,
        s=figures,
        histogram=_svg.histogram([e.row["score"] for e in entries if "error" not in e.row], settings.threshold),
        pattern_bars=_svg.pattern_bars(figures["patterns"]),
        unread=[(e.name, e.row["error"]) for e in entries if "error" in e.row],
        settings=_settings_rows(settings),
        rows_json=Markup(_json([_table_row(e) for e in entries])),
        meta_json=Markup(_json({"chunk": CHUNK, "palette": PALETTE,
                                "patterns": {p: _PATTERN_COLOURS.get(p, "#7f7f7f") for p in PATTERNS}})),
        chunks=chunks,
        packed=packed,
        css=Markup(_asset("report.css")),
        script=Markup(script),
        # only this script may run (a content security policy): a second line of defence behind the escaping
        script_hash="sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii"),
    )
    return page


def write(path: str, entries: Sequence[Entry], settings: LoopSettings, *, title: str = "loopmetric report",
          compress: Optional[bool] = None) -> int:
    """Render and write the page atomically (a reader never sees half a file); returns its size in bytes."""
    data = render(entries, settings, title=title, compress=compress).encode("utf-8")
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".loopmetric-", suffix=".html")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return len(data)


def entries_of(traces: Iterable[Any], settings: LoopSettings,
               unreadable: Iterable[tuple[str, str]] = ()) -> list[Entry]:
    """Entries for `write_report`: each trace read as `detect_loops` reads it (any format, a `Trace`, a
    `LoadedTrace`), scored with `settings`; a `(trace, report)` pair keeps its report."""
    from .._engine import analyze
    from ..readers import read_trace

    out: list[Entry] = []
    for position, item in enumerate(traces):
        trace, report = item if isinstance(item, tuple) else (item, None)
        trace = read_trace(trace)
        if report is None:
            report = analyze(trace, settings)
        out.append(entry(trace.name or f"trace {position + 1}", trace, report))
    out.extend(unread_entry(name, why) for name, why in unreadable)
    return out

