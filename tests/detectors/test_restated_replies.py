"""The same answer in other words, at the default settings: a conversation loop is turn
after turn of the agent saying what one of its recent replies said (the same request,
refusal, rule or apology, reworded), while the other side's turns bring nothing it takes
up, no tool runs and no new fact enters (`_replies._restated`, `_stances`). Each kind is
reworded 3, 4 and 5 times; healthy twins keep moving. Whose repeat it is (the agent's, the
harness's, the user's) is told apart in the reason."""

from __future__ import annotations

import pytest

from loopmetric import detect_loops, read_chat_messages
from loopmetric.detectors._replies import _offers_new, _says_again
from loopmetric.detectors._stances import Stances, offered, stances, stems, waits_only
from tests._traces import chat

OPENING = {"refusal": "I want a refund for my flight to Denver.",
           "request": "I need to change the date of my trip.",
           "policy": "I'd like to upgrade my seat to business.",
           "apology": "My order still hasn't arrived."}
REPLIES = {
    "refusal": ["I'm sorry, but this ticket is non-refundable, so I can't issue a refund.",
                "Unfortunately, basic fares like yours don't qualify for refunds under our terms.",
                "I understand your frustration. However, the fare you purchased carries no refund option.",
                "I'm afraid I'm not able to return the money for this booking; the fare rules exclude refunds.",
                "As mentioned, refunds aren't available for this type of ticket, and I have no way to override that."],
    "request": ["To look into this, could you give me your booking reference?",
                "I'll need the booking reference before I can check anything. Do you have it handy?",
                "Without the reference code I can't pull up your reservation. Could you check your confirmation email for it?",
                "Please send me the six-character booking reference when you can.",
                "I do need that booking reference to continue. Could you look for it once more?"],
    "policy": ["Our policy is that seat upgrades must be requested at least 24 hours before departure.",
               "Upgrades need to be arranged a day ahead of the flight, per our rules.",
               "As per the airline's guidelines, upgrade requests close 24 hours prior to departure.",
               "The rule is firm: any upgrade has to be made no later than one day before the flight leaves.",
               "Per policy, we only accept upgrade requests more than 24 hours before departure time."],
    "apology": ["I'm really sorry about the delay with your order.",
                "I apologize for the inconvenience this delay has caused you.",
                "I completely understand your frustration, and I'm sorry your order is late.",
                "My sincere apologies that your package hasn't arrived yet.",
                "Again, I'm very sorry for the trouble with this late delivery."],
}
PRESS = {"refusal": ["But I really need my money back.", "Please, can't you make an exception this once?",
                     "This is unfair, I want a refund.", "I'm asking you again to refund me.",
                     "Is there really nothing you can do?"],
         "request": ["I can't find it anywhere.", "I've looked, it's not in my email.", "I really don't have it.",
                     "Still nothing, sorry.", "I don't know where it is."],
         "policy": ["But I really want the upgrade.", "Can't you bend the rule?", "Other airlines do it.",
                    "Please, just this once.", "Why not?"],
         "apology": ["When will it arrive?", "That doesn't help, where is my package?", "I need it today.",
                     "Can you do anything?", "Hello?"]}



SAYS = {"refusal": "saying no to the same thing again", "request": "asking again for the same thing",
        "policy": "restating the same rule", "apology": "apologizing again"}

# Apologizing and doing nothing else is a loop at three replies; saying no or the rule again at
# four (`_replies` says why). These requests ask for the reference, then for a look in the email
# (another ask: `test_same_act_again` asks for one thing three times), then for the reference:
# asking again, with others between, is a loop at five, and at three here, where each turn of the
# other side says it does not have it (`test_asked_for_what_the_other_side_lacks`).
LOOP_AT = {"refusal": 4, "request": 3, "policy": 4, "apology": 3}
REWORDED = [pytest.param(kind, n, n >= LOOP_AT[kind], id=f"{kind}-reworded-{n}-times")
            for kind in REPLIES for n in (3, 4, 5)]


@pytest.mark.parametrize(("kind", "times", "loop"), REWORDED)
def test_the_same_thing_in_other_words_is_a_loop(kind, times, loop):
    """Four replies saying no or the rule to a pressing user, three apologizing and doing nothing
    else, three asking again for what the other side says each time it does not have: stuck. Fewer are still a conversation working out what can be done
    (these turns press in other words each time; a demand pressed in the same words is below)."""
    messages = chat(OPENING[kind], REPLIES[kind][:times], PRESS[kind])
    report = detect_loops(messages)
    assert report.success is (not loop), report.reason
    if loop:
        (finding,) = report.findings
        replies = tuple(step.step for step in read_chat_messages(messages).steps if step.kind == "llm")
        assert (finding.pattern, finding.count, finding.steps) == ("repeated_reply", times, replies)
        assert SAYS[kind] in finding.message and finding.message.startswith("The agent said the same thing")
        assert ("while the other side said each time that it did not have it" if kind == "request"
                else "while the other side's turns brought nothing it took up") in finding.message


# A guided fix whose person tries each remedy on their own phone: the turns say what they changed
# (a format that does not hold the person's own tool calls keeps only these words).
REMEDIES = [
    "Wi-Fi Calling can block picture messages. Could you switch Wi-Fi Calling off and send the picture message once "
    "more?",
    "Sorry it still fails. A restart often clears this: please restart the phone, then send the picture message again "
    "and let me know.",
    "Thanks for trying. Could you open the network settings, choose reset, and send the picture message again?",
    "The messaging app may lack storage access. Please allow storage for it in the app settings and try the picture "
    "message again.",
    "One more idea: mobile data must be on for picture messages. Please switch it on and send one more picture "
    "message."]
REMEDIES_TRIED = ["I turned off Wi-Fi Calling, but it still doesn't go through.",
                  "I restarted my phone, but it still doesn't go through.",
                  "I reset the network settings, but it still doesn't go through.",
                  "I enabled storage for the app, but it still doesn't go through.",
                  "I turned on mobile data and now it works!"]

HEALTHY = [
    pytest.param("Help me set up my new router.", [
        "First, plug the router into power and wait for the light to turn green.",
        "Next, connect your computer to the network named on the sticker under the router.",
        "Now open a browser and go to 192.168.1.1 to reach the setup page.",
        "Choose a new Wi-Fi name and a strong password, then save.",
        "Finally, reconnect your devices using the new password. You're all set!"],
        ["ok", "yes", "done", "ok, continue", "thanks"], id="yes-and-ok-to-replies-that-move-on"),
    pytest.param("What time does the museum open?", [
        "The museum opens at 9 am every day except Monday.",
        "Tickets cost 15 euros for adults and are free for children under 12.",
        "Yes, there is a cafe on the ground floor serving lunch until 3 pm.",
        "The nearest metro station is Louvre-Rivoli on line 1.",
        "Large bags must be left in the cloakroom at the entrance."],
        ["How much are tickets?", "Is there a place to eat?", "How do I get there by metro?",
         "Can I bring my backpack?", "Great, thanks!"], id="many-questions-each-answered"),
    pytest.param("I need to change my flight.", [
        "Sure. Could you give me your booking reference?",
        "I'll need the booking reference to find your trip. Could you check your email?",
        "Thanks, I found booking QX7P2L. Which date would you like to move to?",
        "Done: your flight is now on 14 March at 10:05. Anything else?"],
        ["I don't have it with me.", "Found it: QX7P2L.", "The 14th of March, please.", "No, that's all."],
        id="a-question-repeated-once-then-answered"),
    pytest.param("How do I bake bread?", [
        "Step 1: mix 500 g flour, 10 g salt and 7 g yeast in a large bowl.",
        "Step 2: add 350 ml warm water and knead the dough for ten minutes until smooth.",
        "Step 3: cover the bowl and let the dough rise for an hour in a warm place.",
        "Step 4: shape the loaf, place it on a tray and let it rise for another 30 minutes.",
        "Step 5: bake at 220 C for 30 minutes until the crust is golden."],
        ["next", "next", "next", "next", "thanks"], id="a-step-by-step-guide"),
    pytest.param("Tell me a story about a lighthouse keeper.", [
        "Once upon a time, an old keeper named Ada tended a lighthouse on a lonely northern cliff.",
        "One stormy night, Ada saw a small boat drifting toward the rocks with its sail torn.",
        "She lit every lamp she had and swung the great beam toward the sailors, guiding them into the bay.",
        "At dawn the grateful fishermen climbed the stairs with bread, cheese and a jar of honey for her.",
        "From then on, the village took turns keeping Ada company, and the lighthouse was never lonely again."],
        ["continue", "continue", "continue", "continue", "lovely"], id="a-story-told-in-parts"),
    pytest.param(OPENING["refusal"], [
        REPLIES["refusal"][0], REPLIES["refusal"][1],
        "What I can do is move your trip to another date for free, or give you travel credit worth the fare.",
        "Great, I've issued travel credit to your account, valid for twelve months.",
        "You're welcome, enjoy your next trip."],
        ["But I really need my money back.", "Is there anything at all?", "The credit sounds fine.", "Thanks."],
        id="a-refusal-repeated-once-then-an-alternative"),
    pytest.param(OPENING["request"], REPLIES["request"],
                 ["It's ZX81QK.", "Sorry, it's ZX81QL.", "Maybe AB12CD?", "Try QQ77RR.", "Last one: MN45OP."],
                 id="each-turn-brings-a-new-id"),
    pytest.param("My phone cannot send picture messages.", [
        "Let's check your phone's network first. On your phone, please run check_network_status() and tell me what "
        "it reports.",
        "Thanks. Next, please run check_apn_settings() on your phone and tell me what it reports.",
        "Good. Now please run check_wifi_calling() on your phone and tell me what it reports.",
        "Next, please run check_app_permissions() on your phone and tell me what it reports.",
        "Now please run can_send_mms() on your phone and tell me what it reports."],
        ["It reports full signal and mobile data on.", "It reports the usual settings.", "It reports it is off.",
         "It reports only the phone permission.", "It reports that it works now!"],
        id="a-new-check-named-in-code-each-time"),
    pytest.param("My phone cannot send picture messages.", REMEDIES, REMEDIES_TRIED, id="each-turn-says-another-remedy-was-tried"),
    pytest.param("My phone cannot send picture messages.", [
        f"Please {remedy}, then try sending the picture message again and tell me if it goes through."
        for remedy in ("turn off Wi-Fi Calling", "restart your phone", "reset your network settings",
                       "grant the messaging app its storage permission", "turn on mobile data")],
        REMEDIES_TRIED, id="the-same-words-around-another-remedy-each-turn"),
    pytest.param("Where can I download the driver?", REPLIES["request"],
                 ["Is it http://example.com/drivers?", "Or http://example.com/support?", "Maybe https://dl.example.org?",
                  "Try http://example.net/get.", "Last: http://example.io/d."],
                 id="each-turn-brings-a-new-link"),
]


# A demand pressed turn after turn (each turn says again what the turns before it asked for: two
# content stems in common) and refused, ruled or apologized for each time: three replies are a loop.
PRESSED = [
    pytest.param("I'd like a refund for the insurance I bought for my flight.", [
        "I'm sorry, but the travel insurance is non-refundable.",
        "I understand your frustration, but the insurance cannot be refunded under our terms.",
        "I'm afraid I can't make an exception: travel insurance is never refundable."],
        # (the third turn shares two stems with the first, "flight" and "insurance", one with the second)
        ["I'm unhappy with the service, so please refund the insurance anyway.",
         "I don't want to cancel the flight, only the insurance."],
        True, id="a-refund-refused-three-times-to-the-same-demand"),
    pytest.param("I'd like to upgrade my seat to business class.", [
        "Upgrades must be requested at least 24 hours before departure.",
        "Per our rules, a seat upgrade has to be arranged a day ahead of the flight.",
        "Under our policy, business upgrades close 24 hours before the flight."],
        ["Please upgrade my seat to business anyway.", "I really want a business seat upgrade on this flight."],
        True, id="a-rule-restated-three-times-to-the-same-demand"),
    pytest.param("My order still hasn't arrived.", [
        "I'm really sorry about the delay with your order.",
        "I apologize, I know it's frustrating that the order is late.",
        "My sincere apologies that your order hasn't arrived yet."],
        ["My order hasn't arrived, where is it?", "It's been weeks and my order still hasn't arrived!"],
        True, id="an-apology-three-times-to-the-same-complaint"),
    # twins: the same three replies, the other side asking for something else each time
    pytest.param("I'd like a refund for the insurance I bought for my flight.", [
        "I'm sorry, but the travel insurance is non-refundable.",
        "Unfortunately the insurance cannot be turned into travel credit either.",
        "I'm afraid the insurance cannot be moved to another booking."],
        ["Could I get travel credit for the flight instead?", "Then can my next flight booking use it?"],
        False, id="twin-three-refusals-each-to-another-request"),
    pytest.param("I'd like a refund for the insurance I bought for my flight.", [
        "I'm sorry, but the travel insurance is non-refundable. Shall I look at the cancellation options instead?",
        "Unfortunately the insurance cannot be refunded through a cancellation either. Could you tell me whether it "
        "was bought for a medical reason?",
        "I'm afraid the insurance is not refundable for that reason either."],
        # (each answer shares two stems with what the reply before it asked: "cancellation options",
        # "medical reason")
        ["Yes, the cancellation options, but I want the flight insurance refunded.",
         "No medical reason, I just want the flight insurance refunded."],
        False, id="twin-each-turn-answers-the-agents-question"),
    pytest.param("I'd like to upgrade my seat to business class.", [
        "Upgrades must be requested at least 24 hours before departure.",
        "Per our rules, a seat upgrade has to be arranged a day ahead of the flight.",
        "Under our policy, business upgrades close 24 hours before the flight."],
        ["Okay. What time does boarding start?", "And which gate is it?"],
        False, id="twin-a-rule-restated-while-the-other-side-moves-on"),
    pytest.param("I want the insurance on my flight refunded.", [
        "To look into the insurance, could you give me your booking reference?",
        "I'll need the booking reference for the flight before I can check the insurance.",
        "Please send me the booking reference so I can look at the insurance on your flight."],
        ["Just refund the insurance on my flight, please.", "I want the flight insurance refunded now."],
        False, id="twin-asking-three-times-for-a-missing-id-to-the-same-demand"),
    pytest.param("I want the insurance on my flight refunded.", [
        "Could you give me your booking reference?",
        "I'll need your booking reference before I can go on.",
        "Please send me the six-character booking reference.",
        "Could you find the booking reference? I need it to go on."],
        ["Just refund the insurance on my flight, please.", "I want the flight insurance refunded now.",
         "Refund the insurance on the flight, I said."],
        None, id="asking-four-times-for-a-missing-id-to-the-same-demand-is-the-same-ask"),
    pytest.param("I'd like a refund for the insurance I bought for my flight.", [
        "I'm sorry, but the travel insurance is non-refundable.",
        "I understand your frustration, but the insurance cannot be refunded under our terms."],
        ["I'm unhappy with the service, so please refund the insurance anyway."],
        False, id="twin-a-refusal-to-the-same-demand-twice"),
    pytest.param("Can I change my seat on this flight?", [
        "Sorry, seat changes are not possible on this fare.",
        "Sorry, the insurance is not refundable on this fare either.",
        "I'm afraid the insurance on this fare can't be refunded."],
        ["Then I want my travel insurance refunded.", "Please refund the travel insurance."],
        False, id="twin-the-first-no-answered-another-demand"),
]


def test_a_demand_pressed_in_two_messages_a_turn_is_pressed():
    """The other side may send its turn in several messages: they are read together ("...the
    insurance" then "refunded, please")."""
    messages = [{"role": "user", "content": "I'd like a refund for the"},
                {"role": "user", "content": "insurance I bought for my flight."},
                {"role": "assistant", "content": "I'm sorry, but the travel insurance is non-refundable."},
                {"role": "user", "content": "Please, the insurance"}, {"role": "user", "content": "refunded!"},
                {"role": "assistant", "content": "I understand, but the insurance cannot be refunded under our terms."},
                {"role": "user", "content": "I said: the insurance"}, {"role": "user", "content": "refunded, please."},
                {"role": "assistant", "content": "I'm afraid I can't make an exception: travel insurance is never "
                                                 "refundable."}]
    report = detect_loops(messages)
    assert [(f.pattern, f.count) for f in report.findings] == [("repeated_reply", 3)], report.reason


def test_a_name_the_other_side_said_before_is_not_brought_when_said_again():
    """The person's name told at the second turn and again at the fourth: the reply that names it
    then takes up nothing new, so the fourth refusal still restates the first three."""
    replies = ["I'm sorry, but this ticket is non-refundable, so I can't issue a refund.",
               "Unfortunately, basic fares like yours don't qualify for refunds under our terms.",
               "I understand your frustration. However, the fare you purchased carries no refund option.",
               "I'm afraid, Ms Sanchez, this booking cannot be refunded; the fare rules exclude refunds."]
    turns = ["My name is Amelia Sanchez and I need my money back.", "Please, can't you make an exception this once?",
             "This is Amelia Sanchez again, I want a refund."]
    report = detect_loops(chat(OPENING["refusal"], replies, turns))
    assert [(f.pattern, f.count) for f in report.findings] == [("repeated_reply", 4)], report.reason


def test_four_refusals_each_saying_more_are_the_same_no_restated():
    """Each refusal says much it had not said (no "nothing new" link), apologizes nowhere, and is
    linked by its no alone: on the subject its first no set."""
    replies = ["This ticket is not refundable under the basic economy fare conditions printed on your receipt.",
               "Tickets bought at the basic economy price do not qualify for any refund, whatever the booking channel.",
               "A refund for a basic economy ticket is not something the system lets anyone issue, even supervisors.",
               "Basic economy tickets carry no refund at all, even when the trip gets postponed by the traveller."]
    turns = ["Why not?", "That's unfair.", "Come on.", "Seriously?"]
    report = detect_loops(chat("I want my money back for this ticket.", replies, turns))
    assert [(f.pattern, f.count) for f in report.findings] == [("repeated_reply", 4)], report.reason
    assert "saying no to the same thing again" in report.findings[0].message


@pytest.mark.parametrize(("opening", "replies", "turns", "loop"), PRESSED)
def test_the_same_no_to_a_demand_pressed_three_times_is_a_loop(opening, replies, turns, loop):
    """Three replies saying no, the rule or sorry again, while the other side presses the very same demand
    each turn: both sides go round. Asking again is a loop of its own at three replies (`test_same_act_again`)."""
    messages = chat(opening, replies, turns)
    report = detect_loops(messages)
    if loop is None:  # (the same thing asked for four times: a loop of its own, whatever the other side says)
        (finding,) = report.findings
        assert finding.count == 4 and "asking again for the same thing" in finding.message, report.reason
        return
    assert report.success is (not loop), report.reason
    if loop:
        (finding,) = report.findings
        replied = tuple(step.step for step in read_chat_messages(messages).steps if step.kind == "llm")
        assert (finding.pattern, finding.count, finding.steps) == ("repeated_reply", 3, replied)
        assert "while the other side pressed the same demand again and again" in finding.message


@pytest.mark.parametrize(("opening", "replies", "turns"), HEALTHY)
def test_conversations_that_move_on_pass(opening, replies, turns):
    report = detect_loops(chat(opening, replies, turns))
    assert report.success, report.reason


def test_the_same_check_asked_in_other_words_is_a_loop():
    """The twin of a new check each time: the same check asked five ways while the user cannot do it."""
    replies = ["Please run check_network_status() on your phone and tell me what it reports.",
               "I need you to run check_network_status() on your phone, then tell me what it reports.",
               "Could you run check_network_status() on the phone and report what it says?",
               "Please run check_network_status() on your phone; tell me what it reports.",
               "Kindly run check_network_status() on your phone and tell me what it reports."]
    report = detect_loops(chat("My phone cannot send picture messages.", replies,
                               ["I don't know how.", "I can't find it.", "Where is that?", "I still can't.", "No."]))
    assert [(f.pattern, f.count) for f in report.findings] == [("repeated_reply", 5)], report.reason


def test_the_same_remedy_asked_again_while_the_person_says_the_same_change_is_a_loop():
    """The twin of another remedy each turn: the person says again the change it already made
    ("I already restarted it"): no change it had not said, so from the second reply on, a loop."""
    replies = ["Please restart your phone, then try sending the picture message again and tell me if it goes through.",
               "Could you restart the phone and try the picture message again? Tell me if it goes through.",
               "Please restart your phone once more, then try sending the picture message and tell me if it goes "
               "through.",
               "I'd suggest you restart your phone, then send the picture message again and tell me if it goes through.",
               "Please restart the phone and try sending the picture message again; tell me if it goes through."]
    said = ["I restarted my phone, but it still doesn't go through.", "I already restarted it, still nothing.",
            "I restarted the phone again, still nothing.", "Restarted it, still nothing.", "I restarted it. Nothing."]
    messages = chat("My phone cannot send picture messages.", replies, said)
    report = detect_loops(messages)
    replied = [step.step for step in read_chat_messages(messages).steps if step.kind == "llm"]
    assert [(f.pattern, f.steps) for f in report.findings] == [("repeated_reply", tuple(replied[1:]))], report.reason


def test_a_refusal_repeated_then_a_transfer_passes():
    """The agent says no twice, then does something: a tool runs and the chain ends there."""
    messages = chat(OPENING["refusal"], REPLIES["refusal"][:3], PRESS["refusal"])
    messages += [{"role": "assistant", "content": "", "tool_calls": [{"id": "t1", "type": "function", "function": {
                     "name": "transfer_to_human", "arguments": "{}"}}]},
                 {"role": "tool", "tool_call_id": "t1", "content": "Transfer successful"},
                 {"role": "assistant", "content": REPLIES["refusal"][3]},
                 {"role": "user", "content": PRESS["refusal"][3]},
                 {"role": "assistant", "content": REPLIES["refusal"][4]}]
    assert detect_loops(messages).success


def test_the_loop_twin_of_the_transfer_fails():
    """The same conversation with the tool call taken out: five refusals in a row."""
    assert not detect_loops(chat(OPENING["refusal"], REPLIES["refusal"], PRESS["refusal"])).success


ASK = "Would you like me to book the 9:00 flight to Oslo for you?"


def _asked(replies, answer):
    messages = [{"role": "user", "content": "Book me the morning flight to Oslo."}]
    for reply in replies:
        messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": answer}]
    return messages


def test_the_agents_question_repeated_to_a_yes_is_the_agents_repeat_not_a_rejection():
    report = detect_loops(_asked([ASK] * 5, "yes"))
    assert [f.pattern for f in report.findings] == ["repeated_reply"], report.reason
    assert report.reason.count("The agent gave the same reply 5 times") == 1 and "rejected" not in report.reason


def test_the_harness_rejecting_the_same_reply_is_a_rejection():
    """The twin: the same turn comes from a retry prompt (the harness), not from a person."""
    from loopmetric._model import LlmOutput, Observation, Trace
    steps = []
    for n in range(4):
        steps += [LlmOutput(step=2 * n + 1, text=ASK), Observation(step=2 * n + 2, source="retry", fingerprint="r",
                                                                   text="Reply with JSON only.")]
    report = detect_loops(Trace(steps=tuple(steps)))
    assert "rejected_output" in {f.pattern for f in report.findings}
    assert "was rejected 4 times in a row (a retry prompt each time" in report.reason


def test_the_users_repeated_demand_answered_anew_each_time_is_no_loop_of_the_agent():
    replies = ["Let me check the 9:00 flight: it is full, sorry.",
               "The 10:30 flight has two seats left at 120 euros.",
               "I can put you on the 12:15 flight instead, window seat 14A.",
               "There is also an evening flight at 19:40 for 95 euros."]
    assert detect_loops(_asked(replies, "I want the morning flight to Oslo!")).success


STEMS = [
    pytest.param("refunds refundable non-refundable refund", {"refund"}, id="one-stem-for-a-words-forms"),
    pytest.param("Upgrades must be made only by policy", {"upgrad", "mad"}, id="the-words-that-mark-a-stance-are-cut"),
    pytest.param("The owl's tree, the owls' tree", {"owl", "tre"}, id="a-possessive-is-its-word"),
    pytest.param("bags ride yes", {"bag", "rid", "yes"}, id="a-stem-keeps-three-letters"),
    pytest.param("squatting squat swapped swap dropping settings set", {"squat", "swap", "drop", "set"},
                 id="a-consonant-doubled-before-ing-or-ed-is-one"),
    pytest.param("adding add calling call buzzed buzz", {"add", "call", "buzz"},
                 id="twin-a-double-letter-of-the-word-itself-stays"),
    pytest.param("studying study carrying carry studied", {"stud", "carr"},
                 id="a-y-left-after-ing-or-ed-goes-as-from-the-word"),
    pytest.param("playing play stayed stay", {"pla", "sta"}, id="a-y-after-a-vowel-goes-alike"),
    pytest.param("days day keys key keying buying buy", {"day", "key", "buy"},
                 id="twin-a-stem-of-three-keeps-its-y"),
    pytest.param("I don’t know, you’re welcome", set(), id="a-curly-apostrophe-is-an-apostrophe"),
    pytest.param("Thank you! Please let me know if I can help further.", set(), id="courtesy-says-nothing"),
    pytest.param("Your ID and PO number", {"id", "po", "number"}, id="two-capitals-are-a-word"),
    pytest.param("The fox who could not sleep lived by the river until dawn, because of the owl", {"fox", "sleep", "liv",
                 "river", "dawn", "owl"}, id="function-words-are-cut"),
]


@pytest.mark.parametrize(("text", "expected"), STEMS)
def test_stems(text, expected):
    assert stems(text) == expected


STANCES = [
    pytest.param("Could you send the booking reference?", {"ask"}, id="a-question-asks"),
    pytest.param("This fare doesn't qualify for refunds.", {"no"}, id="a-negation-says-no"),
    pytest.param("Upgrades must be made a day ahead.", {"rule"}, id="must-states-a-rule"),
    pytest.param("I'm so sorry about the delay.", {"sorry"}, id="an-apology"),
    pytest.param("Your flight leaves at nine from gate 4.", set(), id="a-statement-takes-no-stance"),
    pytest.param("We don’t refund these tickets", {"no"}, id="a-curly-apostrophe-says-no"),
    pytest.param("Nope.", {"no"}, id="nope-says-no"),
    pytest.param("Nah, still the same.", {"no"}, id="nah-says-no"),
    pytest.param("The canopy of the Nahuatl garden.", set(), id="twin-nope-and-nah-inside-other-words"),
    pytest.param("Your claim requires a police report.", {"rule"}, id="requires-states-a-rule"),
    pytest.param("Hang tight, I'm taking a look at the fleet now.", {"wait"}, id="hang-tight-asks-to-wait"),
    pytest.param("Give me just one more moment to confirm.", {"wait"}, id="one-more-moment-asks-to-wait"),
    pytest.param("Thanks for your patience, I'm still reviewing the order.", {"wait"}, id="still-reviewing-stalls"),
    pytest.param("Let me check with the restaurant.", {"wait"}, id="let-me-check-stalls"),
    pytest.param("It takes a second try.", set(), id="a-second-try-is-no-wait"),
    pytest.param("Checking on the thermostat now, this should just take a second.", {"wait"},
                 id="checking-on-it-and-taking-a-second-ask-to-wait"),
    pytest.param("Please try a second time.", {"ask"}, id="twin-a-second-time-is-no-wait"),
    pytest.param("The sync will take a minute to finish.", set(), id="twin-a-step-that-takes-a-minute-is-no-wait"),
    pytest.param("Your order arrives at 7 pm.", set(), id="an-answer-takes-no-stance"),
    pytest.param("Please know that we value you as a customer.", set(), id="please-know-vouches-asks-nothing"),
    pytest.param("Please, know that we care.", set(), id="please-comma-know-vouches-too"),
    pytest.param("Please be assured we take this seriously.", set(), id="please-be-assured-vouches"),
    pytest.param("Please rest assured your refund is on its way.", set(), id="please-rest-assured-vouches"),
    pytest.param("Please send me your order number.", {"ask"}, id="twin-please-send-asks"),
    pytest.param("Please let us know the knowledge base article.", {"ask"}, id="twin-please-then-another-word-asks"),
]


@pytest.mark.parametrize(("text", "kinds"), STANCES)
def test_stances(text, kinds):
    assert stances(text).kinds == kinds


ABOUT = [
    pytest.param("Our policy is firm: upgrades close a day before departure.", {"firm", "upgrad", "clos", "day",
                                                                              "departur"},
                 id="a-stance-before-a-colon-is-about-what-follows"),
    pytest.param("I can't change the name; I can add a note to the booking.", {"chang", "nam"},
                 id="a-semicolon-ends-the-stance"),
    pytest.param("Unfortunately the fare is not refundable. The flight leaves at nine.", {"far", "refund"},
                 id="a-full-stop-ends-the-stance"),
]


ASKED = [
    pytest.param("The fare is not refundable. Shall I check the cancellation options instead?", {"shall", "check", "cancell",
                                                                                              "option", "instead"},
                 id="a-question-asks-for-its-words"),
    pytest.param("Please send your booking reference. I found two flights.", {"send", "book", "referenc"},
                 id="please-asks-for-its-words"),
    pytest.param("The fare is not refundable. The flight leaves at nine.", set(), id="statements-ask-nothing"),
    pytest.param("Could you send the reference? Please add the date.", {"send", "referenc", "add", "dat"},
                 id="every-asking-sentence"),
    pytest.param("Could you send the reference? The fare is not refundable.", {"send", "referenc"},
                 id="only-the-asking-sentences"),
]


@pytest.mark.parametrize(("text", "expected"), ASKED)
def test_what_a_reply_asks_for(text, expected):
    from loopmetric.detectors._stances import asked
    assert asked(text) == expected


@pytest.mark.parametrize(("text", "about"), ABOUT)
def test_what_a_stance_is_about(text, about):
    assert stances(text).about == about


def _st(kinds="", about="", said=""):
    return Stances(frozenset(kinds.split()), frozenset(about.split()), frozenset(said.split()))


SAYS_AGAIN = [
    # 10 stems, 3 new: 3 / 10 = 0.30 <= 0.30 -> nothing new; 4 new: 0.40 -> new.
    pytest.param(_st(said="a b c d e f w x y z"), [_st(said="a b c d e f v")], None, id="four-of-ten-new-is-new"),
    pytest.param(_st(said="a b c d e f g x y z"), [_st(said="a b c d e f g")], "again",
                 id="three-of-ten-new-is-nothing-new"),
    pytest.param(_st(), [_st(said="a")], "again", id="courtesy-alone-is-nothing-new"),
    pytest.param(_st("ask", "book referenc", "book referenc send"), [_st("ask", "book referenc", "look")], "ask",
                 id="an-ask-about-two-same-stems"),
    pytest.param(_st("ask", "book seat", "book seat window"), [_st("ask", "book meal", "meal lunch")], None,
                 id="an-ask-about-one-same-stem-is-another-ask"),
    pytest.param(_st("no", "refund fare", "refund fare term"), [_st("no", "refund ticket", "ticket issu")], "no",
                 id="a-no-about-one-same-stem"),
    pytest.param(_st("no", "pet", "pet cabin"), [_st("no", "hotel", "hotel room")], None,
                 id="no-to-another-thing"),
    pytest.param(_st("rule", "upgrad", "upgrad day"), [_st("rule", "upgrad hour", "hour depart")], "rule",
                 id="a-rule-about-one-same-stem"),
    pytest.param(_st("sorry", "dela", "dela order"), [_st("sorry", "packag", "packag arriv")], "sorry",
                 id="an-apology-again-whatever-it-is-about"),
    pytest.param(_st("ask", "refund", "refund fare term"), [_st("no", "refund", "refund ticket issu")], None,
                 id="another-stance-on-the-same-subject"),
]


@pytest.mark.parametrize(("reply", "recent", "expected"), SAYS_AGAIN)
def test_says_again(reply, recent, expected):
    assert _says_again(reply, recent) == expected


@pytest.mark.parametrize(("subject", "expected"), [
    pytest.param(None, "no", id="no-subject-a-stem-in-common-is-enough"),
    pytest.param(frozenset({"refund", "far"}), "no", id="a-no-on-the-chains-subject"),
    pytest.param(frozenset({"fox"}), None, id="a-no-on-another-subject-ends-the-chain"),
])
def test_a_chains_no_stays_on_one_subject(subject, expected):
    assert _says_again(_st("no", "refund fare", "refund fare term"), [_st("no", "refund ticket", "ticket issu")],
                       subject) == expected


def test_the_chain_is_read_from_a_trace_as_from_chat():
    """The rule reads the event model: the same conversation read once through the chat reader
    gives the same finding as `detect_loops` on the messages."""
    messages = chat(OPENING["apology"], REPLIES["apology"], PRESS["apology"])
    assert detect_loops(read_chat_messages(messages)).findings == detect_loops(messages).findings


# -- what each part of the chain reads (pins, each a behaviour a user would see) -------------------
SORRY = ["I'm sorry the parcel to Denver is late.", "I apologize that the Denver parcel has not arrived.",
         "I'm so sorry, the parcel for Denver is still on its way.", "My apologies, the Denver parcel is delayed.",
         "Again, I'm sorry the parcel is not in Denver yet."]


def _turns(replies, turns):
    """A chat: the task, then each reply followed by its turns (a string, or several in a list)."""
    messages = [{"role": "user", "content": "Where is my parcel to Denver?"}]
    for reply, turn in zip(replies, turns + [None] * len(replies)):
        messages.append({"role": "assistant", "content": reply})
        for text in ([turn] if isinstance(turn, str) else turn or []):
            messages.append({"role": "user", "content": text})
    return messages


def test_a_name_the_agent_had_said_is_not_brought_by_the_user_who_says_it_again():
    """Denver is in every reply, and the user says it back: nothing new, the apologies are a loop."""
    report = detect_loops(_turns(SORRY, ["Is it in Denver?", "Denver, I said.", "Still not in Denver.", "Denver!"]))
    assert not report.success and report.findings[0].count == 5, report.reason


@pytest.mark.parametrize(("turns", "loop"), [
    pytest.param(["Hello?", "Any news?", "Still waiting.", "Well?"], True, id="nothing-brought-a-loop"),
    pytest.param(["Hello?", "I'm Amelia Sanchez.", "Still waiting.", "Well?"], False,
                 id="a-name-brought-and-taken-up-ends-the-chain"),
    pytest.param(["Hello?", ["I'm Amelia Sanchez.", "Still waiting."], "Well?", "Hm."], False,
                 id="a-name-brought-two-turns-before-the-reply"),
    pytest.param(["Hello?", ["My order is 55123.", "Still waiting."], "Well?", "Hm."], False,
                 id="a-fact-told-two-turns-before-the-reply"),
])
def test_what_the_other_side_brings_and_the_reply_takes_up(turns, loop):
    replies = list(SORRY)
    replies[2] = "I'm so sorry, Amelia, the parcel for Denver is still on its way."
    report = detect_loops(_turns(replies, turns))
    assert report.success is (not loop), report.reason


@pytest.mark.parametrize(("turns", "count"), [
    pytest.param(["I'm Amelia Sanchez.", "Hello?", "I said, I'm Amelia Sanchez.", "Well?"], 5,
                 id="a-name-the-user-said-two-turns-before-says-nothing-new-when-said-again"),
    pytest.param(["Hello?", "Any news?", "I'm Amelia Sanchez.", "Well?"], 3,
                 id="the-same-name-said-first-in-the-turn-before-the-reply-is-brought"),
])
def test_a_name_the_other_side_says_again_is_not_brought_again(turns, count):
    """The fourth reply takes up a name: news only when no turn had said it before (the chain ends
    before it; its first three replies, apologies and nothing else, are a loop of their own)."""
    replies = list(SORRY)
    replies[3] = "My apologies, Amelia, the Denver parcel is delayed."
    report = detect_loops(_turns(replies, turns))
    assert [f.count for f in report.findings] == [count], report.reason


STORY_RULES = ["The fox must cross the river before dark.", "At the river, the owl must find food for the night.",
               "The owl's food must stay hidden in the old tree.", "The old tree must be climbed by the fox at dawn."]


def test_a_story_whose_people_must_do_one_thing_after_another_is_no_rule_restated():
    """Each rule shares a word with the one before, never the first rule's subject: no loop."""
    assert detect_loops(_turns(STORY_RULES, ["continue"] * 4)).success


def test_a_chain_first_linked_by_nothing_new_takes_its_subject_from_its_first_no():
    """Two replies saying nothing new, then noes: the first no sets the subject, and a no about
    another thing (drifting from refunds to seats) ends the chain."""
    replies = ["Sorry, no refund is possible on this fare.", "Sorry, no refund is possible on this fare, sorry.",
               "No refund can be made for this fare, I'm afraid.", "This fare's seat cannot change, no refund.",
               "No seat change is allowed on this ticket.", "The ticket's seat is not changeable."]
    report = detect_loops(_turns(replies, ["Please?"] * 6))
    assert [f.steps for f in report.findings] == [(1, 3, 5, 7)], report.reason


LONGEST = [
    pytest.param([], 0, id="nothing"),
    pytest.param(["r", "u", "r", "u", "r"], 2, id="three-replies-two-turns"),
    pytest.param(["r", "r", "u", "r"], 1, id="replies-in-a-row-answer-no-turn"),
    pytest.param(["t", "r", "u", "r", "u", "r"], 2, id="a-tool-call-first"),
    pytest.param(["r", "u", "r", "t", "r", "u", "r", "u", "r"], 2, id="a-tool-call-between"),
    pytest.param(["r", "u", "q", "u", "r", "u", "r"], 1, id="a-request-between"),
    pytest.param(["r", "u", "e", "u", "r"], 0, id="an-empty-output-between"),
    pytest.param(["t", "r", "u", "t", "r", "u", "r"], 2, id="a-call-answered-as-before-between"),
    pytest.param(["t", "r", "u", "q", "t", "r", "u", "r"], 2, id="a-request-answered-as-before-between"),
    pytest.param(["t", "r", "t", "r", "u", "r"], 1, id="a-call-answered-as-before-but-no-turn"),
    pytest.param(["t", "r", "u", "n", "r", "u", "r"], 1, id="a-call-answered-anew-between"),
    pytest.param(["r", "u", "x", "r", "u", "r"], 1, id="a-call-whose-answer-is-not-recorded-between"),
]


def _steps(codes, recorded=True):
    from loopmetric._model import LlmOutput, Observation, ToolCall, Trace
    steps = []
    for n, code in enumerate(codes, start=1):
        if code == "r":
            steps.append(LlmOutput(step=n, text=f"reply {n}"))
        elif code == "q":
            steps.append(LlmOutput(step=n, text="let me look", requests=("c",)))
        elif code == "e":
            steps.append(LlmOutput(step=n, text=""))
        elif code == "u":
            steps.append(Observation(step=n, source="user", fingerprint=f"u{n}", text=f"turn {n}"))
        elif code == "n":  # the call answered anew
            steps.append(ToolCall(step=n, name="look", args="{}", result=f"ok {n}", error=False, call="c",
                                  outcome=f"o{n}"))
        elif code == "x":  # the call, its answer not recorded
            steps.append(ToolCall(step=n, name="look", args="{}", result=None, error=False, call="c", outcome=None))
        else:  # "t": the call answered as every "t"
            steps.append(ToolCall(step=n, name="look", args="{}", result="ok", error=False, call="c", outcome="o"))
    return Trace(steps=tuple(steps), turns_recorded=recorded)


@pytest.mark.parametrize(("codes", "longest"), LONGEST)
def test_the_most_turns_a_chain_can_have_is_counted_without_reading_a_text(codes, longest):
    from loopmetric.detectors._replies import _longest_turns, _unchanged
    trace = _steps(codes)
    assert _longest_turns(trace, False, _unchanged(trace)) == longest


UNCHANGED = [
    pytest.param(["t", "r", "u", "t"], {4}, id="the-second-answer-as-the-first"),
    pytest.param(["t", "q", "t", "r"], {2, 3}, id="the-output-asking-only-for-it-too"),
    pytest.param(["t", "q", "t", "n", "r"], {3}, id="not-an-output-also-asking-for-a-call-answered-anew"),
    pytest.param(["t", "n", "t"], {3}, id="the-same-answer-as-any-earlier-one"),
    pytest.param(["n", "n", "n"], set(), id="answered-anew-each-time"),
    pytest.param(["x", "x", "t", "q", "x"], set(), id="answers-not-recorded"),
    pytest.param(["q", "u", "q"], set(), id="requests-with-no-answer-recorded"),
    pytest.param(["t", "t", "r"], {2}, id="calls-no-output-asked-for"),
    pytest.param(["t", "q", "t", "t"], {2, 3, 4}, id="an-output-asking-for-two-calls-both-answered-as-before"),
    pytest.param(["t", "q", "t"], {2, 3}, id="the-run-ending-on-the-answer"),
    pytest.param(["t", "q", "t", "x"], {3}, id="not-an-output-also-asking-for-a-call-whose-answer-is-not-recorded"),
    pytest.param(["t", "e", "t", "r"], {2, 3}, id="an-output-with-no-text-the-calls-follow-asked-for-them"),
    pytest.param(["t", "e", "n", "r"], set(), id="not-an-output-with-no-text-followed-by-a-call-answered-anew"),
    pytest.param(["t", "r", "t"], {3}, id="not-an-output-with-text-its-request-not-recorded"),
]


@pytest.mark.parametrize(("codes", "unchanged"), UNCHANGED)
def test_calls_answered_as_before(codes, unchanged):
    """The calls the agent sent again and was answered as before (the same call, the same
    result), and the outputs that asked only for such calls: nothing new seen."""
    from loopmetric.detectors._replies import _unchanged
    assert _unchanged(_steps(codes)) == unchanged


def test_replies_in_a_row_whose_turns_were_not_recorded_are_turns():
    """A recording without the other side's turns, in a run that calls tools: replies in a row
    answered turns nobody recorded, and five apologies in a row are a loop; recorded, they are not."""
    from loopmetric._model import LlmOutput, ToolCall, Trace
    from loopmetric.detectors._replies import _longest_turns
    steps = (ToolCall(step=1, name="track", args="{}", result="late", error=False, call="c", outcome="o"),
             *(LlmOutput(step=n, text=text) for n, text in enumerate(SORRY, start=2)))
    unrecorded = Trace(steps=steps, turns_recorded=False)
    assert _longest_turns(unrecorded, unrecorded=True) == 4
    assert [f.count for f in detect_loops(unrecorded).findings if f.pattern == "repeated_reply"] == [5]
    assert detect_loops(Trace(steps=steps)).success


def test_a_no_compared_past_a_reply_of_another_stance():
    """The reply before asks; the one before it said no to the same thing: still a no again."""
    recent = [_st("no", "refund fare", "refund fare"), _st("ask", "date", "date trip")]
    assert _says_again(_st("no", "refund ticket", "refund ticket issu"), recent) == "no"


@pytest.mark.parametrize(("text", "named"), [
    pytest.param("Ask Amelia about QX7P2L today", {"ask", "amelia", "qx7p2l"}, id="capitals-and-ids"),
    pytest.param("all lowercase words here", set(), id="nothing-named"),
])
def test_named(text, named):
    from loopmetric.detectors._replies import _named
    assert _named(text) == named


def test_the_finding_says_every_way_the_chain_said_it_again_and_its_steps():
    messages = _turns(["Could you send me the booking reference?", "Thanks. Could you send me the booking reference?",
                       "I need the booking reference, could you send it?", "Please send the booking reference.",
                       "Could you look for the booking reference once more?"], ["I can't find it."] * 5)
    (finding,) = detect_loops(messages).findings
    assert finding.message.startswith("The agent said the same thing in other words 5 times in a row (saying "
                                      "nothing its last replies had not said, asking again for the same thing "
                                      "(booking reference)), ")
    assert finding.message.endswith("(steps 1-9).")  # five replies, four turns between: the task is no step


def test_the_agents_repeat_found_by_the_rejection_rule_says_whose_it_is():
    from loopmetric import LoopSettings
    from loopmetric.detectors import detect_rejected_outputs
    trace = read_chat_messages(_asked([ASK] * 4, "yes"))
    (finding,) = detect_rejected_outputs(trace, LoopSettings())
    assert (finding.pattern, finding.count, finding.steps) == ("repeated_reply", 4, (1, 3, 5, 7))
    assert finding.message == ("The agent gave the same reply 4 times in a row, the other side answering each time "
                               "with the same words, no tool run: the repeat is the agent's, nothing rejected it "
                               "(steps 1-7).")
    assert finding.fingerprints == (trace.steps[0].fingerprint,)


def test_a_harness_rejection_is_fingerprinted_by_what_the_harness_said():
    from loopmetric import LoopSettings
    from loopmetric._model import LlmOutput, Observation, Trace
    from loopmetric.detectors import detect_rejected_outputs
    steps = []
    for n in range(3):
        steps += [LlmOutput(step=2 * n + 1, text=f"attempt {n}"),
                  Observation(step=2 * n + 2, source="retry", fingerprint="r", text="Reply with JSON only.")]
    (finding,) = detect_rejected_outputs(Trace(steps=tuple(steps)), LoopSettings())
    assert (finding.pattern, finding.fingerprints, finding.steps) == ("rejected_output", ("r",), (1, 2, 3, 4, 5, 6))



FARE = "Booking K7QX2P: basic economy, non-refundable, Denver 12 May."
BOOKING = '{"booking": "K7QX2P"}'


def _refusals_with_lookups(lookups):
    """The refund refused four times, the user pressing between; before a refusal the agent may
    look the booking up (`lookups[n]`: the call's arguments and its answer, or None)."""
    messages = [{"role": "user", "content": OPENING["refusal"]}]
    for n, lookup in enumerate(lookups):
        if lookup is not None:
            call = {"id": f"c{n}", "type": "function", "function": {"name": "get_booking", "arguments": lookup[0]}}
            messages += [{"role": "assistant", "content": "", "tool_calls": [call]},
                         {"role": "tool", "tool_call_id": f"c{n}", "content": lookup[1]}]
        messages.append({"role": "assistant", "content": REPLIES["refusal"][n]})
        if n < len(lookups) - 1:
            messages.append({"role": "user", "content": PRESS["refusal"][n]})
    return messages


LOOKUPS = [
    pytest.param([(BOOKING, FARE), None, (BOOKING, FARE), None], False, id="looked-up-again-answered-as-before"),
    pytest.param([(BOOKING, FARE), None, (BOOKING, FARE)], True, id="twin-three-refusals"),
    pytest.param([(BOOKING, FARE), None, (BOOKING, FARE.replace("12 May", "13 May")), None], True,
                 id="twin-looked-up-again-answered-anew"),
    pytest.param([(BOOKING, FARE), None, ('{"booking": "K7QX2Q"}', FARE), None], True,
                 id="twin-another-booking-looked-up"),
]


@pytest.mark.parametrize(("lookups", "healthy"), LOOKUPS)
def test_a_call_answered_as_before_does_not_end_the_chain(lookups, healthy):
    """What the agent sees decides, not what it sends: a lookup sent again and answered as
    before tells it nothing, so the refusals around it are still in a row; a lookup answered
    anew, or of something new, ends the chain. (Two lookups: no repeated call on its own.)"""
    report = detect_loops(_refusals_with_lookups(lookups))
    assert report.success is healthy, report.reason
    if not healthy:
        (finding,) = report.findings
        assert finding.pattern == "repeated_reply"
        assert finding.count == 4
        assert "saying no to the same thing again" in finding.message
        assert "no tool call was answered anew" in finding.message



PENDING = ["I'm sorry, your account is still pending verification, which takes 1–2 business days.",
           "Apologies for the wait; verifying an account usually takes 1-2 business days.",
           "Sorry again, the account review is in progress and takes 1–2 business days.",
           "I apologize, your account remains under review for 1-2 business days."]


@pytest.mark.parametrize(("replies", "loop"), [
    pytest.param(PENDING, True, id="a-range-written-with-a-dash-then-a-hyphen-is-no-new-fact"),
    pytest.param([reply.replace("–", "-") for reply in PENDING], True, id="the-range-written-alike"),
    pytest.param(PENDING[:3] + ["I apologize, your account remains under review for 3 more business days."], False,
                 id="twin-a-new-number-is-news"),
    pytest.param(["I'm sorry, your 24-month contract has an early termination fee.",
                  "Apologies, leaving before the 24 months are up means a termination fee.",
                  "Sorry, ending the 24-month term early carries the termination fee.",
                  "I apologize, the fee applies to any exit before 24 months."], True,
                 id="a-number-joined-to-a-word-then-standing-alone-is-no-new-fact"),
])
def test_a_fact_told_again_in_another_form_is_no_news(replies, loop):
    """The fourth apology restates the same figure in another form ("1–2" and "1-2", "24-month" and
    "24 months"): the chain goes on to four replies, a loop; a new figure ends it."""
    report = detect_loops(_turns(replies, ["It's been four days.", "Is something missing?", "Hello?"]))
    assert report.success is (not loop), report.reason
    if loop:
        assert report.findings[0].count == 4 and "apologizing again" in report.findings[0].message


# The other side says no or asks, turn after turn, in words of its own; the agent answers each turn
# with none of them, on the same subject, reworded each time (`_replies._unheard`): a remedy, a
# policy, a status, a refusal, a request and an apology, none joined by another link.
UNHEARD = {
    "remedy": ("My phone shows no signal since I came back from my trip.", [
        "Let's fix that: switch airplane mode on, wait ten seconds, then switch it off so the phone finds the network.",
        "Sometimes it needs a second go: enable flight mode, leave it for fifteen seconds, then disable it.",
        "Let's reset the radio: turn airplane mode on, count to twenty, then turn it back off.",
        "A reliable fix is to cut every connection briefly: toggle flight mode on and off so the phone searches again.",
        "Please give this a try: turn on airplane mode, wait a little, then turn airplane mode off."],
        ["Did that. Still no signal.", "Nope.", "I've done it five times, it's not that.",
         "Could it be my roaming plan?", "You're not helping."]),
    "policy": ("Why can't I use the check I deposited by phone yesterday?", [
        "Large mobile deposits are placed on a five business day hold before the funds become available.",
        "For checks of that size deposited by mobile, the money is released after five business days.",
        "Big deposits made in the app wait through a hold of five business days, and then the funds clear.",
        "A check over the threshold sits on hold for five business days before you can spend the money.",
        "The hold on large mobile deposits lasts five business days; after that the funds are yours."],
        ["I need it today for rent.", "So there's nothing at all you can do?", "Can a manager release it early?",
         "My landlord won't wait.", "Why not?"]),
    "status": ("I signed up days ago and still can't accept payments.", [
        "Your account is pending verification. Our team completes verification within two business days.",
        "Your file sits in our verification queue, and reviews are done within two business days.",
        "Your account status shows as pending verification; once the review is finished you can take payments.",
        "At the moment your verification is still in progress. Most accounts are verified within two business days.",
        "Your account remains under review, and you'll hear from us as soon as verification is complete."],
        ["Is something missing from my application?", "Should I upload my business license again?",
         "That doesn't answer the question about the license.", "Do you need another document from me?",
         "Nobody is telling me anything."]),
    "refusal": ("I put the wrong delivery address on my order. Can you change it?", [
        "The courier already has your order, so the delivery address is locked.",
        "Once the courier collects an order, its drop-off point is fixed.",
        "The courier is on the way with your order; the destination is final at this stage.",
        "Your order left with the courier, and that locks where it goes.",
        "With the order in the courier's hands, the drop-off stays as it was entered."],
        ["Please, it's just two digits swapped.", "Just change it please!!", "Can you call the driver?",
         "What am I supposed to do then?", "Seriously?"]),
    "request": ("I'm locked out of my laptop and need a password reset.", [
        "Password resets go through identity checks first. What's your employee ID?",
        "Password resets come after an identity check. Can you read me the staff number on your badge?",
        "Your password changes once your identity is confirmed. What is your personnel code?",
        "Share the employee number from your signed contract, and the reset follows.",
        "Which worker code is printed on the badge you were issued?"],
        ["I'm a contractor, I started Monday and don't think I have one.", "My badge has no number, just my photo and name.",
         "I don't have an HR number, I'm from an agency.", "Can my manager vouch for me instead?",
         "I keep telling you, there is nothing like that."]),
    "apology": ("The delivery men dropped my new sofa and a leg snapped off.", [
        "That's awful, your new sofa was damaged by our delivery crew.",
        "Our delivery crew should have handled your sofa with far more care.",
        "You deserved a careful delivery, and our crew let you down with that sofa.",
        "It's upsetting that the sofa arrived damaged after our crew's delivery.",
        "The way our crew handled your sofa delivery falls short of what you should expect."],
        ["What will you do about the broken leg?", "Replacement or refund?", "I need an actual answer.",
         "Answer my question, please.", "Are you even reading my messages?"]),
}


UNHEARD_LOOPS = [pytest.param(kind, n, id=f"{kind}-unheard-{n}-times") for kind in UNHEARD for n in (3, 4, 5)]


@pytest.mark.parametrize(("kind", "times"), UNHEARD_LOOPS)
def test_answering_the_other_sides_no_or_question_with_none_of_it_is_a_loop(kind, times):
    """Three replies in a row, each answering a turn that says no or asks with none of what it said
    and on the chain's subject, are a loop (as three to a demand pressed throughout are); the reason
    says it is the agent that did not take up what the other side said."""
    opening, replies, turns = UNHEARD[kind]
    _one_chain_of_every_reply(chat(opening, replies[:times], turns), times,
                              "answering the other side's no, question or trouble said again with none of what it said")


def _one_chain_of_every_reply(messages, times, why):
    """The conversation fails on one finding: every reply, `times` of them, said again in other words,
    for the reason `why`."""
    report = detect_loops(messages)
    assert not report.success, report.reason
    (finding,) = report.findings
    replies_at = tuple(step.step for step in read_chat_messages(messages).steps if step.kind == "llm")
    assert (finding.pattern, finding.count, finding.steps) == ("repeated_reply", times, replies_at)
    assert finding.message.startswith(f"The agent said the same thing in other words {times} times in a row (")
    assert why in finding.message


def _with(kind, at, reply=None, turn=None):
    """The unheard chat of `kind` (three replies) with reply or turn `at` replaced."""
    opening, replies, turns = UNHEARD[kind]
    replies, turns = list(replies[:3]), list(turns)
    if reply is not None:
        replies[at] = reply
    if turn is not None:
        turns[at] = turn
    return chat(opening, replies, turns)


def _in_two_messages(*gaps):
    """The unheard refusal's first three replies, the other side answering each of the first two in the
    messages of its gap (then "ok")."""
    opening, replies, _ = UNHEARD["refusal"]
    messages = chat(opening, [], [])
    for reply, turns in zip(replies[:3], [*gaps, ["ok"]]):
        messages += [{"role": "assistant", "content": reply}, *({"role": "user", "content": t} for t in turns)]
    return messages


GUIDE = ["First, open the app and go to Settings, then Security, to find the login options for your account.",
         "Tap Two-factor login and choose Authenticator app as the method for your account login.",
         "Scan the QR code shown in the app with your authenticator, then type the code it shows to confirm the login.",
         "Next, save the backup codes the app shows somewhere safe; you will need them for login if you lose your phone.",
         "Now turn on login alerts in the same Security page of the app so you hear about every new login.",
         "Last, sign out of the app and sign back in to check that the login asks for the authenticator code."]
STORY = ["A young fox named Ember lived by a wide river and dreamed of crossing it to the far meadow.",
         "One morning Ember found a fallen log stretched across the river, slick with moss and swaying in the current.",
         "Ember stepped onto the log, paws trembling, and the river roared beneath her as she crept toward the far bank.",
         "Halfway across the log rolled, but Ember leapt and landed in the soft grass of the meadow by the river.",
         "In the meadow Ember met an old heron who had watched her cross the river from the reeds.",
         "The heron taught Ember to fish in the shallow river, and every evening they shared supper in the meadow."]

UNHEARD_HEALTHY = [
    pytest.param(chat("How do I set up two-factor login on my account?", GUIDE,
                      ["ok I'm there", "done, what next", "sounds good, it worked", "cool, saved them",
                       "alright, switched that on", "perfect"]),
                 id="a-guide-whose-person-goes-along-in-words-of-its-own"),
    pytest.param(chat("Tell me a story about a fox and a river.", STORY,
                      ["go on", "and then", "what happened next", "keep going", "tell me more", "lovely"]),
                 id="a-story-told-in-parts-to-varied-prompts"),
    pytest.param(_with("refusal", 1, reply="Even with just two digits swapped, the courier already has the order, so "
                                           "the address stays locked."),
                 id="a-reply-that-takes-up-the-other-sides-words"),
    pytest.param(_with("remedy", 2, reply="Roaming can matter: check that data roaming is on in the mobile network "
                                          "settings, then restart."),
                 id="a-reply-that-takes-up-what-was-asked"),
    pytest.param(_with("policy", 1, reply="I can note that on your account; meanwhile our branch opens at nine if "
                                          "you'd like to talk to someone in person."),
                 id="a-reply-that-moves-to-another-subject"),
    pytest.param(_with("status", 1, turn="ok, thanks"), id="a-turn-that-goes-along-between"),
    pytest.param(_with("refusal", 1, turn="Order 55123, you have it."), id="twin-a-turn-that-neither-says-no-nor-asks"),
    pytest.param(chat(UNHEARD["refusal"][0],
                      ["The courier already has order 55123, so the delivery address is locked.",
                       UNHEARD["refusal"][1][1], "Order 55123 is on the courier's route now, and its delivery spot stays put."],
                      [UNHEARD["refusal"][2][0], "Please, can you sort out 55123 today?"]),
                 id="a-reply-that-takes-up-a-fact-the-turn-said-again"),
    pytest.param(chat(UNHEARD["remedy"][0], UNHEARD["remedy"][1][:2], UNHEARD["remedy"][2]),
                 id="two-replies-are-not-yet"),
    pytest.param(_in_two_messages(["No.", "The address is locked?"], ["Nope.", "The drop-off point is fixed?"]),
                 id="turns-in-two-messages-that-only-say-back-the-agents-words"),
]


@pytest.mark.parametrize("messages", UNHEARD_HEALTHY)
def test_replies_that_take_up_the_other_side_or_move_on_pass(messages):
    report = detect_loops(messages)
    assert report.success, report.reason


# The other side says again, in words of its own, what its turns said before (its trouble stands: "a
# sharp pain", then "the sharp pain again"; "drops every evening", then "still drops in the evening"),
# neither saying no nor asking, and the agent answers each turn on the same subject with none of it
# (`_replies._unheard`).
TROUBLE = {
    "knee": ("My right knee gives me a sharp pain at the bottom of my squat.", [
        "Try squatting to a box just above parallel, and take some weight off the bar.",
        "Let's adjust the depth: use a higher box so you squat only as far as is comfortable, with a lighter bar.",
        "Stick with box squats but limit the range: set the box high enough to stop short, and keep the bar light.",
        "Keep squatting to the box, a little higher, and ease off the weight on the bar.",
        "Squat to a taller box with a lighter bar and stay out of the painful range."],
        ["I tried the box today. Got the sharp pain again, same knee.",
         "Higher box, just the bar. The knee pain is sharp as ever.", "My knee still has that sharp pain, even on the stairs.",
         "The pain in my knee is sharp, nothing has changed.", "Sharp knee pain, still."]),
    "wifi": ("My wifi drops every evening, right in the middle of video calls.", [
        "Try moving the router off the floor and away from the microwave, then change the wifi channel in its settings.",
        "Pick a less crowded wifi channel in the router settings and keep the router up high, away from appliances.",
        "Switch the router to another channel and keep it raised, clear of the kitchen and its appliances.",
        "Change the router's wifi channel once more and place it higher up, away from anything metal.",
        "Set a different channel on the router and keep it off the floor, away from the microwave."],
        ["It still drops every evening during my video calls.", "The connection still drops in the evening, same as before.",
         "Evening again, and it dropped twice mid-call.", "It keeps dropping every evening, my calls cut out.",
         "Drops again tonight."]),
}


@pytest.mark.parametrize(("kind", "times"), [pytest.param(kind, n, id=f"{kind}-trouble-said-again-{n}-times")
                                             for kind in TROUBLE for n in (3, 4, 5)])
def test_answering_the_other_sides_trouble_said_again_with_none_of_it_is_a_loop(kind, times):
    """Three replies or more, each answering a turn that says again what the other side said (in words
    no reply said) with none of what it brought, on the chain's subject: one loop of every reply, the
    agent's (it did not take them up)."""
    opening, replies, turns = TROUBLE[kind]
    _one_chain_of_every_reply(chat(opening, replies[:times], turns), times,
                              "answering the other side's no, question or trouble said again with none of what it said")


def _troubled(kind, at, reply):
    """The trouble chat of `kind` (three replies) with reply `at` replaced."""
    opening, replies, turns = TROUBLE[kind]
    replies = list(replies[:3])
    replies[at] = reply
    return chat(opening, replies, turns)


TROUBLE_HEALTHY = [
    pytest.param(_troubled("knee", 2, "A sharp pain that keeps coming back needs a look: stop squatting and see a "
                                      "physio about that knee."), id="the-trouble-said-again-taken-up"),
    pytest.param(_troubled("wifi", 2, "If it only drops in the evening, neighbours' traffic may be the cause: ask your "
                                      "provider about a line check for evening congestion."),
                 id="the-trouble-said-again-taken-up-in-its-words"),
    pytest.param(chat(TROUBLE["knee"][0], TROUBLE["knee"][1][:3], ["ok, will try that", "done, that felt fine", "great"]),
                 id="twin-turns-that-go-along"),
    pytest.param(chat(TROUBLE["knee"][0], TROUBLE["knee"][1][:3],
                      ["I tried the box today.", "Higher box, just the bar, and lighter.", "Got it."]),
                 id="twin-turns-that-tell-what-was-done-without-the-trouble"),
    pytest.param(chat(TROUBLE["knee"][0], TROUBLE["knee"][1][:4],
                      ["Did the box squat with a lighter bar yesterday, felt smooth.",
                       "Box squat with the lighter bar again this morning, smooth.",
                       "Box squat, lighter bar, smooth again tonight.", "Thanks."]),
                 id="twin-turns-that-say-again-the-agents-words-not-their-own"),
    pytest.param(chat("My laptop won't connect to the office wifi.", [
        "Could you forget the network and join it again? Let me know what happens.",
        "Please check whether other devices connect to the same network. Do they?",
        "Can you run the network troubleshooter from the taskbar icon and tell me what it reports?",
        "Please update the wireless driver from Device Manager, then try again. Any luck?"],
        ["Tried, it fails with a message about the password being wrong even though it's right.",
         "My phone connects fine, so does my colleague's laptop.", "The troubleshooter says the DHCP server isn't "
         "responding.", "Updated the driver, still the same DHCP complaint."]),
                 id="a-guide-whose-person-answers-in-the-agents-words"),
    pytest.param(chat("I want to learn to play guitar.", [
        "Great! Do you have an instrument already, or do you need advice on buying one?",
        "A nylon-string classical model is kinder to beginners' fingers. What kind of music do you like?",
        "Then start with open chords: G, C, D and E minor cover hundreds of songs. Would a practice plan help?",
        "Fifteen minutes a day beats two hours on Sunday: chords first, then a song you love. Shall I suggest songs?"],
        ["I need to buy one, what should I get?", "Mostly folk and some pop.", "Yes, how often should I practise?",
         "Not now, thanks."]), id="different-questions-each-answered-with-a-question-back"),
    pytest.param(chat("I'm nervous about my first marathon on Sunday.", [
        "Don't worry, nerves are normal. Have you tapered your training this week?",
        "Not too much fibre the night before; pasta or rice with a little sauce is ideal. No new foods on race day.",
        "Don't start fast: run the first five kilometres slower than feels natural. It's not a race against the clock.",
        "No need for new shoes; the pair you trained in is best. Don't forget to tape any hot spots."],
        ["Yes, only short runs now. What should I eat?", "Got it. Any pacing advice? I always go out too quick.",
         "And which shoes, my old ones or the new pair I bought?", "Thanks!"]),
                 id="different-questions-answered-with-advice-that-says-dont"),
    pytest.param(chat("I want to cancel my order.", [
        "I can help with that. Could you give me your user id?",
        "No problem. Could you share the email address on your account instead?",
        "That's fine. Then please tell me your first and last name and your zip code so I can find you.",
        "Could you give me the phone number on the account then?"],
        ["I don't have my user id, I never made one I think.", "I don't remember which email I used, I have several.",
         "I'd rather not give my address details.", "Fine, it's 555 0147."]),
                 id="asking-for-another-way-to-find-the-account-each-time"),
    pytest.param(chat("Can I add a second checked bag to my booking?", [
        "I'm sorry, extra bags can't be added to a basic fare online.",
        "I understand the frustration, but additional luggage cannot be purchased on this ticket type.",
        "I can't add it here, but you can pay for the bag at the airport desk on the day; it's usually quick."],
        ["Seriously? It's just one bag.", "Please, I really need it.", "Okay, I'll do that."]),
                 id="a-refusal-said-twice-then-an-alternative"),
]


@pytest.mark.parametrize("messages", TROUBLE_HEALTHY)
def test_replies_that_take_up_the_trouble_move_on_or_hear_no_trouble_pass(messages):
    report = detect_loops(messages)
    assert report.success, report.reason


@pytest.mark.parametrize(("middle", "loop"), [
    pytest.param("Once the courier collects order 55123, its drop-off point is fixed.", True,
                 id="each-reply-names-the-order-the-turn-named-as-the-reply-before-did"),
    pytest.param(UNHEARD["refusal"][1][1], False, id="twin-the-last-reply-names-it-anew"),
])
def test_a_fact_the_turn_names_is_taken_up_only_by_a_reply_that_tells_it_anew(middle, loop):
    """The other side names order 55123, which the agent had named: a reply that names it as the reply
    before it did answers with what it had (unheard, a loop of three); naming it where the reply before
    did not is taking it up."""
    opening, _, turns = UNHEARD["refusal"]
    messages = chat(opening, ["The courier already has order 55123, so the delivery address is locked.", middle,
                              "Order 55123 is on the courier's route now, and its delivery spot stays put."],
                    [turns[0], "Please, can you sort out 55123 today?"])
    report = detect_loops(messages)
    assert report.success is (not loop), report.reason
    if loop:
        _one_chain_of_every_reply(messages, 3, "answering the other side's no, question or trouble said again with none of what it said")


# Replies that do nothing but ask the other side to wait ("one moment", "I'm still checking"), turn
# after turn, no tool call between and nothing coming back: the agent stalls. Three are a loop
# (`_replies`: a chain of replies that only ask to wait needs `repeated_text_threshold` replies).
STALL_OPENING = "Why is the living room at 15 degrees? The thermostat is set to 21."
STALLS = ["Let me look into that for you. One moment while I check the living room thermostat.",
          "Checking on the thermostat now, this should just take a second.",
          "Thanks for your patience! I'm pulling up the heating status for the living room.",
          "Bear with me, I'm still looking at the heating schedule.",
          "Hang tight, I'm taking a look at the boiler readings."]
STALL_TURNS = ["ok", "well?", "hello?", "any update?", "it's been ten minutes"]


@pytest.mark.parametrize("times", [pytest.param(n, id=f"asked-to-wait-{n}-times") for n in (3, 4, 5)])
def test_replies_that_only_ask_to_wait_three_times_are_a_stall(times):
    _one_chain_of_every_reply(chat(STALL_OPENING, STALLS[:times], STALL_TURNS), times,
                              "doing nothing but ask the other side to wait")


CURLY_STALLS = ["I’ll check the living room thermostat for you.", "I’m looking at the heating schedule now.",
                "I’m pulling up the boiler readings."]


@pytest.mark.parametrize("replies", [pytest.param(CURLY_STALLS, id="written-with-curly-apostrophes"),
                                     pytest.param([r.replace("’", "'") for r in CURLY_STALLS],
                                                  id="twin-written-with-straight-apostrophes")])
def test_a_stall_is_a_stall_whichever_apostrophe_it_is_written_with(replies):
    """"I’ll check", "I’m looking": three replies that only ask to wait are a stall, the apostrophe
    curly or straight."""
    _one_chain_of_every_reply(chat(STALL_OPENING, replies, STALL_TURNS), 3,
                              "doing nothing but ask the other side to wait")


def _checked(*results):
    """The stall with the agent checking between its second and third reply (a call answered
    with each of `results` in turn)."""
    messages = chat(STALL_OPENING, STALLS[:2], STALL_TURNS)
    for n, result in enumerate(results):
        messages += [{"role": "assistant", "content": "", "tool_calls": [{"id": f"c{n}", "type": "function", "function": {
                         "name": "thermostat_status", "arguments": "{\"room\": \"living\"}"}}]},
                     {"role": "tool", "tool_call_id": f"c{n}", "content": result}]
    return messages + [{"role": "assistant", "content": STALLS[2]}, {"role": "user", "content": STALL_TURNS[2]}]


STALL_HEALTHY = [
    pytest.param(chat(STALL_OPENING, STALLS[:2] + ["Found it: the thermostat is in eco mode, which caps the living "
                                                   "room. I've switched it back to comfort mode."], STALL_TURNS),
                 id="two-waits-then-the-answer"),
    pytest.param(chat("How do I export my notes to PDF?", [
        "Let me check the menu layout for you. First, open the notebook you want and click the three dots at the top "
        "right.",
        "Let me look at the next part. Choose Export from the menu, then pick PDF as the format.",
        "Let me see what comes after that. Select a folder to save into and press Save; the file appears there "
        "within seconds."], ["ok", "done", "got it, thanks"]),
                 id="a-guide-whose-replies-open-with-let-me-check"),
    pytest.param(_checked('{"room": "living", "reading": 15, "mode": "eco"}'), id="a-check-answered-between"),
    pytest.param(chat(STALL_OPENING, STALLS[:3], ["ok", "It's the one in the hallway, model T-400.", "hello?"]),
                 id="twin-the-other-side-tells-a-fact-between"),
    pytest.param(chat(STALL_OPENING, STALLS[:3], ["ok"]), id="twin-replies-in-a-row-with-no-turn-between"),
]


@pytest.mark.parametrize("messages", STALL_HEALTHY)
def test_waits_that_end_in_an_answer_a_step_or_a_check_pass(messages):
    report = detect_loops(messages)
    assert report.success, report.reason


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("Let me look into that. One moment while I check the thermostat.", True, id="every-sentence-waits"),
    pytest.param("Thanks! Bear with me.", True, id="courtesy-and-a-wait"),
    pytest.param("Let me check. First, open the notebook.", False, id="twin-a-wait-and-a-step"),
    pytest.param("Your thermostat is in eco mode.", False, id="twin-an-answer"),
])
def test_waits_only(text, expected):
    assert waits_only(text) is expected


POLLED = ["Incident INC-4410 is open and assigned to network-ops; engineers are working on the packet loss.",
          "INC-4410 is still open. The network-ops team is investigating the packet loss.",
          "Status for INC-4410: open, being worked on by network-ops.",
          "INC-4410 remains open, and network-ops engineers are on the packet loss."]


@pytest.mark.parametrize(("turns", "loop"), [
    pytest.param(["STATUS_REQUEST incident=INC-4410 fields=eta", "STATUS_REQUEST incident=INC-4410 fields=eta,owner",
                  "STATUS_REQUEST incident=INC-4410 fields=eta,owner,updated"], True,
                 id="turns-that-say-the-tasks-facts-again-bring-nothing"),
    pytest.param(["STATUS_REQUEST incident=INC-4410 fields=eta", "STATUS_REQUEST incident=INC-4417 fields=eta",
                  "STATUS_REQUEST incident=INC-4410 fields=eta,owner"], False, id="twin-a-turn-with-a-new-id-is-news"),
])
def test_the_facts_the_task_told_are_told(turns, loop):
    """The task is the other side's first turn: a program polling the agent that names the task's
    incident and its own request name (`STATUS_REQUEST`) again each turn tells nothing new, and the
    agent answering with the same status three times is a loop; a turn naming another incident is news."""
    messages = [{"role": "user", "content": "STATUS_REQUEST incident=INC-4410"}]
    for reply, turn in zip(POLLED, turns):
        messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": turn}]
    report = detect_loops(messages)
    assert report.success is (not loop), report.reason
    if loop:
        (finding,) = report.findings
        assert (finding.pattern, finding.count) == ("repeated_reply", 3)


# An agent that holds the rule while offering a way forward: each reply declines the same thing
# (a parcel that has shipped cannot be sent elsewhere) and may offer something beside the decline.
ADDRESS_ASKED = "I need to change the delivery address on my order."
ADDRESS_PRESSED = ["That doesn't help, I need the address changed.", "Please, just change it.",
                   "Why can't you change it?", "Come on.", "Seriously?"]
ADDRESS_DECLINED = ["I'm sorry, the delivery address can't be changed once the order has shipped.",
                    "I'm sorry, the address can't be changed at this stage.",
                    "I'm sorry, the address cannot be updated for this order now.",
                    "I'm sorry, the address cannot be changed now that it shipped.",
                    "Unfortunately the address can no longer be edited after dispatch."]
ALTERNATIVES = {
    # a different way forward each time: the agent explores while it holds the rule
    "a-different-alternative": [
        "I can redirect it to a pickup point near you instead.",
        "I could ask the courier to hold the parcel at their depot for you.",
        "I can cancel the order and refund you so you can reorder to the right address.",
        "I can arrange a return-to-sender so it comes back to us.",
        "I could have a neighbour sign for it on your behalf."],
    # alternatives, then the last reply offers to hand the case to people who can do more
    "alternatives-then-a-transfer": [
        "I can redirect it to a pickup point near you instead.",
        "I could ask the courier to hold the parcel at their depot for you.",
        "I can cancel the order and refund you so you can reorder to the right address.",
        "I can arrange a return-to-sender so it comes back to us.",
        "Would you like me to transfer you to a human supervisor from our logistics team?"],
    # the same way forward each time, reworded a little: stuck
    "the-same-alternative": [
        "I can offer you store credit for the full amount instead.",
        "I could give you store credit for the full amount.",
        "I can still offer store credit for the full amount.",
        "What I can do is offer you the full amount as store credit.",
        "I can put the full amount on your account as store credit."],
    # the same small offer, two new words each time (two thirds new, too few): stuck
    "the-same-voucher": ["I can offer a voucher.", "I could email you a voucher today.", "I can post a voucher tomorrow.",
                         "I could issue a printed voucher.", "We can text a voucher code."],
    # the same transfer offered again with a few new words beside the old ones: stuck
    "the-same-transfer": [
        "I can transfer you to a human agent in our delivery team who could review the order.",
        "Our delivery team has human agents: shall I transfer you so one can review the order this afternoon by "
        "phone or email?",
        "What I can do is transfer you to a delivery team agent, a human, to review the order tomorrow morning via "
        "live chat.",
        "Would you like me to transfer you so a human agent on the delivery team reviews the order during business "
        "hours on weekdays?",
        "We can transfer you to the delivery team's human agents, who may review the order quickly through a callback "
        "request."],
    # a new reason each time, no way forward: the refusal restated
    "a-new-reason": [
        "The parcel is already travelling with the courier.",
        "Our warehouse system locks every order after dispatch.",
        "Carriers only accept destination changes from the sender before collection.",
        "Fraud checks forbid rerouting goods once labels print.",
        "The label was generated with your original postcode."],
    "no-alternative": [""] * 5,
}
# The refusal said with "I" or "we" ("I can't", "we can't"): a decline is no offer.
FIRST_PERSON_DECLINED = ["I'm sorry, I can't change the delivery address once the order has shipped.",
                         "I'm sorry, we can't change the address on a parcel already travelling with the courier.",
                         "I'm sorry, I can't change the address; the warehouse system locks dispatched orders.",
                         "I'm sorry, we can't change the delivery address after carriers collect the goods.",
                         "I'm sorry, I can't change the address printed on the label of a shipped package."]
EXPLORES = {"a-different-alternative", "alternatives-then-a-transfer"}
# The transfer's replies decline in words of their own, or they would be nearly the same reply.
DECLINED = {"the-same-transfer": ["I'm sorry, the delivery address can't be changed once the order has shipped.",
                                  "Unfortunately that isn't possible at this stage of shipping.",
                                  "I'm afraid the destination cannot be updated for a dispatched parcel.",
                                  "Sadly, once a parcel leaves us its address is locked and cannot be edited.",
                                  "Unfortunately the address can no longer be edited after dispatch."]}


def _declined(kind, times, declined=None):
    declined = declined or DECLINED.get(kind, ADDRESS_DECLINED)
    replies = [f"{no} {offer}".strip() for no, offer in zip(declined, ALTERNATIVES[kind][:times])]
    return chat(ADDRESS_ASKED, replies, ADDRESS_PRESSED)


# Four refusals of one thing are the same refusal restated (`_replies`); three reworded only a
# little are nearly the same reply (the store credit's three replies share most of their words).
DECLINED_WITH_OFFERS = [
    pytest.param(kind, n, kind not in EXPLORES and (n >= 4 or kind == "the-same-alternative"), id=f"{kind}-{n}-replies")
    for kind in ALTERNATIVES for n in (3, 4, 5)]


@pytest.mark.parametrize(("kind", "times", "loop"), DECLINED_WITH_OFFERS)
def test_a_refusal_that_offers_something_new_each_time_moves_on(kind, times, loop):
    """A reply that declines but offers a way forward nobody had said (its sentences that propose
    what the agent can do hold at least three stems the conversation had not said, half of theirs)
    does not link to the chain: an agent trying a pickup point, then the courier's depot, then a
    refund is exploring while it holds the rule. The same offer again, in a few new words, does
    link; so does a refusal with a new reason each time (a reason is no offer)."""
    report = detect_loops(_declined(kind, times))
    assert report.success is (not loop), report.reason
    if loop:
        assert [f.pattern for f in report.findings] == ["repeated_reply"], report.reason
        assert report.reason.count("The agent ") == 1 and "rejected" not in report.reason


# Four refusals of the address change: the first offers store credit, the next three a pickup point.
OFFERED_WHAT_THE_TASK_ASKED = [
    "I can offer you store credit for the full amount instead.",
    "I can redirect it to a pickup point near you instead.",
    "I could redirect it to a pickup point near you instead.",
    "I can redirect it to a pickup point close to you."]


@pytest.mark.parametrize(("task", "steps"), [
    pytest.param(ADDRESS_ASKED + " Or redirect it to a pickup point near me instead.", (1, 3, 5, 7),
                 id="a-pickup-point-the-task-asked-for-is-no-way-forward-all-four-refusals-loop"),
    pytest.param(ADDRESS_ASKED, (3, 5, 7), id="twin-a-pickup-point-nobody-asked-for-moves-on-from-the-first-refusal"),
])
def test_an_offer_of_what_the_task_asked_for_is_nothing_new(task, steps):
    """The task is said before the first reply: a refusal that offers what the task itself asked for (a
    pickup point) offers nothing nobody had said, and links to the refusal before it; offered by no one
    before, it moves on, and only the refusals after it, each offering it again, are one."""
    replies = [f"{no} {offer}" for no, offer in zip(ADDRESS_DECLINED, OFFERED_WHAT_THE_TASK_ASKED)]
    report = detect_loops(chat(task, replies, ADDRESS_PRESSED))
    assert [(f.pattern, f.steps) for f in report.findings] == [("repeated_reply", steps)], report.reason


@pytest.mark.parametrize(("times", "loop"), [pytest.param(n, n >= 4, id=f"{n}-replies") for n in (3, 4, 5)])
def test_a_refusal_said_in_the_first_person_is_no_offer(times, loop):
    """"I can't", "we can't": the sentence that declines says no, so it offers nothing, however
    many words it brings of its own."""
    report = detect_loops(_declined("no-alternative", times, FIRST_PERSON_DECLINED))
    assert report.success is (not loop), report.reason


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("I'm sorry, the address can't be changed. I can redirect it to a pickup point near you instead.",
                 {"redirect", "pickup", "point", "instead"}, id="the-offer-not-the-decline"),
    pytest.param("Would you like me to transfer you to a supervisor?", {"transfer", "supervisor"}, id="an-offer-asked"),
    pytest.param("I can't change the address.", set(), id="twin-a-decline-in-the-first-person"),
    pytest.param("I’ll redirect it to a pickup point.", {"redirect", "pickup", "point"},
                 id="an-offer-written-with-a-curly-apostrophe"),
    pytest.param("I'll check the courier's depot for you. One moment.", set(), id="twin-a-wait"),
    pytest.param("The parcel is already with the courier.", set(), id="twin-a-reason"),
])
def test_what_a_reply_offers(text, expected):
    assert offered(text) == frozenset(expected)


@pytest.mark.parametrize(("offer", "said", "new"), [
    pytest.param({"redirect", "pickup", "point"}, set(), True, id="three-stems-nobody-said-are-new"),
    pytest.param({"redirect", "pickup"}, set(), False, id="twin-two-stems-are-too-few"),
    pytest.param({"store", "credit", "amount", "full", "redirect", "pickup"}, {"store", "credit", "amount"}, True,
                 id="three-new-of-six-half-of-them-is-new"),
    pytest.param({"store", "credit", "amount", "full", "redirect", "pickup", "value"},
                 {"store", "credit", "amount", "full"}, False, id="twin-three-new-of-seven-under-half-is-not"),
])
def test_an_offer_is_new_from_three_stems_nobody_said_half_of_its_own(offer, said, new):
    """`_offers_new` at its edges (3 new stems, half of the offer's stems): hand counted."""
    assert _offers_new(frozenset(offer), said) is new


# Three conversations whose replies do again what they did while something reads as moving on: a
# word the other side brought said back only in a sentence that says no ("Contractor badges
# aren't accepted": turned down, not used), "please know" read as an ask (it vouches, it asks for
# nothing), the same wait told again in minutes (a span told in minutes or hours is a fact the
# reply tells again). Each beside a healthy twin: the word used in a sentence that does not say
# no, "please send me" (an ask), a new span told each turn (news).
ECHOED = {
    "echoed-in-a-no": ("I need access to the staff portal.", [
        "To set up portal access, could you send me your employee ID?",
        "Contractor badges aren't accepted. Could you send me your employee ID?",
        "Your account is ready apart from that. Could you send me your employee ID?",
        "Payroll numbers are no substitute. Could you send me your employee ID?",
        "The portal opens as soon as I have it. Could you send me your employee ID?"],
        ["I'm a contractor, I only have a contractor badge.", "I have a visitor pass, will that do?",
         "I can give you my payroll number.", "My manager can email you.", "Anything else?"]),
    "twin-the-word-used": ("I need access to the staff portal.", [
        "To set up portal access, could you send me your employee ID?",
        "Contractor badges are accepted too. Could you send me the number on your contractor badge?",
        "Your account is ready apart from that. Could you send me your employee ID?",
        "Payroll numbers work as well. Could you send me your payroll number?",
        "The portal opens as soon as I have it. Could you send me your employee ID?"],
        ["I'm a contractor, I only have a contractor badge.", "I have a visitor pass, will that do?",
         "I can give you my payroll number.", "My manager can email you.", "Anything else?"]),
    "sorry-and-please-know": ("My order still hasn't arrived.", [
        "I'm really sorry about the delay with your order. Please know that we value you as a customer.",
        "I apologize for the inconvenience this delay has caused you. Please be assured we take this seriously.",
        "I'm sorry your order is late. Please rest assured that your satisfaction matters to us.",
        "My sincere apologies that your package hasn't arrived yet. Please, know that we care about your experience.",
        "Again, I'm very sorry for the trouble with this late delivery. Please rest assured we hear you."],
        PRESS["apology"]),
    "twin-sorry-and-please-send": ("My order still hasn't arrived.", [
        "I'm really sorry about the delay with your order. Please send me your order number.",
        "I apologize for the inconvenience this delay has caused you. Please send me the order number from your "
        "receipt.",
        "I'm sorry your order is late. Please send me the order number so I can look.",
        "My sincere apologies that your package hasn't arrived yet. Please send me the number on your confirmation.",
        "Again, I'm very sorry for the trouble with this late delivery. Please send me that order number."],
        PRESS["apology"]),
    "the-same-wait-in-minutes": ("Where is the technician? I've been home all morning.", [
        "The technician is running about 45 minutes late.",
        "Your technician is still about 45 minutes away from you.",
        "The technician should reach your address in about 45 minutes.",
        "I checked again: the technician is roughly 45 minutes out.",
        "The technician's arrival is still about 45 minutes off."],
        ["That's too long.", "Seriously? Still?", "I have to leave soon.", "Can't you hurry them?", "Hello?"]),
    "twin-a-new-wait-each-turn": ("Where is the technician? I've been home all morning.", [
        "The technician is running about 45 minutes late.",
        "Your technician is now about 30 minutes away from you.",
        "The technician should reach your address in about 20 minutes.",
        "I checked again: the technician is roughly 10 minutes out.",
        "The technician's arrival is now about 5 minutes off."],
        ["That's too long.", "Seriously? Still?", "I have to leave soon.", "Can't you hurry them?", "Hello?"]),
}
# The same ask three times is a loop (the contractor's badge echoed in a no is no word taken up);
# apologies that do nothing else are a loop at three, with an ask besides at four (apologizing
# again); the same facts told again at four; the twins that move on never.
ECHOED_LOOP_AT = {"echoed-in-a-no": 3, "twin-the-word-used": None, "sorry-and-please-know": 3,
                  "twin-sorry-and-please-send": 4, "the-same-wait-in-minutes": 4, "twin-a-new-wait-each-turn": None}
ECHOED_SAYS = {"echoed-in-a-no": "asking again for the same thing", "sorry-and-please-know": "apologizing again",
               "twin-sorry-and-please-send": "apologizing again",
               "the-same-wait-in-minutes": "telling the same facts again (45 minutes)"}


@pytest.mark.parametrize(("kind", "times", "loop"), [
    pytest.param(kind, n, loop_at is not None and n >= loop_at, id=f"{kind}-{n}-times")
    for kind, loop_at in ECHOED_LOOP_AT.items() for n in (3, 4, 5)])
def test_an_echo_a_vouch_or_a_span_told_again_is_no_way_forward(kind, times, loop):
    opening, replies, turns = ECHOED[kind]
    messages = chat(opening, replies[:times], turns)
    report = detect_loops(messages)
    assert report.success is (not loop), report.reason
    if loop:
        (finding,) = report.findings
        assert (finding.pattern, finding.count) == ("repeated_reply", times)
        assert ECHOED_SAYS[kind] in finding.message, finding.message
