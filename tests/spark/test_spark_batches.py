"""Unit tests of what the Spark workers run (`spark._score`, `spark._files`, `spark._job`'s
argument parsing and the workers' interpreter), on Arrow batches in process: no Spark session
(tests/spark/test_spark.py runs the same code on a real one)."""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("pyspark")
pa = pytest.importorskip("pyarrow")

from pyspark.sql import types as T  # noqa: E402

from loopmetric import LoopSettings, detect_loops  # noqa: E402
from loopmetric.spark._files import local_path, score_file_rows  # noqa: E402
from loopmetric.spark._job import SparkJobError, _parse_conf, _remote, worker_python  # noqa: E402
from loopmetric.spark._schema import LOOP_COLUMNS, to_arrow  # noqa: E402
from loopmetric.spark._score import (  # noqa: E402
    NULL_NESTED, _without_nulls, error_row, score_batches, score_value, to_arrays,
)
from tests._traces import agent, llm, tool  # noqa: E402

SETTINGS = LoopSettings()
LOOPING = agent(*[tool("search", {"q": "same"}, "nothing") for _ in range(4)])
PASSING = agent(tool("search", {"q": "a"}, "A"), tool("fetch", {"u": 1}, "B"), llm("done"))


def _row(value, nested=False):
    return dict(zip(LOOP_COLUMNS, score_value(value, SETTINGS, nested=nested)))


@pytest.mark.parametrize("trace", [pytest.param(LOOPING, id="looping"), pytest.param(PASSING, id="passing")])
@pytest.mark.parametrize("as_", ["text", "bytes", "nested"])
def test_a_row_scores_as_detect_loops(trace, as_):
    value = {"text": json.dumps(trace), "bytes": json.dumps(trace).encode(), "nested": json.loads(json.dumps(trace))}[as_]
    row = _row(value, nested=as_ == "nested")
    report = detect_loops(trace)
    assert (row["loop_score"], row["loop_success"], row["loop_reason"], row["loop_error"]) == \
        (report.score, report.success, report.reason, None)
    assert row["loop_patterns"] == sorted({f.pattern for f in report.findings})
    assert [f["pattern"] for f in row["loop_findings"]] == [f.pattern for f in report.findings]
    assert [f["steps"] for f in row["loop_findings"]] == [list(f.steps) for f in report.findings]


def _polled(**counts):
    return agent(*[step for _ in range(4) for step in (llm("Checking the job.", **counts),
                                                       tool("status", {"job": "42"}, output="running"))])


@pytest.mark.parametrize("trace, tokens, cost", [
    # the loop holds the replies at steps 3, 5 and 7: 3 x (100 + 20) tokens = 360,
    # 3 x (100 x 0.001 + 20 x 0.002) = 3 x 0.14 = 0.42
    pytest.param(_polled(input_token_count=100, output_token_count=20, cost_per_input_token=0.001,
                         cost_per_output_token=0.002), 360.0, 0.42, id="the-loops-tokens-and-cost-each-in-its-column"),
    pytest.param(_polled(), None, None, id="twin-no-tokens-recorded-both-null"),
])
def test_a_rows_loop_tokens_and_loop_cost_columns(trace, tokens, cost):
    row = _row(json.dumps(trace))
    assert row["loop_tokens"] == tokens
    assert row["loop_cost"] == (None if cost is None else pytest.approx(cost))


def test_nulls_inside_list_columns_are_dropped_like_missing_fields():
    """Spark gives every element of a list of structs every field, null where it had none:
    those nulls are dropped at every depth (a null `output` is not a result `None`)."""
    nested = json.loads(json.dumps(LOOPING))
    for child in nested["children"]:
        child["error"] = None  # a field the other rows' spans have
    nested["children"][0]["metadata"] = {"k": None, "inner": [{"x": None, "y": 1}]}
    cleaned = _without_nulls(json.loads(json.dumps(nested)))
    assert all("error" not in child for child in cleaned["children"])
    assert cleaned["children"][0]["metadata"] == {"inner": [{"y": 1}]}
    assert _row(nested, nested=True)["loop_patterns"] == _row(json.dumps(LOOPING))["loop_patterns"]


@pytest.mark.parametrize("value, nested, says", [
    pytest.param(None, True, NULL_NESTED, id="null-struct"),
    pytest.param("not json", False, "Expected", id="unreadable-text"),
    pytest.param(3, False, "Expected", id="a-number"),
])
def test_a_row_that_cannot_be_read_never_passes(value, nested, says):
    row = _row(value, nested=nested)
    assert (row["loop_success"], row["loop_score"]) == (False, None)
    assert row["loop_error"].startswith(says)


def test_error_row_shape():
    assert error_row("why") == (None, False, None, None, None, None, None, None, "why")


def test_lone_surrogates_are_stored_as_question_marks():
    text = json.dumps(agent(llm("stuck \ud800 here"), llm("stuck \ud800 here"), llm("stuck \ud800 here")))
    arrays = to_arrays([score_value(text, SETTINGS)])
    assert "\ud800" not in arrays[LOOP_COLUMNS.index("loop_reason")].to_pylist()[0]


def test_score_batches_appends_the_loop_columns_row_for_row():
    traces = [json.dumps(LOOPING), json.dumps(PASSING), "{}"]
    batch = pa.RecordBatch.from_arrays([pa.array(["a", "b", "c"]), pa.array(traces)], names=["id", "trace"])
    (out,) = list(score_batches(iter([batch]), column="trace", settings=SETTINGS, nested=False))
    assert out.schema.names == ["id", "trace", *LOOP_COLUMNS]
    assert out.column("id").to_pylist() == ["a", "b", "c"]
    assert out.column("loop_success").to_pylist() == [False, True, False]
    assert out.column("loop_score").to_pylist()[:2] == [detect_loops(LOOPING).score, detect_loops(PASSING).score]
    assert out.column("loop_error").to_pylist()[2] is not None


def test_to_arrays_of_no_rows_is_empty_columns():
    arrays = to_arrays([])
    assert len(arrays) == len(LOOP_COLUMNS) and all(len(a) == 0 for a in arrays)


@pytest.mark.parametrize("uri, path", [
    pytest.param("file:///a/b%20c.json", "/a/b c.json", id="file-uri-unquoted"),
    pytest.param("s3://bucket/x.json", "s3://bucket/x.json", id="other-scheme-as-is"),
    pytest.param("/plain/path.json", "/plain/path.json", id="plain-path"),
])
def test_local_path(uri, path):
    assert local_path(uri) == path


def test_score_file_rows_names_each_trace_and_skips_non_traces_found_in_folders():
    text = "\n".join([json.dumps(LOOPING), json.dumps(PASSING)])
    batch = pa.RecordBatch.from_arrays([pa.array(["file:///d/t.jsonl", "file:///d/notes.json"]),
                                        pa.array([text, json.dumps({"hello": 1})])], names=["path", "text"])
    (out,) = list(score_file_rows(iter([batch]), settings=SETTINGS, named=frozenset()))
    assert out.column("path").to_pylist() == ["/d/t.jsonl", "/d/t.jsonl"]
    assert out.column("loop_success").to_pylist() == [False, True]
    (named,) = list(score_file_rows(iter([batch]), settings=SETTINGS, named=frozenset({"/d/notes.json"})))
    assert named.column("path").to_pylist() == ["/d/t.jsonl", "/d/t.jsonl", "/d/notes.json"]
    assert named.column("loop_error").to_pylist()[2] is not None


@pytest.mark.parametrize("pairs, conf", [
    pytest.param(["a=1", " b =x=y"], {"a": "1", "b": "x=y"}, id="keys-stripped-value-kept"),
    pytest.param(["a="], {"a": ""}, id="empty-value"),
])
def test_parse_conf(pairs, conf):
    assert _parse_conf(pairs) == conf


@pytest.mark.parametrize("pair", [pytest.param("novalue", id="no-equals"), pytest.param(" =1", id="no-key")])
def test_parse_conf_rejects(pair):
    with pytest.raises(SparkJobError, match="Expected --conf to be KEY=VALUE"):
        _parse_conf([pair])


@pytest.mark.parametrize("master, env, remote", [
    pytest.param("sc://host:15002", None, True, id="sc-master"),
    pytest.param("local[1]", "sc://x", False, id="local-master-wins"),
    pytest.param(None, "sc://x", True, id="spark-remote-env"),
    pytest.param(None, None, False, id="nothing"),
])
def test_remote(master, env, remote, monkeypatch):
    monkeypatch.delenv("SPARK_REMOTE", raising=False)
    if env:
        monkeypatch.setenv("SPARK_REMOTE", env)
    assert _remote(master) is remote


@pytest.mark.parametrize(("master", "pyspark_python", "expected"), [
    pytest.param(None, None, {"PYSPARK_PYTHON": sys.executable}, id="default-local"),
    pytest.param("local[2]", None, {"PYSPARK_PYTHON": sys.executable}, id="local"),
    pytest.param(None, "/opt/py/bin/python", {}, id="PYSPARK_PYTHON-set"),
    pytest.param("local[2]", "/opt/py/bin/python", {}, id="PYSPARK_PYTHON-set-on-a-local-master"),
    pytest.param("yarn", None, {}, id="cluster"),
    pytest.param("sc://localhost:15002", None, {}, id="spark-connect"),
])
def test_local_workers_get_the_drivers_interpreter_unless_pyspark_python_is_set(monkeypatch, master, pyspark_python,
                                                                               expected):
    monkeypatch.delenv("SPARK_REMOTE", raising=False)
    if pyspark_python:
        monkeypatch.setenv("PYSPARK_PYTHON", pyspark_python)
    else:
        monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    assert worker_python(master) == expected


def test_a_batch_whose_files_hold_no_trace_gives_an_empty_batch_of_the_schema():
    batch = pa.RecordBatch.from_arrays([pa.array(["file:///d/notes.json"]), pa.array([json.dumps({"hello": 1})])],
                                       names=["path", "text"])
    (out,) = list(score_file_rows(iter([batch]), settings=SETTINGS, named=frozenset()))
    assert (out.num_rows, out.schema.field("path").type, out.schema.field("name").type) == (0, pa.string(), pa.string())


def test_a_struct_column_is_read_as_nested_rows_nulls_dropped():
    """A struct column: Arrow fills every row with every field (null where it had none); a
    null row is NULL_NESTED's error, not a trace of nothing."""
    column = pa.array([json.loads(json.dumps(LOOPING)), json.loads(json.dumps(PASSING)), None])
    batch = pa.RecordBatch.from_arrays([column], names=["trace"])
    (out,) = list(score_batches(iter([batch]), column="trace", settings=SETTINGS, nested=True))
    assert out.column("loop_success").to_pylist() == [False, True, False]
    assert out.column("loop_error").to_pylist() == [None, None, NULL_NESTED]



@pytest.mark.parametrize("spark_type, arrow", [
    pytest.param(T.StructType([T.StructField("pattern", T.StringType()), T.StructField("count", T.IntegerType())]),
                 pa.struct([pa.field("pattern", pa.string()), pa.field("count", pa.int32())]),
                 id="a-struct-keeps-its-field-names"),
    pytest.param(T.ArrayType(T.StructType([T.StructField("steps", T.ArrayType(T.IntegerType()))])),
                 pa.list_(pa.struct([pa.field("steps", pa.list_(pa.int32()))])), id="a-struct-inside-a-list-too"),
    pytest.param(T.ArrayType(T.DoubleType()), pa.list_(pa.float64()), id="twin-a-list-of-atoms"),
    pytest.param(T.BooleanType(), pa.bool_(), id="twin-an-atom"),
])
def test_a_spark_type_is_exchanged_as_the_arrow_type_of_the_same_shape_and_field_names(spark_type, arrow):
    assert to_arrow(spark_type) == arrow
