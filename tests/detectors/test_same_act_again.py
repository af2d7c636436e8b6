"""What a reply does and about what, at the default settings: the agent asking for the same
thing, offering the same thing, telling the same facts or only apologizing, turn after turn,
whatever else each reply says (an acknowledgment, a restated reason, the other side's words
echoed), while the other side brings nothing the agent then uses (`_replies._same_act`,
`_replies._acts_of`, `_stances.asks`). Progress is judged by what the agent does with what it
heard: a tool call with it, a reply that uses the fact it was told, an ask or offer that
changes. Each kind is reworded 3, 4 and 5 times; healthy twins move on."""

from __future__ import annotations

import json

import pytest

from loopmetric import detect_loops
from loopmetric.detectors._replies import _Acts, _same_act
from loopmetric.detectors._stances import asks, stems
from tests._traces import chat


def restated(messages):
    """The `repeated_reply` findings of the conversation."""
    return [f for f in detect_loops(messages).findings if f.pattern == "repeated_reply"]


# Each kind: the opening, the agent's replies (each saying the same thing in other words, with
# something else around it) and the other side's turns (which push back, each in new words).
KINDS = {
    "request": ("My library card stopped working at the self-checkout.",
                ["Sorry about that! Could you tell me your borrower number? It is printed under the barcode.",
                 "I understand the card was a gift from your school, but I still need the borrower number to "
                 "look you up.",
                 "Thanks, Priya. Please read me the borrower number from the back of the card.",
                 "Once you give me the borrower number I can reset the card straight away.",
                 "I do need that borrower number before anything else. Could you check the card once more?"],
                ["The numbers have rubbed off, I can't read them.", "My school gave it to me, I never had a number.",
                 "It's Priya. I told you the numbers are gone. Can't you look me up by my name?",
                 "There is no number, seriously.", "This is going nowhere."]),
    "offer": ("My gym membership fee went up and I can't afford it anymore.",
              ["I can move you to our off-peak plan, which costs 19 EUR a month.",
               "I hear you. Shall I switch you to the off-peak plan at 19 EUR a month?",
               "The off-peak plan is still available at 19 EUR; I can switch you over today.",
               "Would you like me to set up the off-peak plan for 19 EUR a month?",
               "If it helps, I can still put you on the off-peak plan, 19 EUR monthly."],
              # (statements, no question and no "no": the agent leaves each unheard, offering what it had)
              ["I work nights, so off-peak hours are when I sleep.", "Money is tight since my shifts were cut.",
               "Honestly, I just want to pay less.", "Hmm.", "Well."]),
    "status": ("Where is my visa application? I applied on 2 November.",
               ["Your application is under review. Reviews take up to 6 weeks, so expect a decision by "
                "14 December.",
                "I understand the worry. The application is still being reviewed within the 6-week window that "
                "ends on 14 December.",
                "Right now it is in the review stage and on schedule for 14 December.",
                "To recap: under review, with the 6-week deadline falling on 14 December.",
                "It remains under review; the decision is due by 14 December."],
               ["I fly in 12 days, I can't wait that long.", "Can it be sped up somehow?",
                "So what am I supposed to do, just hope?", "Hello? Anyone?", "Unbelievable."]),
    "apology": ("I was charged twice for my concert ticket.",
                ["I'm so sorry to hear that. Being charged twice is really upsetting.",
                 "I sincerely apologise for the trouble this double charge has caused you.",
                 "I'm really sorry, I completely understand how stressful this must be.",
                 "My apologies again; nobody should have to deal with a double charge.",
                 "Once more, I regret the frustration this has caused."],
                ["OK, can you fix it?", "So refund the second charge?", "Please just look at my account.",
                 "Is anyone going to do something?", "Wow."]),
}
# Asking or offering the same thing, or only apologizing: a loop at three replies; the same facts
# told again, with other words around them, at four (a status may be asked after more than once).
LOOP_AT = {"request": 3, "offer": 3, "status": 4, "apology": 3}
SAYS = {"request": "asking again for the same thing", "offer": "offering the same thing again",
        "status": "telling the same facts again", "apology": "apologizing again"}
# What repeats, named in the reason in the words of a reply (the facts told again: as written).
WHAT = {"request": " (borrower number)", "offer": " (off-peak plan", "status": " (14)", "apology": ""}
REWORDED = [pytest.param(kind, n, n >= LOOP_AT[kind], id=f"{kind}-reworded-{n}-times")
            for kind in KINDS for n in (2, 3, 4, 5)]


@pytest.mark.parametrize(("kind", "times", "loop"), REWORDED)
def test_the_same_act_in_other_words_is_a_loop(kind, times, loop):
    opening, replies, turns = KINDS[kind]
    found = restated(chat(opening, replies[:times], turns))
    assert bool(found) is loop, [f.message for f in found]
    if loop:
        (finding,) = found
        assert finding.count == times
        assert SAYS[kind] + WHAT[kind] in finding.message
        assert f"The agent said the same thing in other words {times} times in a row" in finding.message


OPENING, REPLIES, TURNS = KINDS["request"]
_tool_id = iter(range(1000))


def call(name, arguments, result):
    """A tool call and its result, as chat messages."""
    n = f"c{next(_tool_id)}"
    return [{"role": "assistant", "content": "", "tool_calls": [{"id": n, "type": "function", "function": {
                "name": name, "arguments": json.dumps(arguments)}}]},
            {"role": "tool", "tool_call_id": n, "content": result}]


def _rejected_each_new_number():
    """The agent asks for the borrower number again because the lookup rejected each number given."""
    messages = chat(OPENING, REPLIES[:1], ["It's 4471."])
    for n, (number, reply) in enumerate([("4471", "That number wasn't found. Could you check the borrower number "
                                                    "again? It has eight digits."),
                                         ("44710093", "That one wasn't found either. Could you read the borrower "
                                                      "number once more?"),
                                         ("44710098", "Found you, Priya: the card is unblocked now.")]):
        messages += call("find_borrower", {"number": number}, "not found" if n < 2 else "Priya Nair, blocked")
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "user", "content": ["44710093", "44710098", "thanks!"][n]})
    return messages


HEALTHY = [
    pytest.param(chat(OPENING, [REPLIES[0], "No problem. Could you tell me your date of birth and postcode instead?",
                                "Thanks. And the name of your school?",
                                "Found you: the card is linked to Hillside School. I've reset it."],
                      [TURNS[0], "12 March 2011, BN3 4QT", "Hillside"]),
                 id="asks-once-then-accepts-another-way"),
    pytest.param(chat("I'd like to book a table.", ["For which day?", "How many people?", "What time suits you?",
                                                    "Any seating preference, inside or on the terrace?"],
                      ["Saturday", "four", "8 pm", "terrace please"]),
                 id="many-different-questions-each-answered"),
    pytest.param(chat(OPENING, [REPLIES[0], REPLIES[2], "Thanks, 44710098 is you, Priya. The card is reset now."],
                      ["Hang on.", "44710098"]),
                 id="the-same-question-twice-then-answered"),
    pytest.param(_rejected_each_new_number(), id="asked-again-because-a-tool-rejected-each-new-value"),
    pytest.param(chat(OPENING, REPLIES[:4], ["I don't have it with me.", "OK, I'll look for it when I'm home.",
                                             "Still looking, I'll get back to you.", "Found it!"]),
                 id="asked-again-while-the-other-side-says-it-will-look"),
    pytest.param(chat(KINDS["offer"][0],
                      ["I can move you to our off-peak plan, which costs 19 EUR a month.",
                       "I could instead freeze your membership for up to 3 months at no charge.",
                       "Then I can apply our hardship discount, which brings the fee to 24 EUR.",
                       "I can also waive this month's 10 EUR late fee while you decide."],
                      KINDS["offer"][2]),
                 id="a-different-offer-each-turn"),
    pytest.param(chat("Is my upload done yet?",
                      ["It's processing: 20% done, about 8 minutes left.", "Still going: 55% now, roughly 4 minutes.",
                       "Nearly there, 90%, under a minute to go.", "Done: all 214 files are uploaded."],
                      ["ok", "and now?", "now?", "great"]),
                 id="a-status-with-new-facts-each-time"),
    pytest.param(chat(KINDS["apology"][0],
                      ["I'm so sorry to hear that. Could you tell me the order number on the receipt?",
                       "Sorry for the wait. I see both charges of 58 EUR on order TK-30211.",
                       "Apologies again: the second charge is refunded, reference RF-1183."],
                      ["TK-30211", "ok"]),
                 id="apologies-that-ask-and-act"),
]


@pytest.mark.parametrize("messages", HEALTHY)
def test_conversations_that_move_on_pass(messages):
    found = restated(messages)
    assert not found, [f.message for f in found]


ECHO = [
    pytest.param("I understand you're a student, but I still need the borrower number to look you up.", True,
                 id="an-acknowledgment-echoes-the-other-sides-word"),
    pytest.param("Thanks, Marguerite. Please read me the borrower number from the back of the card.", True,
                 id="a-name-the-agent-calls-them-by-echoes"),
    pytest.param("A student card works too: please read me the number on your student card instead.", False,
                 id="twin-the-ask-takes-up-what-they-said"),
    pytest.param("Thanks. Borrower 20931 is on file for you: please confirm the borrower number on the card.", False,
                 id="twin-the-reply-uses-the-fact-they-told"),
]


@pytest.mark.parametrize(("third", "loop"), ECHO)
def test_an_echo_of_the_other_sides_words_is_not_uptake(third, loop):
    """The third reply answers "I don't have a number, I'm a student, Marguerite; my old card was 20931"."""
    messages = chat(OPENING, REPLIES[:2] + [third],
                    [TURNS[0], "I don't have a number, I'm a student. My name is Marguerite, my old card was 20931."])
    assert bool(restated(messages)) is loop


def test_a_value_given_and_asked_for_again_is_an_answer_turned_down():
    """A turn that gives a value ("It's 44710093"), saying no no, answers the ask: asked for again,
    the value was turned down, as a tool rejecting it would (each turn a new value: no loop). A
    value told besides a no ("I don't have it; my old card was 20931") is no answer, and a reply
    that does not use it has not heard it."""
    answers = ["It's 44710093.", "Sorry, maybe 44710098?", "Then 44710099."]
    assert not restated(chat(OPENING, REPLIES[:4], answers))
    besides = ["I don't have it. My old card was 44710093.", "No, I can't. My school id is 5512.",
               "I don't know it! My phone is 0612 555 010."]
    assert [f.count for f in restated(chat(OPENING, REPLIES[:4], besides))] == [4]


ASKS = [
    pytest.param("Could you share your order number?", True, id="a-question"),
    pytest.param("I'll need the order number to continue.", True, id="i-will-need"),
    pytest.param("Please provide the order number.", True, id="please-provide"),
    pytest.param("Once you give me the order number I can set up the exchange.", True, id="once-you-give-me"),
    pytest.param("If you can find the order number, I'll take care of it.", True, id="if-you-can-find"),
    pytest.param("Just send it here when you have it.", True, id="send-it-here"),
    pytest.param("Your order number starts with VM-.", False, id="twin-a-statement"),
    pytest.param("I sent the order to the courier.", False, id="twin-sent-is-no-send-me"),
]


@pytest.mark.parametrize(("sentence", "expected"), ASKS)
def test_a_sentence_that_asks(sentence, expected):
    assert asks(sentence) is expected


def acts(asked="", offered=(), told=(), text="", said=""):
    """What a reply does; `text`: what it says besides (its facts, the words it could take up)."""
    return _Acts(frozenset(stems(asked)), tuple(frozenset(stems(o)) for o in offered), frozenset(told),
                 text, frozenset(stems(said + " " + text)))


EARLIER = acts(asked="your borrower number please", offered=["I can reset the card"], text="by 14 December",
               said="borrower number reset card review 14 December")
SAME_ACT = [
    pytest.param(acts(asked="the borrower number again"), set(), "request", id="the-same-ask"),
    pytest.param(acts(asked="your borrower card"), set(), None, id="twin-one-stem-in-common-is-another-ask"),
    pytest.param(acts(asked="the borrower number", told=["20931"]), set(), None,
                 id="twin-an-ask-that-tells-a-new-fact"),
    pytest.param(acts(asked="the borrower number", text="For a student borrower number, ask at the desk."), {"student"}, None,
                 id="twin-it-takes-up-a-fresh-word"),
    pytest.param(acts(offered=["I can reset your card now"]), set(), "offer", id="the-same-offer"),
    pytest.param(acts(text="on 14 December", said="review"), set(), "status", id="the-same-facts"),
    pytest.param(acts(text="sunny on 14 May", said="weather"), set(), None, id="twin-the-same-figure-about-else"),
    pytest.param(acts(text="14 or 15 December", said="review"), set(), None, id="twin-a-fact-not-told"),
]


@pytest.mark.parametrize(("reply", "fresh", "expected"), SAME_ACT)
def test_same_act(reply, fresh, expected):
    assert _same_act(reply, [EARLIER], lambda: frozenset({"14"}), fresh) == expected


def test_an_ask_found_two_ways_is_named_once():
    """A chain linked by asking again as read from the stances and as read from what the replies ask
    for says so once, naming what is asked for."""
    from loopmetric import read_chat_messages
    from loopmetric.detectors._replies import _restated_finding
    replies = [step for step in read_chat_messages(chat(OPENING, REPLIES[:3], TURNS)).steps if step.kind == "llm"]
    message = _restated_finding(replies, ["ask", "request"], what={"request": "borrower number"}).message
    assert message.count("asking again for the same thing") == 1
    assert "(asking again for the same thing (borrower number))" in message


# The same offer, its "I’ll", "I’m happy to" and "we’ll" written with curly apostrophes or straight ones:
# read alike (a reply's offers are read sentence by sentence, each apostrophe as a straight one).
CURLY_OFFERS = ["I’ll move you to our off-peak plan, which costs 19 EUR a month.",
                "I hear you. I’m happy to switch you to the off-peak plan at 19 EUR a month.",
                "The off-peak plan is still available at 19 EUR; we’ll switch you over today."]
APOSTROPHES = [
    pytest.param("’", 3, True, id="the-same-offer-with-curly-apostrophes-3-times"),
    pytest.param("'", 3, True, id="twin-the-same-offer-with-straight-apostrophes-3-times"),
    pytest.param("’", 2, False, id="twin-the-same-offer-with-curly-apostrophes-twice"),
]


@pytest.mark.parametrize(("apostrophe", "times", "loop"), APOSTROPHES)
def test_an_offer_written_with_curly_apostrophes_is_the_same_offer(apostrophe, times, loop):
    opening, _, turns = KINDS["offer"]
    found = restated(chat(opening, [reply.replace("’", apostrophe) for reply in CURLY_OFFERS[:times]], turns))
    assert bool(found) is loop, [f.message for f in found]
    if loop:
        assert "offering the same thing again (off-peak plan EUR month)" in found[0].message


NAMED_ONCE = [
    pytest.param("Sorry about that! Could you tell me your borrower number? Please give the borrower number, "
                 "the borrower number only.", id="an-ask-that-says-its-words-twice-names-them-once"),
    pytest.param(REPLIES[0], id="twin-an-ask-that-says-its-words-once"),
]


@pytest.mark.parametrize("first", NAMED_ONCE)
def test_what_is_asked_again_is_named_once(first):
    (finding,) = restated(chat(OPENING, [first, *REPLIES[1:3]], TURNS))
    assert "(asking again for the same thing (borrower number))" in finding.message


# What a reply offers: its sentences that propose what the agent can do, each alone; a sentence
# beside them that tells, asks, says no or asks to wait offers nothing.
OFFERS = [
    pytest.param("I can move you to the off-peak plan. Membership changes start with the next billing cycle.",
                 ["I can move you to the off-peak plan."], id="a-sentence-that-tells-beside-an-offer-offers-nothing"),
    pytest.param("I can move you to the off-peak plan. I could also freeze the membership.",
                 ["I can move you to the off-peak plan.", "I could also freeze the membership."],
                 id="twin-two-sentences-that-offer"),
    pytest.param("I can't lower the fee. I can move you to the off-peak plan.",
                 ["I can move you to the off-peak plan."], id="a-sentence-that-says-no-offers-nothing"),
    pytest.param("I'll check the plans for you. I can move you to the off-peak plan.",
                 ["I can move you to the off-peak plan."], id="a-sentence-that-asks-to-wait-offers-nothing"),
    pytest.param("Membership changes start with the next billing cycle.", [], id="twin-no-offer-at-all"),
]


@pytest.mark.parametrize(("text", "offering"), OFFERS)
def test_what_a_reply_offers(text, offering):
    from loopmetric import read_chat_messages
    from loopmetric.detectors._replies import _acts_of
    (reply,) = [step for step in read_chat_messages([{"role": "user", "content": "hi"},
                                                     {"role": "assistant", "content": text}]).steps
                if step.kind == "llm"]
    assert _acts_of(reply, {}).offers == tuple(frozenset(stems(sentence)) for sentence in offering)


# The same facts told again while the other side presses one demand (each turn says again what the
# turns before it said): a loop one reply sooner, at three, naming the facts as the loop at four does.
PRESSING = [
    pytest.param(["My visa application has to go faster.", "Make my visa application go faster.",
                  "The visa application must go faster."], True, id="the-same-facts-to-one-demand-pressed"),
    pytest.param(KINDS["status"][2][:3], False, id="twin-turns-that-press-nothing-alike"),
]


@pytest.mark.parametrize(("turns", "loop"), PRESSING)
def test_the_same_facts_told_to_a_pressed_demand_are_named(turns, loop):
    opening, replies, _ = KINDS["status"]
    found = restated(chat(opening, replies[:3], turns))
    assert bool(found) is loop, [f.message for f in found]
    if loop:
        (finding,) = found
        assert "telling the same facts again (14)" in finding.message
        assert "the other side pressed the same demand again and again" in finding.message


# An ask said again, then the facts of the first reply told again by a third: a chain of the same acts, a
# loop at three, naming what is asked for and the facts two of its replies told.
CLAIM = ("My insurance claim for the broken phone has not moved in a week.",
         ["Your claim is at step 2 of 4. Could you send a photo of the receipt?",
          "I understand a week feels long for a broken phone. Could you send the receipt photo when you can?"],
         ["Hmm.", "Well.", "Ugh."])
FACTS_TWICE = [
    pytest.param("Until then the claim stays at step 2 of 4.", "asking again for the same thing (send photo receipt), "
                 "telling the same facts again (2, 4)", id="facts-two-replies-told-are-named"),
    pytest.param("Good news: the claim moved to step 3 of 4.", None, id="twin-a-new-fact-moves-on"),
]


@pytest.mark.parametrize(("third", "named"), FACTS_TWICE)
def test_facts_told_again_by_two_replies_are_named(third, named):
    opening, replies, turns = CLAIM
    found = restated(chat(opening, [*replies, third], turns))
    assert [named in f.message for f in found] == ([True] if named else [])


# What a chain asks for again is named when at least two of its replies ask for it: a chain whose
# one ask repeats an ask made before the chain began (its first reply asks nothing) names none.
REPAIR = ("My insurance claim for the broken phone has not moved in a week.",
          ["Could you send a photo of the receipt and the repair quote?",
           "Our repair partner in Leiden handles phones like yours.",
           "Sorry, the workshop queue is long this month. Could you send the receipt photo and the repair quote "
           "when you can?",
           "I'm so sorry about all this trouble."],
          ["Hmm.", "Well.", "Ugh."])
ASKED_BY = [
    pytest.param(REPAIR, "(asking again for the same thing, apologizing again)",
                 id="an-ask-one-reply-of-the-chain-makes-is-not-named"),
    pytest.param((OPENING, REPLIES[:3], TURNS), "(asking again for the same thing (borrower number))",
                 id="twin-an-ask-the-chain-replies-make-is-named"),
]


@pytest.mark.parametrize(("conversation", "says"), ASKED_BY)
def test_what_is_asked_again_is_named_when_two_replies_ask_it(conversation, says):
    (finding,) = restated(chat(*conversation))
    assert says in finding.message
