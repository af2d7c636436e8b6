"""The per-trace text memo: a function of a text computed once per distinct text inside
`text_memo()`, every time outside it, and nothing kept once the block ends."""

from __future__ import annotations

import threading

import pytest

from loopmetric._memo import _MEMO, per_repeated_text, per_text, text_memo


def _counted(memo=per_text):
    calls: list[str] = []

    @memo
    def shout(text: str) -> str:
        calls.append(text)
        return text.upper()

    return shout, calls


def test_a_repeated_text_is_computed_once_inside_a_memo():
    shout, calls = _counted()
    with text_memo():
        answers = [shout("same text") for _ in range(6)]
    assert answers == ["SAME TEXT"] * 6
    assert calls == ["same text"]


def test_an_equal_text_of_another_object_is_a_lookup_too():
    shout, calls = _counted()
    first = "".join(["log ", "line"])
    second = "".join(["log", " line"])
    assert first == second and first is not second
    with text_memo():
        assert shout(first) == shout(second) == "LOG LINE"
    assert calls == ["log line"]


def test_healthy_twin_each_distinct_text_is_computed_once():
    shout, calls = _counted()
    texts = [f"result {i}" for i in range(6)]
    with text_memo():
        assert [shout(t) for t in texts + texts] == [t.upper() for t in texts + texts]
    assert calls == texts


def test_outside_a_memo_every_call_computes():
    shout, calls = _counted()
    assert shout("a") == shout("a") == "A"
    assert calls == ["a", "a"]


def test_nothing_outlives_the_block():
    shout, calls = _counted()
    with text_memo():
        shout("a")
    assert _MEMO.get() is None
    with text_memo():
        shout("a")
    assert calls == ["a", "a"]


def test_a_memo_opened_inside_another_keeps_the_outer_one():
    shout, calls = _counted()
    with text_memo():
        shout("a")
        with text_memo():
            shout("a")
        assert _MEMO.get() is not None  # the inner block closed nothing
        shout("a")
    assert calls == ["a"]
    assert _MEMO.get() is None


def test_the_memo_is_closed_when_the_block_raises():
    with pytest.raises(RuntimeError):
        with text_memo():
            raise RuntimeError("boom")
    assert _MEMO.get() is None


def test_functions_keep_their_own_answers():
    @per_text
    def first(text: str) -> str:
        return "first:" + text

    @per_text
    def second(text: str) -> str:
        return "second:" + text

    with text_memo():
        assert (first("x"), second("x"), first("x")) == ("first:x", "second:x", "first:x")


def test_an_unhashable_argument_is_computed_each_time():
    calls = []

    @per_text
    def size(value) -> int:
        calls.append(value)
        return len(value)

    with text_memo():
        assert size(["a", "b"]) == size(["a", "b"]) == 2
    assert len(calls) == 2


def test_each_thread_has_its_own_memo():
    shout, calls = _counted()
    seen = []

    def other() -> None:
        seen.append(_MEMO.get())
        shout("a")

    with text_memo():
        shout("a")
        worker = threading.Thread(target=other)
        worker.start()
        worker.join()
    assert seen == [None]
    assert calls == ["a", "a"]  # the other thread had no memo: it computed


def test_the_wrapped_function_is_reachable():
    shout, calls = _counted()
    with text_memo():
        shout.__wrapped__("a")
        shout.__wrapped__("a")
    assert calls == ["a", "a"]


@pytest.mark.parametrize(("texts", "computed", "kept"), [
    pytest.param(["a", "b", "c"], ["a", "b", "c"], {}, id="texts-seen-once-keep-no-value"),
    pytest.param(["a", "a"], ["a", "a"], {"a": "A"}, id="a-second-sighting-computes-again-and-keeps"),
    pytest.param(["a"] * 6, ["a", "a"], {"a": "A"}, id="later-sightings-are-lookups"),
    pytest.param(["a", "b", "a", "b", "a"], ["a", "b", "a", "b"], {"a": "A", "b": "B"}, id="each-text-at-most-twice"),
])
def test_a_value_is_kept_from_a_texts_second_sighting(texts, computed, kept):
    shout, calls = _counted(per_repeated_text)
    with text_memo():
        assert [shout(t) for t in texts] == [t.upper() for t in texts]
        table = _MEMO.get()[shout.__wrapped__]  # (keyed by the function `functools.wraps` kept)
        assert {text: value for text, value in table.items() if isinstance(value, str)} == kept
    assert calls == computed


def test_outside_a_memo_a_repeated_text_is_computed_every_time():
    shout, calls = _counted(per_repeated_text)
    assert [shout("a") for _ in range(3)] == ["A"] * 3
    assert calls == ["a"] * 3
