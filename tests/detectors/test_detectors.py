"""Each detector as a pure function, on tables of cases."""

from __future__ import annotations

import pytest

from loopmetric import LoopSettings, read_deepeval_trace
from loopmetric.detectors import (
    detect_call_cycles,
    detect_call_graph_cycles,
    detect_reasoning_stagnation,
    detect_rejected_outputs,
    detect_repeated_calls,
    detect_repeated_replies,
    detect_repeated_results,
    detect_repeated_text,
    detect_revisited_calls,
    detect_similar_attempts,
)
from tests._texts import REFUSAL, RESTATED
from tests._traces import agent, llm, span, tool

DEFAULT = LoopSettings()


def run(detector, *children, settings=DEFAULT, root=None):
    trace = read_deepeval_trace(root if root is not None else agent(*children))
    return [(f.pattern, f.severity, f.count) for f in detector(trace, settings)]


def same(name="t", n=1, output="r", **kw):
    return [tool(name, {"k": 1}, output=output, **kw)] * n


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param(same(n=2), [], id="2-below-threshold"),
    pytest.param(same(n=3), [("repeated_call", "mild", 3)], id="3-mild"),
    pytest.param(same(n=4), [("repeated_call", "mild", 4)], id="4-mild"),
    pytest.param(same(n=5), [("repeated_call", "severe", 5)], id="5-severe"),
    pytest.param([tool("t", {"k": 1}) for _ in range(6)], [("repeated_call", "severe", 6)], id="unknown-results"),
    pytest.param([tool("t", {"k": 1}, output=f"{p}%") for p in range(0, 60, 10)], [], id="percent-keeps-moving"),
    pytest.param([tool("t", {"k": 1}, output=o) for o in ("queued", "running", "done")] * 1, [],
                 id="status-word-moves"),
    pytest.param([tool("t", {"k": 1}, output=f"[File: a.py ({n} lines total)]\n1:x = 1\n2:x = 1")
                  for n in (2, 3, 4, 5, 6)], [("repeated_call", "severe", 5)], id="only-a-size-changes"),
    pytest.param([tool("t", {"k": 1}, output=f"orders {n}-{n + 9}") for n in range(0, 60, 10)], [],
                 id="one-line-result-keeps-its-numbers"),
    pytest.param([tool("t", {"k": 1}, output=o) for o in ("a", "b", "a", "b", "a", "b")],
                 [("repeated_call", "severe", 5)], id="flip-flop-results-nothing-new-after-two"),
    pytest.param([tool("t", {"k": i}, output="r") for i in range(6)], [], id="different-args"),
    pytest.param([x for i in range(4) for x in (tool("t", {"k": 1}, output="FAIL"),
                                                tool("edit", {"n": i}, output=""))], [],
                 id="re-run-after-a-different-edit"),
    pytest.param(same("a", n=2) + same(n=3), [("repeated_call", "mild", 3)],
                 id="a-call-made-twice-then-another-three-times-is-the-later-ones-loop"),
    pytest.param([tool("status", {"k": 1}, output=o) for o in ("running", "running", "running", "done")]
                 + same(n=3), [("repeated_call", "mild", 3)], id="a-poll-that-stopped-then-a-call-three-times"),
])
def test_repeated_call(children, expected):
    assert run(detect_repeated_calls, *children) == expected


def test_repeated_call_window():
    spaced = [tool("other", {"i": 0}, output="x")]
    for _ in range(4):  # 4 identical calls, each after 20 calls that bring nothing new
        spaced += same() + [tool("other", {"i": 0}, output="x")] * 20
    def of_t(settings):
        trace = read_deepeval_trace(agent(*spaced))
        return [(f.severity, f.count) for f in detect_repeated_calls(trace, settings) if f.tools == ("t",)]
    assert of_t(DEFAULT) == []  # 21 calls apart: never within a window of 20
    assert of_t(LoopSettings(window=None)) == [("mild", 4)]
    assert of_t(LoopSettings(window=21)) == [("mild", 4)]


def looked_up(i: int) -> dict:
    return tool("list_dir", {"path": f"d{i}"}, output=[f"f{i}.txt"])


def silent_edit(i: int) -> dict:
    return tool("edit", {"line": i}, output="")


ERR = {"output": None, "error": "FileNotFoundError: [Errno 2] No such file: 'x'"}


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param(same(n=2), [], id="2-same-is-not-a-loop"),
    pytest.param(same(n=3), [("repeated_result", "severe", 3)], id="3-same-severe"),
    pytest.param(same(n=4), [("repeated_result", "severe", 4)], id="4-same-severe"),
    pytest.param(same(n=2, output=None, error="Boom"), [], id="2-errors"),
    pytest.param(same(n=3, output=None, error="Boom"), [("repeated_error", "severe", 3)], id="3-errors-severe"),
    pytest.param([tool("t", {"k": 1}, error=f"Error at line {n}") for n in (1, 2, 3)],
                 [("repeated_error", "severe", 3)], id="errors-differing-in-numbers"),
    pytest.param([tool("t", {"k": 1}, error=e) for e in ("Error: a", "Error: b", "Error: c")], [],
                 id="different-errors-are-different-outcomes"),
    pytest.param(same(n=2) + [tool("t", {"k": 1}, output="new")] + same(n=2), [], id="broken-by-a-new-result"),
    pytest.param([x for i in range(3) for x in (*same(), looked_up(i))], [], id="same-result-re-checked-after-news"),
    pytest.param([x for i in range(3) for x in (tool("t", {"k": 1}, **ERR), looked_up(i))],
                 [("repeated_error", "severe", 3)], id="same-error-despite-a-lookup-between"),
    pytest.param([x for i in range(3) for x in (tool("t", {"k": 1}, **ERR), silent_edit(i))], [],
                 id="same-error-after-a-silent-edit-each-time"),
])
def test_repeated_result(children, expected):
    assert run(detect_repeated_results, *children) == expected


@pytest.mark.parametrize(("settings", "n", "expected"), [
    # errors at their own rungs (threshold - 1 and threshold: mild at 4, severe at 5), not the results' 2 and 3
    pytest.param(LoopSettings(repeated_error_threshold=5), 3, [], id="three-errors-below-an-error-threshold-of-5"),
    pytest.param(LoopSettings(repeated_error_threshold=5), 4, [("repeated_error", "mild", 4)],
                 id="four-errors-mild-at-an-error-threshold-of-5"),
    pytest.param(LoopSettings(repeated_result_threshold=5), 3, [("repeated_error", "severe", 3)],
                 id="twin-the-result-threshold-leaves-errors-at-3"),
])
def test_repeated_errors_are_judged_at_their_own_threshold(settings, n, expected):
    assert run(detect_repeated_results, *same(n=n, output=None, error="Boom"), settings=settings) == expected


def test_repeated_result_off():
    assert run(detect_repeated_results, *same(n=9), settings=LoopSettings(repeated_result_threshold=None)) == []


@pytest.mark.parametrize(("first", "second", "alike"), [
    pytest.param({"output": "r"}, {"output": "r"}, True, id="twin-the-same-result-rests-on-the-same-fingerprints"),
    pytest.param({"output": "r"}, {"output": "s"}, False, id="another-result-rests-on-another-fingerprint"),
    pytest.param({"error": "Boom"}, {"error": "Disk full"}, False, id="another-error-rests-on-another-fingerprint"),
])
def test_a_repeated_outcome_rests_on_the_calls_and_the_outcomes_fingerprints(first, second, alike):
    """A `repeated_result` / `repeated_error` finding names what it rests on: the call's fingerprint
    and the fingerprint of the result (or error) it kept getting, so two such loops of the same call
    are told apart by what came back."""
    def rests_on(outcome: dict) -> tuple[str, ...]:
        trace = read_deepeval_trace(agent(*[tool("t", {"k": 1}, **outcome)] * 3))
        (finding,) = detect_repeated_results(trace, DEFAULT)
        call = trace.tool_calls[0]
        assert finding.fingerprints == (call.call, call.outcome)
        return finding.fingerprints
    assert (rests_on(first) == rests_on(second)) is alike


def polled(*statuses):
    """A status poll and a sleep, in turns: the poll's results `statuses`, the sleep's empty."""
    return [x for status in statuses for x in (tool("job_status", {"job": 7}, output=status),
                                                tool("sleep", {"seconds": 5}, output=""))][:-1]


def ab(n, period=2):
    names = "abcd"[:period]
    return [tool(name, {"x": name}, output=name.upper()) for _ in range(n) for name in names]


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param(ab(2), [("alternating_calls", "mild", 2)], id="A-B-x2-mild"),
    pytest.param(ab(3)[:-1], [("alternating_calls", "severe", 3)], id="A-B-A-B-A-third-A-is-severe"),
    pytest.param(ab(2)[:-1], [], id="A-B-A-is-not-yet-a-cycle"),
    pytest.param(ab(3, period=5), [("alternating_calls", "severe", 3)], id="cycle-of-5"),
    pytest.param([x for i in range(3) for x in (
        tool("python3", {"cmd": "python3 -c 'print(1' " + " " * i}, error=f"line {i}: SyntaxError: invalid syntax"),
        tool("ls", {"cmd": "ls"}, output="run.py\nnotes.txt"))],
        [("drifting_cycle", "severe", 3)], id="drift-same-script-respaced-same-failure"),
    pytest.param([x for i in range(3) for x in (
        tool("bash", {"cmd": "echo 'print(1' " + " " * i + "> run.py"}, output=""),
        tool("python3", {"cmd": "python3 run.py"}, error=f"File run.py, line 1\n  print(1{' ' * i}\nSyntaxError"))],
        [("drifting_cycle", "severe", 3)], id="drift-the-same-silent-write-respaced-then-the-same-failure"),
    pytest.param([x for i in range(3) for x in (
        tool("bash", {"cmd": f"echo 'print({i}' > run.py"}, output=""),
        tool("python3", {"cmd": "python3 run.py"}, error=f"File run.py, line 1\n  print({i}\nSyntaxError"))],
        [], id="twin-different-silent-writes-then-the-same-failure"),
    pytest.param([x for tool_name in ("exiftool", "zsteg", "steghide") for x in (
        tool("file", {"cmd": "file a.png"}, output="a.png: PNG image data"),
        tool(tool_name, {"cmd": f"{tool_name} a.png"}, error=f"bash: {tool_name}: command not found"))],
        [("drifting_cycle", "severe", 3)], id="drift-a-different-missing-tool-each-round"),
    pytest.param([x for i in range(3) for x in (
        tool("list_orders", {"page": i}, output=f"orders {10 * i}-{10 * i + 9}"),
        tool("summarize", {"page": i}, output=f"summary of page {i}"))], [],
        id="twin-pagination-is-not-a-drift"),
    pytest.param([x for i in range(3) for x in (
        tool("edit", {"line": 5, "text": f"x = {i}"}, output=f"edited, x = {i}"),
        tool("run_tests", {}, output="1 failed"))], [],
        id="twin-different-edits-then-the-same-test"),
    pytest.param(ab(3), [("alternating_calls", "severe", 3)], id="A-B-x3-severe"),
    pytest.param(ab(3, period=3), [("alternating_calls", "severe", 3)], id="A-B-C-x3"),
    pytest.param(ab(3, period=4), [("alternating_calls", "severe", 3)], id="A-B-C-D-x3"),
    pytest.param(same(n=6), [], id="A-A-A-is-not-a-cycle"),
    pytest.param(polled("running", "running", "running", "done"), [],
                 id="a-poll-and-a-sleep-in-turns-until-the-status-changes-is-waiting"),
    pytest.param(polled("running", "running", "running", "running"), [("alternating_calls", "severe", 4)],
                 id="twin-a-poll-and-a-sleep-in-turns-and-the-status-never-changes"),
    pytest.param([tool("a", {"x": i}, output="A") if i % 2 == 0 else tool("b", {}, output="B") for i in range(6)], [],
                 id="changing-args-no-cycle"),
])
def test_call_cycles(children, expected):
    assert run(detect_call_cycles, *children) == expected


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param(ab(2)[:-1], [("alternating_calls", "severe", 2)], id="A-B-A-the-second-A-is-severe"),
    pytest.param(ab(2), [("alternating_calls", "severe", 2)], id="A-B-A-B"),
    pytest.param(ab(1), [], id="twin-A-B-once-is-no-cycle"),
    pytest.param(ab(1) + [tool("c", {"x": "c"}, output="C"), tool("a", {"x": "a"}, output="A")], [],
                 id="twin-A-B-C-A-is-no-cycle-of-two"),
])
def test_call_cycles_at_threshold_two(children, expected):
    assert run(detect_call_cycles, *children, settings=LoopSettings(alternating_calls_threshold=2)) == expected


@pytest.mark.parametrize(("texts", "expected"), [
    pytest.param(["Same."] * 2, [("repeated_text", "mild", 2)], id="2-mild"),
    pytest.param(["Same."] * 3, [("repeated_text", "severe", 3)], id="3-severe"),
    pytest.param(["Same.", "SAME.  "], [("repeated_text", "mild", 2)], id="case-and-space"),
    pytest.param(["A one.", "B two.", "A one.", "B two."], [("repeated_text", "severe", 3)], id="A-B-A-B-text"),
    pytest.param(["Step 1 done.", "Step 2 done.", "Step 3 done."], [], id="short-near-duplicates-are-not"),
])
def test_repeated_text(texts, expected):
    assert run(detect_repeated_text, *[llm(t) for t in texts]) == expected


LONG = ("the migration script failed again because the orders table still has the legacy column "
        "customer_ref which blocks the foreign key constraint on invoices {n}")


def test_stagnation_near_duplicates_and_reset_by_new_result():
    texts = [llm(LONG.format(n=n)) for n in ("alpha", "beta", "gamma")]
    assert run(detect_reasoning_stagnation, *texts) == [("reasoning_stagnation", "severe", 3)]
    interleaved = [texts[0], tool("q", {"i": 1}, output="x"), texts[1], tool("q", {"i": 2}, output="y"), texts[2]]
    assert run(detect_reasoning_stagnation, *interleaved) == []


@pytest.mark.parametrize(("texts", "detector", "similar"), [
    pytest.param(["Same."] * 3, detect_repeated_text, False, id="an-exact-repeat-carries-no-similarity"),
    pytest.param([LONG.format(n=n) for n in ("alpha", "beta", "gamma")], detect_reasoning_stagnation, True,
                 id="twin-near-duplicates-carry-their-similarity"),
])
def test_only_a_near_duplicate_finding_carries_a_similarity(texts, detector, similar):
    """`similarity` is how alike near-duplicate outputs were (at least the threshold, under 1); an
    exact repeat has none to give (None, not 1.0)."""
    (finding,) = detector(read_deepeval_trace(agent(*[llm(t) for t in texts])), DEFAULT)
    if similar:
        assert DEFAULT.similarity_threshold <= finding.similarity < 1
    else:
        assert finding.similarity is None


def test_stagnation_threshold():
    texts = [llm(LONG.format(n=n)) for n in ("alpha", "beta")]
    assert run(detect_reasoning_stagnation, *texts, settings=LoopSettings(similarity_threshold=1.0)) == []


def test_call_graph_cycle_and_legitimate_recursion():
    cyc = agent(tool("delegate", {"t": 1}, children=[agent(name="p", input={"t": 1})]), name="p", input={"t": 1})
    assert run(detect_call_graph_cycles, root=cyc) == [("call_graph_cycle", "severe", 2)]
    rec = agent(agent(agent(name="p", input={"n": 1}), name="p", input={"n": 2}), name="p", input={"n": 3})
    assert run(detect_call_graph_cycles, root=rec) == []
    siblings = agent(span("agent", "p", input={"t": 1}), span("agent", "p", input={"t": 1}), name="root")
    assert run(detect_call_graph_cycles, root=siblings) == []


def test_tool_detectors_respect_check_flag():
    from loopmetric.detectors import run_detectors

    trace = read_deepeval_trace(agent(*same(n=9)))
    assert {f.signal for f in run_detectors(trace, LoopSettings())} == {"tool_repetition"}
    assert run_detectors(trace, LoopSettings(check_tool_repetition=False)) == []


FAILED_LOOKUP = "No matches found for \"{q}\" in /repo/src"


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param([tool("find_file", {"q": q}, output=FAILED_LOOKUP.format(q=q)) for q in ("Foo", "FooImpl", "Foos")],
                 [("similar_attempts", "severe", 3)], id="reworded-lookups-all-failing-the-same-way"),
    pytest.param([tool("get_plan", {"id": f"P{n}"}, error=f"Error: Plan with ID P{n} not found") for n in range(6, 10)],
                 [("similar_attempts", "severe", 4)], id="guessed-ids-all-not-found"),
    pytest.param([x for n in range(3) for x in (
        tool("update", {"seat": f"{n}A", "flight": "HAT030"}, error="Error: flight HAT030 not available"),
        tool("search", {"date": f"05-1{n}"}, output=f"[flight {n}]"))],
        [("similar_attempts", "severe", 3)], id="one-argument-changed-same-error-despite-lookups"),
    pytest.param([tool("browse", {"ask": f"please open the page, attempt {n}"},
                       output="I clicked 'Docs'. Here is a screenshot of [Home](https://x.test/). The viewport "
                              "shows 20% of the webpage.") for n in range(3)],
                 [("similar_attempts", "severe", 3)], id="reworded-instruction-same-page-back"),
    pytest.param([tool("find_file", {"q": q}, output=FAILED_LOOKUP.format(q=q)) for q in ("Foo", "Bar")], [],
                 id="twin-two-failures-is-not-yet"),
    pytest.param([tool("find_file", {"q": q}, output=FAILED_LOOKUP.format(q=q)) for q in ("Foo", "Bar")]
                 + [tool("find_file", {"q": "Baz"}, output="Found 1 match: /repo/src/Baz.java")], [],
                 id="twin-refined-until-it-succeeds"),
    pytest.param([tool("open_drawer", {"n": n}, output=f"You open the drawer {n}. In it, you see nothing.")
                  for n in range(1, 5)], [], id="twin-the-same-action-on-different-objects"),
    pytest.param([tool("write", {"path": f"f{n}.txt"}, output="File written successfully.") for n in range(4)], [],
                 id="twin-short-acknowledgements-are-not-the-same-attempt"),
    pytest.param([x for n in range(3) for x in (
        tool("update", {"seat": f"{n}A"}, error="Error: seat not available"),
        tool("edit_config", {"n": n}, output="saved"))], [],
        id="twin-same-error-after-a-change-each-time"),
])
def test_similar_attempts(children, expected):
    assert run(detect_similar_attempts, *children) == expected


def chat(*turns: str) -> dict:
    """Alternating user input / agent reply, as a chat log with no tool calls."""
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": text} for i, text in enumerate(turns)]


PRESSING = ["Can you please double-check? I really want the insurance.", "Is there anything else you can do?",
            "Please, there must be another way.", "Are you sure there is nothing else?"]
# Declines of four different requests: no content word in common.
OTHER_REQUESTS = [
    "Sorry, hotel bookings are something this airline desk cannot arrange for customers, only flights themselves.",
    "I'm unable to arrange car rentals at airports; please contact a rental company directly for vehicles.",
    "Pets are not allowed inside the cabin on this particular route, according to the carrier's animal rules.",
    "I can't change the passenger name printed on a ticket; names are fixed when tickets get issued.",
]


ROSSI = REFUSAL.replace("Is there anything", "The booking under Rossi has no refundable insurance. Is there anything")


def then(messages: list, at: int, text: str) -> list:
    """`messages` with a user turn `text` added after message `at` (two turns in a row)."""
    return [*messages[:at + 1], {"role": "user", "content": text}, *messages[at + 1:]]


DRAFT = ("Dear Hiring Manager, I am applying for the Junior Data Analyst role. For the past 14 months I have "
         "written SQL queries every day, kept the Excel reports of the operations team and built dashboards in "
         "Power BI. I would welcome the chance to bring these skills to your team. Yours faithfully.")

@pytest.mark.parametrize(("messages", "expected"), [
    pytest.param(chat("Refund my insurance.", REFUSAL, "Please, an exception?", REFUSAL, "I really need it.", REFUSAL),
                 [("repeated_reply", "severe", 3)], id="the-same-refusal-three-times"),
    pytest.param(chat("Refund my insurance.", REFUSAL, "Please, an exception?",
                      REFUSAL.replace("once purchased", "after it was purchased"), "I really need it.",
                      REFUSAL.replace("I'm sorry, but", "Unfortunately,")),
                 [("repeated_reply", "severe", 3)], id="reworded-refusal"),
    pytest.param(chat("Refund my insurance.", REFUSAL, "Please, an exception?", REFUSAL), [], id="twin-twice-only"),
    pytest.param(chat("Refund my insurance.", REFUSAL, "I would really appreciate some support here.",
                      REFUSAL.replace("Is there anything", "I'm happy to support you with anything else. Is there"),
                      "Please, an exception?", REFUSAL),
                 [("repeated_reply", "severe", 3)], id="refusal-echoing-the-users-plain-words-is-still-a-repeat"),
    pytest.param(chat("Refund my insurance.", REFUSAL, "My booking is ZX91Q.",
                      REFUSAL.replace("Is there anything", "Booking ZX91Q has no refundable insurance. Is there anything"),
                      "Please, an exception?", REFUSAL), [],
                 id="twin-reply-taking-up-an-id-it-was-just-told"),
    # (an export that scrubs ids writes each as "XXXX": still a word nobody had said before that turn)
    pytest.param(chat("Refund my insurance.", REFUSAL, "My booking is XXXX.",
                      REFUSAL.replace("Is there anything", "Booking XXXX has no refundable insurance. Is there anything"),
                      "Please, an exception?", REFUSAL), [],
                 id="twin-reply-taking-up-a-scrubbed-id-it-was-just-told"),
    # a draft revised on request: the new draft takes up a figure the turn just told, nobody had said
    pytest.param(chat("Write my cover letter.", DRAFT, "Make it shorter.", DRAFT.replace(" every day", ""),
                      "Mention that I cut report time by 40% by automating it.",
                      DRAFT.replace("every day", "daily and cut reporting time by 40% by automating it")), [],
                 id="twin-a-draft-revised-to-take-up-a-figure-just-told"),
    pytest.param(chat("Write my cover letter; I cut report time by 40%.", DRAFT, "Make it shorter.",
                      DRAFT.replace(" every day", ""), "Mention the 40% again please.",
                      DRAFT.replace("every day", "daily and cut reporting time by 40% by automating it")),
                 [("repeated_reply", "severe", 3)], id="a-figure-the-task-said-is-taken-up-from-no-one"),
    pytest.param(chat("Write my cover letter.", DRAFT, "By the way, I cut report time by 40%. Make it shorter.",
                      DRAFT.replace(" every day", ""), "Mention the 40% please.",
                      DRAFT.replace("every day", "daily and cut reporting time by 40% by automating it")),
                 [("repeated_reply", "severe", 3)], id="a-figure-a-turn-before-said-is-taken-up-from-no-one"),
    # two turns between the replies: what either said counts, not only the last one's
    pytest.param(then(chat("Refund my insurance.", REFUSAL, "The booking is under Rossi.", ROSSI, "Please, an exception?",
                           REFUSAL), 2, "Thanks, Anna."), [],
                 id="twin-reply-taking-up-a-name-told-a-turn-before-the-last"),
    pytest.param(then(chat("Refund my insurance.", REFUSAL, "The booking is under Rossi.",
                           ROSSI.replace(" under Rossi", ""), "Please, an exception?", REFUSAL), 2, "Thanks, Anna."),
                 [("repeated_reply", "severe", 3)], id="a-name-told-that-no-reply-takes-up-is-still-a-repeat"),
    pytest.param(then(chat("Write my cover letter.", DRAFT, "Make it shorter.", DRAFT.replace(" every day", ""),
                           "Mention that I cut report time by 40% by automating it.",
                           DRAFT.replace("every day", "daily and cut reporting time by 40% by automating it")), 4,
                      "thanks."), [], id="twin-a-draft-taking-up-a-figure-told-a-turn-before-the-last"),
    pytest.param(chat("Book Paris.", "Booked your flight to Paris on Monday at 9am, seat 12A, total 340 dollars.",
                      "Now Rome.", "Booked your flight to Rome on Tuesday at 11am, seat 3C, total 220 dollars.",
                      "And Oslo.", "Booked your flight to Oslo on Friday at 7pm, seat 30F, total 410 dollars."),
                 [], id="twin-templated-replies-about-different-requests"),
    pytest.param(chat("Hi.", "Got it.", "Item two.", "Got it.", "Item three.", "Got it."),
                 [("repeated_reply", "severe", 3)], id="short-replies-count-when-exactly-equal"),
    pytest.param(chat("Add insurance to my reservation.", *[x for pair in zip(RESTATED, PRESSING) for x in pair]),
                 [("repeated_reply", "severe", 4)], id="one-refusal-restated-four-ways-sharing-key-words"),
    pytest.param(chat("Add insurance to my reservation.",
                      *[x for pair in zip(RESTATED[:3], PRESSING) for x in pair]), [],
                 id="twin-restated-three-times-is-not-yet"),
    pytest.param(chat("Add insurance to my reservation.", *[x for pair in zip(
        [RESTATED[0], RESTATED[1], RESTATED[2].replace("unable to", "happy to"), RESTATED[3]], PRESSING) for x in pair]),
        [], id="twin-one-reply-that-does-not-decline-breaks-it"),
    pytest.param(chat("Can you book me a hotel in Rome for the conference?", *[x for pair in zip(OTHER_REQUESTS, [
        "Then can you rent me a car at the airport?", "Can my dog come with me in the cabin?",
        "Can you put my wife's name on the ticket instead?", "Fine, thank you."]) for x in pair]), [],
        id="twin-four-different-requests-each-declined"),
])
def test_repeated_replies(messages, expected):
    from loopmetric import read_chat_messages

    assert [(f.pattern, f.severity, f.count)
            for f in detect_repeated_replies(read_chat_messages(messages), DEFAULT)] == expected


# Two declining replies of 11 content words sharing 2 ("insurance", "cannot"): 2 / (11 + 11 - 2) = 0.10,
# exactly the share from which they are one refusal; the next two are near copies of the second.
AT_THE_SHARE = ["Insurance cannot apply alpha bravo charlie delta echo foxtrot golf hotel.",
                "Insurance cannot india juliet kilo lima mike november oscar papa quebec.",
                "Insurance cannot india juliet kilo lima mike november oscar papa romeo.",
                "Insurance cannot india juliet kilo lima mike november oscar papa sierra."]


def test_a_refusal_link_at_exactly_the_share_counts_and_is_the_one_reported():
    from loopmetric import read_chat_messages

    messages = chat("add insurance.", *[x for pair in zip(AT_THE_SHARE, ["please.", "try again.", "really?",
                                                                          "once more."]) for x in pair])
    [finding] = detect_repeated_replies(read_chat_messages(messages), DEFAULT)
    assert (finding.count, finding.similarity) == (4, 0.1)  # the refusal link's share, not the copies' similarity
    assert finding.message.startswith("The agent gave the same refusal in other words (replies that decline, "
                                      "sharing at least 0.10 of their content words, from 0.10) 4 times in a row")


# 8 bigrams (A) and 7 (B) sharing 5 (alpha-bravo ... echo-foxtrot): Jaccard 5 / (8 + 7 - 5) = 0.5; the Indel
# ratio of their words, 55 and 50 characters, 21 insertions and deletions apart ("golf hotel india" against
# "zulu yankee"): 1 - 21 / 105 = 0.8.
AT_HALF = ["alpha bravo charlie delta echo foxtrot golf hotel india.", "alpha bravo charlie delta echo foxtrot zulu yankee."]


@pytest.mark.parametrize(("cutoff", "count"), [
    pytest.param(0.5, 3, id="a-reply-at-exactly-the-threshold-is-the-same-reply"),
    pytest.param(0.81, 0, id="twin-above-both-the-jaccard-and-the-indel-ratio"),
])
def test_reply_similarity_threshold_is_met_at_equality(cutoff, count):
    from loopmetric import LoopSettings, read_chat_messages

    messages = chat("go on.", AT_HALF[0], "and?", AT_HALF[1], "more.", AT_HALF[0], "again.")
    found = detect_repeated_replies(read_chat_messages(messages), LoopSettings(reply_similarity_threshold=cutoff))
    assert [f.count for f in found] == ([count] if count else [])


FORMAT_ERROR = "Please always provide EXACTLY ONE action in triple backticks."
ACTING = {"role": "system", "content": "Reply with a THOUGHT and exactly one ```bash code block; it runs."}


@pytest.mark.parametrize(("messages", "expected"), [
    pytest.param([ACTING] + chat("Fix the bug.", "I think the bug is in utils.", FORMAT_ERROR, "Let me look at utils.",
                      FORMAT_ERROR, "The bug is clearly in utils.", FORMAT_ERROR),
                 [("rejected_output", "severe", 3)], id="the-same-format-error-three-times"),
    pytest.param([ACTING] + chat("Fix the bug.", "I think the bug is in utils.", FORMAT_ERROR, "Let me look at utils.",
                                 FORMAT_ERROR), [], id="twin-twice-only"),
    pytest.param([ACTING] + chat("Fix the bug.", "Thinking.", "What do you see?", "Still thinking.", "Anything?", "Hm."),
                 [], id="twin-different-inputs-are-a-conversation"),
    pytest.param(chat("Fix the bug.", "I think the bug is in utils.", FORMAT_ERROR, "Let me look at utils.",
                      FORMAT_ERROR, "The bug is clearly in utils.", FORMAT_ERROR),
                 [], id="twin-a-run-that-does-not-act-the-same-words-to-new-replies"),
])
def test_rejected_outputs_in_chat(messages, expected):
    from loopmetric import read_chat_messages

    assert [(f.pattern, f.severity, f.count)
            for f in detect_rejected_outputs(read_chat_messages(messages), DEFAULT)] == expected


def test_rejected_outputs_from_pydantic_ai_retry_prompts():
    from loopmetric import read_pydantic_ai_messages

    def response(text):
        return {"kind": "response", "parts": [{"part_kind": "text", "content": text}]}

    def retry(error):
        return {"kind": "request", "parts": [{"part_kind": "retry-prompt", "content": error}]}

    messages = [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Answer as JSON."}]}]
    for n in range(3):  # each rejection words the validation error a little differently: still rejected
        messages += [response(f"answer {n}"), retry(f"Invalid JSON: expected value at column {n}")]
    trace = read_pydantic_ai_messages(messages)
    assert [(f.pattern, f.count) for f in detect_rejected_outputs(trace, DEFAULT)] == [("rejected_output", 3)]
    assert detect_rejected_outputs(trace, LoopSettings(rejected_output_threshold=4)) == ()


@pytest.mark.parametrize("detector", [detect_similar_attempts, detect_call_cycles])
def test_new_tool_detectors_respect_check_flag(detector):
    from loopmetric.detectors import run_detectors

    children = [tool("find_file", {"q": q}, output=FAILED_LOOKUP.format(q=q)) for q in ("Foo", "FooImpl", "Foos")]
    children += ab(3)
    assert run(detector, *children) != []
    trace = read_deepeval_trace(agent(*children))
    assert run_detectors(trace, LoopSettings(check_tool_repetition=False)) == []


def checks(*names, output=lambda name, i: f"{name}: unchanged"):
    """One read-only check per name, each with its own arguments."""
    return [tool(name, {"target": name}, output=output(name, i)) for i, name in enumerate(names)]


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param(checks("a", "b", "c", "d") + checks("c", "a", "d", "b", "a", "c"),
                 [("revisited_calls", "severe", 6)], id="six-known-checks-in-no-order-severe"),
    pytest.param(checks("a", "b", "c", "d") + checks("c", "a", "d", "b"),
                 [("revisited_calls", "mild", 4)], id="four-known-checks-mild"),
    pytest.param(checks("a", "b", "c", "d") + checks("c", "a"), [], id="twin-two-known-checks"),
    pytest.param(checks("a", "b", "c", "d") + checks("c", "a", "e", "d", "b", "a"), [],
                 id="twin-a-new-call-in-the-middle-resets"),
    pytest.param(checks("a", "b", "c", "d") + checks("c", "a", "d", "b", "a", "c", "d", "b",
                                                     output=lambda name, i: f"{name}: {'moved' if i == 3 else 'unchanged'}"),
                 [("revisited_calls", "mild", 4)], id="twin-a-result-that-moves-resets"),
    pytest.param([x for i in range(6) for x in (tool("edit", {"n": i}, output=""), tool("test", {}, output="1 failed"))],
                 [], id="twin-test-re-run-after-different-edits"),
])
def test_revisited_calls(children, expected):
    assert run(detect_revisited_calls, *children) == expected


def test_revisited_calls_off_and_threshold():
    children = checks("a", "b", "c", "d") + checks("c", "a", "d", "b", "a", "c")
    assert run(detect_revisited_calls, *children, settings=LoopSettings(revisited_calls_threshold=None)) == []
    assert run(detect_revisited_calls, *children,
               settings=LoopSettings(revisited_calls_threshold=8)) == [("revisited_calls", "mild", 6)]


# -- messages: deepeval's sentence for the same finding first, loopmetric's detail after --

# Three words changed at the end: max(Jaccard, Indel ratio) 0.92-0.94, under deepeval's 0.95
# "identical" (one word changed would give 0.97: "Identical reasoning outputs").
NEAR = [LONG.format(n=n) for n in ("alpha beta gamma", "delta epsilon zeta", "theta kappa lambda")]


@pytest.mark.parametrize(("detector", "trace", "opening", "detail"), [
    pytest.param(detect_repeated_calls, [tool("t", {"k": 1}) for _ in range(5)],
                 "Tool 't' called 5 times with identical arguments.", "No call recorded a result (steps 1-5).",
                 id="repeated-call-no-results"),
    pytest.param(detect_repeated_calls, same(n=5), "Tool 't' called 5 times with identical arguments.",
                 "Each call returned the same result (steps 1-5).", id="repeated-call-same-result"),
    # one result, then four calls without one: not "no call recorded a result", nor "the same result"
    pytest.param(detect_repeated_calls, [tool("t", {"k": 1}, output="r")] + [tool("t", {"k": 1}) for _ in range(4)],
                 "Tool 't' called 5 times with identical arguments.",
                 "Their results brought no new information (steps 1-5).", id="repeated-call-one-result-then-none"),
    pytest.param(detect_repeated_results, same(n=4), "Tool 't' called 4 times with identical arguments.",
                 "Each call returned the same result (steps 1-4).", id="repeated-result"),
    pytest.param(detect_repeated_results, same(n=3, output=None, error="Boom"),
                 "Tool 't' called 3 times with identical arguments.", "Each call failed with the same error",
                 id="repeated-error"),
    pytest.param(detect_repeated_text, [llm("Same.")] * 3, "Identical reasoning outputs at steps 1, 2 and 3.",
                 "The same LLM output appeared 3 times", id="repeated-text"),
    # up to six steps are named one by one; past six, the first four and the last
    pytest.param(detect_repeated_text, [llm("Same.")] * 6, "Identical reasoning outputs at steps 1, 2, 3, 4, 5 and 6.",
                 "The same LLM output appeared 6 times", id="repeated-text-six-steps-each-named"),
    pytest.param(detect_repeated_text, [llm("Same.")] * 7, "Identical reasoning outputs at steps 1, 2, 3, 4, ... and 7.",
                 "The same LLM output appeared 7 times", id="repeated-text-seven-steps-the-first-four-and-the-last"),
    pytest.param(detect_reasoning_stagnation, [llm(t) for t in NEAR], "High reasoning overlap (0.",
                 ") at steps 1, 2 and 3. The 3 LLM outputs were near-duplicates (threshold 0.85)",
                 id="near-duplicates"),
    pytest.param(detect_reasoning_stagnation, [llm(" ".join(f"word{i}" for i in range(60)) + f" {w}")
                                               for w in ("alpha", "beta", "gamma")],
                 "Identical reasoning outputs at steps 1, 2 and 3.", "near-duplicates (lowest similarity 0.9",
                 id="near-duplicates-above-0.95-are-identical-to-deepeval"),
    pytest.param(detect_call_graph_cycles,
                 agent(tool("delegate", {"t": 1}, children=[agent(name="p", input={"t": 1})]),
                       name="p", input={"t": 1}),
                 "Cycle detected in execution path: agent:p -> tool:delegate -> agent:p.",
                 "Agent span 'p' re-entered itself with identical input (2 levels", id="call-graph-cycle"),
])
def test_message_opens_with_deepevals_sentence(detector, trace, opening, detail):
    """`trace`: a whole trace, or the children of one agent span."""
    (finding,) = detector(read_deepeval_trace(trace if isinstance(trace, dict) else agent(*trace)), DEFAULT)
    assert finding.message.startswith(opening)
    assert detail in finding.message[len(opening):]


@pytest.mark.parametrize(("trace", "steps", "detail"), [
    pytest.param(agent(agent(name="p", input={"t": 1}), name="p", input={"t": 1}), (), "(2 levels).",
                 id="an-agent-calling-itself-with-no-step-on-the-path-names-no-steps"),
    pytest.param(agent(agent(agent(llm("x"), name="p", input={"t": 1}), name="p", input={"t": 1}),
                       name="p", input={"t": 1}), (), "(3 levels).",
                 id="a-step-below-the-deepest-re-entry-is-not-on-the-path"),
    pytest.param(agent(tool("delegate", {"t": 1}, children=[agent(name="p", input={"t": 1})]), name="p",
                       input={"t": 1}), (1,), "(2 levels, step 1).",
                 id="twin-a-tool-step-on-the-path-is-named"),
])
def test_a_call_graph_cycle_through_agent_spans_alone_ends_with_its_levels(trace, steps, detail):
    (finding,) = detect_call_graph_cycles(read_deepeval_trace(trace), DEFAULT)
    assert finding.steps == steps
    assert finding.message.endswith(f"re-entered itself with identical input {detail}")


SEARCH = "Let me search for the weather in Paris."


@pytest.mark.parametrize(("children", "count", "steps", "detail"), [
    pytest.param([llm(SEARCH), tool("search", {"q": "Paris"}, output="Sunny")] * 6, 6, (3, 5, 7, 9, 11),
                 "The same LLM output appeared 6 times in a row, the last 5 with no new tool result between.",
                 id="first-copy-before-the-first-result"),
    pytest.param([llm("Plan: search first."), tool("search", {"q": "Paris"}, output="Sunny")]
                 + [llm(SEARCH), tool("search", {"q": "Paris"}, output="Sunny")] * 3, 3, (3, 5, 7),
                 "The same LLM output appeared 3 times with no new tool result between.",
                 id="twin-another-text-before-the-new-result"),
    pytest.param([llm(SEARCH)] * 3, 3, (1, 2, 3), "The same LLM output appeared 3 times with no new tool result",
                 id="twin-every-copy-in-the-episode"),
])
def test_a_repeated_texts_count_includes_its_first_copy(children, count, steps, detail):
    """`appeared N times` counts every copy in a row, the first too, even when it came before the
    first (new) result; the steps stay those the verdict read as repeats."""
    (finding,) = detect_repeated_text(read_deepeval_trace(agent(*children)), DEFAULT)
    assert (finding.count, finding.steps) == (count, steps)
    assert finding.message.endswith(detail) if detail.endswith(".") else detail in finding.message


# -- what a cycle's finding names: the tools of one round and the steps of the cycle alone ----------

def _missing_tools() -> list[dict]:
    """A different missing tool each round, the file looked at again before each."""
    return [x for tool_name in ("exiftool", "zsteg", "steghide") for x in (
        tool("file", {"cmd": "file a.png"}, output="a.png: PNG image data"),
        tool(tool_name, {"cmd": f"{tool_name} a.png"}, error=f"bash: {tool_name}: command not found"))]


def _written_then_run(space: str = " ", second_round_result: str = "") -> list[dict]:
    """A script rewritten silently and run three times, failing the same way, its text respaced by
    `space` each round; the second write's result is `second_round_result` (news when it says something)."""
    results = ["", second_round_result, ""]
    return [x for i in range(3) for x in (
        tool("bash", {"cmd": "echo 'print(1'" + space * i + " > run.py"}, output=results[i]),
        tool("python3", {"cmd": "python3 run.py"}, error=f"File run.py, line 1\n  print(1{' ' * i}\nSyntaxError"))]


_NEWS = "Wrote run.py: 1 line, encoding utf-8, permissions rw-r--r--, owner dev, group dev"


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param(ab(3), [("alternating_calls", ("a", "b"), (1, 2, 3, 4, 5, 6))], id="a-cycle-from-the-first-call"),
    pytest.param([tool("setup", {"x": 1}, output="ready to go"), tool("fetch", {"y": 2}, output="page one")] + ab(3),
                 [("alternating_calls", ("a", "b"), (3, 4, 5, 6, 7, 8))], id="a-cycle-after-other-calls-starts-there"),
    pytest.param(_written_then_run(" "), [("drifting_cycle", ("bash", "python3"), (1, 2, 3, 4, 5, 6))],
                 id="twin-a-script-respaced-with-spaces-drifts"),
    pytest.param(_written_then_run("\t"), [("drifting_cycle", ("bash", "python3"), (1, 2, 3, 4, 5, 6))],
                 id="a-script-respaced-with-tabs-drifts-too"),
    pytest.param(_missing_tools(), [("drifting_cycle", ("file", "exiftool"), (1, 2, 3, 4, 5, 6))],
                 id="twin-missing-tools-alone-drift"),
    pytest.param(_written_then_run(" ", _NEWS) + _missing_tools(),
                 [("drifting_cycle", ("file", "exiftool"), (7, 8, 9, 10, 11, 12))],
                 id="a-drift-after-a-cycle-that-brought-news-is-still-found"),
])
def test_a_cycles_finding_names_the_tools_of_a_round_and_the_steps_of_the_cycle(children, expected):
    trace = read_deepeval_trace(agent(*children))
    assert [(f.pattern, f.tools, f.steps) for f in detect_call_cycles(trace, DEFAULT)] == expected


@pytest.mark.parametrize(("window", "expected"), [
    pytest.param(7, [("repeated_error", "severe", 3)], id="the-same-error-exactly-a-window-apart-repeats"),
    pytest.param(6, [], id="twin-a-call-further-than-the-window-apart-does-not"),
    pytest.param(None, [("repeated_error", "severe", 3)], id="twin-no-window"),
])
def test_the_same_error_within_the_window_repeats_up_to_its_edge(window, expected):
    # The failing call every seventh call, six lookups between: 7 calls apart.
    children = [x for i in range(3) for x in (tool("t", {"k": 1}, **ERR), *(looked_up(6 * i + k) for k in range(6)))]
    assert run(detect_repeated_results, *children, settings=LoopSettings(window=window)) == expected
