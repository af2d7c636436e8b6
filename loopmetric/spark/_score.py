"""`score_traces`: the loop columns for every row of a Spark DataFrame, computed where the data is.

Spark hands each Python worker the rows of a partition as Arrow record batches
(`mapInArrow`). `score_batches` takes the trace column of each batch, reads and
scores every row on its own (`read_trace`, then `analyze`: the engine of
`detect_loops`, so the verdicts are the same row for row) and returns the batch
with the loop columns appended. A row that cannot be read gets `loop_error` and
`loop_success = False`; no row can fail the task or another row. The engine is
imported when a worker unpickles `score_batches` (by reference to this module):
once per Python worker process, which Spark reuses from task to task.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any, Optional

import pyarrow as pa
from pyspark.sql.types import ArrayType, BinaryType, MapType, StringType, StructType

from .._engine import analyze, resolve_settings
from .._errors import TraceReadError, describe
from .._report import LoopReport
from .._settings import LoopSettings
from ..readers import read_trace
from ._schema import FINDING_FIELDS, LOOP_ARROW_FIELDS, LOOP_COLUMNS, LOOP_SCHEMA

__all__ = ["NULL_NESTED", "error_row", "report_row", "score_batches", "score_traces", "score_value", "to_arrays"]

NULL_NESTED = ("Expected a trace, but the column is null in this row (Spark's JSON reader also leaves it null "
               "for a line it could not parse: malformed, or nested deeper than its limit of 1,000 levels); "
               "read such files as text (spark.read.text) to score them exactly.")
_TEXT_TYPES = (StringType, BinaryType)
_NESTED_TYPES = (StructType, ArrayType, MapType)


def score_traces(df: Any, column: str = "trace", *, settings: Optional[LoopSettings] = None,
                 **options: Any) -> Any:
    """`df` with the loop columns of the trace in `column` added to every row.

    `column` holds one trace per row: JSON text (string) or UTF-8 JSON bytes
    (binary) in any format the readers detect (deepeval, OTLP, pydantic-ai,
    chat, tau-bench, SWE-agent), or a struct, array or map column as Spark reads
    JSON (see the README for what Spark's schema inference can change; text is
    exact). `settings` and `options` are the `LoopSettings` fields, as for
    `detect_loops`; they are checked here, before Spark runs anything.

    Added columns (`LOOP_SCHEMA`): `loop_score`, `loop_success`,
    `loop_patterns`, `loop_reason`, `loop_steps`, `loop_tokens`, `loop_cost`,
    `loop_findings` and `loop_error`. A row whose trace cannot be read never
    passes: `loop_success` False, `loop_error` says why, and `loop_score` and
    the other loop columns are null. Works on classic and Spark Connect
    DataFrames; lazy, like any transformation.
    """
    resolved = resolve_settings(settings, options)
    nested = _check_input(df, column)
    batches = partial(score_batches, column=column, settings=resolved, nested=nested)
    return df.mapInArrow(batches, StructType(df.schema.fields + LOOP_SCHEMA.fields))


def _check_input(df: Any, column: Any) -> bool:
    """Whether `column` of `df` is nested (struct, array, map) rather than text; errors otherwise."""
    if not all(hasattr(df, name) for name in ("mapInArrow", "schema", "columns")):
        raise TypeError(f"Expected argument `df` to be a Spark DataFrame, but got {describe(df)}.")
    if not isinstance(column, str):
        raise TypeError(f"Expected argument `column` to be a column name (str), but got {describe(column)}.")
    schema = df.schema
    if column not in schema.fieldNames():
        raise ValueError(f"Expected argument `column` to name a column of `df` ({', '.join(schema.fieldNames())}), "
                         f"but got {column!r}.")
    taken = [name for name in LOOP_COLUMNS if name in schema.fieldNames()]
    if taken:
        raise ValueError(f"Expected `df` to have no loop columns yet, but it has {', '.join(taken)}; "
                         "drop them (or select the input columns) before scoring again.")
    kind = schema[column].dataType
    if isinstance(kind, _TEXT_TYPES):
        return False
    if isinstance(kind, _NESTED_TYPES):
        return True
    raise TypeError(f"Expected column {column!r} to hold JSON text (string), JSON bytes (binary) or a struct, "
                    f"but it is {kind.simpleString()}.")


# -- on the executors ---------------------------------------------------------
def score_batches(batches: Iterator[pa.RecordBatch], *, column: str, settings: LoopSettings,
                  nested: bool) -> Iterator[pa.RecordBatch]:
    """Each Arrow batch with the loop columns of its `column` appended (what `mapInArrow` runs)."""
    schema: Optional[pa.Schema] = None
    for batch in batches:
        if schema is None:
            schema = pa.schema(list(batch.schema) + list(LOOP_ARROW_FIELDS))
        rows = [score_value(value, settings, nested=nested) for value in _values(batch.column(column), nested)]
        yield pa.RecordBatch.from_arrays(list(batch.columns) + to_arrays(rows), schema=schema)


def score_value(value: Any, settings: LoopSettings, *, nested: bool = False) -> tuple:
    """The loop columns of one row's value, in `LOOP_COLUMNS` order. Never raises."""
    try:
        if isinstance(value, _Unconvertible):
            raise value.error
        if nested and value is None:
            raise TraceReadError(NULL_NESTED)
        report = analyze(read_trace(_without_nulls(value) if nested else value), settings)
        return report_row(report)
    except (TraceReadError, TypeError) as error:
        return error_row(str(error))
    except Exception as error:  # noqa: BLE001 - one row's failure is that row's result, never the job's
        return error_row(f"{type(error).__name__}: {error}")


class _Unconvertible:
    """A row Arrow could not turn into a Python value (kept to be reported as that row's error)."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _values(array: pa.Array, nested: bool) -> list[Any]:
    """The column's values as Python objects: str, bytes, or the dicts and lists of a struct."""
    options = {"maps_as_pydicts": "lossy"} if nested else {}
    try:
        return array.to_pylist(**options)
    except Exception:  # noqa: BLE001 - find the row(s) that do not convert, keep the others
        values: list[Any] = []
        for index in range(len(array)):
            try:
                values.append(array[index].as_py(**options))
            except Exception as error:  # noqa: BLE001
                values.append(_Unconvertible(error))
        return values


def _without_nulls(value: Any) -> Any:
    """A struct value as `json.loads` gave it: Spark gives every row every field of the
    inferred schema, null where the row's JSON had none; those fields are dropped
    (iteratively: no recursion however deep). `value` is a fresh copy, changed in place."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            for key in [key for key, field in item.items() if field is None]:
                del item[key]
            pending.extend(field for field in item.values() if isinstance(field, (dict, list)))
        elif isinstance(item, list):
            pending.extend(element for element in item if isinstance(element, (dict, list)))
    return value


def report_row(report: LoopReport) -> tuple:
    findings = [
        (f.pattern, f.severity, f.count, list(f.steps), [_utf8(t) for t in f.tools], list(f.fingerprints))
        for f in report.findings
    ]
    return (report.score, report.success, sorted({f.pattern for f in report.findings}), _utf8(report.reason),
            report.looped_steps, report.loop_tokens, report.loop_cost,
            [dict(zip(FINDING_FIELDS, finding)) for finding in findings], None)


def error_row(message: str) -> tuple:
    return (None, False, None, None, None, None, None, None, _utf8(message))


def _utf8(text: str) -> str:
    """`text` as Arrow can store it: lone surrogates (legal in JSON escapes) become '?'."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def to_arrays(rows: list[tuple]) -> list[pa.Array]:
    """The loop columns as Arrow arrays; a row Arrow rejects becomes that row's error."""
    try:
        return _build(rows)
    except Exception:  # noqa: BLE001 - unexpected: isolate the row(s), never fail the batch
        return _build([_storable(row) for row in rows])


def _build(rows: list[tuple]) -> list[pa.Array]:
    columns = list(zip(*rows)) if rows else [()] * len(LOOP_ARROW_FIELDS)
    return [pa.array(list(values), type=field.type) for values, field in zip(columns, LOOP_ARROW_FIELDS)]


def _storable(row: tuple) -> tuple:
    try:
        for value, field in zip(row, LOOP_ARROW_FIELDS):
            pa.array([value], type=field.type)
        return row
    except Exception as error:  # noqa: BLE001
        return error_row(f"{type(error).__name__}: the result could not be stored: {error}")
