"""The benchmark's own counting (benchmarks/_common.py) against tables computed by hand."""

from __future__ import annotations

import pytest

from benchmarks._common import Confusion

T, F = True, False


def confusion(pairs) -> Confusion:
    counts = Confusion()
    for truth, predicted in pairs:
        counts.add(truth, predicted)
    return counts


@pytest.mark.parametrize(("pairs", "cells", "rates"), [
    # TP 3, FP 1, FN 2, TN 4: P = 3/4, R = 3/5, F1 = 2*TP / (2*TP + FP + FN) = 6/9, acc = 7/10.
    pytest.param([(T, T)] * 3 + [(F, T)] + [(T, F)] * 2 + [(F, F)] * 4, (3, 1, 2, 4, 0),
                 (3 / 4, 3 / 5, 6 / 9, 7 / 10), id="mixed"),
    # TP 13, FP 1, FN 2: F1 = 26/29 = 0.89655 (a "0.90" that misses a 0.90 target).
    pytest.param([(T, T)] * 13 + [(F, T)] + [(T, F)] * 2, (13, 1, 2, 0, 0),
                 (13 / 14, 13 / 15, 26 / 29, 13 / 16), id="f1-26-of-29"),
    # Many false alarms, no miss: P = 1/4, R = 1, F1 = 2/5, acc = 1/4.
    pytest.param([(T, T)] + [(F, T)] * 3, (1, 3, 0, 0, 0), (1 / 4, 1.0, 2 / 5, 1 / 4), id="false-alarms"),
    # Misses only: P undefined -> 0, R = 0, F1 = 0, acc = 2/4.
    pytest.param([(T, F)] * 2 + [(F, F)] * 2, (0, 0, 2, 2, 0), (0.0, 0.0, 0.0, 2 / 4), id="misses-only"),
    # A metric that raised predicts no loop: a loop it raised on is a miss.
    pytest.param([(T, None), (F, None), (T, T)], (1, 0, 1, 1, 2), (1.0, 1 / 2, 2 / 3, 2 / 3), id="raised"),
    pytest.param([], (0, 0, 0, 0, 0), (0.0, 0.0, 0.0, 0.0), id="empty"),
])
def test_confusion_counts_and_rates(pairs, cells, rates):
    counts = confusion(pairs)
    assert (counts.tp, counts.fp, counts.fn, counts.tn, counts.errors) == cells
    assert counts.n == len(pairs)
    assert (counts.precision, counts.recall, counts.f1, counts.accuracy) == pytest.approx(rates, abs=1e-12)


def test_cells_are_rounded_for_the_table_only():
    counts = confusion([(T, T)] * 13 + [(F, T)] + [(T, F)] * 2)
    assert counts.cells() == ["13", "1", "2", "0", "0.93", "0.87", "0.90", "0.81"]
    assert counts.f1 < 0.90  # the unrounded value misses a 0.90 target
