"""loopmetric on Spark: the verdicts of `detect_loops` row for row, on a real local SparkSession;
rows that cannot be read; a killed worker; the command line; Spark Connect; no pyspark."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from loopmetric import LoopSettings, TraceReadError, detect_loops
from tests._traces import agent, llm, tool
from tests._docs import expected_lines, in_order, printed_lines
from tests.readers.test_reader_chat import assistant, tool_msg
from tests.readers.test_reader_otlp import chat as otlp_chat
from tests.readers.test_reader_otlp import otlp, otlp_span, run_tool

pyspark = pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

from loopmetric.spark import LOOP_SCHEMA, score_traces  # noqa: E402
from loopmetric.spark._job import _environ, read_trace_files, worker_python  # noqa: E402
from loopmetric.spark._score import NULL_NESTED  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    # One Spark session for the file: under `--dist loadgroup` its tests all run in one process.
    pytest.mark.xdist_group("spark"),
]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FINDING_KEYS = ("pattern", "severity", "count", "steps", "tools", "fingerprints")
QUIET = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"}


MASTER = "local[2,4]"  # two cores, and a failed task is tried up to 4 times as on a cluster (local[2] tries once)


def _env() -> dict[str, str]:
    """The environment of a subprocess: this checkout first on the path, no telemetry, and a Spark
    session it starts on a local master runs its Python workers with this interpreter (as
    `loopmetric spark` does), not the `python3` first on PATH, unless PYSPARK_PYTHON says otherwise."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, **worker_python("local"), "PYTHONPATH": path, "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}


@pytest.fixture(scope="module")
def spark():
    # Python workers must import this checkout's loopmetric: the executor environment says
    # where it is (on a cluster: an installed wheel, or spark.submit.pyFiles); and they run the
    # interpreter that runs the tests, with its packages, as `loopmetric spark` starts them.
    builder = SparkSession.builder.master(MASTER).appName("loopmetric-tests")
    for key, value in {**QUIET, "spark.sql.shuffle.partitions": "2",
                       "spark.executorEnv.PYTHONPATH": _env()["PYTHONPATH"]}.items():
        builder = builder.config(key, value)
    with _environ(worker_python(MASTER)):  # read once, when the session's context starts
        session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


# -- generated traces of every format ------------------------------------------
_TOOLS = ("search", "fetch_page", "read_file", "run_sql", "get_status")
_WORDS = ("check", "the", "table", "region", "result", "next", "compare", "rows", "fetch", "answer", "order", "plan")


def _plan(rng: random.Random, index: int) -> list[tuple[str, str, dict, str]]:
    """A random agent run as (thought, tool, arguments, result) steps; about a third get stuck."""
    steps = []
    count = rng.randint(3, 12)
    stuck_at = rng.randrange(count) if rng.random() < 0.35 else -1
    for i in range(count):
        if i == stuck_at:
            if rng.random() < 0.5:
                steps += [("Checking the job again.", "get_status", {"job": index}, "running")] * rng.randint(2, 6)
            else:
                steps += [("Look up a.", "lookup", {"k": "a"}, "A"), ("Look up b.", "lookup", {"k": "b"}, "B")] \
                    * rng.randint(2, 4)
        thought = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(4, 20)))
        steps.append((thought, rng.choice(_TOOLS), {"q": f"query {rng.randint(1, 10**6)}"}, f"{rng.randint(0, 99)} rows"))
    return steps


def _deepeval(plan, index, rng):
    children = []
    for thought, name, args, result in plan:
        tokens = {"input_token_count": rng.randint(10, 900), "output_token_count": 20} if rng.random() < 0.5 else {}
        children += [llm(thought, **tokens), tool(name, args, result)]
    trace = agent(*children, name=f"run-{index}")
    return {"trace_dict": trace} if rng.random() < 0.2 else trace


def _chat_messages(plan):
    messages = [{"role": "user", "content": "Do the task."}]
    for k, (thought, name, args, result) in enumerate(plan):
        messages += [assistant((f"c{k}", name, args), content=thought), tool_msg(f"c{k}", result, name)]
    return messages


def _chat(plan, index, rng):
    messages = _chat_messages(plan)
    return {"messages": messages} if rng.random() < 0.5 else messages


def _tau_bench(plan, index, rng):
    return {"task_id": index, "trial": 0, "traj": _chat_messages(plan)}


def _pydantic_ai(plan, index, rng):
    messages = [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Do the task."}]}]
    for k, (thought, name, args, result) in enumerate(plan):
        messages.append({"kind": "response", "parts": [
            {"part_kind": "text", "content": thought},
            {"part_kind": "tool-call", "tool_name": name, "args": args, "tool_call_id": f"c{k}"}]})
        messages.append({"kind": "request", "parts": [
            {"part_kind": "tool-return", "tool_name": name, "content": result, "tool_call_id": f"c{k}"}]})
    return messages


def _swe_agent(plan, index, rng):
    return {"trajectory": [{"thought": thought, "action": f"{name} {json.dumps(args)}", "observation": result}
                           for thought, name, args, result in plan], "info": {"exit_status": "submitted"}}


def _otlp(plan, index, rng):
    trace = f"{index:032x}"
    spans = [otlp_span("root", "invoke_agent a", 0, {"gen_ai.operation.name": "invoke_agent"}, trace=trace)]
    for k, (thought, name, args, result) in enumerate(plan):
        spans.append({**otlp_chat(f"c{k}", 10 * k + 1, "root", text=thought, calls=[(name, args)]), "traceId": trace})
        spans.append({**run_tool(f"t{k}", 10 * k + 2, "root", name, args, result), "traceId": trace})
    return otlp(*spans)


RENDERERS = (_deepeval, _chat, _tau_bench, _pydantic_ai, _swe_agent, _otlp)
UNREADABLE = (
    "{not json", "", "   ", "[]", "{}", '{"foo": 1}', "42", '"a string"', "null",
    json.dumps(agent()) + "\n" + json.dumps(agent()),  # two traces in one row
    '{"messages": []}', '{"trajectory": []}',  # traces with nothing in them
)


def mixed_traces(count: int, seed: int = 14) -> list[str]:
    """`count` traces as JSON text, every format, about a third looping, one in 25 unreadable."""
    rng = random.Random(seed)
    texts = []
    for index in range(count):
        if index % 25 == 7:
            texts.append(UNREADABLE[(index // 25) % len(UNREADABLE)])
            continue
        render = RENDERERS[index % len(RENDERERS)]
        texts.append(json.dumps(render(_plan(rng, index), index, rng), indent=rng.choice((None, 1))))
    return texts


def expected(value, **settings) -> tuple:
    """The loop columns `detect_loops` gives `value` in one process."""
    try:
        report = detect_loops(value, **settings)
    except (TraceReadError, TypeError) as error:
        return (None, False, None, None, None, None, None, None, str(error))
    data = report.to_dict()
    findings = [{key: finding[key] for key in FINDING_KEYS} for finding in data["findings"]]
    return (data["score"], data["success"], sorted({f["pattern"] for f in findings}), data["reason"],
            data["looped_steps"], data["loop_tokens"], data["loop_cost"], findings, None)


def columns(row) -> tuple:
    """A scored Spark row's loop columns, as `expected` gives them."""
    findings = None if row.loop_findings is None else [f.asDict() for f in row.loop_findings]
    return (row.loop_score, row.loop_success, row.loop_patterns, row.loop_reason, row.loop_steps,
            row.loop_tokens, row.loop_cost, findings, row.loop_error)


def scored_by_id(df, **settings) -> dict[int, tuple]:
    return {row.id: columns(row) for row in score_traces(df, **settings).collect()}


# -- the same verdicts as detect_loops -----------------------------------------
def test_thousand_mixed_traces_get_the_verdicts_of_detect_loops(spark):
    texts = mixed_traces(1000)
    df = spark.createDataFrame(list(enumerate(texts)), "id long, trace string").repartition(4)
    got = scored_by_id(df)
    want = {index: expected(text) for index, text in enumerate(texts)}
    assert got == want
    kinds = {(RENDERERS[i % len(RENDERERS)].__name__, row[1]) for i, row in want.items() if row[8] is None}
    assert len(kinds) == 2 * len(RENDERERS)  # every format, passing and failing
    assert sum(row[8] is not None for row in want.values()) == 40


def test_spark_sessions_the_tests_start_use_the_interpreter_that_runs_loopmetric(spark):
    """The suite run as `venv/bin/python -m pytest` without the venv on PATH: the session's Python
    workers run this interpreter (or PYSPARK_PYTHON when set), not the `python3` first on PATH."""
    chosen = os.environ.get("PYSPARK_PYTHON") or sys.executable
    assert spark.sparkContext.pythonExec == chosen
    assert _env()["PYSPARK_PYTHON"] == chosen  # and the sessions its subprocesses start (Spark Connect's server)
    workers = spark.sparkContext.parallelize([0], 1).map(lambda _: sys.executable).collect()
    assert [os.path.realpath(w) for w in workers] == [os.path.realpath(shutil.which(chosen) or chosen)]


def test_bytes_column_scores_like_text(spark):
    texts = mixed_traces(120, seed=3)
    rows = [(i, t.encode("utf-8")) for i, t in enumerate(texts)] + [(999, b"\xff\xfe not utf-8")]
    got = scored_by_id(spark.createDataFrame(rows, "id long, trace binary"))
    assert got == {i: expected(t) for i, t in rows}
    assert "UTF-8" in got[999][8]


def test_settings_reach_the_workers(spark):
    texts = mixed_traces(60, seed=5)
    df = spark.createDataFrame(list(enumerate(texts)), "id long, trace string")
    options = {"threshold": 0.9, "repetition_threshold": 2, "window": None, "aggregation": "arithmetic"}
    assert scored_by_id(df, **options) == {i: expected(t, **options) for i, t in enumerate(texts)}
    base = LoopSettings(strict_mode=True)
    got = {row.id: row.loop_score for row in score_traces(df, settings=base, threshold=0.2).collect()}
    assert got == {i: expected(t, settings=base, threshold=0.2)[0] for i, t in enumerate(texts)}


def test_struct_column_as_spark_reads_json_lines(spark, tmp_path):
    # Heterogeneous rows: inputs a dict in one span and a string in another, fields present in some
    # rows only, explicit nulls, the trace_dict wrapper. Spark merges them into one schema.
    rng = random.Random(7)
    traces = []
    for index in range(300):
        trace = _deepeval(_plan(rng, index), index, rng)
        spans = trace.get("trace_dict", trace)["children"]
        if index % 3 == 0:
            spans[0]["input"] = "a plain string"
        if index % 5 == 0:
            spans.append({"type": "tool", "name": "noop", "input": None, "output": None, "children": None})
        if index % 7 == 0:
            spans[-1]["output"] = {"content": "a dict output", "role": "assistant"}
        traces.append(trace)
    deep = '{"type": "agent", "name": "deep", "children": [' * 2000 + "]}" * 2000
    lines = [json.dumps({"id": i, "trace": t}) for i, t in enumerate(traces)]
    lines += ['{"id": 900, "trace": {not json', '{"id": 901, "trace": ' + deep + "}"]
    (tmp_path / "traces.jsonl").write_text("\n".join(lines) + "\n")
    df = spark.read.json(str(tmp_path / "traces.jsonl"))
    assert df.schema["trace"].dataType.typeName() == "struct"
    got = {row.id: columns(row) for row in score_traces(df).collect()}
    assert {i: got[i] for i in range(len(traces))} == {i: expected(json.dumps(t)) for i, t in enumerate(traces)}
    # Spark could not parse these lines (the second is deeper than its JSON reader goes): never a pass.
    # Spark 3.5 keeps the id of the deep line, Spark 4 nulls the whole row.
    unparsed = [columns(row) for row in score_traces(df).filter(F.col("id").isNull() | (F.col("id") >= len(traces))).collect()]
    assert unparsed == [(None, False, None, None, None, None, None, None, NULL_NESTED)] * 2


def test_struct_column_is_not_exact_where_inference_merges_types(spark, tmp_path):
    # `q` is a number in one call and text in the others: Spark's inferred schema makes every
    # `q` a string, so three distinct calls become three identical ones. Text is exact.
    trace = agent(*[tool("find", {"q": q}, "none") for q in (1, "1", 1)])
    merged = agent(*[tool("find", {"q": "1"}, "none") for _ in range(3)])
    (tmp_path / "t.jsonl").write_text(json.dumps({"trace": trace}) + "\n")
    as_struct = score_traces(spark.read.json(str(tmp_path / "t.jsonl"))).first()
    as_text = score_traces(spark.read.text(str(tmp_path / "t.jsonl")).select(
        F.get_json_object("value", "$.trace").alias("trace"))).first()
    assert columns(as_text) == expected(json.dumps(trace))
    assert columns(as_struct) == expected(json.dumps(merged)) != columns(as_text)


# -- rows that cannot be read, and rows at the limits ---------------------------
def _deep_text(depth: int) -> str:
    span = '{"type": "llm", "name": "s", "input": {"i": 1}, "output": "out", "children": ['
    return span * depth + "]}" * depth


def _huge_text(megabytes: int) -> str:
    words = " ".join(random.Random(1).choice(_WORDS) for _ in range(200_000))
    text = (words * (megabytes * 1_000_000 // len(words) + 1))[: megabytes * 1_000_000]
    return json.dumps(agent(llm(text), llm(text[:-7] + " changed"), tool("t", {"a": 1}, "r")))


HARD_ROWS = [
    pytest.param("{not json", "not valid JSON", id="malformed"),
    pytest.param(None, "got None", id="null"),
    pytest.param("", "not JSON", id="empty"),
    pytest.param('{"foo": 1}', "not a known trace format", id="unknown-format"),
    pytest.param(json.dumps(agent()) + "\n" + json.dumps(agent()), "2 JSON documents", id="two-traces"),
    pytest.param(_deep_text(100_000), None, id="100000-deep"),  # read as deep as the CLI reads it: a verdict, no error
    pytest.param(json.dumps(agent(tool("t\ud800", {}, "x"), tool("t\ud800", {}, "x"), tool("t\ud800", {}, "x"))),
                 None, id="lone-surrogate-in-tool-name"),
]


def test_hard_rows_never_fail_the_job_or_another_row(spark):
    good = EXAMPLES.joinpath("looping_agent.json").read_text()
    values = [p.values[0] for p in HARD_ROWS] + [_huge_text(10), good]
    rows = [(i, v) for i, v in enumerate(values)]
    df = spark.createDataFrame(rows, "id long, trace string").repartition(1)  # all in one task, one batch
    got = scored_by_id(df)
    assert len(got) == len(rows)
    for (index, value), case in zip(rows, HARD_ROWS):
        says = case.values[1]
        assert got[index][1] is False, case.id
        assert (got[index][8] is None) if says is None else (says in got[index][8]), case.id
        if case.id != "lone-surrogate-in-tool-name":
            assert got[index] == expected(value), case.id
    surrogate = got[len(HARD_ROWS) - 1]
    assert surrogate[7][0]["tools"] == ["t?"]  # stored as UTF-8 Arrow can hold
    huge, looping = got[len(HARD_ROWS)], got[len(HARD_ROWS) + 1]
    assert huge == expected(values[-2]) and len(values[-2]) > 20_000_000
    assert looping == expected(good) and looping[1] is False


@pytest.mark.parametrize(("call", "error", "says"), [
    pytest.param(lambda df: score_traces([1, 2]), TypeError, "Expected argument `df` to be a Spark DataFrame, but got a list",
                 id="not-a-dataframe"),
    pytest.param(lambda df: score_traces(df, "traces"), ValueError, "to name a column of `df` (id, trace), but got 'traces'",
                 id="missing-column"),
    pytest.param(lambda df: score_traces(df, 3), TypeError, "column name (str), but got an int", id="column-not-a-name"),
    pytest.param(lambda df: score_traces(df, "id"), TypeError, "Expected column 'id' to hold JSON text", id="number-column"),
    pytest.param(lambda df: score_traces(score_traces(df)), ValueError, "no loop columns yet, but it has loop_score",
                 id="scored-twice"),
    pytest.param(lambda df: score_traces(df, threshold=1.5), ValueError, "Expected argument `threshold` to be a float",
                 id="bad-setting"),
    pytest.param(lambda df: score_traces(df, windw=3), ValueError, "unknown ['windw']", id="unknown-setting"),
])
def test_bad_arguments_fail_before_spark_runs(spark, call, error, says):
    df = spark.createDataFrame([(1, "{}")], "id long, trace string")
    with pytest.raises(error) as raised:
        call(df)
    assert says in str(raised.value)


def test_loop_schema_is_what_rows_get(spark):
    df = spark.createDataFrame([(1, "{}")], "id long, trace string")
    assert score_traces(df).schema.fields[2:] == LOOP_SCHEMA.fields
    assert LOOP_SCHEMA.fieldNames() == ["loop_score", "loop_success", "loop_patterns", "loop_reason", "loop_steps",
                                        "loop_tokens", "loop_cost", "loop_findings", "loop_error"]


# -- a worker killed mid-task ---------------------------------------------------
def test_a_killed_worker_is_retried_and_every_row_is_there_once(spark, tmp_path):
    from pyspark import TaskContext

    texts = mixed_traces(200, seed=11)
    markers = str(tmp_path)

    def kill_once(batches):
        # The first attempt of each partition passes one scored batch on, then its Python worker is killed.
        context = TaskContext.get()
        marker = Path(markers, f"partition-{context.partitionId()}")
        for number, batch in enumerate(batches):
            yield batch
            if number == 0 and not marker.exists():
                marker.write_text(f"attempt {context.attemptNumber()}")
                os.kill(os.getpid(), signal.SIGKILL)

    df = spark.createDataFrame(list(enumerate(texts)), "id long, trace string").repartition(2)
    scored = score_traces(df)
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "25")  # several batches per task
    try:
        rows = scored.mapInArrow(kill_once, scored.schema).select("id", "loop_score", "loop_success",
                                                                  "loop_error").collect()
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    assert sorted(row.id for row in rows) == list(range(200))  # every row, once
    assert {row.id: tuple(row[1:]) for row in rows} == {i: (e[0], e[1], e[8]) for i, e in enumerate(map(expected, texts))}
    killed = sorted(p.read_text() for p in tmp_path.iterdir())
    assert killed == ["attempt 0", "attempt 0"]  # both partitions lost a worker on their first attempt


# -- the command line ----------------------------------------------------------
TAU_BENCH_RUNS = 3  # records in one tau-bench results file: a row per trace, as `loopmetric score` gives


def _folder(tmp_path: Path) -> tuple[Path, int]:
    """The examples, a tau-bench results file, a JSON file that is no trace, and in a subfolder a JSON
    Lines file of generated traces with a bad line and blank lines; and how many traces that file holds."""
    root = tmp_path / "runs"
    (root / "day1").mkdir(parents=True)
    for path in EXAMPLES.iterdir():
        if path.suffix in (".json", ".traj"):
            (root / path.name).write_text(path.read_text())
    rng = random.Random(4)
    runs = [_tau_bench(_plan(rng, index), index, rng) for index in range(TAU_BENCH_RUNS)]
    (root / "tau_bench_results.json").write_text(json.dumps(runs))
    (root / "settings.json").write_text('{"model": "gpt", "temperature": 0}')  # found in a folder: skipped
    lines = [json.dumps(json.loads(t)) for t in mixed_traces(40, seed=2) if _readable(t)]
    (root / "day1" / "agents.jsonl").write_text("\n".join(lines[:10] + ["{not json", ""] + lines[10:]) + "\n\n")
    return root, len(lines)


def _readable(text: str) -> bool:
    return expected(text)[8] is None


def _examples_line(**settings) -> str:
    """How `loopmetric score` begins its summary on the examples folder, from the engine itself."""
    from loopmetric._numbers import count
    from loopmetric.readers import expand_paths, load_traces

    traces = [item.trace for path, _ in expand_paths([str(EXAMPLES)]) for item in load_traces(path) if item.trace]
    failed = sum(1 for trace in traces if not detect_loops(trace, **settings).success)
    return f"{count(len(traces), 'trace')}, {failed} failed"


def _score_summary(capsys, monkeypatch, folder: Path) -> tuple[int, str]:
    from loopmetric.cli import main

    monkeypatch.setenv("COLUMNS", "400")  # the table's summary line on one line
    code = main(["score", str(folder)])
    return code, capsys.readouterr().out.strip().splitlines()[-1]


def _python3_without_loopmetric(tmp_path) -> dict[str, str]:
    """The environment of a virtual environment run without being activated: the first
    `python3` on PATH is another interpreter, one without loopmetric's dependencies."""
    import pyspark

    other = tmp_path / "other-bin"
    other.mkdir()
    (other / "python3").symlink_to(shutil.which("python3", path="/usr/bin") or "/bin/false")
    env = {key: value for key, value in _env().items() if key not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    return {**env, "PATH": os.pathsep.join([str(other), env.get("PATH", "")]),
            "SPARK_HOME": os.path.dirname(pyspark.__file__)}


def test_command_line_on_a_folder_end_to_end(tmp_path, capsys, monkeypatch, spark):
    folder, count = _folder(tmp_path)
    out = tmp_path / "results.parquet"
    # The workers run this interpreter (sys.executable), not the `python3` first on PATH.
    done = subprocess.run([sys.executable, "-m", "loopmetric.cli", "spark", str(folder), "--output", str(out),
                           "--master", "local[2]", *sum((["--conf", f"{k}={v}"] for k, v in QUIET.items()), [])],
                          capture_output=True, text=True, env=_python3_without_loopmetric(tmp_path), timeout=600)
    code, line = _score_summary(capsys, monkeypatch, folder)
    # `score` also counts the file it skipped (settings.json); on Spark a skipped file is no row, uncounted.
    assert line.endswith("; 1 file skipped: not a known trace format; try --format")
    line = line.rsplit("; 1 file skipped", 1)[0]
    assert (done.returncode, done.stdout.strip()) == (code, line) == (2, line)  # the same line, the bad line: exit 2
    assert "agents.jsonl: not valid JSON" in done.stderr
    results = spark.read.parquet(str(out))
    assert results.columns == ["path", "name", *LOOP_SCHEMA.fieldNames()]
    examples = sum(1 for p in EXAMPLES.iterdir() if p.suffix in (".json", ".traj"))  # one trace each
    assert results.count() == examples + TAU_BENCH_RUNS + count + 1
    assert results.filter(F.col("loop_error").isNotNull()).count() == 1
    names = {row.name for row in results.filter(F.col("path").endswith("tau_bench_results.json")).collect()}
    assert len(names) == TAU_BENCH_RUNS


@pytest.mark.parametrize(("extra", "code", "says"), [
    pytest.param(["--fail-under", "0.99"], 1, {}, id="gate"),
    pytest.param(["--threshold", "0.0"], 0, {"threshold": 0.0}, id="settings"),
    pytest.param(["--conf", "no-equals"], 2, "Expected --conf to be KEY=VALUE", id="bad-conf"),
    pytest.param(["--threshold", "2"], 2, "`--threshold`", id="bad-setting"),
])
def test_command_line_options(spark, tmp_path, capsys, extra, code, says):
    from loopmetric.cli import main

    # In this process the module's session is active: the command uses it (and leaves it running).
    out = tmp_path / "results.jsonl"
    assert main(["spark", str(EXAMPLES), "--output", str(out), *extra]) == code
    captured = capsys.readouterr()
    if isinstance(says, dict):  # the summary `loopmetric score` would print at these settings
        says = _examples_line(**says)
    assert says in captured.out + captured.err
    if code != 2:
        traces = int(_examples_line().split()[0])
        assert spark.read.json(str(out)).count() == traces  # JSON Lines, one row per trace


def test_command_line_output_exists_and_missing_input(spark, tmp_path, capsys):
    from loopmetric.cli import main

    out = tmp_path / "results.parquet"
    assert main(["spark", str(EXAMPLES / "healthy_agent.json"), "--output", str(out)]) == 0
    assert main(["spark", str(EXAMPLES / "healthy_agent.json"), "--output", str(out)]) == 2
    assert capsys.readouterr().err == (f"loopmetric: Expected --output to be a path that does not exist, but {out} "
                                       "exists; pass --overwrite to replace it\n")
    assert main(["spark", str(EXAMPLES / "healthy_agent.json"), "--output", str(out), "--overwrite"]) == 0
    assert main(["spark", str(tmp_path / "nowhere"), "--output", str(tmp_path / "o.parquet")]) == 2
    assert "does not exist" in capsys.readouterr().err.lower()


@pytest.mark.parametrize("content", [
    pytest.param('{"model": "gpt", "temperature": 0}', id="no-trace"),
    pytest.param('{"messages": []', id="not-json"),
])
def test_command_line_reports_a_named_file_as_score_does(spark, tmp_path, capsys, content):
    from loopmetric.cli import main

    path = tmp_path / "settings.json"
    path.write_text(content)
    assert main(["score", str(path)]) == 2
    said = capsys.readouterr().err
    assert main(["spark", str(path), "--output", str(tmp_path / "o.parquet")]) == 2
    assert said.splitlines()[0] in capsys.readouterr().err.splitlines()


def test_read_trace_files_chooses_rows_by_suffix(spark, tmp_path):
    folder, count = _folder(tmp_path)
    rows = read_trace_files(spark, [str(folder)]).groupBy(F.regexp_extract("path", r"[^/]+$", 0).alias("f")).count()
    counts = {row.f: row["count"] for row in rows.collect()}
    lines = count + 1  # and the bad line; blank lines are no rows
    files = [p.name for p in EXAMPLES.iterdir() if p.suffix in (".json", ".traj")] + ["tau_bench_results.json",
                                                                                     "settings.json"]
    assert counts == {**dict.fromkeys(files, 1), "agents.jsonl": lines}
    assert read_trace_files(spark, [str(folder / "day1" / "agents.jsonl")]).count() == lines


# -- Spark Connect, and no pyspark -----------------------------------------------
CONNECT_SERVER = textwrap.dedent('''
    import sys
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]")
             .config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
             .config("spark.connect.grpc.binding.port", sys.argv[1])
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    print("ready", flush=True)
    sys.stdin.read()  # serve until the test closes stdin
''')


def test_command_line_through_spark_connect(tmp_path):
    import pyspark

    pytest.importorskip("grpc")
    if not list((Path(pyspark.__file__).parent / "jars").glob("spark-connect_*.jar")):
        pytest.skip("this PySpark has no Spark Connect server (PySpark 4 bundles it)")
    with socket.socket() as probe:
        probe.bind(("localhost", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-c", CONNECT_SERVER, str(port)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=_env())
    try:
        assert server.stdout.readline().strip() == "ready"
        done = subprocess.run([sys.executable, "-m", "loopmetric.cli", "spark", str(EXAMPLES), "--output",
                               str(tmp_path / "r.parquet"), "--master", f"sc://localhost:{port}"],
                              capture_output=True, text=True, env=_env(), timeout=600)
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=120)
        except subprocess.TimeoutExpired:
            server.kill()
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith(_examples_line() + "; patterns: ")


WITHOUT_PYSPARK = textwrap.dedent('''
    import sys
    sys.modules["pyspark"] = None  # as if it were not installed
    import loopmetric
    from loopmetric.cli import main
    assert main(["score", sys.argv[1], "--json"]) == 0
    assert main(["spark", sys.argv[1], "--output", "x"]) == 2
    try:
        import loopmetric.spark
    except ImportError as error:
        print("ImportError:", error)
''')


def test_without_pyspark_the_rest_works_and_the_error_names_the_extra():
    done = subprocess.run([sys.executable, "-c", WITHOUT_PYSPARK, str(EXAMPLES / "healthy_agent.json")],
                          capture_output=True, text=True, env=_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    assert 'ImportError: loopmetric.spark needs PySpark 3.5+ with pandas and PyArrow, but pyspark is not installed: ' \
           'pip install "loopmetric[spark]"' in done.stdout
    assert 'pip install "loopmetric[spark]"' in done.stderr


# -- the README's section runs as written --------------------------------------
def readme_blocks() -> list[tuple[str, str]]:
    """(language, code) of each fenced block of the Spark page of the docs."""
    section = (ROOT / "docs" / "spark.md").read_text()
    return [(block.split("\n", 1)[0].strip(), block.split("\n", 1)[1]) for block in section.split("```")[1::2]]


def test_readme_section_runs_as_written(spark, capsys, monkeypatch, tmp_path):
    # In this process, on the module's session (the blocks ask for local[*] and get it): the
    # `loopmetric` lines through `main`, the `spark-submit` line by running its script.
    import shlex

    from loopmetric.cli import main

    monkeypatch.chdir(ROOT)
    blocks = readme_blocks()
    assert [language for language, _ in blocks] == ["python", "bash", "bash"]
    for language, code in blocks:
        if language == "python":
            exec(compile(code, "docs/spark.md", "exec"), {})
            printed, prints = capsys.readouterr().out, expected_lines(code)
            # compared as every docs block's printed lines are (tests/docs/test_docs_blocks.py): whole lines, in order
            assert len(prints) == 2 and in_order(prints, printed_lines(printed)) is None, printed
            continue
        words = shlex.split(code, comments=True)
        if words[0] == "loopmetric":
            assert main(words[1:]) == 0
            assert capsys.readouterr().out.startswith(_examples_line())
        else:  # as pasted, in its own JVM: it must run clean (no FileNotFoundException for the glob)
            assert words[:3] == ["spark-submit", "--master", "local[*]"]
            prints = expected_lines(code)
            env = {**_env(), "PYSPARK_PYTHON": sys.executable,  # as the README says for a venv not activated
                   "SPARK_HOME": os.path.dirname(pyspark.__file__)}
            submit = os.path.join(env["SPARK_HOME"], "bin", "spark-submit")
            done = subprocess.run([submit, *words[1:-1], str(tmp_path / "day.parquet")], cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stderr[-3000:]
            assert [line for line in done.stderr.splitlines() if "Exception" in line] == []
            assert prints and in_order(prints, printed_lines(done.stdout)) is None, done.stdout


def test_pandas_pinned_below_what_pyspark_warns_about():
    """The spark extra pins pandas to what PySpark supports: at least its floor, below 3."""
    import re
    import tomllib

    from pyspark.sql.pandas import utils

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["spark"]
    pin = next(requirement for requirement in extra if requirement.startswith("pandas"))
    floor = re.search(r'minimum_pandas_version = "([\d.]+)"', Path(utils.__file__).read_text()).group(1)
    assert pin == f"pandas>={'.'.join(floor.split('.')[:2])},<3"
