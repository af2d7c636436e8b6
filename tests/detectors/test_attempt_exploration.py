"""Attempts, not failures: `similar_attempts` needs near-identical attempts. Loops shaped
like the design half's (a reworded lookup, another guessed id, one argument changed,
the same options reordered, the same instruction reworded), and their healthy twins:
different targets that each fail the same way (exploration), which the rule of
failures alone reported as severe loops."""

from __future__ import annotations

import json

import pytest

from loopmetric import LoopSettings, detect_loops, read_deepeval_trace
from loopmetric.detectors import detect_similar_attempts
from loopmetric.detectors._near import argument_words, near_identical
from loopmetric.detectors._news import Progress
from tests._traces import agent, tool

NO_MATCH = 'No matches found for "{q}" in /repo'


def attempts(name: str, key: str, values, output) -> list:
    return [tool(name, {key: v}, output=output(v)) for v in values]


LOOPS = [
    pytest.param(attempts("find_file", "command", [f'find_file "{q}" src' for q in
                                                   ("BeanDeserializer", "Deserializer", "deserialize")],
                          lambda v: NO_MATCH.format(q=v.split('"')[1])), id="swe-reworded-lookup-contained-names"),
    pytest.param(attempts("open", "command", ["open src/internal/$Gson$Types.java", "open src/internal/GsonTypes.java",
                                              "open src/internal/$Gson$Types.java"],
                          lambda v: f"File {v.split()[1].replace('$Gson$', '')} not found"),
                 id="swe-same-path-respelled"),
    pytest.param([tool("get_details_by_id", {"id": f"P10{n:02d}"}, output=f"Error: Plan with ID P10{n:02d} not found")
                  for n in range(6, 11)], id="tau2-guessed-ids-of-one-shape"),
    pytest.param([tool("update_flights", {"cabin": "economy", "flights": [{"flight": "HAT030", "date": "2024-05-13"},
                                                                          {"flight": f"HAT0{n}5", "date": "2024-05-14"}]},
                       output="Error: flight HAT030 not available on date 2024-05-13") for n in range(3, 7)],
                 id="tau-one-argument-changed-same-failing-target"),
    pytest.param(attempts("python3", "command", ['python3 ende.py -d -p "ac9b" -c flag.txt.en',
                                                 'python3 ende.py -d flag.txt.en -p "ac9b"',
                                                 'python3 ende.py -d -p "ac9b" flag.txt.en'],
                          lambda v: "usage: ende.py [-h] (-e | -d) file\nende.py: error: unrecognized arguments"), id="ctf-same-options-reordered"),
    pytest.param(attempts("cat", "command", ["cat source", "cat ./source", "cat source"],
                          lambda v: "Malformed command"), id="ctf-same-file-other-path-form"),
    pytest.param(attempts("search", "q", ["refund policy", "refund policy for cancelled flights",
                                          "policy refund cancelled"], lambda v: "Could not find any document."),
                 id="query-widened-narrowed-reordered"),
    pytest.param([tool("search", {"q": "refund policy", "filter": f}, output="Could not find any document.")
                  for f in ("2024", None, "2024")], id="one-argument-dropped-and-back"),
    pytest.param(attempts("WebSurfer", "instruction", [
        "Please visit the 'Tales of a Mountain Mama' page and list the kid friendly hikes it recommends",
        "Please open the 'Tales of a Mountain Mama' page and list all kid friendly hikes it recommends",
        "Please navigate to the 'Tales of a Mountain Mama' page and list the kid friendly hikes recommended"],
        lambda v: "I clicked 'Kid Friendly Hikes - Tales of a Mountain Mama'. Here is a screenshot of the page, "
                  "the viewport shows 12% of the webpage."), id="m1-same-instruction-reworded"),
]

HEALTHY = [
    pytest.param(attempts("find_file", "command", [f'find_file "{q}"' for q in ("JsonParser", "ObjectMapper",
                                                                               "TypeFactory", "BeanSerializer")],
                          lambda v: NO_MATCH.format(q=v.split('"')[1])), id="swe-different-files-not-found"),
    pytest.param(attempts("search_entity", "name", ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra"],
                          lambda v: f"Could not find an entity named {v}."), id="different-entities-could-not-find"),
    pytest.param(attempts("click", "option", ["Size: Large", "Color: navy blue", "Pack of 3", "Buy now"],
                          lambda v: "Invalid action!"), id="different-product-options-invalid-action"),
    pytest.param(attempts("download", "url", ["https://ftp.gnu.org/gnu/tar/tar-1.35.tar.gz",
                                              "https://mirrors.kernel.org/gnu/tar/tar-1.35.tar.gz",
                                              "https://mirror.csclub.uwaterloo.ca/gnu/tar/tar-1.35.tar.gz"],
                          lambda v: "Error: download failed (connection refused)"), id="different-mirrors-fail"),
    pytest.param(attempts("bash", "command", ["grep -rn parseDate src", "grep -rn DateFormat src",
                                              "grep -rn SimpleDateParser src", "grep -rn toInstant src"],
                          lambda v: "grep: no matches found"), id="greps-for-different-patterns-find-nothing"),
    pytest.param(attempts("get_customer_by_phone", "phone", ["555-123-2002", "555-987-1100", "555-444-0199"],
                          lambda v: "Error: customer not found"), id="tau2-different-customers-not-found"),
    pytest.param(attempts("act", "action", ["go to drawer 1", "go to cabinet 2", "go to shelf 3", "go to sinkbasin 1"],
                          lambda v: "Nothing happens."), id="mint-different-places-nothing-happens"),
    pytest.param(attempts("act", "action", [f"open drawer {n}" for n in range(1, 5)],
                          lambda v: "Nothing happens."), id="mint-numbered-objects-nothing-happens"),
    pytest.param(attempts("submit", "answer", ["Paris", "Lyon", "Marseille"], lambda v: "Incorrect answer."),
                 id="different-answers-incorrect"),
]

COUNTDOWN = "Observation:\nYou have {n} steps left and 2 chances to propose solution left.\n"
DESK = "Observation:\nOn the desk 1, you see a alarmclock 1, a creditcard 1, a desklamp 1, and a mug 1.\n"
PLACES = ("sinkbasin 1", "cabinet 2", "toilet 1", "garbagecan 1")


def _searches_in(places, output) -> list:
    code = 'for loc in ["{p}"]:\n    found = look_in(loc)\n    if found:\n        print(found)'
    return [tool("execute", {"input": code.format(p=p)}, output=output(4 - n)) for n, p in enumerate(places)]


COUNTED_HEALTHY = [
    pytest.param(_searches_in(PLACES, lambda n: COUNTDOWN.format(n=n)),
                 id="searches-in-different-places-answered-by-a-countdown-alone"),
    pytest.param([tool("run", {"command": c}, output=f"(no output)\nCommand completed in 0.{n}1 seconds "
                                                     f"with exit code 0 and no warnings.")
                  for n, c in enumerate(("make lint", "make docs", "make wheel", "make sdist"), 1)],
                 id="different-commands-answered-by-a-clock-alone"),
]

COUNTED_LOOPS = [
    pytest.param(_searches_in(PLACES, lambda n: DESK + COUNTDOWN.format(n=n)),
                 id="one-observation-under-a-countdown"),
    pytest.param(_searches_in(PLACES, lambda n: COUNTDOWN.format(n=3)), id="a-countdown-that-does-not-tick"),
]



def _similar(trace) -> list:
    return list(detect_similar_attempts(read_deepeval_trace(trace), LoopSettings()))


@pytest.mark.parametrize("children", LOOPS)
def test_near_identical_attempts_failing_alike_are_a_loop(children):
    trace = agent(*children)
    found = _similar(trace)
    assert found and found[0].severity == "severe", found
    assert detect_loops(trace).success is False


@pytest.mark.parametrize("children", HEALTHY + COUNTED_HEALTHY)
def test_different_targets_failing_alike_are_exploration(children):
    """... and different calls answered by a counter alone (a step countdown, a clock) are no one attempt."""
    trace = agent(*children)
    assert _similar(trace) == []
    report = detect_loops(trace)
    assert report.success is True, report.reason


@pytest.mark.parametrize(("a", "b", "same"), [
    pytest.param('{"q": "Foo"}', '{"q": "FooImpl"}', True, id="contained-name"),
    pytest.param('{"q": "XmlSerializer"}', '{"q": "XmlDeserializer"}', True, id="near-spelling"),
    pytest.param('{"id": "P6"}', '{"id": "P7"}', True, id="id-of-one-shape"),
    pytest.param('{"n": 1}', '{"n": 2}', False, id="bare-numbers-are-different-objects"),
    pytest.param('{"q": "a b", "f": "x"}', '{"q": "a b"}', True, id="argument-dropped"),
    pytest.param('{"q": "foo"}', '{"q": "bar"}', False, id="different-target"),
    pytest.param('{"c": "grep -rn foo src"}', '{"c": "grep -rn bar src"}', False, id="one-word-different-target"),
])
def test_near_identical(a, b, same):
    assert near_identical(argument_words(a), argument_words(b)) is same


def _suggests(query: str, names: list) -> str:
    return f"Could not find [{query}]. Similar: {names}."


# Progress inside a run of attempts: a lead taken from a result, a run that ends in success.
PROGRESS = [
    pytest.param([tool("search", {"q": "Scat"}, output=_suggests("Scat", ["Scat singing", "Scatman"])),
                  tool("search", {"q": "Scatman"}, output=_suggests("Scatman", ["Scatman John", "Scatman Crothers"])),
                  tool("search", {"q": "Scatman John"}, output=_suggests("Scatman John", ["Scatman John"])),
                  tool("search", {"q": "Scatman Crothers"}, output=_suggests("Scatman Crothers", ["Scatman Crothers"]))],
                 id="each-query-follows-a-name-a-result-suggested"),
    pytest.param([*[tool("pay", {"payment_id": f"card_{n}"}, output="Error: insufficient balance on this card")
                    for n in (7421, 7422, 7423)],
                  tool("pay", {"payment_id": "card_7424"}, output="Payment accepted; booking updated")],
                 id="ids-refused-until-one-is-accepted"),
    pytest.param([*attempts("search", "q", ["refund policy", "refund policy cancelled", "refund policy cancelled 2024"],
                            lambda v: "Could not find any document."),
                  tool("search", {"q": "refund policy cancelled 2024 economy"},
                       output="Refund policy for cancelled economy flights (2024): a full refund within 24 hours.")],
                 id="query-narrowed-until-it-finds-the-lead"),
]
PROGRESS_LOOPS = [
    pytest.param([tool("search", {"q": q}, output=_suggests(q, ["Coprophilia", "Scat singing"]))
                  for q in ("Scatman", "Scatman John", "Scatman John singer", "famous Scatman John")],
                 id="reworded-queries-no-result-named"),
    pytest.param([tool("search", {"q": q}, output=f"Could not find [{q}].")
                  for q in ("famous songs by Arun Date in India", "famous songs by Arun Date",
                            "famous Marathi songs by Arun Date")],
                 id="a-query-echoed-in-its-own-result-is-no-lead"),
    pytest.param([tool("pay", {"payment_id": f"card_{n}"}, output="Error: insufficient balance on this card")
                  for n in (7421, 7422, 7423, 7424)], id="ids-refused-to-the-end"),
    pytest.param([*[tool("pay", {"payment_id": f"card_{n}"}, output="Error: insufficient balance on this card")
                    for n in (7421, 7422, 7423)],
                  tool("pay", {"payment_id": "card_7424"}, output="Error: the card was declined by the bank")],
                 id="ids-refused-then-another-failure"),
    # A call whose result the trace does not record (a span format that stops at the last model call)
    # did not succeed: it is unknown, and ends no run of attempts.
    pytest.param([*[tool("pay", {"payment_id": f"card_{n}"}, output="Error: insufficient balance on this card")
                    for n in (7421, 7422, 7423)],
                  tool("pay", {"payment_id": "card_7424"})],
                 id="ids-refused-then-a-call-with-no-recorded-result"),
]


@pytest.mark.parametrize("children", PROGRESS)
def test_attempts_that_follow_a_lead_or_end_in_success_are_progress(children):
    trace = agent(*children)
    assert _similar(trace) == []
    assert detect_loops(trace).success is True, detect_loops(trace).reason


@pytest.mark.parametrize("children", PROGRESS_LOOPS)
def test_attempts_without_a_lead_or_success_stay_a_loop(children):
    found = _similar(agent(*children))
    assert found and found[0].severity == "severe", found


@pytest.mark.parametrize(("a", "b", "same"), [
    pytest.param('{}', '{"q": "refund policy"}', True, id="no-words-beside-words-every-argument-dropped"),
    pytest.param('{"q": "refund policy"}', '{}', True, id="words-beside-no-words"),
    pytest.param('{"q": ""}', '{"q": "refund policy"}', True, id="an-empty-value-beside-words"),
    pytest.param('{}', '{}', True, id="no-words-twice"),
    pytest.param('{"q": "lost baggage"}', '{"q": "refund policy"}', False, id="twin-words-beside-other-words"),
])
def test_an_attempt_with_no_argument_words_is_near_identical_to_any_attempt(a, b, same):
    assert near_identical(argument_words(a), argument_words(b)) is same


def _searches(*queries) -> list:
    return [tool("search", {} if q is None else {"q": q}, output="Could not find any document.") for q in queries]


@pytest.mark.parametrize(("children", "found"), [
    pytest.param(_searches(None, "refund policy", None, "refund policy"), [("similar_attempts", 4)],
                 id="the-same-query-and-none-in-turn"),
    pytest.param(_searches("refund policy", None, "refund policy"), [("similar_attempts", 3)],
                 id="the-query-dropped-and-back"),
    # The empty attempt is near-identical to each query, but does not make different queries one attempt.
    pytest.param(_searches(None, "refund policy", "lost baggage", "seat change"), [],
                 id="twin-an-empty-attempt-then-different-queries"),
    pytest.param(_searches("refund policy", "lost baggage", "seat change", None), [],
                 id="twin-different-queries-then-an-empty-attempt"),
])
def test_an_attempt_with_no_argument_words_joins_one_attempt_never_bridges_two(children, found):
    assert [(f.pattern, f.count) for f in _similar(agent(*children))] == found


def _submits(between) -> list:
    """Guessed ids of one shape, each failing the same way, `between(n)` after each."""
    return [x for n in range(6, 11) for x in (tool("submit", {"id": f"P10{n:02d}"},
                                                   error=f"Error: Plan with ID P10{n:02d} not found"), between(n))]


@pytest.mark.parametrize(("children", "found"), [
    pytest.param(_submits(lambda n: tool("save", {}, output="OK")), [("similar_attempts", 4)],
                 id="the-same-silent-save-again-changes-nothing-new"),
    pytest.param(_submits(lambda n: tool("save", {"n": n}, output="OK")), [],
                 id="twin-a-different-silent-save-each-time-may-have-changed-something"),
])
def test_a_silent_action_repeated_between_failures_does_not_reset_them(children, found):
    assert [(f.pattern, f.count) for f in _similar(agent(*children))] == found


TEN_WORDS = "Could not find an entity with that name in catalogue."


@pytest.mark.parametrize(("children", "found"), [
    pytest.param(attempts("search_entity", "name", ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra"],
                          lambda v: TEN_WORDS), [], id="different-names-the-same-ten-word-failure-is-exploration"),
    pytest.param(attempts("search_entity", "name", ["Lovelace", "Ada Lovelace", "A. Lovelace", "Lovelace Ada"],
                          lambda v: TEN_WORDS), [("similar_attempts", 4)], id="twin-one-name-respelled"),
    pytest.param(attempts("search_entity", "name", ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra"],
                          lambda v: "The catalogue lists one entity under that name, see its page."),
                 [("similar_attempts", 4)], id="twin-different-names-the-same-ten-word-answer"),
])
def test_different_names_failing_with_the_same_long_message_are_exploration(children, found):
    assert len(TEN_WORDS.split()) == 10
    assert [(f.pattern, f.count) for f in _similar(agent(*children))] == found


# Keyword queries the answer does not depend on (`_near.blind_queries`): one attempt reworded,
# whatever their words; and their twins, where the words name a target or the answer changes.
PAGE = ("Affiliated Managers Group is a partner to investment firms, headquartered in West Palm Beach; it covers "
        "diverse topics and content.")


def _lookups(words, output=lambda n, w: f"Observation {n}: No Results", first=None) -> list:
    opened = [tool("search", {"input": "Affiliated Managers Group"}, output=first or f"Observation 1: {PAGE}")]
    return opened + [tool("lookup", {"input": w}, output=output(n, w)) for n, w in enumerate(words, start=2)]


BLIND_LOOPS = [
    pytest.param(_lookups(["based", "headquartered", "located", "situated"]), 4,
                 id="one-page-looked-up-for-four-synonyms-no-results"),
    pytest.param(_lookups(["compare", "topics", "content", "fashion, cookery, health"]), 4,
                 id="words-the-page-showed-looked-up-no-results"),
    pytest.param(_lookups(["based", "headquartered", "located", "situated", "well-known"]), 5,
                 id="five-keywords-with-a-hyphen-no-results"),
    pytest.param(_lookups(["based", "located", "based", "located"]), 4, id="two-keywords-in-turn-no-results"),
    pytest.param(_lookups(["refund policy", "refund policy for flights", "policy refund", "refund policy"]), 4,
                 id="near-identical-keyword-queries-found-once"),
]

BLIND_HEALTHY = [
    pytest.param(_lookups(["based", "headquartered", "located"]), id="three-keywords-are-three-tries"),
    pytest.param(_lookups(["based", "headquartered", "located", "situated"],
                          output=lambda n, w: f'Observation {n}: No Results for "{w}"'), id="each-answer-names-its-query"),
    pytest.param(_lookups(["Scat", "Scatman John", "Scatman Crothers", "Scat Records"]), id="capitalised-names-no-results"),
    pytest.param(_lookups(["utils.py", "config.py", "parser.py", "lexer.py"]), id="file-names-no-results"),
    pytest.param(_lookups(["grep -rn foo", "grep -rn bar", "grep -rn baz", "grep -rn qux"]), id="option-flags-no-results"),
    pytest.param(_lookups(["based", "headquartered", "located", "situated"],
                          output=lambda n, w: f"Observation {n}: No Results" if w != "situated" else
                          f"Observation {n}: (Result 1 / 1) It is situated in Florida."), id="the-fourth-finds-it"),
    pytest.param(_lookups(["based", "headquartered", "located", "situated", "offices"],
                          output=lambda n, w: f"Observation {n}: No Results" if w != "offices" else
                          f"Observation {n}: (Result 1 / 1) Its offices are in Florida."), id="the-fifth-finds-it"),
    pytest.param(_lookups(["based", "headquartered", "located", "situated"],
                          output=lambda n, w: f"Observation {n}: No Results" if n % 2 else f"Observation {n}: Not here"),
                 id="answers-differ"),
    pytest.param([*_lookups(["based", "headquartered"]), tool("search", {"input": "Duke Energy"}, output="Duke Energy is"
                                                                          " a utility in Charlotte."),
                  *_lookups(["located", "situated"])[1:]], id="a-search-between-two-and-two"),
    pytest.param(_lookups(["based"] * 4), id="one-keyword-four-times-is-the-obvious-rule-not-this-one"),
    pytest.param([tool(name, {"input": word}, output="No Results") for name, word in
                  zip(["lookup", "find"] * 2, ["based", "headquartered", "located", "situated"])],
                 id="two-tools-in-turn-no-results"),
]


@pytest.mark.parametrize(("children", "count"), BLIND_LOOPS)
def test_keyword_queries_one_answer_names_none_of_are_one_attempt(children, count):
    trace = agent(*children)
    found = _similar(trace)
    assert [(f.pattern, f.count, f.severity) for f in found] == [("similar_attempts", count, "severe")], found
    assert found[0].steps == tuple(range(2, 2 + count))  # the lookups, after the search
    assert found[0].tools == ("lookup",)
    assert detect_loops(trace).success is False


@pytest.mark.parametrize("children", BLIND_HEALTHY)
def test_keyword_queries_that_name_a_target_or_change_the_answer_are_not_one_attempt(children):
    assert _similar(agent(*children)) == []


def test_keyword_queries_from_the_first_call_of_the_run_are_one_attempt():
    found = _similar(agent(*_lookups(["based", "headquartered", "located", "situated"])[1:]))
    assert [(f.count, f.steps) for f in found] == [(4, (1, 2, 3, 4))]


def test_blind_queries_are_runs_of_two_or_more_calls():
    from loopmetric import read_deepeval_trace as read
    from loopmetric.detectors._near import blind_queries

    calls = read(agent(*_lookups(["based", "headquartered"]), tool("search", {"input": "Duke Energy"}, output="A"),
                       *_lookups(["located"])[1:])).tool_calls
    assert blind_queries(calls, [0, 1, 2, 3, 4]) == [[1, 2]]


@pytest.mark.parametrize(("length", "one_attempt"), [(200, True), (201, False)])
def test_a_keyword_query_is_at_most_200_characters(length, one_attempt):
    from loopmetric.detectors._near import _keyword_query

    text = ("word " * 50)[:length - 1] + "x"
    assert (_keyword_query(json.dumps({"input": text})) is not None) is one_attempt


@pytest.mark.parametrize(("args", "query"), [
    pytest.param('{"input": "refund policy"}', "refund policy", id="the-only-argument"),
    pytest.param('"refund policy"', "refund policy", id="a-bare-string"),
    pytest.param('{"input": "refund \\u0070olicy"}', "refund policy", id="escaped-letters"),
    pytest.param('{"the \\"input\\"": "refund policy"}', "refund policy", id="a-key-with-escaped-quotes"),
    pytest.param('{"input": "refund policy", "page": "2"}', None, id="twin-two-arguments"),
    pytest.param('{"input": "refund policy", "page": 2}', None, id="twin-two-arguments-one-a-number"),
    pytest.param('{"input": ["refund policy"]}', None, id="twin-a-list"),
    pytest.param('{"input": "Refund policy"}', None, id="twin-a-capital"),
])
def test_a_keyword_query_is_one_string_of_lowercase_words(args, query):
    from loopmetric.detectors._near import _keyword_query

    assert _keyword_query(args) == query


@pytest.mark.parametrize(("window", "found"), [(None, 0), (8, 1), (9, 0), (10, 0)])
def test_keyword_queries_end_in_success_when_the_next_call_of_the_tool_works_within_the_window(window, found):
    children = [*_lookups(["based", "headquartered", "located", "situated"]),  # calls 1-4
                *[tool("search", {"input": f"Duke {k}"}, output=f"Duke {k} is a utility of its own kind {k}.")
                  for k in range(8)],  # calls 5-12
                tool("lookup", {"input": "offices"}, output="Observation 7: (Result 1 / 1) Offices in Florida.")]
    assert len(detect_similar_attempts(read_deepeval_trace(agent(*children)), LoopSettings(window=window))) == found


def test_a_run_of_keyword_queries_that_ends_in_success_does_not_hide_a_later_one():
    children = [*_lookups(["based", "headquartered", "located", "situated"]),
                tool("lookup", {"input": "offices"}, output="Observation 6: (Result 1 / 1) Offices in Florida."),
                *[tool("find", {"input": w}, output="No results found") for w in ("based", "located", "placed", "sited")]]
    assert [(f.tools, f.count) for f in _similar(agent(*children))] == [(("find",), 4)]


SHARED_7 = "alpha bravo charlie delta echo foxtrot golf".split()


@pytest.mark.parametrize(("a", "b", "same"), [
    pytest.param(SHARED_7 + ["kilimanjaro"], SHARED_7 + ["zanzibar", "quebec"], True, id="seven-of-ten-words-shared"),
    pytest.param(SHARED_7[:6] + ["kilimanjaro"], SHARED_7[:6] + ["zanzibar", "quebec"], False,
                 id="twin-six-of-nine-words-shared"),
    pytest.param(SHARED_7[:6] + ["kilimanjaro"], SHARED_7[:6] + ["zanzibar"], True, id="six-of-eight-words-shared"),
    pytest.param(SHARED_7[:5] + ["kilimanjaro"], SHARED_7[:5] + ["zanzibar"], False,
                 id="twin-seven-words-are-not-long"),
])
def test_long_argument_lists_sharing_seven_tenths_of_their_words_are_one_attempt(a, b, same):
    assert near_identical(a, b) is same


@pytest.mark.parametrize(("queries", "groups"), [
    pytest.param(["grep -rn parseDate src", "grep -rn toInstant src"], [[0], [1]], id="two-targets-two-groups"),
    pytest.param(["grep -rn parseDate src", "grep -rn parseDates src"], [[0, 1]], id="twin-one-target-one-group"),
    pytest.param(["grep -rn parseDate src"], [[0]], id="one"),
    pytest.param([], [], id="none"),
])
def test_two_attempts_are_grouped_by_target(queries, groups):
    from loopmetric.detectors._near import near_identical_groups

    calls = read_deepeval_trace(agent(*attempts("bash", "command", queries, lambda v: "no match"))).tool_calls
    assert near_identical_groups(calls, list(range(len(queries)))) == groups


@pytest.mark.parametrize("children", COUNTED_LOOPS)
def test_different_calls_answered_alike_beyond_a_counter_are_one_attempt(children):
    found = _similar(agent(*children))
    assert [(f.steps, f.count) for f in found] == [((1, 2, 3, 4), 4)], found
    assert "each returning the same result" in found[0].message


SEVEN = "one two three four five six seven"


@pytest.mark.parametrize(("first", "second", "counters_only"), [
    pytest.param("x\nYou have 3 steps left", "x\nYou have 2 steps left", True, id="a-countdown-under-one-word"),
    pytest.param(COUNTDOWN.format(n=3), COUNTDOWN.format(n=3), False, id="equal-texts"),
    pytest.param(f"{SEVEN} eight\nleft 3", f"{SEVEN} eight\nleft 2", True, id="eight-shared-words"),
    pytest.param(f"{SEVEN} eight nine\nleft 3", f"{SEVEN} eight nine\nleft 2", False, id="nine-shared-words"),
    pytest.param(f"{SEVEN}\neight\nleft 3", f"{SEVEN}\neight\nleft 2", True, id="eight-shared-words-on-two-lines"),
    pytest.param(f"{SEVEN}\neight nine\nleft 3", f"{SEVEN}\neight nine\nleft 2", False,
                 id="nine-shared-words-on-two-lines"),
    pytest.param(f"{SEVEN} eight nine", f"{SEVEN}  eight nine", False, id="one-line-respaced"),
    pytest.param(f"{SEVEN} eight nine\nleft 3", f"{SEVEN} eight  nine \nleft 2", False, id="shared-line-respaced"),
    pytest.param(None, "left 2", False, id="no-result-recorded"),
    pytest.param("left 2", None, False, id="no-later-result-recorded"),
])
def test_results_alike_in_counters_only(first, second, counters_only):
    model = Progress(read_deepeval_trace(agent(tool("run", {"c": "a"}, output=first),
                                               tool("run", {"c": "b"}, output=second))))
    assert model.alike_in_counters_only(0, 1) is counters_only
