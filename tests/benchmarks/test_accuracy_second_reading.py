"""The second reader's table of the accuracy benchmark: agreement, kappa, and loopmetric scored by each reader."""
from __future__ import annotations

import pytest

from benchmarks import accuracy

T, F = True, False


@pytest.mark.parametrize(("pairs", "expected"), [
    # agree 3/4 = 0.75; first says loop 2/4, second 1/4: chance 0.5*0.25 + 0.5*0.75 = 0.5; (0.75-0.5)/0.5
    pytest.param([(T, T), (T, F), (F, F), (F, F)], 0.5, id="one-disagreement-in-four"),
    # agree 2/2; first 1/2 loop, second 1/2: chance 0.5; (1-0.5)/0.5
    pytest.param([(T, T), (F, F)], 1.0, id="full-agreement"),
    # agree 0/2; first 1/2, second 1/2: chance 0.5; (0-0.5)/0.5
    pytest.param([(T, F), (F, T)], -1.0, id="full-disagreement"),
    # every run a loop for both: chance agreement 1, kappa taken as 1 (no division by zero)
    pytest.param([(T, T), (T, T)], 1.0, id="both-all-loops"),
])
def test_kappa(pairs, expected):
    assert accuracy._kappa(pairs) == pytest.approx(expected)


def _row(run, half, label, lm):
    return {"id": run, "half": half, "label": label, "loop": label == "loop", "lm": lm}


def test_the_table_scores_loopmetric_by_each_reader(tmp_path, monkeypatch):
    (tmp_path / "src.csv").write_text("run,label,steps,reason,labeller\n"
                                      "src/1,loop,,r,x\nsrc/2,loop,,r,x\nsrc/3,no_loop,,r,x\nsrc/4,unsure,,r,x\n")
    monkeypatch.setattr(accuracy, "SECOND_READING", tmp_path)
    real = [_row("src/1", "held-out", "loop", True),      # both loop, flagged
            _row("src/2", "held-out", "no_loop", False),  # second says loop: a miss by the second's labels
            _row("src/3", "held-out", "no_loop", True),   # both no_loop, flagged: a false alarm for both
            _row("src/4", "held-out", "loop", False),     # second unsure: left out of agreement and its score
            _row("other/1", "held-out", "loop", True)]    # not read twice: in no row
    text = "\n".join(accuracy.second_reading_section(real))
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| src")]
    # columns: source, half, agree, kappa, labels of, loops, TP, FP, FN, precision, recall, F1
    first, second, both = rows
    assert first[2:7] == ["2 of 3", "0.40", "first reader", "2", "1"]  # agree src/1, src/3; loops 1/3 and 2/3: chance 4/9, (2/3-4/9)/(5/9)
    assert first[7:9] == ["1", "1"]  # FP src/3, FN src/4
    assert second[4:9] == ["second reader", "2", "1", "1", "1"]  # loops src/1, src/2; FN src/2
    assert both[4:9] == ["both readers agree", "1", "1", "1", "0"]  # src/1 and src/3 only


def test_no_second_reading_no_section(tmp_path, monkeypatch):
    monkeypatch.setattr(accuracy, "SECOND_READING", tmp_path / "absent")
    assert accuracy.second_reading_section([_row("src/1", "design", "loop", True)]) == []


@pytest.mark.parametrize("source", sorted(accuracy.KEPT_OUT))
@pytest.mark.parametrize("count", [0, 3], ids=["absent", "present"])
def test_a_source_kept_out_of_the_repository_says_where_it_comes_from(source, count):
    """The note of a source kept out of the repository names its variable and its provenance file,
    and says whether this run had it (and how many runs) or not."""
    variable = accuracy.KEPT_OUT[source][0]
    note = accuracy._kept_out_note([{"source": source}] * count + [{"source": "tau"}], source)
    assert f"`{variable}`" in note and f"`benchmarks/labels/{source}_provenance.md`" in note
    assert ("was not in this run" in note) == (count == 0)
    assert (f"`{source}`: {count} public runs" in note) == (count > 0)
