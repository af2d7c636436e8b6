"""The same thing asked for while the other side says it does not have it, at the default
settings: turn after turn the agent asks again for one thing (reworded, an ask read from what
its replies do or from their stances), and every turn of the other side between says it has
it not or cannot give it, bringing nothing the agent takes up (`_replies._lacking`): stuck at
three replies. An offer of what the agent will do once it is given what it asks for is the ask
again, no new way forward (`_replies._unconditioned`). Healthy twins: the thing given, the other
side looking for it or talking around it, a different piece asked for each time, a checklist
answered "no", a refusal repeated once then a transfer."""

from __future__ import annotations

import pytest

from loopmetric import detect_loops, read_chat_messages
from loopmetric.detectors._replies import _unconditioned
from loopmetric.detectors._stances import offered, stems
from tests._traces import chat

OPENING = "My parcel never arrived and I want to report it."
# The same ask reworded: the third reply asks only in its stances ("Is there any chance ...",
# its tracking number in a sentence that says no), the fourth offers what the agent will do as
# soon as it has the number.
ASKS = ["I'm sorry to hear that. Could you give me the tracking number from your shipping email?",
        "To open a report I need the tracking number. Do you have it anywhere?",
        "Without the tracking number I can't open the report. Is there any chance it's saved in your account?",
        "Please send me the tracking number. As soon as you find it I can file the claim and arrange a refund.",
        "I still need that tracking number before I can do anything. Could you give it to me?"]
LACKS = ["That email is gone, I don't have it.", "No, I don't have it anywhere.",
         "There's no tracking number in my account.", "I can't find it, I told you.", "I really don't have it."]


def restated(messages):
    """The `repeated_reply` findings of the conversation."""
    return [f for f in detect_loops(messages).findings if f.pattern == "repeated_reply"]


LOOPS = [pytest.param(n, id=f"the-same-ask-{n}-times-while-the-other-side-lacks-it") for n in (3, 4, 5)]


@pytest.mark.parametrize("times", LOOPS)
def test_asked_for_what_the_other_side_lacks(times):
    """Three, four, five asks for the tracking number, each answered "I don't have it": one
    finding over every reply, naming what was asked for, how many times, and that the other side
    lacked it."""
    messages = chat(OPENING, ASKS[:times], LACKS)
    (finding,) = restated(messages)
    replies = tuple(step.step for step in read_chat_messages(messages).steps if step.kind == "llm")
    assert (finding.count, finding.steps) == (times, replies)
    assert f"in other words {times} times in a row (" in finding.message
    assert "asking again for the same thing (tracking number)" in finding.message
    assert "the other side said each time that it did not have it or could not give it" in finding.message


AROUND = ["It was a birthday present for my sister.", "She was really upset about it.",
          "It was meant to arrive on her birthday.", "Ok."]
BESIDES = ["I don't have it. My order number is 55123, though.", *LACKS[1:]]  # (a fact told besides a no)
FARE = "I want a refund for my plane ticket."
FARE_REFUSALS = ["I'm sorry, but this ticket is non-refundable, so I can't issue a refund.",
                 "Unfortunately, basic fares like yours don't qualify for refunds under our terms.",
                 "I understand your frustration. However, the fare you purchased carries no refund option.",
                 "I'm afraid a refund isn't possible on this fare, as the terms say."]
NO_MONEY = ["I don't have the money for another ticket.", "I can't afford a new fare.",
            "I don't have any other way to get there.", "I have no savings left."]
LACKING, RESTATED = "lacking", "restated"  # a finding that says the other side lacked it; one that does not
# One way of asking again at a time: the same request (its asks share stems: "give me the tracking
# number" then "send me the tracking number"), the same question (its stances ask about the same
# thing: "Could you give me ...?" then "Is there any chance ...?"), or neither (the same no).
ONE_WAY = [
    pytest.param(OPENING, [ASKS[3], ASKS[1], ASKS[0]], LACKS, LACKING,
                 id="the-same-request-three-times-while-the-other-side-lacks-it"),
    pytest.param(OPENING, [ASKS[3], ASKS[1], ASKS[0]], AROUND, RESTATED,
                 id="twin-the-same-request-three-times-while-the-other-side-talks-around-it"),
    pytest.param(OPENING, [ASKS[0], ASKS[2], ASKS[3]], LACKS, LACKING,
                 id="the-same-question-three-times-while-the-other-side-lacks-it"),
    pytest.param(OPENING, [ASKS[0], ASKS[2], ASKS[3]], AROUND, None,
                 id="twin-the-same-question-three-times-while-the-other-side-talks-around-it"),
    pytest.param(FARE, FARE_REFUSALS[:3], NO_MONEY, None, id="the-same-no-three-times-while-the-other-side-lacks-money"),
    pytest.param(FARE, FARE_REFUSALS, NO_MONEY, RESTATED, id="the-same-no-four-times-while-the-other-side-lacks-money"),
    # (a fact told besides a no is no answer: a reply that does not tell it has not used it)
    pytest.param(OPENING, ASKS[:3], BESIDES, LACKING,
                 id="lacking-it-and-giving-the-order-number-the-agent-leaves-unused"),
    pytest.param(OPENING, [ASKS[0], "Thanks, order 55123. Could you also give me the tracking number from your shipping "
                                    "email?", ASKS[1]], BESIDES, None,
                 id="twin-lacking-it-and-giving-the-order-number-the-next-reply-uses"),
]


@pytest.mark.parametrize(("opening", "replies", "turns", "found"), ONE_WAY)
def test_asked_again_one_way_while_the_other_side_lacks_it(opening, replies, turns, found):
    """Asked again only by the same request, or only by the same question, while the other side says
    each turn it lacks the thing: a loop at three replies that says so (the same request is a loop at
    three whatever the turns, and says nothing of lacking when they talk around it; the same question
    talked around is still working it out). The same no said while the other side lacks money asks for
    nothing: a refusal restated, a loop at four that says nothing of lacking. A reply that leaves unused
    the order number told besides a no asks again as if nothing was told; one that uses it moves on."""
    found_now = restated(chat(opening, replies, turns))
    if found is None:
        assert found_now == [], [f.message for f in found_now]
        return
    (finding,) = found_now
    assert finding.count == len(replies)
    said = "the other side said each time that it did not have it or could not give it" in finding.message
    assert said is (found == LACKING), finding.message


HEALTHY = [
    pytest.param(ASKS[:2] + ["Thanks, I've opened report R-2291 for parcel TR-55120931; you'll hear from us within "
                             "two days.", "You're welcome!"],
                 ["I don't have it with me.", "Found it: TR-55120931.", "Great, thanks.", "Bye."],
                 id="asked-twice-then-given-then-moves-on"),
    pytest.param(ASKS[:4], ["I don't have it here, I'll check my email.", "Not yet, let me look in my account.",
                            "I'm going to search my old emails, I don't have it yet.", "Ok."],
                 id="asked-while-the-other-side-looks"),
    pytest.param(ASKS[:4], ["It was a birthday present for my sister.", "She was really upset about it.",
                            "It was meant to arrive on her birthday.", "Ok."],
                 id="asked-while-the-other-side-talks-around-it"),
    pytest.param(["I'm sorry to hear that. Could you give me the tracking number from your shipping email?",
                  "No problem. What date did you place the order?",
                  "That's fine. Which email address did you use at checkout?",
                  "Thanks. Could you tell me the delivery postcode?"],
                 ["I don't have it.", "I don't remember the date.", "I'm not sure, I have several.", "It's 4021."],
                 id="a-different-missing-piece-each-time"),
    pytest.param(["Before your appointment, do you have any allergies?",
                  "Are you taking any medication at the moment?",
                  "Have you had surgery in the past year?",
                  "Thanks, you're all set for Tuesday at 9:00."],
                 ["No.", "No, none.", "No.", "Great."], id="a-checklist-answered-no-each-time"),
    pytest.param(["I'm sorry, this parcel was sent as a non-refundable promotion, so I can't issue a refund.",
                  "Unfortunately promotional parcels don't qualify for refunds under our terms.",
                  "I'm transferring you to a claims specialist now, who can review a replacement."],
                 ["But it never arrived!", "I still want my money back.", "Ok, thanks."],
                 id="a-refusal-repeated-once-then-a-transfer"),
]


HEALTHY.append(pytest.param(ASKS[:3], ["It was a birthday present for my sister.", "No, I don't have it anywhere.",
                                        "There's no tracking number in my account."],
                            id="asked-three-times-the-first-answer-talking-around-it-then-lacking-it"))


REFUSALS = ["I'm sorry, but this ticket is non-refundable, so I can't issue a refund.",
            "Unfortunately, basic fares like yours don't qualify for refunds under our terms.",
            "I understand your frustration. However, the fare you purchased carries no refund option."]
HEALTHY.append(pytest.param([reply + " Is there anything else I can help with?" for reply in REFUSALS],
                            ["That's not fair, I didn't know that.", "No, I don't accept that.", "Ok."],
                            id="a-refusal-asking-anything-else-said-three-times-to-a-no"))


@pytest.mark.parametrize(("replies", "turns"), HEALTHY)
def test_healthy_twins_stay_healthy(replies, turns):
    """The thing given, the other side saying it will look or talking around it (neither says it
    lacks the thing: asking three or four times is still working out what can be done), a different
    piece asked for each time,
    a checklist answered "no", a refusal repeated once then a transfer, a refusal said three times to
    a side that says no back (each reply asking besides whether there is anything else: no link asks
    again, and a refusal restated is a loop at four): no repeated reply."""
    assert restated(chat(OPENING, replies, turns)) == []


CONDITIONED = [
    pytest.param("Please send the number. As soon as you find it I can file the claim and arrange a refund.",
                 frozenset(), id="as-soon-as-you-find-it"),
    pytest.param("Once you have the number I'll file the claim and arrange a refund.", frozenset(),
                 id="once-you-have-it"),
    pytest.param("I can file a claim and arrange a refund right away.",
                 stems("file a claim and arrange a refund right away"), id="an-offer-with-no-condition"),
]


@pytest.mark.parametrize(("text", "left"), CONDITIONED)
def test_an_offer_once_given_what_was_asked_is_the_ask(text, left):
    """What the agent will do once it is given what it asks for offers no new way forward; an offer
    with no such condition is kept whole."""
    assert _unconditioned(offered(text), text) == left
