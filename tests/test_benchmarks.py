"""Each benchmark script runs end to end on a tiny input (the real runs are in the README)."""

from __future__ import annotations

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
    assert "200 mutated traces" in text and "0 broke the contract" in text


def test_guard_smoke(tmp_path):
    from benchmarks import guard

    text = guard.main(["--smoke", "--out", str(tmp_path)])
    assert (tmp_path / "guard.md").read_text() == text
    assert "| 20 | 21 |" in text and "own work per request at 20 calls / at 10 calls" in text
