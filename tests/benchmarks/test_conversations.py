"""The blind-written conversations: every file reads as a chat, the labels cover every file, the
halves are fixed by the seed, and the report counts what the verdicts say."""

from __future__ import annotations

import json

import pytest

from benchmarks import conversations


def test_every_labelled_conversation_is_a_file_of_chat_messages():
    rows = conversations.labelled()
    files = sorted(path.stem for path in conversations.FOLDER.glob("c*.json"))
    assert sorted(row["id"] for row in rows) == files
    for stem in files:
        messages = json.loads((conversations.FOLDER / f"{stem}.json").read_text())
        assert messages[0]["role"] == "system" and any(m["role"] == "assistant" for m in messages)
    assert {row["label"] for row in rows} <= {"loop", "no_loop", "unsure"}


def test_the_halves_are_fixed_by_the_seed_and_split_the_set_in_two():
    first = {row["id"]: row["half"] for row in conversations.labelled()}
    assert first == {row["id"]: row["half"] for row in conversations.labelled()}
    assert sum(half == "design" for half in first.values()) == len(first) // 2


@pytest.mark.parametrize(("found", "counts"), [
    pytest.param({"a": True, "b": False, "c": True, "d": True}, "| 1 | 1 | 1 | 0 ", id="one-miss-one-false-alarm"),
    pytest.param({"a": True, "b": True, "c": False, "d": False}, "| 2 | 0 | 0 | 1 ", id="every-loop-found-the-twin-passed"),
])
def test_the_report_counts_the_verdicts_against_the_labels(found, counts):
    """Two loops and a healthy twin counted (TP FP FN TN by hand); the unsure one left out."""
    rows = [{"id": "a", "label": "loop", "half": "design"}, {"id": "b", "label": "loop", "half": "design"},
            {"id": "c", "label": "no_loop", "half": "design"}, {"id": "d", "label": "unsure", "half": "design"}]
    text = conversations.report(rows, {"words (default)": found}, 0.1)
    design = next(line for line in text.splitlines() if line.startswith("| words (default) | design |"))
    assert design.startswith("| words (default) | design | 3 " + counts)
