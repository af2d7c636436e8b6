"""A fact the agent's tools already told it is no new fact, at the default settings: a turn of the
other side that relays it ("the consultation closed on 30 October, didn't it?" after a lookup that
returned the closing date) brings nothing the agent lacked, and a reply that tells it for the first
time tells what the agent had all along ("the consultation closed on 30 October"): neither ends a
chain of the same thing said in other words (`_replies._new_facts`). A fact no tool call nor its
result had told still does, in a turn or in a reply. Each kind is reworded 3, 4 and 5 times."""

from __future__ import annotations

import json

import pytest

from loopmetric import detect_loops


def restated(messages):
    """The `repeated_reply` findings of the conversation."""
    return [f for f in detect_loops(messages).findings if f.pattern == "repeated_reply"]


def looked_up(replies, turns, *, args=None, asked=True):
    """A council's planning desk: the opening, one lookup and its result, then each reply followed by
    the other side's turn of the same place; `args`, the lookup's arguments; `asked`, whether a reply
    asked for the lookup (not asked: the lookup opens the run, as a harness's own fetch does)."""
    messages = [{"role": "system", "content": "You answer questions about planning applications."},
                {"role": "user", "content": "Any news on my planning application? Reference PA-3391."}]
    if asked:
        messages.append({"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "get_application", "arguments": json.dumps(args or {"reference": "PA-3391"})}}]})
    messages.append({"role": "tool", "tool_call_id": "c1", "content": json.dumps(
        {"reference": "PA-3391", "status": "under consultation", "consultation_closed": "2026-10-30",
         "officer": "J. Amadi", "fee_paid": 462})})
    for n, reply in enumerate(replies):
        messages.append({"role": "assistant", "content": reply})
        if n < len(turns):
            messages.append({"role": "user", "content": turns[n]})
    return messages


# The same status in other words, each reply staying on the application and its decision.
REPLIES = ["Your application PA-3391 is under consultation. We'll write to you as soon as the officer decides.",
           "I know waiting is hard. Right now the application is still being consulted on, and you'll hear from us "
           "once there is a decision.",
           "At the moment the application remains at the consultation stage; a decision letter will follow.",
           "For now the application is unchanged: consultation, with a decision letter to come.",
           "The application is still in consultation. You'll be told in writing when the officer reaches a decision."]


def turns_telling(day, fee):
    """The other side's turns, the second and third telling a closing day and a fee."""
    return ["It's been weeks. Is that normal?", f"But the consultation closed on {day} October, didn't it?",
            f"I paid the {fee} pound fee, surely that counts for something?", "Can you at least tell me when?",
            "Pointless."]


TURNS = [pytest.param(turns_telling(30, 462), times, times >= 3, id=f"turns-relay-what-the-lookup-told-{times}-replies")
         for times in (2, 3, 4, 5)]
TURNS += [pytest.param(turns_telling(12, 380), times, False, id=f"twin-turns-tell-what-no-tool-told-{times}-replies")
          for times in (3, 4, 5)]


@pytest.mark.parametrize(("turns", "times", "loop"), TURNS)
def test_a_turn_relaying_what_a_tool_told_brings_nothing_new(turns, times, loop):
    found = restated(looked_up(REPLIES[:times], turns))
    assert bool(found) is loop, [f.message for f in found]
    if loop:
        (finding,) = found
        assert finding.count == times
        assert f"The agent said the same thing in other words {times} times in a row" in finding.message


# Where the lookup told it: in its result when it opens the run (no reply asked for it, as a harness's
# own fetch), or in its own arguments (the page it opened) when no result repeats them.
PAGE = "https://planning.example.gov/applications/PA-3391"
OTHER_PAGE = "https://planning.example.gov/appeals/PA-3391"


def turns_linking(page):
    return ["It's been weeks. Is that normal?", f"Your page {page} shows nothing new either, is that normal?",
            "Can you at least tell me when?", "Pointless."]


WHERE = [
    pytest.param(turns_telling(30, 462), {}, False, 3, True, id="turns-relay-what-a-lookup-opening-the-run-told-3-replies"),
    pytest.param(turns_telling(30, 462), {}, False, 4, True, id="turns-relay-what-a-lookup-opening-the-run-told-4-replies"),
    pytest.param(turns_telling(12, 380), {}, False, 3, False,
                 id="twin-turns-tell-what-the-lookup-opening-the-run-did-not-3-replies"),
    pytest.param(turns_linking(PAGE), {"url": PAGE}, True, 3, True, id="a-turn-relays-the-page-the-lookup-opened-3-replies"),
    pytest.param(turns_linking(PAGE), {"url": PAGE}, True, 4, True, id="a-turn-relays-the-page-the-lookup-opened-4-replies"),
    pytest.param(turns_linking(OTHER_PAGE), {"url": PAGE}, True, 3, False,
                 id="twin-a-turn-tells-a-page-no-lookup-opened-3-replies"),
]


@pytest.mark.parametrize(("turns", "args", "asked", "times", "loop"), WHERE)
def test_a_lookup_tells_its_facts_wherever_it_stands_and_whatever_holds_them(turns, args, asked, times, loop):
    found = restated(looked_up(REPLIES[:times], turns, args=args, asked=asked))
    assert [f.count for f in found] == ([times] if loop else []), [f.message for f in found]


# A figure told inside a longer one is not told: "46" stands in no result that holds only "462". The turn
# telling it follows the third reply: the chain ends there, at three replies (the fee of 462 relayed: all).
FIGURES = [pytest.param(fee, times, count, id=f"{name}-{times}-replies")
           for fee, name in ((462, "the-fee-the-lookup-told"), (46, "twin-a-figure-inside-a-longer-one"))
           for times in (4, 5) for count in ([times] if fee == 462 else [3])]


@pytest.mark.parametrize(("fee", "times", "count"), FIGURES)
def test_a_fact_is_told_by_a_tool_where_it_stands_whole(fee, times, count):
    found = restated(looked_up(REPLIES[:times], turns_telling(30, fee)))
    assert [f.count for f in found] == [count]


QUIET = ["It's been weeks. Is that normal?", "Can you find out when they'll decide?", "Can you chase the officer?",
         "Can you at least tell me when?", "Pointless."]
TOLD_BY_THE_LOOKUP = "The application is at the consultation stage, which closed on 30 October; a decision letter will follow."
TOLD_BY_NOBODY = "The application is at the consultation stage, which closed on 12 October; a decision letter will follow."
THIRD = [pytest.param(TOLD_BY_THE_LOOKUP, times, True, id=f"a-reply-tells-what-the-lookup-told-{times}-replies")
         for times in (3, 4, 5)]
# (a fact nobody had told ends the chain: the replies before and after it are two chains, too short
# until the fifth reply, whose chain begins at the third)
THIRD += [pytest.param(TOLD_BY_NOBODY, times, False, id=f"twin-a-reply-tells-what-no-tool-told-{times}-replies")
          for times in (3, 4)]


@pytest.mark.parametrize(("third", "times", "loop"), THIRD)
def test_a_reply_telling_what_a_tool_told_tells_nothing_new(third, times, loop):
    replies = [*REPLIES[:2], third, *REPLIES[3:]]
    found = restated(looked_up(replies[:times], QUIET))
    assert bool(found) is loop, [f.message for f in found]
    if loop:
        (finding,) = found
        assert finding.steps[0] == 3 and finding.count == times  # (from the first reply after the lookup)


def _reference(fact, texts):
    """Whether `fact` stands whole in one of `texts`, searched the plain way (the contract)."""
    from loopmetric.detectors._replies import _stands_in

    return any(_stands_in(fact, text) for text in texts)


def _looked(results, args=(), asked=True):
    """`_Looked` over a trace of one tool call per result (its arguments `{}`, or the JSON text of
    `args` in order), read to the end; not `asked`: no reply asks for the calls (the first opens the run)."""
    from loopmetric import read_chat_messages
    from loopmetric.detectors._replies import _Looked

    messages = [{"role": "user", "content": "Go."}]
    for n, result in enumerate(results):
        arguments = args[n] if n < len(args) else "{}"
        if asked:
            messages.append({"role": "assistant", "content": "", "tool_calls": [{"id": f"c{n}", "type": "function",
                             "function": {"name": "get", "arguments": arguments}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": result})
    trace = read_chat_messages(messages)
    return _Looked(trace), trace, [text for step in trace.steps if hasattr(step, "args")
                                   for text in (step.args, step.result) if text]


@pytest.mark.parametrize(("fact", "results"), [
    pytest.param("4410", ["ticket INC-4410 open"], id="a-number-after-a-dash"),
    pytest.param("4410", ["ticket INC_4410 open"], id="a-number-after-an-underscore"),
    pytest.param("4410", ["ticket INC4410 open"], id="twin-a-number-inside-a-run-is-not-told"),
    pytest.param("46", ["fee 462 paid"], id="twin-a-number-that-begins-another"),
    pytest.param("15", ["closed 2026-11-15"], id="a-date-tells-its-day"),
    pytest.param("A1B2C3", ["order a1b2c3, order A1B2C3."], id="a-code-of-letters-and-digits"),
    pytest.param("٤٤١٠", ["رقم ٤٤١٠ مفتوح"], id="digits-of-another-script"),
    pytest.param("x²", ["area x² m"], id="twin-a-run-whose-only-digit-is-no-decimal-digit"),
    pytest.param("john.doe@x.com", ["mail john.doe@x.com sent"], id="a-fact-with-signs-inside"),
    pytest.param("john.doe@x.com", ["mail xjohn.doe@x.com sent"], id="twin-a-fact-with-signs-inside-another"),
    pytest.param("7", ["", "7"], id="told-by-a-later-result"),
])
def test_a_tool_tells_a_fact_exactly_where_it_stands_whole(fact, results):
    """The lookup of a fact in the tools' texts (each distinct text read once, a set of its runs) answers
    as a plain search for the fact standing whole in each text does."""
    looked, trace, texts = _looked(results)
    assert looked.told(fact, len(trace.steps)) == _reference(fact, texts)


@pytest.mark.parametrize(("fact", "results", "args", "asked", "told"), [
    pytest.param("john.doe@x.com", ["sent"], ['{"to": "john.doe@x.com"}'], True, True,
                 id="a-fact-with-signs-in-the-first-calls-arguments"),
    pytest.param("jane.doe@x.com", ["sent"], ['{"to": "john.doe@x.com"}'], True, False,
                 id="twin-a-fact-with-signs-in-no-calls-arguments"),
    pytest.param("4410", ["ticket INC-4410 open"], [], False, True, id="a-number-told-by-a-call-opening-the-run"),
    pytest.param("john.doe@x.com", ["mail john.doe@x.com sent"], [], False, True,
                 id="a-fact-with-signs-told-by-a-call-opening-the-run"),
    pytest.param("4411", ["ticket INC-4410 open"], [], False, False, id="twin-a-number-no-call-opening-the-run-told"),
])
def test_a_tool_tells_a_fact_in_its_arguments_and_from_the_first_step(fact, results, args, asked, told):
    looked, trace, texts = _looked(results, args, asked)
    assert trace.steps[0].kind == ("llm" if asked else "tool")
    assert looked.told(fact, len(trace.steps)) is told is _reference(fact, texts)


@pytest.mark.parametrize(("fact", "args", "answers"), [
    pytest.param("john.doe@x.com", ['{"to": "john.doe@x.com"}'], [True, True, True],
                 id="a-fact-with-signs-found-is-found-when-asked-again"),
    pytest.param("4410", ['{"ticket": "INC-4410"}'], [True, True, True], id="a-number-found-is-found-when-asked-again"),
    pytest.param("jane.doe@x.com", ['{"to": "john.doe@x.com"}'], [False, False, False],
                 id="twin-a-fact-not-found-stays-not-found-when-asked-again"),
])
def test_a_fact_asked_again_is_answered_as_the_first_time(fact, args, answers):
    """The lookup asked about one fact again, over the same steps, answers as it did (a fact found
    is kept found, wherever it stood)."""
    looked, trace, _ = _looked(["sent"], args)
    assert [looked.told(fact, len(trace.steps)) for _ in answers] == answers


def test_a_tool_text_read_again_is_not_read_again():
    """A result returned again adds no text to search (cost grows with the distinct text), and a fact
    searched and not found is searched only in the texts that came after."""
    looked, trace, _ = _looked(["page one 1234 " * 100] * 5 + ["abc@d.io"])
    assert looked.told("abc@d.io", 4) is False  # the first two calls: their arguments and one page
    assert len(looked._texts) == 2  # "{}" and the page, once each
    assert looked.told("abc@d.io", len(trace.steps)) is True
    assert len(looked._texts) == 3


# A fact the reply just before told (and no tool): a turn that relays it tells nothing new, so the
# chain the first reply begins holds all of them; a turn telling another fact ends it there.
FIRST = REPLIES[0] + " The consultation stage ends on 12 November."
# (the twin's chain begins at the second reply: too short at three replies, three long at four)
JUST_TOLD = [
    pytest.param("Ends on 12 November? Is that normal?", 3, [3], id="a-turn-relaying-what-the-reply-before-told-3-replies"),
    pytest.param("Ends on 12 November? Is that normal?", 4, [4], id="a-turn-relaying-what-the-reply-before-told-4-replies"),
    pytest.param("Ends on 19 November? Is that normal?", 3, [], id="twin-a-turn-telling-what-nobody-told-3-replies"),
    pytest.param("Ends on 19 November? Is that normal?", 4, [3], id="twin-a-turn-telling-what-nobody-told-4-replies"),
]


@pytest.mark.parametrize(("first_turn", "times", "counts"), JUST_TOLD)
def test_a_turn_relaying_what_the_reply_just_before_told_brings_nothing_new(first_turn, times, counts):
    found = restated(looked_up([FIRST, *REPLIES[1:times]], [first_turn, *QUIET[1:]]))
    assert [f.count for f in found] == counts
