"""`detect_format` tells a plain deepeval span dict at once, as its rows would.

A span dict whose `type` and `name` are text, with no key outside the span's own and no list under
`input`, is read as deepeval's without asking the other formats' sniffers. Each row below is a
dict at an edge of that check, with the format it is (worked out from what each format's sniffer
looks for) and whether the shortcut takes it: the shortcut and the rows asked in turn must both
give that format.
"""

from __future__ import annotations

from collections import OrderedDict

import pytest

from loopmetric.readers._registry import _format_by_rows, _plain_span, detect_format

_SPAN = {"type": "agent", "name": "run", "input": "task", "output": "done",
         "children": [{"type": "tool", "name": "search", "input": {"q": "x"}, "output": "1 row", "children": []}]}
_RESPONSES_ITEMS = [
    {"type": "message", "role": "user", "content": "find x"},
    {"type": "function_call", "call_id": "c1", "name": "search", "arguments": "{\"q\": \"x\"}"},
    {"type": "function_call_output", "call_id": "c1", "output": "1 row"},
]


@pytest.mark.parametrize(("data", "expected", "shortcut"), [
    pytest.param(_SPAN, "deepeval", True, id="a-plain-span-tree"),
    pytest.param({**_SPAN, "type": "user"}, "deepeval", True, id="a-role-as-its-type-but-no-message-key"),
    pytest.param({**_SPAN, "input": {"messages": [{"role": "user", "content": "hi"}]}}, "deepeval", True,
                 id="messages-under-input-are-its-input"),
    pytest.param({"type": "llm", "name": "gpt", "input": {"step": 1}, "output": "ok", "input_token_count": 3,
                  "output_token_count": 1, "cost": 0.1}, "deepeval", True, id="an-llm-span-with-counts-and-cost"),
    pytest.param({"type": "llm", "name": "gpt", "input": _RESPONSES_ITEMS, "output": "ok"}, "responses", False,
                 id="twin-a-list-under-input-is-asked-of-the-rows"),
    pytest.param({**_SPAN, "uuid": "1"}, "deepeval", False, id="a-key-of-its-own-is-asked-of-the-rows"),
    pytest.param({"type": "user", "name": "x", "uuid": "1", "message": {"role": "user", "content": "hi"}},
                 "claude-code", False, id="twin-a-transcript-line-is-not-a-span"),
    pytest.param({"name": "run", "children": []}, "deepeval", False, id="no-type-is-asked-of-the-rows"),
    pytest.param({"type": 3, "name": "run", "children": []}, "deepeval", False, id="a-type-not-text"),
    pytest.param({"input": {"turn_history": {}}, "output": {"turn_history": {}}}, "intercode", False,
                 id="twin-runs-under-span-keys-are-an-intercode-record"),
    pytest.param(OrderedDict(_SPAN), "deepeval", False, id="a-mapping-not-a-dict-is-asked-of-the-rows"),
])
def test_a_plain_span_is_told_at_once_as_the_rows_tell_it(data, expected, shortcut):
    assert _plain_span(data) is shortcut
    assert detect_format(data) == expected
    assert _format_by_rows(data) == expected
