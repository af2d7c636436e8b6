"""The same stance in other words: turn after turn the agent says no, states its rule (a rule is
a no given its reason: `_replies._same_stance`) or asks the other side to wait, in words that
share next to nothing with the reply before, while it uses none of the words the other side's
turns brought; a no stays on what the chain's first reply was about. Four such replies are a
loop at the default settings, three are not; healthy twins take up what they were told, tell
something new, or move on."""

from __future__ import annotations

import pytest

from loopmetric import detect_loops, read_chat_messages
from loopmetric.detectors._replies import _same_stance
from loopmetric.detectors._stances import Stances


def chat(opening, replies, turns):
    messages = [{"role": "user", "content": opening}]
    for reply, turn in zip(replies, turns + [None] * len(replies)):
        messages.append({"role": "assistant", "content": reply})
        if turn is not None:
            messages.append({"role": "user", "content": turn})
    return messages


# Every reply says no; each shares a word with the first ("address", "order", "deliver", "courier"),
# not always one the reply before shared with it: the subject is the first reply's.
ADDRESS = "I put the wrong address on my order, it should be 14 Quay Street. Can you change it?"
ADDRESS_NOES = [
    "Your order has already been picked up by the courier, so the delivery address can no longer be edited.",
    "Once a driver has the food, the drop-off address is locked and I'm unable to update it.",
    "I'm afraid the order can't be modified at this stage, since it is already out for delivery.",
    "Changes to where the order goes aren't possible after pickup, unfortunately.",
    "The courier's route cannot be altered now that the order left the restaurant.",
]
ADDRESS_PRESS = ["Please, it's just two digits swapped.", "Just change it please!!", "Come on.", "Seriously?", "Hello?"]
# A rule, a no, a rule, a no: the same refusal given with its reason and without (a rule and a no
# are one stance here; no two replies in a row share a stance word).
CANCEL = "I'd like to cancel my gym membership."
CANCEL_RULES = [
    "Memberships can only be cancelled in person at your home club's front desk.",
    "I understand, but a cancellation can't be done over chat or by phone.",
    "Ending a membership has to happen face-to-face at the club where you signed up.",
    "Unfortunately there is no remote way to cancel a membership.",
    "The policy is that the front desk of your home club handles every cancellation.",
]
CANCEL_PRESS = ["I moved away, I can't go there.", "That's predatory.", "Seriously?", "Fine, what else?", "Hm."]
# Stalling: the agent says it is on it, turn after turn, and nothing comes of it.
LATE = "My order QP-88213 is 40 minutes late. Where is it?"
STALLS = [
    "Let me look into that for you right away, one moment please.",
    "Thanks for waiting! I'm checking with the restaurant now.",
    "Just a moment longer while I get an update.",
    "I appreciate your patience. Give me a second to see what's happening with the courier.",
    "Bear with me, I'm pulling up the latest details now.",
]
STALL_PRESS = ["ok", "and?", "Still nothing? I'm starving here.", "?", "This is a joke."]

KINDS = {"refusal": (ADDRESS, ADDRESS_NOES, ADDRESS_PRESS, "saying no to the same thing again"),
         "rule-and-no": (CANCEL, CANCEL_RULES, CANCEL_PRESS, "taking the same stance in other words"),
         "stalling": (LATE, STALLS, STALL_PRESS, "taking the same stance in other words")}


@pytest.mark.parametrize(("kind", "times"), [pytest.param(kind, n, id=f"{kind}-{n}-times")
                                             for kind in KINDS for n in (3, 4, 5)])
def test_the_same_stance_in_other_words_is_a_loop_from_four_replies(kind, times):
    opening, replies, turns, says = KINDS[kind]
    messages = chat(opening, replies[:times], turns)
    report = detect_loops(messages)
    assert report.success is (times < 4), report.reason
    if times >= 4:
        (finding,) = report.findings
        steps = tuple(step.step for step in read_chat_messages(messages).steps if step.kind == "llm")
        assert (finding.pattern, finding.count, finding.steps) == ("repeated_reply", times, steps)
        assert says in finding.message


HEALTHY = [
    pytest.param(CANCEL, CANCEL_RULES[:2] + [
        "A letter to your home club works too: send it to the address on your contract.",
        "Once the club has your letter, the membership ends at the end of the month."],
        ["Can I send a letter instead?", "Great, thanks."], id="the-reply-takes-up-what-the-turn-brought"),
    pytest.param(LATE, STALLS[:2] + ["Good idea, I'm contacting the driver now, one moment.", STALLS[2]],
                 ["ok", "Can you call the driver?", "ok"], id="a-stall-that-takes-up-what-the-turn-asked"),
    pytest.param(LATE, STALLS[:3] + ["The courier picked it up at 7:40 and is 5 minutes away."],
                 STALL_PRESS, id="stalling-then-an-answer-that-tells-something-new"),
    pytest.param("Help me set up my account.", [
        "Could you tell me your full name?", "Thanks. What email address should we use?",
        "Got it. Which city do you live in?", "And finally, what's your date of birth?"],
        ["Maria Lindqvist", "maria@example.org", "Uppsala", "3 March 1981"], id="asking-for-different-things-answered"),
    pytest.param("Can you book me a hotel, a car and a cabin seat for my dog?", [
        "Sorry, I cannot book hotels, only flights.", "I'm unable to arrange car rentals, I'm afraid.",
        "Pets are not allowed in the cabin on this route.", "I can't change the passenger name on a ticket."],
        ["Then can you rent me a car?", "Can my dog come with me in the cabin?",
         "Can you put my wife's name on the ticket?", "Fine."], id="a-no-to-each-new-request"),
    pytest.param("Tell me a story about a lighthouse cat.", [
        "Pebble the cat lived in a lighthouse and could not sleep while the lamp was dark.",
        "One stormy night the keeper twisted her ankle and couldn't climb the stairs.",
        "Pebble raced up alone, but the switch would not move: a moth had jammed it.",
        "She nudged the moth free, the beam blazed out, and no ship struck the rocks."],
        ["continue", "continue", "continue", "the end?"], id="a-story-whose-people-cannot-do-things"),
]


@pytest.mark.parametrize(("opening", "replies", "turns"), HEALTHY)
def test_replies_that_take_up_what_they_were_told_or_move_on_pass(opening, replies, turns):
    report = detect_loops(chat(opening, replies, turns))
    assert report.success, report.reason


def test_a_tool_call_between_stalls_ends_the_chain():
    """Two stalls, a lookup whose answer is new, two stalls: no four in a row."""
    messages = chat(LATE, STALLS[:2], STALL_PRESS[:2])
    messages.append({"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "order_status", "arguments": '{"id": "QP-88213"}'}}]})
    messages.append({"role": "tool", "tool_call_id": "c1", "content": '{"status": "preparing"}'})
    messages += chat("", STALLS[2:4], STALL_PRESS[2:4])[1:]
    report = detect_loops(messages)
    assert report.success, report.reason


def _st(kinds="", about="", said=""):
    return Stances(frozenset(kinds.split()), frozenset(about.split()), frozenset(said.split()))


SAME_STANCE = [
    pytest.param(_st("no", "addres edit", "addres edit"), _st("no", "driver lock", "driver lock"), "", "addres",
                 "stance", id="a-no-again-on-the-chains-subject"),
    pytest.param(_st("no", "pet cabin", "pet cabin"), _st("no", "driver lock", "driver lock"), "", "addres",
                 None, id="a-no-off-the-chains-subject"),
    pytest.param(_st("rule", "addres club", "addres club"), _st("no", "lock", "lock"), "", "addres",
                 "stance", id="a-rule-after-a-no-is-the-same-stance"),
    pytest.param(_st("no", "addres letter", "addres letter"), _st("no", "lock", "lock"), "letter", "addres",
                 None, id="a-reply-using-what-the-turn-brought"),
    pytest.param(_st("sorry", "sofa", "sofa"), _st("sorry", "team", "team"), "", "addres",
                 "stance", id="an-apology-again-on-any-subject"),
    pytest.param(_st("wait", "courier", "courier"), _st("wait", "restaur", "restaur"), "", "addres",
                 "stance", id="a-wait-again-on-any-subject"),
    pytest.param(_st("ask", "addres", "addres"), _st("ask", "addres", "addres"), "", "addres",
                 None, id="asking-again-is-not-this-links-to-judge"),
    pytest.param(_st("no", "addres", "addres"), _st("sorry", "addres", "addres"), "", "addres",
                 None, id="another-stance"),
]


@pytest.mark.parametrize(("reply", "earlier", "fresh", "subject", "expected"), SAME_STANCE)
def test_same_stance(reply, earlier, fresh, subject, expected):
    assert _same_stance(reply, earlier, frozenset(fresh.split()), frozenset(subject.split())) == expected


def test_a_word_the_other_side_said_before_is_not_brought_again():
    """The person asks for the driver, then for the driver again two turns later: the second time
    the word is no news, so a stall that names the driver still stalls (four in a row)."""
    replies = [STALLS[0], STALLS[1], STALLS[2], "Bear with me, I'm still trying to reach the driver."]
    report = detect_loops(chat(LATE, replies, ["Can you call the driver?", "ok", "The driver, please."]))
    assert [(f.pattern, f.count) for f in report.findings] == [("repeated_reply", 4)], report.reason
