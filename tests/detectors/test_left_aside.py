"""What a conversation loop leaves aside (`_replies._restated`): a fact the other side tells while it
pushes back ("my direct debit goes out on the 14th, can't it be faster?") that the agent's reply neither
tells nor works with, the reply before having asked for nothing, does not end a chain of the same
status told again; and a refusal restated that adds a line of facts once ("call 111 if your breathing
gets worse") stays in a chain of the same refusal when nobody takes those facts up before the next
reply says no again. Healthy twins: a fact told plainly, a fact the reply uses, a fact given to a
question the agent asked, a line the other side takes up or the agent says again, an agent that tells
something new reply after reply, and a reply that tells new facts without saying no."""

from __future__ import annotations

import pytest

from loopmetric import detect_loops, read_chat_messages
from tests._traces import chat


def _restated(messages):
    return [f for f in detect_loops(messages).findings if f.pattern == "repeated_reply"]


def _replies(messages):
    return tuple(step.step for step in read_chat_messages(messages).steps if step.kind == "llm")


FEE = "I want the 40 pound late fee on my phone bill taken off."
# The same status (the request's reference, the team, five working days, by email), reworded
STATUS = ["I've passed your request to our Billing Review team under reference BR-5521. They decide within "
          "5 working days and will email you the outcome.",
          "I completely understand your direct debit timing matters. Your request BR-5521 sits with the Billing "
          "Review team, who reply by email within 5 working days.",
          "I'm sorry for the wait. BR-5521 is in the queue there, and the decision will reach your inbox inside "
          "5 working days.",
          "Right now case BR-5521 remains open with those reviewers; expect a message from them no later than "
          "5 working days in.",
          "Billing Review holds BR-5521. Give it up to 5 working days: the answer comes by email."]
# The other side pushes back (it asks or says no), each time telling a date or a count nobody had told
PUSHING = ["Who decides that? My direct debit goes out on the 14th, can't it be quicker?",
           "Can't it be faster? I get paid on the 28th, that's 2 weeks away.",
           "So what do I do until the 3rd of next month?",
           "Why can nobody decide before the 9th?"]

# A status told again while the other side pushes back with facts the replies leave aside: a loop at
# four replies, as the same facts told again always are (three are a status asked after more than once).
LEFT_ASIDE = [pytest.param(n, n >= 4, id=f"the-same-status-{n}-times-facts-left-aside") for n in (3, 4, 5)]


@pytest.mark.parametrize(("times", "loop"), LEFT_ASIDE)
def test_facts_told_while_pushing_back_and_left_aside_do_not_end_the_chain(times, loop):
    messages = chat(FEE, STATUS[:times], PUSHING)
    found = _restated(messages)
    assert bool(found) is loop, [f.message for f in found]
    if loop:
        (finding,) = found
        assert (finding.count, finding.steps) == (times, _replies(messages))
        assert "telling the same facts again" in finding.message


# Each twin: five replies, and a reason the turns' facts were news
FACTS_TAKEN = [
    pytest.param(STATUS, ["My direct debit goes out on the 14th.", "I get paid on the 28th.",
                          "My next bill is dated the 3rd.", "The one after that is dated the 9th."],
                 id="twin-facts-told-plainly-pushing-nothing-back"),
    # (each reply the first again, with the date the turn told: only the fact moves on)
    pytest.param([STATUS[0]] + [f"{date}: your request BR-5521 is with our Billing Review team, who decide within 5 "
                                "working days and email you the outcome."
                                for date in ("Before the 14th? Yes", "By the 28th, yes", "Before the 3rd, yes",
                                             "Before the 9th too")], PUSHING, id="twin-the-reply-tells-the-turns-fact"),
    pytest.param([STATUS[0]] + ["Your direct debit can still go out as planned; BR-5521 sits with the Billing Review "
                                "team, who reply by email within 5 working days.",
                                "Being paid late in the month is common; BR-5521 is in the queue there, and the "
                                "decision will reach your inbox inside 5 working days.",
                                "Until next month your account stays as it is; case BR-5521 remains open with those "
                                "reviewers, a message no later than 5 working days in.",
                                "Nobody can decide faster than Billing Review: BR-5521 gets its answer by email "
                                "within 5 working days."], PUSHING, id="twin-the-reply-works-with-what-the-turn-brought"),
    pytest.param([text + " " + question for text, question in zip(STATUS, [
        "Which date does your direct debit leave on?", "And when are you paid?", "When is your next bill dated?",
        "By when do you need the money back?", ""])],
                 ["On the 14th, can't it be quicker?", "On the 28th, that's 2 weeks away. Can't it be faster?",
                  "The 3rd. So what do I do until then?", "By the 9th, why can nobody decide before?"],
                 id="twin-the-reply-before-asked-for-the-fact"),
]


@pytest.mark.parametrize(("replies", "turns"), FACTS_TAKEN)
def test_facts_told_plainly_used_or_asked_for_end_the_chain(replies, turns):
    messages = chat(FEE, replies, turns)
    assert detect_loops(messages).success, detect_loops(messages).reason


MOVE = "I need to move my flight to Friday."
DECLINES = ["This ticket is a Basic fare, and Basic fares can't be moved to another date.",
            "I understand. Even so, a Basic ticket can't be rebooked onto a different date.",
            "There is no fee that would allow it; Basic fares stay on the date they were bought for.",
            "I hear you, but a Basic fare can't be changed, with or without a payment.",
            "Unfortunately a Basic booking keeps its original date; there's no way to move it."]
ARGUING = ["But it's only 2 days later, and the app shows 40 free seats on Friday?",
           "Can't I pay the 25 euro change fee then?", "That's ridiculous, other airlines allow it for 30 euros!",
           "So what now?"]
DECLINED = [pytest.param(DECLINES[:n], n >= 4, id=f"the-same-no-{n}-times-facts-left-aside") for n in (3, 4, 5)] + [
    pytest.param(DECLINES[:1] + ["The free seats in the app are real. Even so, a Basic ticket can't be rebooked onto "
                                 "a different date."] + DECLINES[2:4], False,
                 id="twin-the-reply-works-with-what-the-turn-brought")]


@pytest.mark.parametrize(("replies", "loop"), DECLINED)
def test_a_no_said_again_to_facts_left_aside_is_a_loop_at_four(replies, loop):
    """The other side argues with numbers ("only 2 days later", "the 25 euro fee") and the agent says
    the same no: the numbers end nothing; a reply that works with what the turn brought ("the free
    seats in the app are real") outside its no took it up, and the chain starts again there."""
    messages = chat(MOVE, replies, ARGUING)
    found = _restated(messages)
    assert bool(found) is loop, [f.message for f in found]
    if loop:
        (finding,) = found
        assert (finding.count, finding.steps) == (len(replies), _replies(messages))


REFILL = "I need my inhaler refill today, I've run out."
REFUSALS = ["I'm sorry, but your asthma review is overdue, so I can't issue the refill until it's done.",
            "I understand. Because the review is overdue, the refill can't be issued right now.",
            "I'm afraid not: without an up-to-date review the refill cannot be authorised. If your breathing "
            "gets worse, please call 111, or 999 in an emergency.",
            "I'm sorry, my answer stays the same: with the review overdue I can't issue the refill.",
            "Unfortunately the refill can't be sent while the review is overdue."]
PRESSING = ["But I can't breathe properly without it.", "Can't you make an exception?",
            "I'm fine, I just need the inhaler.", "Seriously?"]

# A refusal said again in other words, one of them adding a line of facts nobody takes up: a loop at
# four replies, as any refusal restated is, the reply with the line counted in.
A_LINE_ONCE = [pytest.param(n, n >= 4, id=f"the-same-refusal-{n}-times-one-adding-a-line") for n in (3, 4, 5)]


@pytest.mark.parametrize(("times", "loop"), A_LINE_ONCE)
def test_a_line_of_facts_said_once_among_refusals_does_not_end_the_chain(times, loop):
    messages = chat(REFILL, REFUSALS[:times], PRESSING)
    found = _restated(messages)
    assert bool(found) is loop, [f.message for f in found]
    if loop:
        (finding,) = found
        assert (finding.count, finding.steps) == (times, _replies(messages))
        assert "saying no to the same thing again" in finding.message


LINE_TAKEN = [
    pytest.param(REFUSALS, PRESSING[:2] + ["OK, I'll call 111 then.", "Seriously?"],
                 id="twin-the-other-side-takes-the-line-up"),
    pytest.param(REFUSALS[:3] + ["I'm sorry, I can't issue the refill with the review overdue; do call 111 if your "
                                 "breathing worsens.", REFUSALS[4]], PRESSING,
                 id="twin-the-next-reply-tells-its-facts-again"),
    pytest.param(REFUSALS[:3] + ["I can't issue the refill, I'm afraid. The walk-in centre on 12 Mill Road sees "
                                 "patients until 8pm.", REFUSALS[4]], PRESSING,
                 id="twin-the-next-reply-tells-new-facts-too"),
    pytest.param(REFUSALS[:2] + ["Our nurse line is open 8am to 6pm on 0300 123 4567; the nurses book asthma "
                                 "reviews and can often fit one in the same week."] + REFUSALS[3:], PRESSING,
                 id="twin-a-reply-with-new-facts-that-says-no-no"),
]


@pytest.mark.parametrize(("replies", "turns"), LINE_TAKEN)
def test_a_line_taken_up_said_again_or_followed_by_more_news_ends_the_chain(replies, turns):
    """Five replies: the chain ends before the reply that added the line, and neither part is four
    refusals long."""
    messages = chat(REFILL, replies, turns)
    assert detect_loops(messages).success, detect_loops(messages).reason
