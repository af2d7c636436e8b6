"""Behaviours of the detectors that a one-line change used to survive (found by the mutation sample), each in a
table with its twin: the case that must find the loop and the case that must not."""

from __future__ import annotations

import pytest

from loopmetric import LoopSettings, read_chat_messages, read_deepeval_trace
from loopmetric.detectors import (
    detect_call_cycles, detect_rejected_outputs, detect_repeated_replies, detect_repeated_results,
    detect_similar_attempts,
)
from loopmetric.readers._builder import TraceBuilder
from tests._texts import REFUSAL
from tests._traces import agent, tool
from tests._traces import llm as llm_

DEFAULT = LoopSettings()


def chat(*turns: str) -> list[dict]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": text} for i, text in enumerate(turns)]


def replies(messages) -> list[tuple[str, int]]:
    return [(f.pattern, f.count) for f in detect_repeated_replies(read_chat_messages(messages), DEFAULT)]


# -- when a reply answers the other side's input (then it is a conversation, not a loop) ----------

@pytest.mark.parametrize("messages, expected", [
    pytest.param(chat("Refund my insurance.", REFUSAL, "My booking is ZX91Q.",
                      REFUSAL.replace("Is there", "Booking ZX91Q has none. Is there"), "Please?", REFUSAL),
                 [], id="takes-up-an-id-just-told"),
    # "ZX" has two letters: not a content word, so taking it up answers nothing.
    pytest.param(chat("Refund my insurance.", REFUSAL, "My booking is ZX.",
                      REFUSAL.replace("Is there", "Booking ZX. Is there"), "Please?", REFUSAL),
                 [("repeated_reply", 3)], id="a-two-letter-word-is-too-short-to-answer"),
    # The id was said before the first reply of the chain: not new to the conversation.
    pytest.param(chat("Hello.", "Hi, how can I help?", "Refund insurance of booking ZX91Q.", REFUSAL,
                      "My booking is ZX91Q.", REFUSAL.replace("Is there", "Booking ZX91Q has none. Is there"),
                      "Please?", REFUSAL),
                 [("repeated_reply", 3)], id="an-id-said-before-is-not-news"),
    # The new word is in the input as plain lower-case words: an echo, not a fact taken up.
    pytest.param(chat("Refund my insurance.", REFUSAL, "my booking is zeppelin.",
                      REFUSAL.replace("Is there", "Booking zeppelin has none. Is there"), "Please?", REFUSAL),
                 [("repeated_reply", 3)], id="a-lower-case-word-taken-up-is-an-echo"),
    # ... but an id written in lower case holds digits: a fact just told, taken up.
    pytest.param(chat("Refund my insurance.", REFUSAL, "my booking is zx91q.",
                      REFUSAL.replace("Is there", "Booking zx91q has none. Is there"), "Please?", REFUSAL),
                 [], id="twin-a-lower-case-id-with-digits-taken-up-is-a-fact"),
    # The reply takes up a word of its own that no input between said (no fact: a number would be one).
    pytest.param(chat("Refund my insurance.", REFUSAL, "Please, an exception?",
                      REFUSAL.replace("Is there", "Policy QUIXOTE says so. Is there"), "Please?", REFUSAL),
                 [("repeated_reply", 3)], id="a-new-word-nobody-said-answers-nothing"),
])
def test_a_reply_answers_the_input_only_with_a_new_specific_word_it_was_just_told(messages, expected):
    assert replies(messages) == expected


def two_turns(first: str, second: str, reply: str) -> list[dict]:
    """A refusal, two turns of the user, `reply`, one more turn, the refusal again."""
    return chat("Refund my insurance.", REFUSAL, first) + [
        {"role": "user", "content": second}, {"role": "assistant", "content": reply},
        {"role": "user", "content": "Please?"}, {"role": "assistant", "content": REFUSAL}]


@pytest.mark.parametrize("messages, expected", [
    # Two turns between the replies: the id told in the first is taken up after the second.
    pytest.param(two_turns("My booking is ZX91Q.", "Please check.",
                           REFUSAL.replace("Is there", "Booking ZX91Q has none. Is there")),
                 [], id="takes-up-an-id-told-two-turns-back"),
    pytest.param(two_turns("My booking is ZX91Q.", "Please check.",
                           REFUSAL.replace("Is there", "Card XXXX has none. Is there")),
                 [("repeated_reply", 3)], id="twin-a-word-neither-turn-told"),
    # A turn with no text tells nothing the reply could take up.
    pytest.param(two_turns("Please.", "", REFUSAL.replace("Is there", "Card XXXX has none. Is there")),
                 [("repeated_reply", 3)], id="an-empty-turn-tells-nothing"),
])
def test_every_turn_between_two_replies_is_what_the_reply_was_told(messages, expected):
    assert replies(messages) == expected


def test_replies_back_to_back_without_input_between_are_not_a_reply_chain():
    """Three replies with no turn of the other side between them: not `repeated_reply`
    (that needs the other side's input between each two)."""
    trace = read_chat_messages([{"role": "user", "content": "Refund my insurance."}]
                               + [{"role": "assistant", "content": REFUSAL}] * 3)
    assert detect_repeated_replies(trace, DEFAULT) == ()


# -- whether a repeated input counts as news ---------------------------------------------------

def _polls_with_inputs(inputs: list[str]):
    b = TraceBuilder(source="test")
    b.add_input("Watch the job.")
    for text in inputs:
        b.add_tool_call("status", {"job": 7}, "running: stage build, nothing finished yet, waiting on runner")
        b.add_input(text)
    return b.build()


@pytest.mark.parametrize("inputs, expected", [
    # The first "continue" is news (the run had not seen it): the run is the three polls after it.
    pytest.param(["continue"] * 4, [("repeated_result", 3)], id="the-same-input-again-is-not-news"),
    pytest.param([f"continue {n}" for n in "abcd"], [], id="a-new-input-is-news"),
])
def test_a_repeated_input_is_not_news(inputs, expected):
    got = [(f.pattern, f.count) for f in detect_repeated_results(_polls_with_inputs(inputs), DEFAULT)]
    assert got == expected


# -- whether a tool run resets a chain of harness rejections -------------------------------------

FORMAT_ERROR = "Please always provide EXACTLY ONE action in triple backticks."


def _rejections(tool_after: int | None):
    b = TraceBuilder(source="test")
    b.add_input("Fix the bug.")
    for n in range(4):
        b.add_llm_output(f"I think the bug is in module {n}.")
        b.add_input(FORMAT_ERROR, "harness")
        if n == tool_after:
            b.add_tool_call("ls", {}, "a.py b.py")
    return b.build()


@pytest.mark.parametrize("tool_after, expected", [
    pytest.param(None, [("rejected_output", 4)], id="four-rejections-in-a-row"),
    pytest.param(1, [], id="a-tool-run-after-the-second-resets-the-chain"),
])
def test_a_tool_run_resets_a_chain_of_rejections(tool_after, expected):
    got = [(f.pattern, f.count) for f in detect_rejected_outputs(_rejections(tool_after), DEFAULT)]
    assert got == expected


# -- whether the rounds after the first of a drifting cycle bring news ----------------------------

def _drift(second_round_result: str):
    results = ["", second_round_result, ""]
    return [x for i in range(3) for x in (
        tool("bash", {"cmd": "echo 'print(1' " + " " * i + "> run.py"}, output=results[i]),
        tool("python3", {"cmd": "python3 run.py"}, error=f"File run.py, line 1\n  print(1{' ' * i}\nSyntaxError"))]


@pytest.mark.parametrize("children, expected", [
    pytest.param(_drift(""), [("drifting_cycle", 3)], id="silent-writes-each-round"),
    # The first call of the second round tells something new: that round is progress.
    pytest.param(_drift("Wrote run.py: 1 line, encoding utf-8, permissions rw-r--r--, owner dev, group dev"),
                 [], id="news-in-the-second-rounds-first-call-is-progress"),
])
def test_news_in_any_round_but_the_first_breaks_a_drifting_cycle(children, expected):
    trace = read_deepeval_trace(agent(*children))
    assert [(f.pattern, f.count) for f in detect_call_cycles(trace, DEFAULT)] == expected


# -- similar_attempts needs distinct argument lists and results --------------------------------------

@pytest.mark.parametrize("children, expected", [
    pytest.param([tool("get_plan", {"id": f"P{n}"}, error=f"Error: Plan with ID P{n} not found") for n in range(4)],
                 [("similar_attempts", 4)], id="different-ids-the-same-failure"),
    pytest.param([tool("get_plan", {"id": "P1"}, error="Error: Plan with ID P1 not found")] * 4,
                 [], id="the-very-same-call-is-not-similar-attempts"),
    pytest.param([tool("search", {"q": f"flights to city {n}"}) for n in range(4)],
                 [], id="results-dropped-nothing-to-compare"),
    pytest.param([tool("search", {"q": f"flights to city {n}"},
                       output="No direct flights were found for this route on the selected dates, sorry") for n in range(4)],
                 [("similar_attempts", 4)], id="results-kept-the-same-failure-in-words"),
])
def test_similar_attempts_need_distinct_arguments_and_results(children, expected):
    trace = read_deepeval_trace(agent(*children))
    assert [(f.pattern, f.count) for f in detect_similar_attempts(trace, DEFAULT)] == expected


def _plan(n: int) -> dict:
    return tool("get_plan", {"id": f"P{n}"}, error=f"Error: Plan with ID P{n} not found")


def _user(n: int) -> dict:
    return tool("get_user", {"id": f"U{n}"}, error=f"Error: User U{n} does not exist in the directory")


@pytest.mark.parametrize("children, order", [
    # get_plan starts first (step 1) but its second attempt (step 5) comes after all of get_user's.
    pytest.param([_plan(1), _user(1), _user(2), _user(3), _plan(2), _plan(3)], ["get_plan", "get_user"],
                 id="interleaved-the-one-that-started-first"),
    pytest.param([_user(1), _plan(1), _plan(2), _plan(3), _user(2), _user(3)], ["get_user", "get_plan"],
                 id="interleaved-the-other-way"),
    pytest.param([_user(1), _user(2), _user(3), _plan(1), _plan(2), _plan(3)], ["get_user", "get_plan"],
                 id="twin-one-after-the-other"),
])
def test_similar_attempts_findings_are_listed_by_the_step_they_start_at(children, order):
    findings = detect_similar_attempts(read_deepeval_trace(agent(*children)), DEFAULT)
    assert [f.tools for f in findings] == [(name,) for name in order]


def _docs(page: int) -> dict:
    return tool("read_docs", {"page": page}, output=f"Page {page} of the manual: plans are identified by ids starting "
                                                    f"with P and followed by digits; section {page} covers lookups.")


def _plans_with_reading_between(between: int) -> list[dict]:
    children, page = [], 0
    for n in range(3):
        children.append(_plan(n))
        for _ in range(between if n < 2 else 0):
            children.append(_docs(page))
            page += 1
    return children


@pytest.mark.parametrize("between, found", [
    pytest.param(2, True, id="attempts-three-calls-apart"),
    pytest.param(3, True, id="attempts-exactly-window-calls-apart"),
    pytest.param(4, False, id="twin-attempts-further-apart-than-the-window"),
])
def test_similar_attempts_may_be_as_far_apart_as_the_window(between, found):
    settings = LoopSettings(window=4, alternating_calls_threshold=None, revisited_calls_threshold=None)
    findings = detect_similar_attempts(read_deepeval_trace(agent(*_plans_with_reading_between(between))), settings)
    assert [f.tools for f in findings] == ([("get_plan",)] if found else [])


# -- a reply is compared by its words only when it has `min_similarity_words` (8) of them ----------

EIGHT = "Sorry refunds travel insurance remain impossible after purchase."  # 8 content words
SEVEN = "Sorry refunds travel insurance remain impossible after."  # 7


@pytest.mark.parametrize("reply, expected", [
    # "Sorry" -> "Regrettably": 7 bigrams each, 6 shared of 8, Jaccard 0.75 >= 0.6.
    pytest.param(EIGHT, [("repeated_reply", 3)], id="eight-content-words-are-compared"),
    pytest.param(SEVEN, [], id="seven-content-words-only-when-exactly-equal"),
])
def test_a_reworded_reply_needs_eight_content_words_to_count_as_the_same(reply, expected):
    other = reply.replace("Sorry", "Regrettably")
    assert replies(chat("Refund it.", reply, "Please?", other, "Please!", reply)) == expected


# -- every finding carries its pattern's signal (what the score weighs) ------------------------------

def _cycle(n):
    return [tool(name, {"x": name}, output=name.upper()) for _ in range(n) for name in "ab"]


@pytest.mark.parametrize("detector, children", [
    pytest.param(detect_call_cycles, _cycle(3), id="alternating_calls"),
    pytest.param(detect_call_cycles, _drift(""), id="drifting_cycle"),
    pytest.param(detect_similar_attempts,
                 [tool("get_plan", {"id": f"P{n}"}, error=f"Error: Plan with ID P{n} not found") for n in range(4)],
                 id="similar_attempts"),
    pytest.param(detect_repeated_results, [tool("t", {"k": 1}, output="r")] * 4, id="repeated_result"),
])
def test_every_finding_carries_its_patterns_signal(detector, children):
    from loopmetric._patterns import PATTERNS

    findings = detector(read_deepeval_trace(agent(*children)), DEFAULT)
    assert findings and all(f.signal == PATTERNS[f.pattern].signal for f in findings)


def test_rejections_and_replies_carry_the_reasoning_signal():
    from loopmetric._patterns import PATTERNS

    found = list(detect_rejected_outputs(_rejections(None), DEFAULT)) + list(
        detect_repeated_replies(read_chat_messages(chat("Refund it.", EIGHT, "Please?", EIGHT, "Please!", EIGHT)), DEFAULT))
    assert [f.pattern for f in found] == ["rejected_output", "repeated_reply"]
    assert [f.signal for f in found] == [PATTERNS[f.pattern].signal for f in found] == ["reasoning_stagnation"] * 2


# -- a reply chain's message says how alike the replies were ----------------------------------------

@pytest.mark.parametrize("second, message", [
    pytest.param(EIGHT, "The agent gave the same reply 3 times in a row, with only the other side's turns between "
                        "and no tool call (steps 1-5).", id="exact"),
    # "Sorry" -> "Regrettably": Jaccard 6/8 = 0.75. Indel of the joined words (63 and 69 characters):
    # LCS = the 58 characters after the first word + "rry" (3) = 61, 1 - (132 - 122) / 132 = 0.9242: the max.
    pytest.param(EIGHT.replace("Sorry", "Regrettably"),
                 "The agent gave nearly the same reply (similarity >= 0.92, threshold 0.60) 3 times in a row",
                 id="near"),
])
def test_a_reply_chains_message(second, message):
    (finding,) = detect_repeated_replies(read_chat_messages(chat("Refund it.", EIGHT, "Please?", second, "Please!", EIGHT)),
                                         DEFAULT)
    assert finding.message.startswith(message)


def test_a_rejection_chains_message():
    (finding,) = detect_rejected_outputs(_rejections(None), DEFAULT)
    assert finding.message == ("The model's reply was rejected 4 times in a row (the same input each time, no tool "
                               "run) (steps 1-8).")


def test_evidence_of_another_trace_is_not_used():
    """`run_detectors` takes the evidence it is given only when it was made for this very trace."""
    from loopmetric.detectors import run_detectors
    from loopmetric.detectors._evidence import Evidence

    looping = read_deepeval_trace(agent(*[tool("t", {"k": 1}, output="r")] * 4))
    other = read_deepeval_trace(agent(tool("a", {"k": 1}, output="x")))
    assert run_detectors(looping, DEFAULT, Evidence(other)) == run_detectors(looping, DEFAULT)
    assert run_detectors(looping, DEFAULT) != []


# -- a call graph cycle's path: whole up to six hops, else its ends --------------------------------

def _nested(names):
    """agent p -> the spans named (tool:X or agent:X), innermost last -> agent p again."""
    from tests._traces import span

    node = agent(name="p", input={"t": 1})
    for kind_name in reversed(names):
        kind, name = kind_name.split(":")
        node = span(kind, name, input={"n": name}, output="o", children=[node])
    return agent(node, name="p", input={"t": 1})


@pytest.mark.parametrize("inner, shown", [
    pytest.param(["tool:a", "agent:q", "tool:b", "tool:c"],
                 "agent:p -> tool:a -> agent:q -> tool:b -> tool:c -> agent:p", id="six-hops-all-shown"),
    pytest.param(["tool:a", "agent:q", "tool:b", "tool:c", "tool:d"],
                 "agent:p -> tool:a -> agent:q -> ... 2 more ... -> tool:d -> agent:p", id="seven-hops-ends-shown"),
])
def test_a_call_graph_cycles_path_is_shown_whole_up_to_six_hops(inner, shown):
    from loopmetric.detectors import detect_call_graph_cycles

    (finding,) = detect_call_graph_cycles(read_deepeval_trace(_nested(inner)), DEFAULT)
    assert finding.message.startswith(f"Cycle detected in execution path: {shown}.")


# -- a short output in the window does not hide an older near-duplicate -----------------------------

LONG = ("the migration script failed again because the orders table still has the legacy column "
        "customer_ref which blocks the foreign key constraint on invoices {n}")


@pytest.mark.parametrize("between", [
    pytest.param("ok", id="shorter-than-eight-characters"),
    pytest.param("let me think about this now", id="fewer-than-eight-content-words"),
])
def test_a_short_output_between_near_duplicates_is_skipped_not_a_stop(between):
    from tests._traces import llm

    trace = read_deepeval_trace(agent(llm(LONG.format(n="alpha beta gamma")), llm(between),
                                      llm(LONG.format(n="delta epsilon zeta"))))
    from loopmetric.detectors import detect_reasoning_stagnation

    assert [(f.pattern, f.steps) for f in detect_reasoning_stagnation(trace, DEFAULT)] == [
        ("reasoning_stagnation", (1, 3))]


# -- what says little: an acknowledgement in words, not data ---------------------------------------

@pytest.mark.parametrize("result, little", [
    pytest.param(None, True, id="none"),
    pytest.param("   ", True, id="blank"),
    pytest.param("OK", True, id="ok"),
    pytest.param("File written successfully.", True, id="short-acknowledgement"),
    pytest.param("Готово", True, id="non-ascii-word"),
    pytest.param("XML saved", True, id="an-acknowledgement-starting-with-X"),
    pytest.param("true", False, id="true-is-data"),
    pytest.param("false", False, id="false-is-data"),
    pytest.param("null", False, id="null-is-data"),
    pytest.param("None", False, id="None-is-data"),
    pytest.param("[1, 2]", False, id="a-list"),
    pytest.param('{"a": 1}', False, id="an-object"),
    pytest.param('"quoted"', False, id="a-json-string"),
    pytest.param("42", False, id="a-number"),
    pytest.param("one two three four five six seven eight nine", False, id="nine-words-is-substance"),
    pytest.param("one two three four five six seven eight", True, id="eight-words-still-little"),
    pytest.param("b'\\x1c\\x01\\xbb>s\\xd1y'", False, id="escaped-bytes-are-data"),
    pytest.param("\\x00\\x01 \\x02 ok", False, id="mostly-escaped-tokens-are-data"),
    pytest.param("Saved to C:\\temp\\out.txt", True, id="twin-a-path-with-backslashes-beside-words"),
    pytest.param("Done \\o/", True, id="twin-half-the-tokens-words"),
    pytest.param("d41d8cd98f00b204e9800998ecf8427e", True, id="a-hash-without-escapes-still-little"),
    pytest.param("0x1c 0x01 \\x02", False, id="hex-tokens-beside-an-escape-are-data"),
    pytest.param("\\xab\\xcd\\xef", False, id="escaped-letters-are-data"),
    pytest.param("abcd12 \\x01", False, id="two-thirds-letters-is-not-a-word"),
    pytest.param("abcdefg123 \\x01", True, id="seven-tenths-letters-is-a-word"),
    pytest.param("a.py\nb.py", False, id="two-lines-are-a-listing"),
    pytest.param("Received: from mail.test\r\nReceived: from localhost\r\n", False, id="lines-found-are-data"),
    pytest.param("File written.\n", True, id="twin-one-line-and-a-newline"),
    pytest.param("File written.\n\n  \n", True, id="twin-blank-lines-are-no-lines"),
    pytest.param("<returncode>0</returncode>\n<output>\n</output>", True, id="twin-markup-around-an-empty-output"),
    pytest.param("<returncode>0</returncode>\n<output>\nFile written\n</output>", True, id="twin-markup-around-one-line"),
    pytest.param("<returncode>1</returncode>\n<output>\nb.py\na.py\n</output>", False, id="markup-around-lines"),
    pytest.param("12\n34\nOK", True, id="twin-lines-of-numbers-beside-one-of-words"),
])
def test_says_little(result, little):
    from loopmetric.detectors._news import says_little

    assert says_little(result) is little


def test_repeated_text_cycling_through_texts_says_so():
    from loopmetric.detectors import detect_repeated_text
    from tests._traces import llm

    trace = read_deepeval_trace(agent(*[llm(t) for t in ("Try A.", "Try B.", "Try A.", "Try B.", "Try A.")]))
    (finding,) = detect_repeated_text(trace, DEFAULT)
    assert finding.message == ("Identical reasoning outputs at steps 1, 2, 3, 4 and 5. LLM outputs cycled through 2 "
                               "texts, 3 of 5 outputs repeating earlier ones with no new tool result between.")


def test_a_call_graph_cycle_names_its_tools():
    from loopmetric.detectors import detect_call_graph_cycles

    (finding,) = detect_call_graph_cycles(read_deepeval_trace(_nested(["tool:a", "agent:q", "tool:b", "tool:c"])),
                                          DEFAULT)
    assert finding.tools == ("a", "b", "c")


@pytest.mark.parametrize("children, how", [
    pytest.param([tool("get_plan", {"id": f"P{n}"}, error=f"Error: Plan with ID P{n} not found") for n in range(3)],
                 "each failing the same way", id="failing"),
    pytest.param([tool("search", {"q": f"flights to city {n}"},
                       output="Here are the same five flights as always, nothing new was found for the query")
                  for n in range(3)], "each returning the same result", id="same-result"),
])
def test_a_similar_attempts_message_says_how_they_were_alike(children, how):
    (finding,) = detect_similar_attempts(read_deepeval_trace(agent(*children)), DEFAULT)
    assert f"called 3 times in a row with 3 different argument lists, {how}, with nothing new between" in finding.message


def test_repeated_results_are_counted_per_call_not_per_tool():
    """Two calls of one tool, in turn, all four returning one result: two runs of two (one per
    call), not one run of four."""
    children = [tool("t", {"k": k}, output="the same listing of the same five files in the folder, and nothing else at all") for _ in range(2)
                for k in (1, 2)]
    found = [(f.pattern, f.count) for f in detect_repeated_results(read_deepeval_trace(agent(*children)), DEFAULT)]
    assert ("repeated_result", 4) not in found


@pytest.mark.parametrize("names, tools, said", [
    pytest.param("abcdcadb", ("c", "a", "d", "b"), "'c', 'a', 'd', 'b'", id="four-tools-revisited-once-each"),
    # Two tools revisited twice each: each named once, in the order first revisited.
    pytest.param("abcdcaca", ("c", "a"), "'c', 'a'", id="two-tools-revisited-twice-each-named-once"),
])
def test_a_revisited_calls_finding_lists_the_revisiting_steps(names, tools, said):
    from loopmetric.detectors import detect_revisited_calls

    children = [tool(n, {"target": n}, output=f"{n}: unchanged") for n in names]
    (finding,) = detect_revisited_calls(read_deepeval_trace(agent(*children)), DEFAULT)
    assert (finding.pattern, finding.steps, finding.tools) == ("revisited_calls", (5, 6, 7, 8), tools)
    assert finding.message == (f"4 calls in a row repeated earlier calls ({said}) and none brought anything new "
                               f"(steps 5-8).")


def test_a_chain_of_rejections_ends_at_an_input_that_is_not_a_rejection():
    b = TraceBuilder(source="test")
    b.add_input("Fix the bug.")
    for n in range(3):
        b.add_llm_output(f"I think the bug is in module {n}.")
        b.add_input(FORMAT_ERROR, "harness")
    b.add_llm_output("Fine, here is the action.")
    b.add_input("Thanks, that worked.")
    b.add_llm_output("Done.")
    assert [(f.pattern, f.count, f.steps) for f in detect_rejected_outputs(b.build(), DEFAULT)] == [
        ("rejected_output", 3, (1, 2, 3, 4, 5, 6))]


def test_a_run_of_two_ended_by_news_still_counts_at_threshold_two():
    long = "the same listing of the same five files in the folder, and nothing else at all"
    children = [tool("ls", {"d": 1}, output=long), tool("ls", {"d": 1}, output=long),
                tool("cat", {"f": "new.txt"}, output="a file never seen before with new content in it, line one"),
                tool("ls", {"d": 1}, output=long)]
    settings = LoopSettings(repeated_result_threshold=2)
    found = [(f.pattern, f.steps) for f in detect_repeated_results(read_deepeval_trace(agent(*children)), settings)]
    assert ("repeated_result", (1, 2)) in found


@pytest.mark.parametrize("children, message", [
    pytest.param(_cycle(3), "Tools 'a' -> 'b' repeated as a cycle of 2 calls 3 times with the same arguments and "
                            "results (steps 1-6).", id="alternating"),
    # A-B-A-B-A: the third A closes the third round (a cycle counts from its first call): 5 / 2 = 2.5 rounds.
    pytest.param(_cycle(3)[:5], "Tools 'a' -> 'b' repeated as a cycle of 2 calls 2.5 times with the same arguments "
                                "and results (steps 1-5).", id="alternating-two-and-a-half-rounds"),
    pytest.param(_drift(""), "Tools 'bash' -> 'python3' repeated as a cycle of 2 calls 3 times with nothing new learned "
                             "(the same calls up to spacing, or the same failures) (steps 1-6).", id="drifting"),
])
def test_a_cycles_message_says_how_the_rounds_were_alike(children, message):
    (finding,) = detect_call_cycles(read_deepeval_trace(agent(*children)), DEFAULT)
    assert finding.message == message


# -- what a user would notice of the attempts, changes and failures rules -------------------------

def _suggests(query: str, name: str) -> str:
    return f"Could not find [{query}]. Similar: ['{name}']."


@pytest.mark.parametrize("queries, suggested, loop", [
    pytest.param(["Scatman", "Scatman John", "Scatman", "Scatman John"],
                 {"Scatman": "Scatman John", "Scatman John": "Scatman"}, True,
                 id="going-back-to-a-query-tried-follows-no-lead"),
    pytest.param(["Scat", "Scatman", "Scatman John", "Scatman Crothers"],
                 {"Scat": "Scatman", "Scatman": "Scatman John", "Scatman John": "Scatman Crothers",
                  "Scatman Crothers": "Scatman Crothers"}, False,
                 id="twin-each-query-a-new-name-a-result-suggested"),
])
def test_an_attempt_repeating_an_earlier_calls_own_argument_follows_no_lead(queries, suggested, loop):
    from loopmetric import detect_loops

    children = [tool("search", {"q": q}, output=_suggests(q, suggested[q])) for q in queries]
    found = detect_similar_attempts(read_deepeval_trace(agent(*children)), DEFAULT)
    assert bool(found) is loop and all(f.severity == "severe" for f in found)
    assert detect_loops(agent(*children)).success is not loop


def _bash(command: str) -> dict:
    return tool("bash", {"command": command}, output="")


@pytest.mark.parametrize("commands, sent_again", [
    pytest.param(["mkdir run1", "mkdir run2", "mkdir run3"], False, id="mkdir-run1-run2-run3-three-folders"),
    pytest.param(["touch notes_v1.md", "touch notes_v2.md", "touch notes_v3.md"], False, id="touch-three-versions"),
    pytest.param(["mkdir run1", "mkdir  run1", "mkdir run1"], True, id="twin-mkdir-run1-sent-again"),
    pytest.param(["mkdir runs", "mkdir rnus", "mkdir runs"], True, id="twin-one-folder-respelled"),
])
def test_mkdir_run1_run2_run3_are_three_changes_not_one_sent_again(commands, sent_again):
    from loopmetric import detect_loops

    children = [_bash(c) for c in commands]
    found = detect_similar_attempts(read_deepeval_trace(agent(*children)), DEFAULT)
    assert [(f.pattern, f.count) for f in found] == ([("similar_attempts", len(commands))] if sent_again else [])
    assert detect_loops(agent(*children)).success is not sent_again


_SAID = ["Access denied.", "Request refused.", "Unknown command: lsx", "Invalid path", "Incorrect password",
         "Wrong answer", "Malformed request", "Build failed.", "Upload failure", "Error 5",
         "No such file", "Not found", "Cannot open the file", "Unable to connect"]


@pytest.mark.parametrize("result, failed", [
    *[pytest.param(text, True, id=text) for text in _SAID],
    pytest.param("Access granted.", False, id="twin-access-granted"),
    pytest.param("Request accepted.", False, id="twin-request-accepted"),
    pytest.param("Nothing to do; no-op", False, id="twin-lead-words-saying-no-failure"),
])
def test_access_denied_is_a_failure_when_the_reader_set_no_error_flag(result, failed):
    from loopmetric._model import ToolCall
    from loopmetric.detectors._news import _FAILURE_WORDS, failure_kind, fails

    call = ToolCall(1, "open", '{"path": "secret.txt"}', result, False, "c", "o")
    assert (failure_kind(call) is not None, fails(result)) == (failed, failed)
    assert (_FAILURE_WORDS.search(result) is not None) is failed  # the fast path agrees with the pattern
    children = [tool("open", {"path": f"secret{n}.txt"}, output=result) for n in range(4)]
    found = detect_similar_attempts(read_deepeval_trace(agent(*children)), DEFAULT)
    assert any("each failing the same way" in f.message for f in found) is failed


_Q = ["Scatman", "Scatman John", "Scatman John Jr", "Scatman John Sr"]


def _each_names_the_next(said: str) -> list:
    return [(q, said.format(q=q, n=n) if n else f"Could not find {q}.") for q, n in zip(_Q, _Q[1:] + [None])]


@pytest.mark.parametrize("pairs, loop", [
    pytest.param(_each_names_the_next("Could not find {q}. {n} exists."), False,
                 id="the-lead-right-after-the-echo-of-the-query"),
    pytest.param(_each_names_the_next("Could not find {q}. Similar: {n}."), False,
                 id="the-lead-holding-the-query-after-its-echo"),
    pytest.param([(_Q[0], f"Could not find {_Q[0]}. Similar: {', '.join(_Q[1:])}.")]
                 + [(q, f"Could not find {q}.") for q in _Q[1:]], False, id="every-lead-from-the-first-result"),
    pytest.param([(q, f"Could not find {q}.") for q in _Q], True, id="twin-no-result-names-a-query"),
])
def test_a_query_a_result_suggested_follows_a_lead_wherever_the_result_names_it(pairs, loop):
    """A query another result names word for word follows a lead (the result's echo of its own
    query left out, and only that), from any earlier result, the first one too."""
    children = [tool("search", {"q": q}, output=output) for q, output in pairs]
    found = detect_similar_attempts(read_deepeval_trace(agent(*children)), DEFAULT)
    assert [(f.count, f.steps) for f in found] == ([(4, (1, 2, 3, 4))] if loop else [])


def _failing(args, result):
    from loopmetric._model import ToolCall

    return ToolCall(1, "find", args, result, False, "c", "o")


@pytest.mark.parametrize("a, b, same", [
    pytest.param(('{"path": "src", "q": "Foo"}', "No matches found for Foo in src"),
                 ('{"path": "src", "q": "BarBaz"}', "No matches found for BarBaz in src"), True,
                 id="each-value-masked-the-last-key-too"),
    pytest.param(('{"q": "Foo", "path": "src"}', "No matches found for Foo in src"),
                 ('{"q": "BarBaz", "path": "src"}', "No matches found for BarBaz in src"), True,
                 id="each-value-masked-the-first-key-too"),
    pytest.param(("find_file Foo src", "No matches found for Foo in src"),
                 ("find_file BarBaz src", "No matches found for BarBaz in src"), True,
                 id="arguments-that-are-not-json-masked-by-their-words"),
    pytest.param(('{"q": "Foo"}', "No matches found for Qux in src"),
                 ('{"q": "BarBaz"}', "No matches found for Quux in src"), False,
                 id="twin-a-word-no-argument-holds-stays"),
])
def test_failures_naming_their_own_arguments_are_one_kind(a, b, same):
    from loopmetric.detectors._news import failure_kind

    kinds = failure_kind(_failing(*a)), failure_kind(_failing(*b))
    assert None not in kinds and (kinds[0] == kinds[1]) is same


SEARCH = "Let me search for the weather in Paris."
_SUNNY = tool("search", {"q": "Paris"}, output="Sunny")


@pytest.mark.parametrize("children, count", [
    pytest.param([llm_(SEARCH), llm_(SEARCH), _SUNNY] + [llm_(SEARCH), _SUNNY] * 3, 5,
                 id="two-copies-before-the-first-result-and-three-after"),
    pytest.param([llm_(SEARCH), _SUNNY, llm_("Hmm, something else to say here.")] + [llm_(SEARCH), _SUNNY] * 3, 3,
                 id="another-text-just-before-ends-the-copies-in-a-row"),
    pytest.param([llm_(SEARCH), _SUNNY] + [llm_(SEARCH), _SUNNY] * 3, 4, id="twin-one-copy-before"),
])
def test_a_repeated_texts_count_is_its_copies_in_a_row_back_to_another_text(children, count):
    from loopmetric.detectors import detect_repeated_text

    findings = detect_repeated_text(read_deepeval_trace(agent(*children)), DEFAULT)
    assert [f.count for f in findings if len(f.steps) == 3] == [count]
