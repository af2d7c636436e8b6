"""The blind-written conversations: every file reads as a chat, the labels cover every file, the
halves are fixed by the seed, and the report counts what the verdicts say."""

from __future__ import annotations

import json

import pytest

from benchmarks import conversations


@pytest.mark.parametrize("which", conversations.SETS, ids=[each.name for each in conversations.SETS])
def test_every_labelled_conversation_is_a_file_of_chat_messages(which):
    rows = conversations.labelled(which)
    files = sorted(path.stem for path in which.folder.glob("*.json"))
    assert sorted(row["id"] for row in rows) == files and files
    for row in rows:
        assert conversations.path_of(row) == which.folder / f"{row['id']}.json"
        messages = json.loads(conversations.path_of(row).read_text())
        assert messages[0]["role"] == "system" and any(m["role"] == "assistant" for m in messages)
    assert {row["label"] for row in rows} <= {"loop", "no_loop", "unsure"}


def test_conversation_ids_are_unique_across_the_sets():
    ids = [row["id"] for row in conversations.labelled()]
    assert len(ids) == len(set(ids)) == sum(len(conversations.labelled(each)) for each in conversations.SETS)


@pytest.mark.parametrize("which", conversations.SETS, ids=[each.name for each in conversations.SETS])
def test_the_halves_are_fixed_by_the_seed_and_split_the_set_in_two(which):
    first = {row["id"]: row["half"] for row in conversations.labelled(which)}
    assert first == {row["id"]: row["half"] for row in conversations.labelled(which)}
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
    design = next(line for line in text.splitlines() if line.startswith("| words (default) | set 1 | design |"))
    assert design.startswith("| words (default) | set 1 | design | 3 " + counts)


def test_the_report_counts_each_set_apart_and_all_together():
    """A loop found in set 1 and one missed in set 2: each set's row counts its own, all sets both."""
    rows = [{"id": "a", "label": "loop", "half": "design", "set": "set 1"},
            {"id": "b", "label": "loop", "half": "design", "set": "set 2"}]
    text = conversations.report(rows, {"words (default)": {"a": True, "b": False}}, 0.1)
    lines = {tuple(cell.strip() for cell in line.split("|")[2:4]): line for line in text.splitlines()
             if line.startswith("| words (default) |")}
    assert "| 1 | 1 | 0 | 0 | 0 |" in lines["set 1", "design"]
    assert "| 1 | 0 | 0 | 1 | 0 |" in lines["set 2", "design"]
    assert "| 2 | 1 | 0 | 1 | 0 |" in lines["all sets", "design"]
