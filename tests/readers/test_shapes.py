"""Unit tests of `readers._shapes`: tool requests, tool results and LLM outputs in each shape the
integrations record them, errors, and numbers."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from loopmetric.readers._shapes import (
    ToolRequest, clean_tool_name, finite_number, looks_like_error, merge_requests, read_llm_output,
    read_tool_entry, read_tool_result, tool_request,
)


@pytest.mark.parametrize("name, expected", [
    pytest.param("search", "search", id="plain"),
    pytest.param("Function tool: search", "search", id="function-tool-prefix"),
    pytest.param("running tool = fetch", "fetch", id="running-tool-prefix"),
    pytest.param("tool call lookup", "lookup", id="tool-call-prefix"),
    pytest.param("  tool  ", "tool", id="only-the-prefix-word-kept"),
    pytest.param("toolbox", "toolbox", id="prefix-needs-a-separator"),
    pytest.param(3, "", id="not-a-string"),
    pytest.param("tool: " + "x" * 300, "x" * 300, id="long-name-not-cached"),
])
def test_clean_tool_name(name, expected):
    assert clean_tool_name(name) == expected


@pytest.mark.parametrize("value, expected", [
    pytest.param(3, 3.0, id="int"),
    pytest.param(0.25, 0.25, id="float"),
    pytest.param(True, None, id="bool-is-not-a-number"),
    pytest.param("12", None, id="string"),
    pytest.param(math.nan, None, id="nan"),
    pytest.param(math.inf, None, id="inf"),
    pytest.param(None, None, id="none"),
])
def test_finite_number(value, expected):
    assert finite_number(value) == expected


@pytest.mark.parametrize("node, expected", [
    pytest.param({"type": "function", "function": {"name": "search", "arguments": '{"q": 1}'}},
                 ToolRequest("search", '{"q": 1}'), id="openai-chat"),
    pytest.param({"type": "tool_use", "name": "fetch", "input": {"u": 1}}, ToolRequest("fetch", {"u": 1}),
                 id="anthropic-tool-use"),
    pytest.param({"part_kind": "tool-call", "tool_name": "read", "args": {"p": "a"}}, ToolRequest("read", {"p": "a"}),
                 id="pydantic-ai-part"),
    pytest.param({"name": "run", "arguments": "ls"}, ToolRequest("run", "ls"), id="arguments-key"),
    pytest.param({"name": "run", "input_parameters": {"x": 1}}, ToolRequest("run", {"x": 1}), id="deepeval-key"),
    pytest.param({"name": "run", "parameters": {"x": 1}}, ToolRequest("run", {"x": 1}), id="parameters-key"),
    pytest.param({"type": "tool_call", "name": "ping"}, ToolRequest("ping", None), id="typed-without-args"),
    pytest.param({"type": "text", "name": "ping"}, None, id="untyped-without-args-is-not-a-request"),
    pytest.param({"part_kind": "tool-call", "tool_name": "ping"}, ToolRequest("ping", None),
                 id="pydantic-ai-part-kind-without-args"),
    pytest.param({"name": "", "args": {}}, None, id="empty-name"),
    pytest.param({"args": {}}, None, id="no-name"),
    pytest.param("search", None, id="a-string"),
    pytest.param(SimpleNamespace(name="obj", args={"a": 1}), ToolRequest("obj", {"a": 1}), id="an-object"),
])
def test_tool_request(node, expected):
    assert tool_request(node) == expected


@pytest.mark.parametrize("entry, expected", [
    pytest.param({"name": "a", "input_parameters": {"x": 1}, "output": "r"}, ToolRequest("a", {"x": 1}, "r", True),
                 id="with-output"),
    pytest.param({"name": "a", "args": {"x": 1}}, ToolRequest("a", {"x": 1}, None, False), id="args-no-output"),
    pytest.param({"name": "a", "arguments": "s"}, ToolRequest("a", "s", None, False), id="arguments"),
    pytest.param({"name": "a", "input": 5}, ToolRequest("a", 5, None, False), id="input"),
    pytest.param({"name": "a", "input_parameters": None, "args": {"y": 2}}, ToolRequest("a", {"y": 2}, None, False),
                 id="null-input-parameters-falls-back"),
    pytest.param({"name": ""}, None, id="empty-name"),
    pytest.param(["a"], None, id="not-a-mapping"),
])
def test_read_tool_entry(entry, expected):
    assert read_tool_entry(entry) == expected


def _r(name, args, output=None):
    return ToolRequest(name, args, output, output is not None)


@pytest.mark.parametrize("first, second, expected", [
    pytest.param([], [_r("a", 1)], [_r("a", 1)], id="first-empty"),
    pytest.param([_r("a", 1)], [], [_r("a", 1)], id="second-empty"),
    pytest.param([_r("a", 1)], [_r("a", 1, "out")], [_r("a", 1, "out")], id="same-request-once-with-output"),
    pytest.param([_r("a", 1), _r("a", 1)], [_r("a", 1, "out")], [_r("a", 1, "out"), _r("a", 1)],
                 id="twice-in-the-longer-list-kept-twice"),
    pytest.param([_r("a", 1)], [_r("a", 2)], [_r("a", 2), _r("a", 1)], id="other-args-both-kept"),
    pytest.param([_r("a", {"x": 1, "y": 2})], [_r("a", {"y": 2, "x": 1})], [_r("a", {"y": 2, "x": 1})],
                 id="key-order-is-the-same-request"),
])
def test_merge_requests(first, second, expected):
    assert merge_requests(first, second) == expected


@pytest.mark.parametrize("text, error", [
    pytest.param("Error: not found", True, id="error-prefix"),
    pytest.param("  exception raised", True, id="exception-prefix"),
    pytest.param("ValueError: bad", True, id="named-error-prefix"),
    pytest.param("FAILED to connect", True, id="failed-prefix"),
    pytest.param("ok\nTraceback (most recent call last):", True, id="traceback-anywhere"),
    pytest.param("cat: x: No such file or directory", True, id="no-such-file"),
    pytest.param("bash: foo: command not found", True, id="command-not-found"),
    pytest.param("open: Permission denied", True, id="permission-denied"),
    pytest.param("[Errno 2] something", True, id="errno"),
    pytest.param("[errno x] something", False, id="errno-without-number"),
    pytest.param("no errors found", False, id="error-word-later"),
    pytest.param("x" * 2000 + "command not found", False, id="phrase-after-the-head"),
    pytest.param("All good", False, id="plain"),
    pytest.param("Usage: ende.py (-e/-d) [file]", True, id="usage-message-with-options"),
    pytest.param("usage: git [--version] [--help]", True, id="usage-message-argparse"),
    pytest.param("usage: prog -x", True, id="usage-message-with-a-flag"),
    pytest.param("Usage: 3.2 GB of 10 GB", False, id="usage-figure-is-content"),
    pytest.param("CPU usage: 45%", False, id="usage-later-is-content"),
    pytest.param('File "/x.py", line 1\n  import\n    ^\nSyntaxError: invalid syntax', True,
                 id="exception-line-without-traceback"),
    pytest.param("/bin/bash: -c: line 1: syntax error near unexpected token", True, id="shell-syntax-error"),
    pytest.param("value: 3\n  KeyError: 'x'", True, id="exception-line-indented"),
    pytest.param("The ErrorHandler: configured", False, id="error-inside-a-word-is-not-an-exception-line"),
    pytest.param("at Main.run(Main.java:3)\njava.lang.IllegalStateException: closed", True,
                 id="an-exception-line-without-the-word-error"),
    pytest.param("x" * 300 + "\nRuntimeException: boom", True, id="an-exception-line-after-a-run-of-one-letter"),
    pytest.param("ok\nvalueerror: x", False, id="a-lowercase-exception-name-is-not-an-exception-line"),
    pytest.param("Line 3: SYNTAX ERROR near ')'", True, id="syntax-error-in-capitals"),
    pytest.param("syntax OK, no error", False, id="syntax-and-error-apart-are-no-phrase"),
])
def test_looks_like_error(text, error):
    assert looks_like_error(text) is error


@pytest.mark.parametrize("output, error, expected", [
    pytest.param("fine", None, ("fine", True, False, ""), id="text"),
    pytest.param("Error: boom", None, ("Error: boom", True, True, "Error: boom"), id="error-text"),
    pytest.param(None, None, (None, False, False, ""), id="no-result"),
    pytest.param("x", "Timeout", ("Timeout", True, True, "Timeout"), id="error-argument-wins"),
    pytest.param("x", ValueError("v"), ("ValueError", True, True, "ValueError"), id="error-object-named-by-type"),
    pytest.param("x", "", ("x", True, False, ""), id="empty-error-ignored"),
    pytest.param("x", False, ("x", True, False, ""), id="false-error-ignored"),
    pytest.param({"role": "tool", "content": "ok", "tool_call_id": "1"}, None, ("ok", True, False, ""),
                 id="tool-message-content"),
    pytest.param({"role": "tool", "content": "ok", "status": "error"}, None, ("ok", True, True, "ok"),
                 id="tool-message-error-status"),
    pytest.param({"type": "tool", "data": {"content": "done", "tool_call_id": "7"}}, None, ("done", True, False, ""),
                 id="langchain-serialized-message"),
    pytest.param({"tool_call_id": "1", "content": {"a": 1}, "is_error": True}, None, ({"a": 1}, True, True, "error"),
                 id="structured-content-error-flag"),
    pytest.param({"error": "denied", "code": 3}, None, ({"error": "denied", "code": 3}, True, True, "denied"),
                 id="small-error-dict"),
    pytest.param({"error": {"x": 1}}, None, ({"error": {"x": 1}}, True, True, "error"), id="error-dict-not-text"),
    pytest.param({"error": "e", "a": 1, "b": 2, "c": 3}, None, ({"error": "e", "a": 1, "b": 2, "c": 3}, True, False, ""),
                 id="large-dict-with-error-key-is-data"),
    pytest.param({"error": None, "rows": []}, None, ({"error": None, "rows": []}, True, False, ""),
                 id="null-error-key"),
    pytest.param({"isError": True, "x": 1}, None, ({"isError": True, "x": 1}, True, True, "error"), id="isError-flag"),
    pytest.param({"rows": [1]}, None, ({"rows": [1]}, True, False, ""), id="data"),
    pytest.param({"__class__": "ToolMessage", "content": "ok"}, None, ("ok", True, False, ""), id="class-ToolMessage"),
    pytest.param({"__pyclass__": "ToolMessage", "content": "ok"}, None, ("ok", True, False, ""),
                 id="pyclass-ToolMessage"),
])
def test_read_tool_result(output, error, expected):
    assert tuple(read_tool_result(output, error)) == expected


@pytest.mark.parametrize("output, failed", [
    pytest.param({"is_error": True, "rows": [1]}, True, id="is-error-true"),
    pytest.param({"isError": True, "rows": [1]}, True, id="camel-case-is-error-true"),
    pytest.param({"is_error": False, "rows": [1]}, False, id="twin-is-error-false-is-a-result"),
    pytest.param({"isError": False, "rows": [1]}, False, id="twin-camel-case-is-error-false-is-a-result"),
    pytest.param({"is_error": "yes", "rows": [1]}, False, id="twin-a-flag-that-is-not-true-is-a-result"),
])
def test_a_result_with_an_error_flag_failed_only_when_the_flag_is_true(output, failed):
    assert read_tool_result(output, None).error is failed


SHARED = ["x"]


@pytest.mark.parametrize("output, text, requests", [
    pytest.param("plain", "plain", [], id="string"),
    pytest.param("   ", "", [], id="blank-string"),
    pytest.param({"role": "assistant", "content": "hi", "tool_calls": [
        {"type": "function", "function": {"name": "s", "arguments": "{}"}}]}, "hi", [ToolRequest("s", "{}")],
        id="openai-message-with-calls"),
    pytest.param({"content": [{"type": "text", "text": "a"}, {"type": "tool_use", "name": "f", "input": {}}]},
                 "a", [ToolRequest("f", {})], id="anthropic-content-parts"),
    pytest.param({"parts": [{"part_kind": "text", "content": "x"},
                            {"part_kind": "tool-call", "tool_name": "t", "args": {"k": 1}}]},
                 "x", [ToolRequest("t", {"k": 1})], id="pydantic-ai-parts"),
    pytest.param({"choices": [{"message": {"content": "c"}}]}, "c", [], id="openai-choices"),
    pytest.param([{"role": "user", "content": "prompt echo"}, {"role": "assistant", "content": "answer"}],
                 "answer", [], id="prompt-echo-skipped"),
    pytest.param({"role": "assistant", "content": "t", "function_call": {"name": "old", "arguments": "1"}},
                 "t", [ToolRequest("old", "1")], id="legacy-function-call"),
    pytest.param({"content": "first", "text": "second"}, "first", [], id="first-text-key-only"),
    pytest.param({"content": "", "text": "second"}, "second", [], id="empty-content-falls-to-text"),
    pytest.param(["a", ["b", ["c"]]], "a\nb\nc", [], id="nested-lists-in-order"),
    pytest.param(5, "", [], id="a-number"),
    pytest.param([SHARED, SHARED, "after"], "x\nafter", [], id="a-list-met-twice-is-read-once-then-reading-goes-on"),
])
def test_read_llm_output(output, text, requests):
    assert read_llm_output(output) == (text, requests)


@pytest.mark.parametrize("text, kept", [
    pytest.param("I clicked 'View'.\nThe viewport shows 30% of the page.\nAutomatic OCR of the page screenshot "
                 "has detected the following text:\n\nWeather History ...", "I clicked 'View'.\nThe viewport "
                 "shows 30% of the page.", id="ocr-transcription-left-out"),
    pytest.param("I typed 'x'.\nHere is a transcription of the following page:\nabc", "I typed 'x'.",
                 id="transcription-left-out"),
    pytest.param("The OCR library detected nothing", "The OCR library detected nothing",
                 id="a-first-line-is-kept"),
    pytest.param("Results:\nOCR accuracy of 98%", "Results:\nOCR accuracy of 98%", id="no-colon-after-kept"),
    pytest.param("A transcription of the following page: abc", "A transcription of the following page: abc",
                 id="a-one-line-result-is-kept-whole"),
])
def test_a_screenshot_transcription_is_left_out_of_every_result(text, kept):
    """A web agent's result ends with a model's rewording of the page screenshot, new on every
    visit of the same page: every reader leaves it out (one rule, in `read_tool_result`)."""
    assert read_tool_result(text).value == kept


def test_read_llm_output_stops_at_depth_eight():
    """Text nested in 8 lists (depth 8) is read; in 10 it is not."""
    def nest(n):
        value = "deep"
        for _ in range(n):
            value = [value]
        return value
    assert (read_llm_output(nest(8))[0], read_llm_output(nest(10))[0]) == ("deep", "")


def _in_messages(levels, innermost):
    """`innermost` as the message of a message of ... (`levels` message dicts in all)."""
    value = innermost
    for _ in range(levels - 1):
        value = {"message": value}
    return value


@pytest.mark.parametrize("levels, read", [
    pytest.param(9, ("deep", [ToolRequest("search", {"q": "x"})]), id="a-message-at-depth-eight-is-read"),
    pytest.param(10, ("", []), id="a-message-at-depth-nine-is-not"),
    pytest.param(3, ("deep", [ToolRequest("search", {"q": "x"})]), id="twin-a-shallow-message-is-read"),
])
def test_nested_messages_are_read_down_to_depth_eight_one_level_each(levels, read):
    """A message inside a message is one level deeper; the ninth message dict (depth 8) is the
    deepest whose text and tool calls are read."""
    innermost = {"content": "deep", "tool_calls": [{"name": "search", "args": {"q": "x"}}]}
    assert read_llm_output(_in_messages(levels, innermost)) == read


def test_read_llm_output_reads_at_most_twenty_thousand_nodes():
    """A list of 30,000 texts: the list is node 1, then 19,999 texts are read."""
    text, _ = read_llm_output([f"t{i}" for i in range(30_000)])
    assert len(text.split("\n")) == 19_999


def test_read_llm_output_a_cycle_is_read_once():
    node: dict = {"content": "loop"}
    node["messages"] = [node]
    assert read_llm_output(node) == ("loop", [])


@pytest.mark.parametrize("message, failed", [
    pytest.param({"role": "tool", "content": "no such file", "isError": True}, True, id="camel-case-is-error"),
    pytest.param({"role": "tool", "content": "no such file", "is_error": True}, True, id="snake-case-is-error"),
    pytest.param({"role": "tool", "content": "no such file", "status": "error"}, True, id="status-error"),
    pytest.param({"role": "tool", "content": "3 rows", "isError": False}, False, id="twin-camel-case-false-a-result"),
    pytest.param({"role": "tool", "content": "3 rows"}, False, id="twin-no-flag-a-result"),
])
def test_a_tool_message_that_says_it_failed_is_an_error_in_every_spelling(message, failed):
    read = read_tool_result(message, None)
    assert (read.error, read.value) == (failed, message["content"])
