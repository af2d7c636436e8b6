"""Each benchmark script runs end to end on a tiny input (the real runs are in the README)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("deepeval")


def test_accuracy_smoke(tmp_path):
    from benchmarks import accuracy

    text = accuracy.main(["--smoke", "--out", str(tmp_path)])
    assert (tmp_path / "accuracy.md").read_text() == text
    assert "| traced corpus, all | 6 | loopmetric |" in text


def test_corpus_cases_and_recording_smoke(tmp_path):
    from benchmarks import corpus

    cases = corpus.cases()
    assert len(cases) >= 100 and abs(sum(c.loop for c in cases) - len(cases) / 2) <= 2
    assert all(c.reason for c in cases) and len({c.id for c in cases}) == len(cases)
    rows = corpus.record_corpus(tmp_path / "c.jsonl.gz", limit=3)
    assert [r["id"] for r in corpus.load_corpus(tmp_path / "c.jsonl.gz")] == [r["id"] for r in rows]
    assert all(r["trace"]["children"] for r in rows)


def test_speed_smoke(tmp_path):
    from benchmarks import speed

    text = speed.main(["--smoke", "--out", str(tmp_path)])
    assert "| distinct | 200 |" in text and (tmp_path / "speed.png").stat().st_size > 0
    assert "## The same large result repeated" in text and "| 0.2 MB | 20 |" in text
    assert "## Many large tool results, then many turns telling facts" in text and "| 10 | 0.2 MB |" in text


def test_speed_facts_only_writes_its_own_file(tmp_path):
    from benchmarks import speed

    text = speed.main(["--facts-only", "--facts-results", "2", "4", "--repeats", "1", "--out", str(tmp_path)])
    assert (tmp_path / "speed_facts.md").read_text() == text and not (tmp_path / "speed.md").exists()
    assert "| 2 | 0.0 MB |" in text and "| 4 | 0.1 MB |" in text


def test_speed_runs_only_the_shapes_and_sizes_named(tmp_path):
    from benchmarks import speed

    text = speed.main(["--shapes", "deep", "--sizes", "30", "--repeats", "1", "--deepeval-max-spans", "0",
                       "--repeated-mb", "--facts-results", "--out", str(tmp_path)])
    assert "| deep | 30 |" in text and "| distinct |" not in text and "| text-heavy |" not in text
    assert "`python -m benchmarks.speed --shapes deep --sizes 30 " in text
    assert (tmp_path / "speed.png").stat().st_size > 0


def test_speed_exponent_fit():
    from benchmarks.speed import fit_exponent

    assert fit_exponent([(10, 1.0), (100, 10.0), (1000, 100.0)]) == pytest.approx(1.0)
    assert fit_exponent([(10, 1.0), (100, 100.0)]) == pytest.approx(2.0)


def test_throughput_smoke(tmp_path):
    from benchmarks import throughput

    text = throughput.main(["--smoke", "--out", str(tmp_path)])
    assert "| 200 |" in text


def test_fuzz_smoke(tmp_path):
    from benchmarks import fuzz

    text = fuzz.main(["--smoke", "--out", str(tmp_path)])
    assert "50 mutated traces" in text and "0 broke the contract" in text


def test_guard_smoke(tmp_path):
    from benchmarks import guard

    text = guard.main(["--smoke", "--out", str(tmp_path)])
    assert (tmp_path / "guard.md").read_text() == text
    assert "| 20 | 21 |" in text and "own work per request at 20 calls / at 10 calls" in text


def cli_verdicts(path, capsys) -> dict[int, bool]:
    """record index -> predicted loop, as `loopmetric score PATH --json` says (a record it
    cannot read is reported on stderr and never passes)."""
    from loopmetric import load_traces
    from loopmetric.cli import main as cli_main

    cli_main(["score", str(path), "--json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    readable = [i for i, loaded in enumerate(load_traces(str(path))) if loaded.error is None]
    assert len(rows) == len(readable)
    verdicts = {i: not row["success"] for i, row in zip(readable, rows)}
    return verdicts


@pytest.mark.parametrize("source", ["swe", "tau", "ctf", "tau2", "m1", "mint", "hotpotqa", "webshop", "miniswe",
                                    "coding", "service"])
def test_real_run_verdicts_are_the_command_lines(source, capsys, tmp_path):
    """The accuracy benchmark's verdict on a real run is `loopmetric score` on its file (a run
    of a text log: on the file holding its chat messages)."""
    from benchmarks import accuracy, real_runs

    runs = {run.id: run for run in real_runs.runs(source)}
    if not runs:
        pytest.skip(f"the runs of {source} are not present")
    rows = accuracy.real_rows(smoke=True, sources=[source])
    assert rows
    document = real_runs.SOURCES[source].document
    by_file: dict = {}
    for row in rows:
        run = runs[row["id"]]
        if document is not None:
            path = tmp_path / (run.id.replace("/", "_") + ".json")
            path.write_text(json.dumps(document(run)))
            assert row["lm"] == cli_verdicts(path, capsys).get(0, True), row["id"]
            continue
        if run.path not in by_file:
            by_file[run.path] = cli_verdicts(run.path, capsys)
        assert row["lm"] == by_file[run.path].get(run.record, True), row["id"]


def test_corpus_verdicts_are_the_command_lines(tmp_path, capsys):
    from benchmarks import accuracy

    rows = accuracy._score_corpus(accuracy.corpus_rows(smoke=True))
    for index, row in enumerate(rows):
        path = tmp_path / f"{index}.json"
        path.write_text(json.dumps(row["trace"]))
        assert row["lm"] == cli_verdicts(path, capsys)[0], row["id"]
    assert {row["lm"] for row in rows} == {True, False}


def test_versions_smoke_times_each_version_from_its_own_package(tmp_path):
    # The child processes assert that `loopmetric` came from the version asked for (the working
    # folder would otherwise put this checkout first on the path for both).
    from benchmarks import versions

    text = versions.main(["--smoke", "--out", str(tmp_path)])
    assert "| throughput, 50 typical traces |" in text and "after / before time" in text
    assert not (tmp_path / "versions.md").exists()  # a smoke run writes no result


@pytest.mark.parametrize(("argv", "says"), [
    pytest.param(["show", "--help"], None, id="show-help-prints-the-usage"),
    pytest.param(["show", "tau/99999"], "no run 'tau/99999'", id="show-an-id-no-source-has"),
    pytest.param(["show", "nosuch/1"], "no run 'nosuch/1'", id="show-an-id-of-no-source"),
    pytest.param(["list", "nosuch"], "no source 'nosuch'", id="list-no-such-source"),
    pytest.param(["split", "tau", "nosuch"], "no source 'nosuch'", id="split-no-such-source"),
])
def test_the_viewer_says_what_it_cannot_find(argv, says, capsys):
    """The labelling viewer on an id or source it does not have: one line naming it and where the
    ids are, never a traceback; `--help` anywhere prints the usage."""
    from benchmarks import real_runs

    if not real_runs.SHARED.is_dir():
        pytest.skip("../shared/trajectories is not present")
    if says is None:
        real_runs.main(argv)
        assert "python -m benchmarks.real_runs show RUN" in capsys.readouterr().out
        return
    with pytest.raises(SystemExit) as stopped:
        real_runs.main(argv)
    assert says in str(stopped.value)
    assert "tau" in str(stopped.value)  # names where to look: the sources
