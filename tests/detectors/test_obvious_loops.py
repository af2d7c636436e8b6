"""The obvious loop: the same call with the same canonical arguments returning the same
result once volatile tokens (ids, tokens, clocks, counters) are masked, whatever came
between; and the healthy twins that look alike but make progress."""

from __future__ import annotations

import pytest

from loopmetric import LoopSettings, detect_loops, read_deepeval_trace
from loopmetric._canonical import mask_result
from loopmetric.detectors import run_detectors
from loopmetric.detectors._news import Progress, is_note
from loopmetric.detectors import detect_identical_repeats
from tests._traces import agent, llm, tool

HEX = ["8f3a2c91", "91bb07de", "0c4e7a1f", "b2d9e613", "77aa01c4", "3e5f9b20"]
UUIDS = ["0b9e4c52-7a1f-4e3b-9d2a-1c6f8e0a7b31", "5d2f7e90-3c4b-41a8-b7e6-9f0d2c1a8e45",
         "a7c3e1f0-2b4d-4f6a-8e9c-0d1b3a5c7e92", "e4b6d8f0-1a3c-4e5f-9b7d-2c0a8e6f4b13",
         "19f7e5d3-b1a9-47c5-a3e1-f9d7b5c3a1e8"]


def repeated(name: str, args: dict, outputs: list, between=lambda n: (), **kw) -> dict:
    """One call made with `args` once per output, with `between(n)` spans after the n-th."""
    children = []
    for n, output in enumerate(outputs):
        children.append(tool(name, args, output=output, **kw) if not isinstance(output, dict) or "error" not in output
                        else tool(name, args, error=output["error"]))
        children.extend(between(n))
    return agent(*children)


def lookups(n: int) -> tuple:
    """Two other lookups, different every time: interleaving that brings other facts."""
    return (tool("get_user", {"user": f"u{n}"}, output=f'{{"user": "u{n}", "city": "C{n}"}}'),
            tool("search_docs", {"q": f"policy {n}"}, output=f"Policy {n}: refunds within {n + 10} days."))


def poll_and_sleep(statuses: list, sleep_output: str = "") -> dict:
    """A status poll with a sleep after each poll (the same sleep every time)."""
    return agent(*[x for status in statuses for x in (
        tool("build_status", {"id": 42}, output=f"Build 42\nstatus: {status}"),
        tool("bash", {"command": "sleep 30"}, output=sleep_output))])


LOOPS = [
    pytest.param(repeated("get_record", {"id": "R7"}, [f"No record found (request id: {h})" for h in HEX[:5]]),
                 id="request-id"),
    pytest.param(repeated("get_record", {"id": "R7"},
                          [f"No record found (trace token: Zx{n}1kQpa{n})" for n in range(5)]), id="trace-token"),
    pytest.param(repeated("get_record", {"id": "R7"},
                          [f"No record found. Request ID: {h}; trace_id={h}" for h in HEX[:5]]),
                 id="request-id-and-trace-id-together"),
    pytest.param(repeated("lookup", {"q": "x"}, [f"Not available (ref {u})" for u in UUIDS]), id="uuid"),
    pytest.param(repeated("lookup", {"q": "x"}, [f"Queue empty at 2026-12-01T21:0{n}:13Z" for n in range(5)]),
                 id="iso-timestamp"),
    pytest.param(repeated("lookup", {"q": "x"}, [f"Queue empty (checked 12:0{n}:44)" for n in range(5)]),
                 id="time-of-day"),
    pytest.param(repeated("lookup", {"q": "x"}, [f"Queue empty, server time {1764623222 + 7 * n}" for n in range(5)]),
                 id="epoch-seconds"),
    pytest.param(repeated("lookup", {"q": "x"}, [f"Queue empty (took {120 + 13 * n}ms)" for n in range(5)]),
                 id="elapsed-milliseconds"),
    pytest.param(repeated("lookup", {"q": "x"}, [f"Still nothing. Elapsed: {4.2 + n} seconds" for n in range(5)]),
                 id="elapsed-seconds"),
    pytest.param(repeated("ship", {"order": "O1"}, [f"attempt {n} failed: carrier rejected the label" for n in
                                                    range(1, 5)]), id="attempt-counter-in-result"),
    pytest.param(repeated("ship", {"order": "O1"}, [{"error": f"attempt {n} failed: carrier rejected the label"}
                                                    for n in range(1, 5)]), id="attempt-counter-in-error"),
    pytest.param(repeated("ship", {"order": "O1"}, [f"Carrier rejected the label (retry {n}/5)" for n in range(1, 5)]),
                 id="retry-n-of-m"),
    pytest.param(repeated("ship", {"order": "O1"}, [f"{o} attempt: carrier rejected the label"
                                                    for o in ("1st", "2nd", "3rd", "4th")]), id="ordinal-attempt"),
    pytest.param(repeated("get_record", {"id": "R7"},
                          [f'{{"status": "not_found", "request_id": "{h}", "timestamp": {1764623222 + n}}}'
                           for n, h in enumerate(HEX[:5])]), id="json-request-id-and-timestamp-keys"),
    pytest.param(repeated("http_get", {"url": "https://api.test/r/7"},
                          [f"404 Not Found\nx-request-id: {h}\ndate: Tue, 01 Dec 2026 21:0{n}:02 GMT"
                           for n, h in enumerate(HEX[:5])]), id="http-headers-request-id-and-date"),
    pytest.param(repeated("get_record", {"id": "R7"}, [f"No record found (session {h})" for h in HEX[:5]]),
                 id="short-hex-id"),
    pytest.param(repeated("get_record", {"id": "R7"}, [f"No record found (request id: {h})" for h in HEX[:5]],
                          between=lookups), id="interleaved-two-different-lookups-each-time"),
    pytest.param(repeated("get_record", {"id": "R7"}, ['{"id": "R7", "name": "Ada", "plan": "basic"}'] * 5,
                          between=lookups), id="same-record-fetched-with-two-calls-between"),
    pytest.param(repeated("get_record", {"id": "R7"}, ['{"id": "R7", "name": "Ada", "plan": "basic"}'] * 5,
                          between=lambda n: (tool("list_plans", {}, output='["basic", "pro"]'),
                                             tool("get_price", {"plan": "pro"}, output="20 USD"))),
                 id="interleaved-the-same-two-calls"),
    pytest.param(repeated("get_record", {"id": "R7"}, [f"No record found (request id: {h})" for h in HEX[:5]],
                          between=lambda n: (llm(f"Thought {n}: maybe the record exists under another name."),)),
                 id="interleaved-llm-thoughts"),
    pytest.param(repeated("book", {"flight": "HAT030", "paid": 1625},
                          [{"error": "Error: payment amount does not add up, total price is 4875, but paid 1625"}] * 3,
                          between=lambda n: (tool("think", {"thought": f"The total seems off, attempt {n}: I should "
                                                                       "recompute the price and try booking again."},
                                                  output=""),)),
                 id="identical-failures-with-notes-to-self-between"),
    pytest.param(repeated("get_job_status", {"job": "42"}, [f"status: running (elapsed {30 * n}s)"
                                                            for n in range(1, 6)]),
                 id="poll-same-status-elapsed-growing-never-changes"),
    pytest.param(poll_and_sleep([f"running\nelapsed: {30 * n}s" for n in range(1, 7)]),
                 id="poll-and-sleep-stuck-on-the-same-status"),
    pytest.param(agent(tool("get_record", {"id": "R7"}, output="No record found (request id: 8f3a2c91)"),
                       tool("get_record", "{\"id\": \"R7\"}", output="No record found (request id: 91bb07de)"),
                       tool("get_record", {"id": "R7"}, output="No record found (request id: 0c4e7a1f)")),
                 id="arguments-as-dict-and-json-string"),
    pytest.param(repeated("get_job_status", {"job": "42"}, ["Connection failed: could not reach the job server"] * 3
                          + ["status: done"]),
                 id="a-failure-told-in-words-retried-until-the-status-changes-is-no-wait"),
]


HEALTHY = [
    pytest.param(poll_and_sleep(["queued", "running", "building", "testing", "done"]),
                 id="poll-and-sleep-status-changes-each-time"),
    pytest.param(poll_and_sleep([f"running\nelapsed: {30 * n}s" for n in range(1, 6)] + ["done\nelapsed: 200s"],
                                sleep_output="slept 30s"),
                 id="poll-and-sleep-same-status-until-it-changes"),
    pytest.param(repeated("next_page", {}, [f"items {10 * p}-{10 * p + 9}: " + ", ".join(f"item{10 * p + k}" for k in
                                                                                         range(3))
                                            for p in range(5)]), id="pagination-same-call-new-content"),
    pytest.param(agent(*[tool("list_items", {"page": p}, output=f"No items (request id: {HEX[p]})")
                         for p in range(5)]), id="pagination-different-pages"),
    pytest.param(repeated("get_job_status", {"job": "42"},
                          [f"status: {s} (request id: {h})" for s, h in zip(("queued", "running", "building",
                                                                             "testing", "done"), HEX)]),
                 id="polling-whose-status-changes"),
    pytest.param(repeated("get_job_status", {"job": "42"}, [f"status: running (elapsed {30 * n}s)" for n in
                                                            range(1, 6)] + ["status: done (elapsed 180s)"]),
                 id="poll-same-status-elapsed-growing-stops-when-it-changes"),
    pytest.param(repeated("get_job_status", {"job": "42"},
                          [f"status: running, updated at 2026-12-01T21:0{n}:00Z" for n in range(5)]
                          + ["status: failed, updated at 2026-12-01T21:06:00Z"]),
                 id="poll-same-status-timestamps-stops-when-it-changes"),
    pytest.param(agent(*[x for n in range(4) for x in (
        tool("read_file", {"path": "a.py"}, output=f"def f():\n    return {n}\n"),
        tool("edit_file", {"path": "a.py", "text": f"def f():\n    return {n + 1}\n"}, output=f"Edited a.py: {n}"))]),
        id="re-read-after-each-edit"),
    pytest.param(agent(*[x for n, fix in enumerate(("Airplane mode is now OFF.", "APN settings reset successfully.",
                                                     "Mobile data is now ON.", "Wi-Fi calling turned off."))
                         for x in (tool(f"fix_{n}", {}, output=fix),
                                   tool("run_check", {}, output="Check failed: cannot send the message."))]),
                 id="same-check-failing-after-a-different-fix-each-time"),
    pytest.param(agent(*[x for n in range(4) for x in (
        tool("write_file", {"path": "a.py", "text": f"line {n}\nline {n + 1}"}, output="OK"),
        tool("run_tests", {}, output="FAILED test_a (took 1.2s)"))]),
        id="test-re-run-after-different-silent-edits"),
    pytest.param(agent(*[tool("get_record", {"id": f"R{n}"}, output=f"No record found (request id: {HEX[n]})")
                         for n in range(5)]), id="different-records-looked-up"),
    pytest.param(repeated("get_record", {"id": "R7"}, [f"No record found (request id: {h})" for h in HEX[:2]]),
                 id="twice-is-not-yet"),
    pytest.param(repeated("queue_length", {}, [f"{n} items waiting" for n in (42, 37, 30, 22, 9)]),
                 id="a-number-that-is-the-content"),
    pytest.param(repeated("get_record", {"id": "R7"}, [f"No record found (request id: {h})" for h in HEX[:3]],
                          between=lambda n: [tool("noop", {"n": n * 100 + k}, output=f"n{n}-{k}") for k in range(21)]),
                 id="further-apart-than-the-window"),
    pytest.param(repeated("get_job_status", {"job": "42"}, ["status: still connecting to the job server"] * 3
                          + ["status: done"]),
                 id="twin-a-status-told-in-words-polled-until-it-changes-is-a-wait"),
]


def _obvious(trace) -> list:
    return list(detect_identical_repeats(read_deepeval_trace(trace), LoopSettings()))


@pytest.mark.parametrize("trace", LOOPS)
def test_obvious_loops_fail(trace):
    found = _obvious(trace)
    assert found and found[0].severity == "severe", found
    report = detect_loops(trace)
    assert report.success is False, report.reason
    assert report.score_breakdown["tool_repetition"] == 0.0


@pytest.mark.parametrize("trace", HEALTHY)
def test_healthy_twins_pass(trace):
    assert _obvious(trace) == []
    assert detect_loops(trace).success is True, detect_loops(trace).reason


def notes_to_self(n: int) -> tuple:
    return (tool("think", {"thought": f"The label was rejected, attempt {n}: I should check the address and try "
                                      "shipping again."}, output=""),)


@pytest.mark.parametrize(("trace", "steps"), [
    pytest.param(repeated("ship", {"order": "O1"}, [{"error": "carrier rejected the label"}] * 4), "steps 1-4",
                 id="twin-failures-back-to-back"),
    pytest.param(repeated("ship", {"order": "O1"}, [{"error": "carrier rejected the label"}] * 4,
                          between=notes_to_self), "steps 1-7", id="failures-with-notes-to-self-between"),
    pytest.param(repeated("get_record", {"id": "R7"}, [f"No record found (request id: {h})" for h in HEX[:4]],
                          between=lookups), "steps 1-10", id="results-with-other-lookups-between"),
])
def test_an_identical_repeat_says_the_steps_from_its_first_call_to_its_last(trace, steps):
    """The message of the obvious loop ends with where it is: the steps from the first of the
    identical calls to the last, whatever came between them."""
    (finding,) = _obvious(trace)
    assert finding.message.endswith(f", whatever came between ({steps}).")


@pytest.mark.parametrize(("trace", "said"), [
    pytest.param(repeated("get_record", {"id": "R7"}, [f"No record found (request id: {h})" for h in HEX[:4]]),
                 "Each call returned the same result except for ids, clocks or counters, whatever came between",
                 id="results-differing-only-in-a-request-id-say-so"),
    pytest.param(repeated("get_record", {"id": "R7"}, ["No record found (request id: 8f3a2c91)"] * 4),
                 "Each call returned the same result, whatever came between",
                 id="twin-the-very-same-result-says-no-exception"),
])
def test_a_repeated_result_says_when_it_differed_only_in_what_was_masked(trace, said):
    (finding,) = _obvious(trace)
    assert finding.message == f"Tool 'get_record' called 4 times with identical arguments. {said} (steps 1-4)."


def test_counter_in_failure_is_severe_not_mild():
    trace = repeated("ship", {"order": "O1"}, [f"attempt {n} failed: carrier rejected the label" for n in range(1, 5)])
    report = detect_loops(trace)
    assert [f.severity for f in report.findings if f.pattern in ("repeated_result", "repeated_error")][:1] == ["severe"]


@pytest.mark.parametrize(("text", "masked"), [
    pytest.param("No record found (request id: 8f3a2c)", "No record found (request id: *)", id="request-id"),
    pytest.param("trace token: Zx81kQpa", "trace token: *", id="trace-token"),
    pytest.param("took 340ms", "took #ms", id="elapsed"),
    pytest.param("attempt 3 failed", "attempt # failed", id="attempt"),
    pytest.param("checked 12:03:44", "checked *", id="clock"),
    pytest.param("items 10-19 of 200", "items 10-19 of 200", id="plain-numbers-kept"),
    pytest.param("Order #1234 total 55.20", "Order #1234 total 55.20", id="amounts-kept"),
    pytest.param("log message: hello", "log message: hello", id="words-after-a-key-kept"),
])
def test_mask_result(text, masked):
    assert mask_result(text) == masked


def test_threshold_settings_apply():
    trace = repeated("get_record", {"id": "R7"}, [f"No record found (request id: {h})" for h in HEX[:4]])
    assert detect_identical_repeats(read_deepeval_trace(trace), LoopSettings(repeated_result_threshold=5))[0].severity \
        == "mild"
    off = LoopSettings(check_tool_repetition=False)  # the registry decides what runs
    assert [f for f in run_detectors(read_deepeval_trace(trace), off) if f.signal == "tool_repetition"] == []


@pytest.mark.parametrize(("args", "note"), [
    pytest.param('{"thought": "The total seems off so I should recompute the price and then try booking again."}',
                 True, id="one-line-of-prose"),
    pytest.param('{"command": "sed -i s/a/b/ app.py"}', False, id="a-command"),
    pytest.param('{"path": "a.py", "text": "one two three four five six seven eight nine ten eleven twelve more"}',
                 False, id="two-arguments"),
    pytest.param('{"text": "def f():\\n    return 1 and then many more words to pass the twelve word mark"}', False,
                 id="multi-line-content"),
    pytest.param('{"thought": "too short"}', False, id="a-few-words"),
])
def test_is_note(args, note):
    assert is_note(args) is note


def _hub(items: list, *, listing: str = "Page 1 (Total results: 50) [Next >]") -> list:
    """A results page, an item of it, back to the page ('< Prev'), the next item, ..."""
    shown = listing + " " + " ".join(f"[{item}] Item {item}, a product" for item in dict.fromkeys(items))
    children = [tool("search", {"q": "whitening toothpaste"}, output=shown)]
    for item in items:
        children.append(tool("click", {"target": item}, output=f"[< Prev] Item {item}: price ${len(item) * 7}.0, "
                                                                f"rating N.A. [Buy Now] details of {item}"))
        children.append(tool("click", {"target": "< Prev"}, output=shown))
    return children


# Revisits judged by the walk: back through a known place on the way to a new one.
WALKS = [
    pytest.param(agent(*_hub(["B09S5ZZ4MC", "B09N9M2MFF", "B09N9LBDQF"])), id="back-to-the-list-for-the-next-item"),
    pytest.param(agent(*_hub(["B01", "B02", "B03", "B04", "B05"])), id="comparing-five-items-in-turn"),
]
NOT_WALKS = [
    pytest.param(agent(*_hub(["B09HCDDF1X", "B09HCDDF1X", "B09HCDDF1X"])), id="back-to-the-list-for-the-same-item"),
    pytest.param(agent(*[x for n in range(3) for x in (
        tool("click", {"target": "< Prev"}, output="Page 1 (Total results: 50) [B01] Item B01 [B02] Item B02"),
        tool("get_user", {"user": f"u{n}"}, output=f'{{"user": "u{n}", "city": "C{n}"}}'))]),
        id="back-to-the-list-then-somewhere-it-does-not-show"),
    pytest.param(agent(*[x for n in range(4) for x in (
        tool("open", {"path": "src/$Types.java"}, output="File src/.java not found"),
        tool("ls", {"path": f"src/{n}"}, output=f"$Types.java Other{n}.java Readme{n}.md Build{n}.gradle"))]),
        id="the-same-failure-with-new-listings-between"),
]


@pytest.mark.parametrize("trace", WALKS)
def test_returning_to_a_known_place_on_the_way_to_a_new_one_is_a_walk(trace):
    assert _obvious(trace) == []
    assert detect_loops(trace).success is True, detect_loops(trace).reason


@pytest.mark.parametrize("trace", NOT_WALKS)
def test_returning_without_going_on_to_a_new_place_is_a_loop(trace):
    found = _obvious(trace)
    assert found and found[0].severity == "severe", found


def _saves(output: str) -> dict:
    """The same save (same path, same text) three times, with other lookups between."""
    return agent(*[x for n in range(3) for x in (tool("save_file", {"path": "a.txt", "text": "hello"}, output=output),
                                                 *lookups(n))])


@pytest.mark.parametrize(("trace", "found"), [
    pytest.param(_saves("File saved successfully"), [], id="three-word-acknowledgement-says-nothing"),
    pytest.param(_saves("Saved."), [], id="one-word-acknowledgement-says-nothing"),
    pytest.param(_saves("File saved to disk"), [("repeated_result", "severe", 3)],
                 id="twin-four-words-are-a-result"),
])
def test_an_acknowledgement_of_up_to_three_words_repeated_is_no_repeated_result(trace, found):
    assert [(f.pattern, f.severity, f.count) for f in _obvious(trace)] == found
    assert detect_loops(trace).success is (found == [])


def _failures_with_calls_between(between) -> dict:
    """The same failing lookup three times, a different call `between(n)` after each one."""
    return agent(*[x for n in range(3) for x in (
        tool("get_record", {"id": "R7"}, output=f"No record found (request id: {HEX[n]})"), between(n))])


@pytest.mark.parametrize(("trace", "found"), [
    pytest.param(_failures_with_calls_between(lambda n: tool("set_flag", {"n": n}, error="Permission denied.")),
                 [("repeated_result", "severe", 3)], id="a-new-call-that-fails-short-changes-nothing"),
    pytest.param(_failures_with_calls_between(lambda n: tool("set_flag", {"n": n}, output="Permission denied.")),
                 [("repeated_result", "severe", 3)], id="a-new-call-that-reports-a-failure-changes-nothing"),
    pytest.param(_failures_with_calls_between(lambda n: tool("set_flag", {"n": n}, output="OK")), [],
                 id="twin-a-new-call-that-succeeds-silently-may-have-changed-something"),
])
def test_a_different_call_failing_between_identical_repeats_does_not_reset_them(trace, found):
    assert [(f.pattern, f.severity, f.count) for f in _obvious(trace)] == found


def test_an_identical_repeat_is_named_by_its_call_and_its_masked_result_spacing_folded():
    from loopmetric._fingerprint import fingerprint

    result = "Order   42 is\tpending (request id 8f3a2c91d4)"
    found = detect_identical_repeats(read_deepeval_trace(repeated("get_order", {"id": 42}, [result] * 3)),
                                     LoopSettings())
    masked = " ".join(mask_result(result).split())
    assert [f.fingerprints[1] for f in found] == [fingerprint("masked", "result:" + masked)]


@pytest.mark.parametrize(("outputs", "found"), [
    pytest.param(["Order 42 is pending and waits for payment"] * 3, 1, id="the-same-text"),
    pytest.param(["Order 42 is pending and waits for payment", "Order  42 is pending\tand waits for payment",
                  "Order 42  is pending and waits  for payment"], 1, id="the-same-words-other-spacing"),
    pytest.param(["Order 42 is pending and waits for payment", "Order 42 is pending and waits for a payment",
                  "Order 42 is pending and waits for payment"], 0, id="other-words-between"),
])
def test_results_that_differ_only_in_spacing_are_the_same_result(outputs, found):
    trace = read_deepeval_trace(repeated("get_order", {"id": 42}, outputs))
    assert len(detect_identical_repeats(trace, LoopSettings())) == found


def test_new_states_are_calls_not_made_before_not_failing_with_a_result_no_call_returned():
    from loopmetric.detectors._obvious import new_states

    trace = read_deepeval_trace(agent(
        tool("go", {"to": "hall"}, output="You are in the hall. Doors lead north and east."),
        tool("go", {"to": "hall"}, output="You are in the hall. Doors lead north and east."),  # made before
        tool("look", {}, output="You are in the hall. Doors lead north and east."),  # a result returned before
        tool("go", {"to": "cellar"}, output="Error: the cellar door is locked."),  # failing
        tool("go", {"to": "north"}, output="You are in the library. Shelves line every wall."),  # new
        tool("go", {"to": "north"}, output="You are in the library. A cat sleeps on the shelf."),  # made before
    ))
    calls = trace.tool_calls
    failing = [False, False, False, True, False, False]
    assert new_states(calls, failing) == [True, False, False, False, True, False]
    # The same from the progress model's record of the calls made for the first time.
    first_made = Progress(trace).first_made
    assert first_made == [True, False, True, True, True, False]
    assert new_states(calls, failing, first_made=first_made) == [True, False, False, False, True, False]


_DECRYPT = "python3 -c \"from Crypto.Util.number import long_to_bytes; print(long_to_bytes(pow(c, d, n)))\""


def _decrypt_and_submit(between_output: str) -> dict:
    """The same decryption run again and again, printing the same bytes, with a variant that prints other
    bytes (or, in the twin, a step that reports little: it may have changed something) and the same wrong
    flag submitted between."""
    out = "b'\\x1c\\x01\\xbb\\xcc>s\\xd1y\\xbb\\x89CJ\\xea'"
    return agent(tool("bash", {"command": _DECRYPT}, output=out),
                 tool("bash", {"command": _DECRYPT + "[::-1]"}, output=between_output),
                 tool("submit", {"flag": "picoCTF{guess}"}, output="Submitted flag is incorrect. Keep trying!"),
                 tool("bash", {"command": _DECRYPT}, output=out),
                 tool("submit", {"flag": "picoCTF{guess}"}, output="Submitted flag is incorrect. Keep trying!"),
                 tool("bash", {"command": _DECRYPT}, output=out))


@pytest.mark.parametrize(("between_output", "found"), [
    pytest.param("b'\\xea\\x89CJ\\xbb\\xd1y>s\\xcc\\xbb\\x01\\x1c'", [("repeated_result", (1, 4, 6))],
                 id="other-bytes-printed-between-change-nothing"),
    pytest.param("Done.", [], id="twin-a-step-that-reports-little-may-have-changed-something"),
])
def test_a_command_printing_escaped_bytes_again_and_again(between_output, found):
    assert [(f.pattern, f.steps) for f in _obvious(_decrypt_and_submit(between_output))] == found


_APN = "Current APN Name: internet\nMMSC URL (for picture messages): http://mms.carrier.com/mms/wap"
_BAR = "Status Bar: 5G | Data Enabled | 80%"


def _checks(*between: dict) -> dict:
    """The same read-only check three times with the same answer, `between` before the second and the third."""
    check = tool("check_settings", {}, output=_APN)
    return agent(tool("toggle_calling", {}, output=f"Wi-Fi Calling is now OFF.\n{_BAR}"),
                 check, *between[:1], check, *between[1:], check)


@pytest.mark.parametrize(("trace", "loop"), [
    pytest.param(_checks(tool("check_apps", {}, output="The following apps are installed on the phone: mail, web"),
                         tool("check_bar", {}, output=_BAR)), True,
                 id="checks-describing-a-state-or-a-display-seen-before-change-nothing"),
    pytest.param(agent(tool("write_config", {"text": "a = 1\nb = 2"}, output=f"Config written.\n{_BAR}"),
                       tool("check_settings", {}, output=_APN), tool("check_bar", {}, output=_BAR),
                       tool("check_settings", {}, output=_APN), tool("check_settings", {}, output=_APN)), True,
                 id="a-display-an-earlier-edit-showed-changes-nothing"),
    pytest.param(agent(tool("toggle_calling", {}, output="Wi-Fi Calling is now OFF."),
                       tool("write_config", {"text": "a = 1\nb = 2"}, output=f"Config written.\n{_BAR}"),
                       tool("check_settings", {}, output=_APN), tool("check_bar", {}, output=_BAR),
                       tool("check_settings", {}, output=_APN), tool("check_settings", {}, output=_APN)), True,
                 id="a-display-an-edit-showed-after-a-change-was-said-changes-nothing"),
    pytest.param(_checks(tool("check_wifi", {}, output="Wi-Fi Calling is enabled on this line for all its calls"),
                         tool("check_bar", {}, output=_BAR)), True, id="is-before-the-word-describes-a-state"),
    pytest.param(_checks(tool("install_app", {"app": "mms"}, output="Installed the app mms on the phone, version 4"),
                         tool("check_bar", {}, output=_BAR)), False, id="twin-an-install-reported-in-words"),
    pytest.param(_checks(tool("check_apps", {}, output="The following apps are installed on the phone: mail, web"),
                         tool("reset_network", {}, output="Network settings reset to defaults.\nStatus Bar: 4G")),
                 False, id="twin-a-new-line-saying-a-change"),
    pytest.param(_checks(tool("check_wifi", {}, output="Wi-Fi Calling is now ON for this line and its calls"),
                         tool("check_bar", {}, output=_BAR)), False, id="twin-is-now-is-a-change"),
])
def test_a_check_that_describes_a_state_is_no_change(trace, loop):
    assert bool(_obvious(trace)) is loop


# -- a change the other side says it made, in words ------------------------------------------------
LINE = '{"line": "L1", "status": "active", "roaming": false, "data_used_gb": 3.2}'


def _looked_up(replies: list, turns: list) -> list:
    """OpenAI chat: the agent looks the line up (the same call, the same answer), then writes
    each reply, then the person's turn; a last lookup after the last turn."""
    messages = [{"role": "user", "content": "My phone has no data abroad."}]
    for n, (reply, turn) in enumerate(zip(replies + [None], turns + [None])):
        messages += [{"role": "assistant", "content": "", "tool_calls": [{"id": f"c{n}", "type": "function",
                      "function": {"name": "get_line", "arguments": '{"line": "L1"}'}}]},
                     {"role": "tool", "tool_call_id": f"c{n}", "content": LINE}]
        if reply is not None:
            messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": turn}]
    return messages


ASKED = ["Please turn on data roaming in your phone settings, then tell me.", "Please restart your phone, then tell me.",
         "Please reset the network settings, then tell me."]
REFUSED = ["Roaming cannot be changed from here.", "Roaming cannot be changed from here, sorry.",
           "I cannot change roaming."]


@pytest.mark.parametrize(("replies", "turns", "loop"), [
    pytest.param(ASKED, ["I turned on data roaming.", "I restarted my phone.", "I reset the network settings."],
                 False, id="each-turn-says-the-change-the-agent-asked-for-a-re-check-after-each"),
    pytest.param(ASKED, ["Still no data.", "Still nothing.", "No change at all."], True,
                 id="twin-turns-that-say-no-change"),
    pytest.param(REFUSED, ["I turned on roaming yesterday.", "I updated my phone last week.",
                           "I reset it myself before."], True, id="twin-changes-claimed-that-no-reply-asked-for"),
    pytest.param(ASKED, ["I turned on data roaming.", "I turned on data roaming, as I said.",
                         "I turned on data roaming!"], True, id="twin-the-same-change-said-again"),
])
def test_a_change_the_other_side_says_it_made_is_a_change_between_repeats(replies, turns, loop):
    """A person trying what the agent asked on their own phone, in a format that does not hold
    their own tool calls: their words say the change, and the same lookup after it is a re-check,
    as after a tool that reported a change (`_news.changes_told`, `Progress.starts`)."""
    report = detect_loops(_looked_up(replies, turns))
    assert ("repeated_result" in {f.pattern for f in report.findings}) is loop, report.reason
