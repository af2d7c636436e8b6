"""`benchmarks.report_identity compare`: a dump of a worktree compares with a dump of the main checkout."""

from __future__ import annotations

import json

import pytest

from benchmarks.report_identity import compare, same_place


@pytest.mark.parametrize(("key", "place"), [
    pytest.param("file:wt-base/examples/a.json#0:a", "file:./examples/a.json#0:a", id="a-worktree"),
    pytest.param("file:main/examples/a.json#0:a", "file:./examples/a.json#0:a", id="the-main-checkout"),
    pytest.param("file:shared/traces/t.json#1:t", "file:shared/traces/t.json#1:t", id="twin-shared-keeps-its-folder"),
    pytest.param("corpus:loop-3", "corpus:loop-3", id="twin-not-a-file"),
    pytest.param("file:odd", "file:odd", id="twin-a-file-key-without-a-folder"),
])
def test_same_place(key, place):
    assert same_place(key) == place


def test_compare_finds_only_the_reports_that_differ(tmp_path, capsys):
    def dump(name, folder, score):
        path = tmp_path / name
        path.write_text("\n".join(json.dumps([key, report]) for key, report in [
            (f"file:{folder}/examples/a.json#0:a", {"score": 1.0}), (f"file:{folder}/examples/b.json#0:b", {"score": score}),
            ("corpus:c", {"score": 0.0})]) + "\n")
        return path

    assert compare(dump("base.jsonl", "wt-base", 0.5), dump("main.jsonl", "main", 0.5)) == []
    assert compare(dump("base.jsonl", "wt-base", 0.5), dump("main.jsonl", "main", 0.0)) == ["file:./examples/b.json#0:b"]
