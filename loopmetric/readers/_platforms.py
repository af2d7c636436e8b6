"""The formats of what evaluation platforms export: MLflow, Langfuse, LangSmith.

One row per format for the registry: its name (for `--format`), what it is
(for errors), how its traces are read and the predicate that recognizes its
parsed JSON (any shape: one export, or a list of them).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator
from typing import Any, Callable

from .._model import Trace
from ._langfuse import is_langfuse_trace, read_langfuse_traces
from ._langsmith import is_langsmith_run, read_langsmith_runs
from ._mlflow import is_mlflow_trace, read_mlflow_traces

__all__ = ["PLATFORMS"]


def _records(reader: Callable[..., list[Trace]]) -> Callable[[Any, str], Iterator[tuple[str, Callable[[], Trace]]]]:
    """`records(data, name)` of a platform format: (label, read) per trace the export holds.

    The document is read once, when the first trace is asked for; an export of
    several traces labels each with its name.
    """

    def records(data: Any, name: str) -> Iterator[tuple[str, Callable[[], Trace]]]:
        traces = reader(data, name=name)
        for trace in traces:
            yield (trace.name if len(traces) > 1 else ""), functools.partial(_named, trace, name or trace.name)

    return records


def _named(trace: Trace, name: str) -> Trace:
    return dataclasses.replace(trace, name=name)


# (name, what it is, records, sniff): rows of the format registry, tried before the shapes
# of the other formats (a Langfuse trace or a LangSmith run would pass for a deepeval span).
PLATFORMS: tuple[tuple[str, str, Callable[[Any, str], Iterator[tuple[str, Callable[[], Trace]]]],
                       Callable[[Any], bool]], ...] = (
    ("mlflow", "an MLflow trace", _records(read_mlflow_traces), is_mlflow_trace),
    ("langfuse", "a Langfuse trace", _records(read_langfuse_traces), is_langfuse_trace),
    ("langsmith", "a LangSmith run", _records(read_langsmith_runs), is_langsmith_run),
)
