"""The gate and the exit code: one rule for `score`, `spark` and `guard-replay`."""

from __future__ import annotations

import pytest

from loopmetric.cli import main
from loopmetric.cli._gate import exit_status, gate


@pytest.mark.parametrize(("total", "below", "unread", "fail_under", "expected"), [
    # passed = total - below - unread; the gate holds when passed / total >= fail_under.
    pytest.param(4, 1, 0, 0.75, None, id="3-of-4-at-0.75-holds"),
    pytest.param(4, 1, 1, 0.75, "2 of 4 traces passed (0.50 < --fail-under 0.75)", id="unread-counts-as-not-passing"),
    pytest.param(4, 0, 0, 1.0, None, id="all-pass-at-1.0"),
    pytest.param(2, 1, 0, 0.5, None, id="half-at-0.5-holds-inclusive"),
    pytest.param(2, 1, 0, 0.51, "1 of 2 traces passed", id="half-at-0.51-fails"),
    pytest.param(3, 3, 0, 0.0, None, id="rate-0-always-holds"),
    pytest.param(0, 0, 0, 0.9, None, id="nothing-scored-no-gate-line"),
    pytest.param(5, 5, 0, None, None, id="no-gate-set"),
])
def test_gate_line(total, below, unread, fail_under, expected):
    line = gate(total, below, unread, fail_under)
    if expected is None:
        assert line is None
    else:
        assert line.startswith("gate failed: ") and expected in line


@pytest.mark.parametrize(("unread", "gate_failed", "code"), [
    pytest.param(0, False, 0, id="ok"),
    pytest.param(0, True, 1, id="gate"),
    pytest.param(2, False, 2, id="unread"),
    pytest.param(2, True, 2, id="unread-wins-over-gate"),
])
def test_exit_status(unread, gate_failed, code):
    assert exit_status(unread=unread, gate_failed=gate_failed) == code


def test_the_gate_line_names_what_fell_below_and_what_was_not_read():
    line = gate(3, 1, 1, 0.9, below_names=["a.json"], unread_names=["b.json"])
    assert line.endswith("below the threshold: a.json; could not be read: b.json")


@pytest.mark.parametrize(("below", "ending"), [
    # ten names are shown; past ten, the rest counted: 12 below -> the first ten "and 2 more"
    pytest.param(10, "below the threshold: t1, t2, t3, t4, t5, t6, t7, t8, t9, t10", id="ten-below-named-each"),
    pytest.param(12, "below the threshold: t1, t2, t3, t4, t5, t6, t7, t8, t9, t10 and 2 more",
                 id="twelve-below-the-first-ten-and-2-more"),
])
def test_the_gate_line_names_at_most_ten_and_counts_the_rest(below, ending):
    line = gate(20, below, 0, 0.9, below_names=[f"t{n}" for n in range(1, below + 1)])
    assert line.endswith(ending)


@pytest.mark.parametrize("subcommand", ["score", "spark"])
@pytest.mark.parametrize("rate", ["1.5", "-0.1", "half"])
def test_fail_under_out_of_range_is_a_usage_error_for_every_subcommand(subcommand, rate, capsys):
    extra = ["--output", "out"] if subcommand == "spark" else []
    assert main([subcommand, "x.json", *extra, "--fail-under", rate]) == 2
    assert f"Expected a share of traces between 0 and 1, but got '{rate}'" in capsys.readouterr().err


@pytest.mark.parametrize(("summary", "fail_under", "code"), [
    # rows = traces read + rows not read; failed counts among the read ones.
    pytest.param({"rows": 4, "traces": 4, "failed": 1}, 0.75, 0, id="gate-holds"),
    pytest.param({"rows": 4, "traces": 4, "failed": 2}, 0.75, 1, id="gate-fails"),
    pytest.param({"rows": 4, "traces": 3, "failed": 0}, 0.75, 2, id="unread-row-exits-2"),
    pytest.param({"rows": 4, "traces": 3, "failed": 0}, 0.9, 2, id="unread-and-gate-2-wins"),
])
def test_spark_gates_as_score_does(monkeypatch, capsys, summary, fail_under, code):
    # The Spark job itself is tested on a real session in tests/spark; here its summary is
    # given, to pin the command line's gate: unread rows count as not passing, 2 wins over 1.
    pytest.importorskip("pyspark")
    from loopmetric.spark import _job

    full = {"looped": 0, "tokens": None, "cost": None, "patterns": {}, "errors": ["x.json: not valid JSON"],
            **summary}
    monkeypatch.setattr(_job, "run_job", lambda *args, **kwargs: full)
    assert main(["spark", "x.json", "--output", "out", "--fail-under", str(fail_under)]) == code
    err = capsys.readouterr().err
    passed = summary["traces"] - summary["failed"]
    assert (f"gate failed: {passed} of" in err) == (passed / summary["rows"] < fail_under)
