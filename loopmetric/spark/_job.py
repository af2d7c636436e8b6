"""The Spark job behind `loopmetric spark PATHS... --output OUT`: score trace files with Spark
and write the loop columns as Parquet or JSON Lines (the command line is `loopmetric.cli._spark`).

Which files, and how each becomes rows: `.jsonl` / `.ndjson` files one line per
row (Spark splits large files between tasks), except a coding agent's session (Claude
Code, Codex CLI), whose lines are joined back into one row, in file order; `.json` /
`.traj` files one file per row (`wholetext`); `.gz` versions of both. Folders are searched recursively;
paths are anything Spark reads (local, `s3a://`, `hdfs://`, globs). Each row's
text is read by `load_text`, the reader of `loopmetric score`: one output row per
trace, named as `loopmetric score` names it (a coding agent's JSON Lines session one trace,
as there). Unlike `loopmetric score`, OTLP span batches on separate lines of a JSON Lines
file are not joined into one trace.
"""

from __future__ import annotations

import os
import sys
import warnings
from contextlib import contextmanager
from functools import partial
from typing import Any, Iterator, Optional, Sequence

from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from .._settings import LoopSettings
from ._files import FILE_SCHEMA, local_path, score_file_rows

__all__ = ["DEFAULT_CONF", "DEFAULT_MASTER", "SHOWN_ERRORS", "SparkJobError", "read_trace_files", "run_job"]

DEFAULT_MASTER = "local[*,4]"  # every core; a failed task is retried (up to 4 attempts) as on a cluster
DEFAULT_CONF = {
    # Rows per Arrow batch sent to a Python worker. Spark 4 also caps a batch at 64 MB
    # (spark.sql.execution.arrow.maxBytesPerBatch); on Spark 3.5 this alone keeps a batch of
    # large traces under Arrow's 2 GB per column (1,000 traces of 2 MB each).
    "spark.sql.execution.arrow.maxRecordsPerBatch": "1000",
}
_LINES, _WHOLE = ("jsonl", "ndjson"), ("json", "traj")
_ROLLOUT_TYPES = ("session_meta", "response_item", "event_msg", "turn_context")  # a Codex CLI rollout's lines
SHOWN_ERRORS = 10


def run_job(paths: list[str], output: str, *, settings: LoopSettings, master: Optional[str] = None,
            conf: Sequence[str] = (), overwrite: bool = False) -> dict[str, Any]:
    """Score the trace files under `paths` on Spark and write the loop columns to `output`.

    Returns the summary the command line prints: `rows`, `traces` (read),
    `failed`, `looped`, `tokens`, `cost`, `patterns` and the first `errors`.
    Raises `SparkJobError` (a `ValueError`) for a bad `--conf` or what Spark
    refuses (a path that does not exist, an output that does).
    """
    settings_conf = {**DEFAULT_CONF, **_parse_conf(conf)}
    if not _remote(master):  # a progress bar when stderr is a terminal, as `loopmetric score`
        settings_conf.setdefault("spark.ui.showConsoleProgress", str(sys.stderr.isatty()).lower())
    owned = SparkSession.getActiveSession() is None
    with warnings.catch_warnings():  # PySpark warns about pandas versions it has not yet tested
        warnings.filterwarnings("ignore", "PySpark does not yet fully support", FutureWarning)
        with _environ(worker_python(master)):  # read once, when the session's context starts
            spark = _session(master, settings_conf)
        try:
            return _score(spark, list(paths), output, overwrite, settings)
        except PySparkException as error:
            raise SparkJobError(str(error).strip().splitlines()[0]) from None
        finally:
            if owned:
                spark.stop()


class SparkJobError(ValueError):
    """What stops a Spark job before it scores: said in one line."""


def _parse_conf(pairs: Sequence[str]) -> dict[str, str]:
    conf = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key.strip():
            raise SparkJobError(f"Expected --conf to be KEY=VALUE, but got {pair!r}.")
        conf[key.strip()] = value
    return conf


def worker_python(master: Optional[str]) -> dict[str, str]:
    """`PYSPARK_PYTHON` for the session: the Python workers start this interpreter (`sys.executable`),
    not the first `python3` on PATH, so that a virtual environment run without being activated
    (`venv/bin/loopmetric spark ...`) still has its packages; nothing when `PYSPARK_PYTHON` is set
    or the workers run elsewhere (a cluster, Spark Connect), where this path may not exist."""
    if _local(master) and not os.environ.get("PYSPARK_PYTHON"):
        return {"PYSPARK_PYTHON": sys.executable}
    return {}


@contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    """`os.environ` with `values` set, as it was afterwards."""
    before = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _local(master: Optional[str]) -> bool:
    """Whether the workers run on this machine (a local master, the default), so can share its interpreter."""
    return not _remote(master) and (master is None or master.startswith("local"))


def _remote(master: Optional[str]) -> bool:
    """Whether the session is Spark Connect: an sc:// master, or none and SPARK_REMOTE set."""
    return master.startswith("sc://") if master else bool(os.environ.get("SPARK_REMOTE"))


def _session(master: Optional[str], conf: dict[str, str]) -> SparkSession:
    builder = SparkSession.builder.appName("loopmetric")
    if master and _remote(master):
        builder = builder.remote(master)
    elif not _remote(master):  # SPARK_REMOTE alone: getOrCreate connects to it
        builder = builder.master(master or DEFAULT_MASTER)
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if not _is_connect(spark):
        spark.sparkContext.setLogLevel("ERROR")
    return spark


def _is_connect(spark: SparkSession) -> bool:
    return type(spark).__module__.startswith("pyspark.sql.connect")


def read_trace_files(spark: SparkSession, paths: list[str]) -> DataFrame:
    """Rows (`path`, `text`): a line of a JSON Lines file (a coding agent's whole session) or a
    whole JSON file each."""
    lines, whole = [], []
    for path in paths:
        name = path.lower().removesuffix(".gz").rstrip("/")
        if name.endswith(tuple("." + s for s in _LINES)):
            lines.append(path)
        elif name.endswith(tuple("." + s for s in _WHOLE)):
            whole.append(path)
        else:  # a folder or a glob: each file by its suffix
            lines.append(path)
            whole.append(path)
    frames = []
    for found, suffixes, whole_text in ((lines, _LINES, False), (whole, _WHOLE, True)):
        if found:
            glob = "*.{" + ",".join(suffixes + tuple(s + ".gz" for s in suffixes)) + "}"
            reader = spark.read.option("recursiveFileLookup", "true").option("pathGlobFilter", glob)
            text = reader.text(found, wholetext=whole_text)
            if whole_text:
                frames.append(text.select(F.col("_metadata.file_path").alias("path"), F.col("value").alias("text")))
            else:
                frames.append(_files_of_lines(text))
    rows = frames[0] if len(frames) == 1 else frames[0].unionByName(frames[1])
    return rows.filter(F.col("text").rlike(r"\S"))  # blank files are not traces


def _files_of_lines(text: DataFrame) -> DataFrame:
    """Rows (`path`, `text`) of JSON Lines files read a line a row (split between tasks): a line
    each, except the files that are a coding agent's session (a line with a session id, or a Codex
    rollout's `type` and `payload`), joined back into one row per file, its lines in file order, so
    that `load_text` reads such a file as `loopmetric score` does: one trace."""
    ordered = text.select(F.col("_metadata.file_path").alias("path"),
                          F.col("_metadata.file_block_start").alias("block"),
                          F.monotonically_increasing_id().alias("at"), F.col("value").alias("line"))
    field = partial(F.get_json_object, F.col("line"))
    session = (field("$.sessionId").isNotNull() | field("$.session_id").isNotNull()
               | field("$.type").isin(*_ROLLOUT_TYPES) & field("$.payload").isNotNull())
    sessions = ordered.filter(session).select("path").distinct()
    one_a_line = ordered.join(sessions, "path", "left_anti").select("path", F.col("line").alias("text"))
    joined = (ordered.join(sessions, "path", "left_semi").groupBy("path")
              .agg(F.array_sort(F.collect_list(F.struct("block", "at", "line"))).alias("lines"))
              .select("path", F.concat_ws("\n", F.transform("lines", lambda x: x["line"])).alias("text")))
    return one_a_line.unionByName(joined)


def _score(spark: SparkSession, paths: list[str], output: str, overwrite: bool,
           settings: LoopSettings) -> dict[str, Any]:
    named = frozenset(path for path in paths if os.path.isfile(local_path(path)))
    named |= frozenset(os.path.abspath(local_path(path)) for path in named)
    scored = read_trace_files(spark, paths).mapInArrow(
        partial(score_file_rows, settings=settings, named=named), FILE_SCHEMA)
    fmt = "json" if output.lower().rstrip("/").endswith((".json", ".jsonl", ".ndjson")) else "parquet"
    scored.write.mode("overwrite" if overwrite else "error").format(fmt).save(output)
    results = spark.read.schema(scored.schema).format(fmt).load(output)
    summary = _summary(results)
    summary["errors"] = [row.loop_error for row in results.filter(F.col("loop_error").isNotNull())
                         .select("loop_error").limit(SHOWN_ERRORS).collect()]
    return summary


def _summary(results: DataFrame) -> dict[str, Any]:
    read = F.col("loop_error").isNull()
    totals = results.agg(
        F.count(F.lit(1)).alias("rows"),
        F.count(F.when(read, 1)).alias("traces"),
        F.count(F.when(read & ~F.col("loop_success"), 1)).alias("failed"),
        F.sum("loop_steps").alias("looped"),
        F.sum("loop_tokens").alias("tokens"),
        F.sum("loop_cost").alias("cost"),
    ).first().asDict()  # type: ignore[union-attr]  # an aggregate always has one row
    counts = results.select(F.explode("loop_findings.pattern").alias("pattern")).groupBy("pattern").count()
    totals["patterns"] = {row.pattern: row["count"] for row in counts.collect()}
    return totals
