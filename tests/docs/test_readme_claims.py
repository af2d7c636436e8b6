"""Claims of the README once found untrue, each checked against the code (or the library
it compares with) so that they stay true."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests._docs import ALL

from loopmetric import load_traces
from loopmetric.readers import FORMATS

ROOT = Path(__file__).resolve().parents[2]
README = ALL  # the README and every docs page


def test_the_format_table_names_every_format_with_a_sample_that_reads_as_it():
    rows = {fmt: samples for fmt, samples in re.findall(r"^\| `([\w-]+)` \| [^|]+ \| ([^|]+) \|$", README, re.M)
            if fmt in FORMATS}
    assert [fmt for fmt in FORMATS if fmt not in rows] == []
    for fmt, samples in rows.items():
        for sample in re.findall(r"`([^`]+)`", samples):
            if sample.startswith("../"):
                continue  # outside the repository
            loaded = list(load_traces(str(ROOT / "examples" / sample)))
            assert loaded and all(item.trace is not None and item.trace.source in (fmt, "chat") for item in loaded), \
                (fmt, sample)


def test_loaded_trace_name_is_the_file_name_as_the_api_reference_says():
    loaded = next(load_traces(str(ROOT / "examples" / "real" / "intercode_ctf_43.json")))
    assert loaded.name == "intercode_ctf_43.json"
    assert "`name` (the file's name without its\nfolder" in README


def test_spark_default_master_is_the_one_the_readme_and_help_name():
    pytest.importorskip("pyspark")
    from loopmetric.spark._job import DEFAULT_MASTER

    assert f"# {DEFAULT_MASTER} by default" in README
    from loopmetric.cli import _parser

    spark = next(action for action in _parser()._actions if action.dest == "command").choices["spark"]
    assert DEFAULT_MASTER in spark.format_help()


@pytest.mark.parametrize(("given", "score", "success"), [
    pytest.param("inner", 0.6, True, id="the-trace-the-file-wraps"),
    pytest.param("wrapper", 1.0, True, id="the-file-as-it-is"),
])
def test_what_deepevals_own_metric_gives_the_looping_example(given, score, success):
    """The README: given the trace the file wraps, deepeval's metric scores it 0.60 and passes it;
    given the wrapper, it finds no spans and scores 1.0."""
    pytest.importorskip("deepeval")
    from deepeval.metrics import AgentLoopDetectionMetric as DeepevalLoopMetric
    from deepeval.test_case import LLMTestCase

    data = json.loads((ROOT / "examples" / "looping_agent.json").read_text())
    case = LLMTestCase(input="Weather in Paris?", actual_output="Sunny, 21C")
    case._trace_dict = data["trace_dict"] if given == "inner" else data
    theirs = DeepevalLoopMetric(async_mode=False)
    theirs.measure(case, _show_indicator=False)
    assert (theirs.score, theirs.success) == (pytest.approx(score), success)
    assert "scores it 0.60 and passes it" in README and "no spans and scores 1.0" in README


def test_the_test_extra_is_described_as_it_is():
    """`[test]` runs the notebooks with nbclient and ipykernel; it installs no `jupyter` command."""
    import tomllib

    test = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert not any(requirement.startswith(("jupyter", "notebook", "nbconvert")) for requirement in test)
    row = next(line for line in README.splitlines() if line.startswith("| `loopmetric[test]`"))
    assert "nbclient" in row and "no `jupyter` command" in row
