"""Trace files on Spark as `loopmetric score` reads them: rows of (`path`, `text`), each the
text of a whole file or of one line of a JSON Lines file (a coding agent's session: the whole
file), become one row per trace found.

`load_text` is the reader `load_traces` uses on a file's text, so a file holding
many traces (an OTLP export, a tau-bench results list) gives a row for each, a
document that is not a trace is skipped where `loopmetric score` skips it (found
in a folder) and reported where it does not (a file named on the command line).
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import unquote, urlparse

import pyarrow as pa
from pyspark.sql.types import StringType, StructField, StructType

from .._engine import analyze
from .._settings import LoopSettings
from ..readers import load_text
from ._schema import LOOP_ARROW_FIELDS, LOOP_SCHEMA
from ._score import error_row, report_row, to_arrays

__all__ = ["FILE_SCHEMA", "local_path", "score_file_rows"]

FILE_SCHEMA = StructType([StructField("path", StringType()), StructField("name", StringType()), *LOOP_SCHEMA.fields])
"""One row per trace: the file, the trace's name in it (as `loopmetric score` names it), the loop columns."""
_ARROW = pa.schema([pa.field("path", pa.string()), pa.field("name", pa.string()), *LOOP_ARROW_FIELDS])


def local_path(uri: str) -> str:
    """`file:///a/b c.json` as `/a/b c.json`; any other address as it is."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def score_file_rows(batches: Iterator[pa.RecordBatch], *, settings: LoopSettings,
                    named: frozenset[str]) -> Iterator[pa.RecordBatch]:
    """What `mapInArrow` runs: batches of (`path`, `text`) to batches of `FILE_SCHEMA` rows.
    `named` holds the files named on the command line (not found in a folder)."""
    for batch in batches:
        out: list[tuple] = []
        for path, text in zip(batch.column("path").to_pylist(), batch.column("text").to_pylist()):
            out.extend(_traces(local_path(path), text, settings, path in named or local_path(path) in named))
        yield pa.RecordBatch.from_arrays(
            [pa.array([row[0] for row in out], pa.string()), pa.array([row[1] for row in out], pa.string()),
             *to_arrays([row[2] for row in out])], schema=_ARROW)


def _traces(path: str, text: str, settings: LoopSettings, named: bool) -> Iterator[tuple[str, str, tuple]]:
    """(path, name, loop columns) for each trace in `text`; never raises."""
    try:
        for loaded in load_text(text, path):
            if loaded.error is not None or loaded.trace is None:
                if not (loaded.not_a_trace and not named):
                    yield path, loaded.name, error_row(loaded.error or "no trace")
                continue
            yield path, loaded.name, report_row(analyze(loaded.trace, settings))
    except Exception as error:  # noqa: BLE001 - one file's failure is that file's row, never the job's
        yield path, path.rsplit("/", 1)[-1], error_row(f"{path}: {type(error).__name__}: {error}")
