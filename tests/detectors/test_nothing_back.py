"""Calls that get nothing back (`similar_attempts`, `_attempts._nothing_back`): a command that does
nothing, answered by the same empty output or the same failure over and over, whatever its text, is a
loop; different commands each answered by nothing while they make different things are work. With the
healthy twins: `mkdir a`, `mkdir a/b`, `mkdir a/c`; a few files written; no-ops between which the agent
looked at something; a dozen commands that each print something."""

from __future__ import annotations

import pytest

from loopmetric import LoopSettings, detect_loops, read_deepeval_trace
from loopmetric.detectors import detect_similar_attempts
from tests._traces import agent, tool


def bash(command: str, output: str = "") -> dict:
    return tool("bash", {"command": command}, output=output)


NO_OPS = [": ls -la", "}", ": python3 eval.py"]
NAMES = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]


def found(children, settings=LoopSettings()) -> list[tuple[str, int]]:
    trace = read_deepeval_trace(agent(*children))
    return [(f.pattern, f.count) for f in detect_similar_attempts(trace, settings)]


LOOPS = [
    pytest.param([bash(NO_OPS[k % 3]) for k in range(6)], 6, id="three-no-ops-re-sent-in-turn"),
    pytest.param([bash(NO_OPS[k % 3]) for k in range(24)], 24, id="no-ops-dozens-of-times"),
    pytest.param([bash(f": step {k}: python3 solve.py --try {k}") for k in range(12)], 12,
                 id="a-dozen-different-no-ops-in-a-row"),
    pytest.param([bash(f"pyhton{k} run.py", output=f"bash: pyhton{k}: command not found") for k in range(12)], 12,
                 id="a-dozen-commands-not-found-whatever-their-text"),
    pytest.param([tool("edit", {"path": "App.tsx", "new": f"const mode = {v};"},
                       error=f"Your proposed edit has introduced new syntax error(s).\nline {k}: unexpected '{v}'")
                  for k, v in enumerate(["dark", "light", "theme", "toggle", "state", "props"])], 6,
                 id="six-edits-in-a-row-rejected-with-the-same-error"),
    pytest.param([bash(c, output="cat: out.txt: No such file or directory") for c in
                  ["cat out.txt", "cat ./out.txt", "cat out.txt", "cat  out.txt", "cat ./out.txt", "cat out.txt"]], 6,
                 id="the-same-no-such-file-re-sent"),
]


@pytest.mark.parametrize(("children", "count"), LOOPS)
def test_calls_that_get_nothing_back_are_a_loop(children, count):
    assert ("similar_attempts", count) in found(children)
    report = detect_loops(agent(*children))
    assert not report.success
    assert "whatever its arguments" in report.reason or "called" in report.reason


HEALTHY = [
    pytest.param([bash(c) for c in ("mkdir a", "mkdir a/b", "mkdir a/c")], id="mkdir-a-a-b-a-c"),
    pytest.param([bash(f"touch src/m{k}.py") for k in range(8)] + [bash("ls src", "m0.py m1.py m2.py")],
                 id="eight-files-made-then-listed"),
    pytest.param([step for k in range(6) for step in (bash(NO_OPS[k % 3]), bash("ls", f"{NAMES[k]}.txt\nnotes.md"))],
                 id="no-ops-with-a-listing-of-new-files-between"),
    pytest.param([bash(f"echo {k}", output=str(k)) for k in range(14)], id="a-dozen-commands-each-printing"),
    pytest.param([bash(f"git add f{k}.py") for k in range(5)], id="five-files-staged"),
    pytest.param([tool("find_file", {"name": n}, output=f'No matches found for "{n}"')
                  for n in ["Parser", "Lexer", "Token", "Scanner", "Reader"]], id="five-names-looked-up-each-missing"),
    pytest.param([tool("edit", {"path": "App.tsx", "new": f"const mode = {v};"},
                       error=f"Your proposed edit has introduced new syntax error(s).\nline {k}: unexpected '{v}'")
                  for k, v in enumerate(["dark", "light", "theme", "toggle", "state"])]
                 + [tool("edit", {"path": "App.tsx", "new": "const mode = 'dark';"}, output="Edit applied.")],
                 id="five-edits-rejected-then-one-applied"),
]


@pytest.mark.parametrize("children", HEALTHY)
def test_work_answered_with_nothing_is_no_loop(children):
    assert [f for f in found(children)] == []
    assert detect_loops(agent(*children)).success


def test_the_counts_follow_the_threshold():
    failing = [tool("find_file", {"name": n}, output=f'No matches found for "{n}"') for n in "abcdefgh"]
    assert found(failing, LoopSettings(similar_attempts_threshold=4)) == [("similar_attempts", 8)]  # 2 x 4
    assert found(failing[:7], LoopSettings(similar_attempts_threshold=4)) == []
    children = [bash(NO_OPS[k % 3]) for k in range(8)]  # 8 calls, 3 different
    assert found(children, LoopSettings(similar_attempts_threshold=4)) == [("similar_attempts", 8)]
    assert found(children, LoopSettings(similar_attempts_threshold=5)) == []  # 8 < 2 x 5, and 8 < 4 x 5
    assert found([bash(f": no-op {k}") for k in range(11)]) == []  # 11 different: under 4 x 3


def test_the_messages_say_what_came_back_and_the_tool():
    silent = [bash(NO_OPS[k % 3]) for k in range(6)]
    (finding,) = detect_similar_attempts(read_deepeval_trace(agent(*silent)), LoopSettings())
    assert finding.message == ("Tool 'bash' called 6 times in a row with 3 different argument lists, each answered "
                               "with nothing (the same empty output), whatever its arguments, with nothing new "
                               "between (steps 1-6).")
    failing = [tool("edit", {"path": "App.tsx", "new": f"const mode = {v};"},
                    error=f"Your proposed edit has introduced new syntax error(s).\nline {k}: unexpected '{v}'")
               for k, v in enumerate(["dark", "light", "theme", "toggle", "state", "props"])]
    (finding,) = detect_similar_attempts(read_deepeval_trace(agent(*failing)), LoopSettings())
    assert finding.message == ("Tool 'edit' called 6 times in a row with 6 different argument lists, each failing "
                               "the same way, whatever its arguments, with nothing new between (steps 1-6).")


@pytest.mark.parametrize(("errors", "loop"), [
    pytest.param([f"Error: the edit broke line {n}.\nat {w}" for n, w in enumerate("abcdef")], True,
                 id="one-first-sentence-other-details"),
    pytest.param([f"Error: {w} is missing.\nat line 3" for w in ["config", "schema", "token", "route", "model",
                                                                 "cache"]], True,
                 id="one-first-sentence-but-the-argument-it-names"),
    pytest.param([f"Error: {w}.\nat line 3" for w in ["file is locked", "permission denied", "disk is full",
                                                     "name too long", "bad encoding", "path is a folder"]], False,
                 id="twin-other-failures-that-open-with-the-same-word"),
])
def test_failing_the_same_way_is_read_by_the_first_sentence(errors, loop):
    children = [tool("save", {"name": w}, error=e) for w, e in zip(["config", "schema", "token", "route", "model",
                                                                     "cache"], errors)]
    assert bool(found(children)) is loop


def test_a_first_sentence_with_a_slash_in_it_is_read_whole():
    """"a / b1" and "a / b2" are other failures (the kind joins its parts with " / ": never split back)."""
    names = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    children = [tool("save", {"slot": k}, error=f"Error: layer a / {w} is read-only.\nat line 3")
                for k, w in enumerate(names)]
    assert [f for f in found(children)] == []
    twin = [tool("save", {"slot": k}, error="Error: layer a / alpha is read-only.\nat line 3") for k in range(6)]
    assert found(twin) == [("similar_attempts", 6)]


# Two runs back to back: the call that ends one run of nothing (another tool's) is the first of the next.
SHELL = [tool("shell", {"command": NO_OPS[k % 3]}, output="") for k in range(6)]


@pytest.mark.parametrize(("children", "counts"), [
    pytest.param([bash(NO_OPS[k % 3]) for k in range(6)] + SHELL, [6, 6],
                 id="six-no-ops-re-sent-then-six-to-another-tool-two-loops"),
    pytest.param([bash(NO_OPS[k % 3]) for k in range(6)] + SHELL[:5], [6],
                 id="six-no-ops-re-sent-then-five-to-another-tool-one-loop"),
    pytest.param([bash(f"mkdir d{k}") for k in range(6)] + SHELL, [6],
                 id="six-folders-made-then-six-no-ops-re-sent-to-another-tool"),
])
def test_a_run_of_nothing_back_starts_at_the_call_that_ended_the_one_before(children, counts):
    assert [count for _, count in found(children)] == counts
