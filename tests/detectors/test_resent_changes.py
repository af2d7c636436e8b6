"""A change sent again (`similar_attempts`): near-identical calls of one tool in a row, each
answered with the same empty result or short acknowledgement, nothing new between. The loops
the issue names (patch attempts that re-send the same change, a command written again with a
light edit and the same empty output) and their healthy twins: changes to other files, lines,
folders and objects, work checked between, notes to self."""

from __future__ import annotations

import pytest

from loopmetric import LoopSettings, detect_loops, read_deepeval_trace
from loopmetric.detectors import detect_similar_attempts
from loopmetric.detectors._near import argument_words, near_identical, same_change
from tests._traces import agent, tool

SEND_AGAIN = "each answered with the same empty or short acknowledgement (the same call sent again)"


def bash(command: str, output: str = "") -> dict:
    return tool("bash", {"command": command}, output=output)


def found(*children, settings=LoopSettings()) -> list[tuple[str, int, tuple[int, ...]]]:
    trace = read_deepeval_trace(agent(*children))
    return [(f.pattern, f.count, f.steps) for f in detect_similar_attempts(trace, settings)]


APOLOGY = ("It seems there was an error. Let's try again", "It seems there was an error, let me try again",
           "There was an error. Let's try again", "It seems there was an error. Let us try again")

LISTING = tool("ls", {"command": "ls"}, output="level4.py flag.txt.enc")

LOOPS = [
    pytest.param([bash(f"# {words}\ncat level4.py") for words in APOLOGY], 4, id="comment-prefixed-command-reworded"),
    pytest.param([bash(f"echo \"print('{x}')\" > decrypt.py python3 decrypt.py") for x in ("a+b", "a + b", "a+b")], 3,
                 id="script-written-and-run-without-a-separator"),
    pytest.param([bash("sed -i 's/return mmsubsup/return mmsubsup/' a.py")] * 2
                 + [bash("sed -i 's/return  mmsubsup/return mmsubsup/' a.py")], 3, id="the-same-no-op-edit-re-sent"),
    pytest.param([tool("edit", {"path": "a.py", "new": text}, output="File updated.")
                  for text in ("return parse(value)", "return parse( value )", "return parse(value)")], 3,
                 id="a-patch-re-sent-acknowledged-each-time"),
    pytest.param([LISTING, bash(f"# {APOLOGY[0]}\ncat level4.py"), LISTING, bash(f"# {APOLOGY[1]}\ncat level4.py"),
                  LISTING, bash(f"# {APOLOGY[2]}\ncat level4.py")], 3, id="an-old-listing-between-is-nothing-new"),
]


@pytest.mark.parametrize(("children", "count"), LOOPS)
def test_a_change_sent_again_is_one_attempt(children, count):
    findings = found(*children)
    assert [(pattern, n) for pattern, n, _ in findings] == [("similar_attempts", count)]
    name = next(c["name"] for c in children if c["name"] != "ls")
    report = detect_loops(agent(*children))
    assert not report.success and f"Tool '{name}' called {count} times in a row" in report.reason
    assert SEND_AGAIN in report.reason


HEALTHY = [
    pytest.param([bash(f"echo hi > f{n}.txt") for n in range(4)], id="other-files-by-number"),
    pytest.param([bash(f"sed -i '{line},{line + 2}d' f.py") for line in (51, 60, 75)], id="other-lines-by-number"),
    pytest.param([bash(f"mkdir {name}") for name in ("src", "tests", "docs", "build")], id="other-folders"),
    pytest.param([bash(f"mkdir {name}") for name in ("repo", "repo/src", "repo/tests", "repo/docs")],
                 id="a-tree-of-folders"),
    pytest.param([bash(f"pip install {names}") for names in ("numpy", "numpy scipy", "numpy pandas")],
                 id="packages-added"),
    pytest.param([tool("edit", {"path": "a.py", "new": text}, output="File updated.")
                  for text in ("return parse(value)", "return parse(value, strict)", "return parse(value, strict, 2)")],
                 id="a-change-grown-step-by-step"),
    pytest.param([bash(f"cd /app/{name}") for name in ("src", "tests", "docs")], id="other-places"),
    pytest.param([bash(f"echo '{line}' >> s.py") for line in ("import os", "print(os.getcwd())",
                                                             "print(os.listdir())")], id="a-script-built-line-by-line"),
    pytest.param([tool("write", {"path": f"f{n}.txt"}, output="File written successfully.") for n in range(4)],
                 id="other-files-acknowledged"),
    pytest.param([tool("think", {"thought": f"The action is invalid because there is no size {n} women in stock."},
                       output="OK.") for n in (11, 12, 13, 14)], id="notes-to-self-change-nothing"),
    pytest.param([tool("think", {"thought": words + " before I change anything else in the parser module"},
                       output="OK.") for words in ("I should read the failing test again carefully",
                                                   "I should read the failing test once more carefully",
                                                   "I should read the failing test again, carefully",
                                                   "I must read the failing test again carefully")],
                 id="the-same-note-to-self-reworded-changes-nothing"),
    pytest.param([x for text in ("return parse(value)", "return parse(value, strict)", "return parse(value)")
                  for x in (tool("edit", {"path": "a.py", "new": text}, output="File updated."),
                            bash("pytest -q", f"1 failed: {text} raised"))], id="each-change-checked-with-news"),
    pytest.param([bash(f"# {APOLOGY[0]}\ncat level4.py"), bash(f"# {APOLOGY[1]}\ncat level4.py")],
                 id="twice-is-not-yet"),
    pytest.param([bash(f"# {APOLOGY[0]}\ncat level4.py"), tool("ls", {"command": "ls"}, output="level4.py"),
                  bash(f"# {APOLOGY[1]}\ncat level4.py"), tool("ls", {"command": "ls"}, output="level4.py chall.c"),
                  bash(f"# {APOLOGY[2]}\ncat level4.py")], id="something-new-between"),
    pytest.param([bash(f"# {words}\ncat level4.py", output) for words, output in zip(APOLOGY, ("", "OK", "", "OK"))],
                 id="not-the-same-acknowledgement"),
    pytest.param([tool("bash", {"command": f"# {words}\ncat level4.py"}) for words in APOLOGY],
                 id="results-not-recorded"),
]


@pytest.mark.parametrize("children", HEALTHY)
def test_changes_to_other_targets_or_checked_between_are_work(children):
    assert found(*children) == []
    assert detect_loops(agent(*children)).success


@pytest.mark.parametrize(("window", "expected"), [
    pytest.param(None, 3, id="no-window"),
    pytest.param(7, 3, id="apart-by-the-window"),
    pytest.param(6, 0, id="apart-by-more-than-the-window"),
])
def test_a_change_sent_again_counts_within_the_window(window, expected):
    others = [tool("other", {}, output="x")] * 6  # each attempt 7 calls after the one before
    spaced = [others[0]] + [x for words in APOLOGY[:3] for x in [bash(f"# {words}\ncat level4.py"), *others]]
    findings = found(*spaced, settings=LoopSettings(window=window))
    assert [n for _, n, _ in findings] == ([expected] if expected else [])


@pytest.mark.parametrize(("a", "b", "attempt", "change"), [
    pytest.param("echo hi > f1.txt", "echo hi > f2.txt", True, False, id="an-id-of-one-shape"),
    pytest.param("the size 11 women shoe in stock today", "the size 12 women shoe in stock today", True, False,
                 id="a-long-text-with-another-number"),
    pytest.param("sed -i s/a/b/ x.py", "sed -i s/a/b/  x.py", True, True, id="the-same-words"),
    pytest.param("x.py sed -i s/a/b/", "sed -i s/a/b/ x.py", True, True, id="the-same-words-reordered"),
    pytest.param("return parse(value)", "return parse(value, strict)", True, False, id="a-word-added"),
    pytest.param("mkdir repo", "mkdir repo/src", True, False, id="a-folder-inside"),
    pytest.param("git add a.py", "git add a.py 2", True, False, id="a-number-added"),
    pytest.param("cat XmlSerializer.java", "cat XmlDeserializer.java", True, True, id="a-word-respelled"),
    pytest.param("cat Foo.java", "cat FooImpl.java", True, False, id="a-name-contained"),
    pytest.param("# It seems there was an error. Let's try again", "# It seems there was an error, let me try again",
                 True, True, id="a-long-text-reworded"),
    pytest.param("", "", True, True, id="no-words-twice"),
    pytest.param("", "ls", True, False, id="no-words-beside-words"),
])
def test_changes_are_the_same_by_stricter_words_than_attempts(a, b, attempt, change):
    words = argument_words(f'{{"c": "{a}"}}'), argument_words(f'{{"c": "{b}"}}')
    assert near_identical(*words) is attempt
    assert same_change(*words) is change


def test_a_run_broken_by_another_call_of_its_tool_is_told_with_its_tool_steps_and_attempts():
    sent = [bash("sed -i 's/return mmsubsup/return mmsubsup/' a.py")] * 2 + [
        bash("sed -i 's/return  mmsubsup/return mmsubsup/' a.py")]
    children = [*sent, bash("python test.py", "FAILED test_mmsubsup: expected <mi>, got <msub>")]
    trace = read_deepeval_trace(agent(*children))
    [finding] = detect_similar_attempts(trace, LoopSettings())
    assert (finding.count, finding.steps, finding.tools) == (3, (1, 2, 3), ("bash",))
    assert finding.fingerprints == tuple(dict.fromkeys(call.call for call in trace.tool_calls[:3]))
    assert len(finding.fingerprints) == 2
    assert finding.message == ("Tool 'bash' called 3 times in a row with 2 different argument lists, " + SEND_AGAIN
                               + ", with nothing new between (steps 1-3).")


NOTE = "I will press the save button once more because the form might not have been stored yet"


def test_a_note_to_self_splits_a_run_of_changes_sent_again():
    pressed = [tool("act", {"text": t}, output="OK.") for t in ("click the save button", "click the Save button")]
    again = [tool("act", {"text": t}, output="OK.") for t in ("click the save button", "Click the save button",
                                                              "click the SAVE button")]
    children = [*pressed, tool("act", {"text": NOTE}, output="OK."), *again]
    assert found(*children) == [("similar_attempts", 3, (4, 5, 6))]
    assert found(*pressed, *again) == [("similar_attempts", 5, (1, 2, 3, 4, 5))]


@pytest.mark.parametrize(("output", "little"), [
    pytest.param("Traceback (most recent call last): ValueError: the parser expected a closing tag here", False,
                 id="a-result-of-substance"),
    pytest.param("OK.", True, id="twin-an-acknowledgement"),
])
def test_what_a_result_says_is_read_for_calls_made_again_too(output, little):
    from loopmetric.detectors._news import Progress

    trace = read_deepeval_trace(agent(*[bash("make", output)] * 3))
    progress = Progress(trace)
    assert [progress.says_little(i) for i in range(3)] == [little] * 3


SEVEN = "alpha bravo charlie delta echo foxtrot golf".split()


@pytest.mark.parametrize(("a", "b", "same"), [
    pytest.param(SEVEN + ["hotel"], SEVEN + ["hotel", "2"], False, id="a-long-text-with-a-number-added"),
    pytest.param(SEVEN + ["hotel"], SEVEN + ["hotel", "india"], True, id="twin-a-long-text-with-a-word-added"),
    pytest.param(["cat", "abcd"], ["cat", "abce"], True, id="respelled-at-three-quarters"),
    pytest.param(["cat", "abcd"], ["cat", "abxy"], False, id="twin-respelled-below-three-quarters"),
    pytest.param(SEVEN + ["hotel"] + ["kilo", "lima", "mike", "november"],
                 SEVEN + ["hotel"] + ["oscar", "papa", "quebec", "romeo"], False, id="eight-of-sixteen-words-shared"),
    pytest.param(SEVEN[:6] + ["kilo"], SEVEN[:6] + ["oscar"], True, id="six-of-eight-words-shared"),
    pytest.param(SEVEN[:5] + ["kilo"], SEVEN[:5] + ["oscar"], False, id="twin-six-of-seven-words-is-not-long"),
    pytest.param(SEVEN + ["kilo"], SEVEN + ["oscar", "papa"], True, id="seven-of-ten-words-shared"),
    pytest.param(SEVEN[:6] + ["kilo"], SEVEN[:6] + ["oscar", "papa"], False, id="twin-six-of-nine-words-shared"),
])
def test_same_change_by_hand(a, b, same):
    """Eight words or more sharing seven tenths of them; a word respelled at an Indel similarity of
    three quarters ("abcd" / "abce": 1 - 2/8)."""
    assert same_change(a, b) is same
    assert same_change(b, a) is same
