"""Unit tests of `_text_actions.find_text_action`: the action a reply writes in its text (one rule for the
readers, which read it as a call where the run shows it ran, and the text detectors)."""

from __future__ import annotations

import pytest

from loopmetric._text_actions import count_text_actions, find_text_action


def text_action(text: str):
    """(name, arguments) of the action `text` writes, or None."""
    found = find_text_action(text)
    return None if found is None else (found.name, found.args)


@pytest.mark.parametrize("text, expected", [
    pytest.param("Thought: hm\nAction: search[cats]", ("search", {"input": "cats"}), id="react-bracket"),
    pytest.param("Action 2: Finish[yes]", ("finish", {"input": "yes"}), id="react-numbered"),
    pytest.param("Action: search[a]\nObservation: x\nAction: lookup[b]", ("lookup", {"input": "b"}),
                 id="react-last-action"),
    pytest.param("Action: Lookup\nAction Input: dogs\nObservation: x", ("lookup", {"input": "dogs"}),
                 id="react-action-input"),
    pytest.param("<execute>ls</execute>", ("execute", {"input": "ls"}), id="tagged"),
    pytest.param("<think>x</think> done", None, id="reasoning-tag-is-not-an-action"),
    pytest.param("<think>x</think><Execute_Bash> pwd </Execute_Bash>", ("execute_bash", {"input": "pwd"}),
                 id="tag-after-reasoning-lower-cased"),
    pytest.param("```bash\nls -la\n```", ("bash", {"input": "ls -la"}), id="fenced"),
    pytest.param("```\nx = 1\n```\nthen\n```\nprint(x)\n```", ("code", {"input": "x = 1\nprint(x)"}),
                 id="fenced-without-language-joined"),
    pytest.param('I will do {"action": "Search", "action_input": {"q": 1}}', ("search", {"q": 1}),
                 id="json-action"),
    pytest.param('{"action": "go", "args": [1]}', ("go", [1]), id="json-action-args"),
    pytest.param('I will do {"\\u0061ction": "Search", "action_input": {"q": 1}}', ("search", {"q": 1}),
                 id="json-action-whose-key-is-written-with-an-escape"),
    pytest.param('I will do {"\\u0061ct": "Search", "action_input": {"q": 1}}', None,
                 id="twin-json-whose-escaped-key-is-not-action"),
    pytest.param('{"action": ""} {"action": "b"}', ("b", None), id="json-empty-action-skipped"),
    pytest.param('{"action": 3', None, id="json-unclosed"),
    pytest.param('{"x": {"z": 1}} then {"action": "go"} {"k": 1}', ("go", None),
                 id="json-first-object-with-an-action"),
    pytest.param('{bad {"action": "go"}', ("go", None), id="json-after-a-brace-that-opens-no-object"),
    pytest.param('{bad {"action": "go"} {"action": "stop"}', ("go", None), id="json-the-first-of-two-after-a-bad-brace"),
    pytest.param('{{"action": "go"}', ("go", None), id="json-right-after-a-bad-brace"),
    pytest.param("plain answer", None, id="plain-answer"),
    pytest.param("", None, id="empty"),
    pytest.param("Action: search[x]" + " " * 200_000, None, id="over-the-size-limit"),
])
def test_text_action(text, expected):
    assert text_action(text) == expected


@pytest.mark.parametrize(("size", "found"), [
    pytest.param(200_000, True, id="a-reply-of-200000-characters-is-read"),
    pytest.param(200_001, False, id="twin-one-character-more-is-not"),
])
def test_a_reply_up_to_200000_characters_is_searched_for_an_action(size, found):
    action = "<execute>ls</execute>"
    text = "x" * (size - len(action)) + action
    assert len(text) == size
    assert (find_text_action(text) is not None) is found


@pytest.mark.parametrize(("text", "syntax", "written"), [
    pytest.param("Let me look.\n```bash\nls -la\n```", "fence", "```bash", id="a-fence-is-written-with-its-language"),
    pytest.param('I will search. {"action": "search", "action_input": "cats"}', "json", '{"action": "search"}',
                 id="a-json-action-with-its-name"),
    pytest.param("<execute>ls</execute>", "tag", "<execute>", id="a-tag"),
    pytest.param("Action: search[cats]", "react", "search[...]", id="a-react-line"),
])
def test_a_text_action_says_how_it_was_written(text, syntax, written):
    found = find_text_action(text)
    assert (found.syntax, found.written) == (syntax, written)


@pytest.mark.parametrize(("text", "count"), [
    pytest.param("", 0, id="nothing"),
    pytest.param("I will look in the cabinet.", 0, id="prose"),
    pytest.param("<thought>look</thought>", 0, id="a-thought-alone"),
    pytest.param("<thought>look</thought>\n<execute>print(1)</execute>", 1, id="a-thought-and-code"),
    pytest.param("<think>a</think><reasoning>b</reasoning><plan>c</plan><execute>x</execute>", 1,
                 id="three-kinds-of-reasoning-and-code"),
    pytest.param("<execute>print(1)</execute>\n<solution>42</solution>", 2, id="code-and-an-answer"),
    pytest.param("```bash\nls\n```", 1, id="one-fenced-block"),
    pytest.param("```bash\nls\n```\nthen\n```bash\npwd\n```", 2, id="two-fenced-blocks"),
    pytest.param("<Thought>a</Thought>```python\nx\n```", 1, id="a-capitalised-thought-and-a-fence"),
    pytest.param("<execute>x</execute>\n```bash\nls\n```", 2, id="a-tag-and-a-fence"),
    pytest.param("<execute>" + "x" * (200_000 - 19) + "</execute>", 1, id="200000-characters-are-read"),
    pytest.param("<execute>" + "x" * (200_001 - 19) + "</execute>", 0, id="over-200000-characters-are-not"),
])
def test_count_text_actions(text, count):
    assert count_text_actions(text) == count


@pytest.mark.parametrize("text, expected", [
    pytest.param("<execute_bash>ls</execute_bash>\nThat failed; again:\n<execute_bash>ls -la</execute_bash>",
                 ("execute_bash", {"input": "ls -la"}), id="two-tagged-actions-the-last"),
    pytest.param("<search>cats</search> then <open>cats.txt</open>", ("open", {"input": "cats.txt"}),
                 id="two-tags-of-other-names-the-last"),
    pytest.param("<execute>ls</execute><think>that lists it</think>", ("execute", {"input": "ls"}),
                 id="twin-a-reasoning-tag-after-the-action-is-no-action"),
    pytest.param("<execute>ls</execute>", ("execute", {"input": "ls"}), id="twin-one-tagged-action"),
])
def test_a_reply_with_two_tagged_actions_is_read_as_the_one_it_ends_with(text, expected):
    assert text_action(text) == expected
