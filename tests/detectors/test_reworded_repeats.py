"""A conversation loop holds when the words change: the repeated reply of a loop, reworded the way
a model rewords (synonyms for the thing asked or refused, another opener, its sentences in another
order, shortened to one sentence, padded with a courtesy line, a number written in words, a refusal
said without a decline word), is still a loop at the default settings, while the other side's turns
press (ask again, "why", "can't you", "please") and bring nothing the reply takes up. Each row has a
healthy twin: the same rewording moves, but the conversation progresses (a transfer, an
alternative, a new piece given and used, another question answered).

`REWORDED` is the table the brittleness figure is counted on (`count_caught`)."""

from __future__ import annotations

import pytest

from loopmetric import detect_loops
from loopmetric.detectors._stances import stances
from tests._traces import chat

# Seven loops of the design sets (a fare refund refused, an id asked for that the person lacks, the same
# answer given to a customer who presses, the same plan offered to one who said no, the same apology
# to one who asks for the refund, a stall, the same status to one who asks when), each written in
# seven rewordings of four replies.
OPENING = {
    "refusal": "I booked a basic economy ticket to Denver for next Friday and need to cancel. I want my money back.",
    "request": "I can't log in to the payroll portal, I need my password reset.",
    "answer": "Why can't I use the $6,200 check I deposited yesterday?",
    "offer": "Hello, I can't pay my electricity bill this month.",
    "apology": "I was charged twice for my concert tickets. Please fix it.",
    "stall": "A transfer of 1,200 EUR I sent on Monday never arrived.",
    "status": "Where is my refund for order 4471?",
}
PRESS = {
    "refusal": ["That's ridiculous, just refund it.", "I've flown with you for ten years. Make an exception.",
                "So I just lose the money? Seriously?", "Can't you do anything at all? Please."],
    "request": ["I'm a contractor, I don't think I have one.", "I really don't have that.",
                "Still nothing, I looked everywhere.", "Why do you keep asking? I don't have it."],
    "answer": ["I need it today for rent.", "Why?", "Can't you release it early? Please.",
               "So there's nothing at all you can do?"],
    "offer": ["I can't pay more each month, that's the whole problem.", "No. Is there no other help?",
              "I just said no.", "NO"],
    "apology": ["So refund one of them?", "Are you refunding it or not?", "Stop saying sorry and fix it.",
                "Hello?? Refund the duplicate."],
    "stall": ["Any update?", "Hello? What did you find?", "Why is this taking so long?", "Are you still there?"],
    "status": ["When will I get it?", "That's not an answer. When?", "Can you escalate it?", "Hello??"],
}
REWORDINGS = {
    "refusal": {
        "synonyms": [
            "I'm sorry, but basic economy tickets are non-refundable, so I can't issue a refund.",
            "Unfortunately this fare type carries no reimbursement; the purchase price can't be paid back.",
            "I understand. Still, a basic economy booking isn't eligible to have the money returned.",
            "I'm afraid reimbursement isn't available on that kind of fare."],
        "opener": [
            "Basic economy tickets are non-refundable, so I can't issue a refund for this booking.",
            "I hear how frustrating this is. The basic economy ticket can't be refunded.",
            "Thank you for ten years of flying with us. Even so, basic economy doesn't allow a refund.",
            "I know that's not what you hoped for. A refund isn't possible on a basic economy ticket."],
        "order-swapped": [
            "I can't refund this booking, because basic economy tickets are non-refundable.",
            "Because the ticket is basic economy, a refund isn't something I can issue.",
            "Basic economy fares can't be refunded; that's why I'm unable to return the money.",
            "I'm unable to give the money back, since this basic economy fare is non-refundable."],
        "shortened": [
            "I'm sorry, but basic economy tickets are non-refundable, so I can't issue a refund for this booking.",
            "I'm afraid this ticket can't be refunded.",
            "No refund is possible on this fare.",
            "Sorry, still no refund."],
        "padded": [
            "I'm sorry, but basic economy tickets are non-refundable, so I can't issue a refund.",
            "I truly appreciate your patience. Basic economy can't be refunded, I'm afraid.",
            "Thanks so much for your loyalty, it genuinely matters to us. A refund on this basic economy ticket "
            "isn't possible.",
            "I completely understand, and I'm here for you. This ticket still can't be refunded."],
        "number-in-words": [
            "I'm sorry, the $340 basic economy fare is non-refundable, so I can't return it.",
            "The three hundred forty dollars paid for basic economy can't be refunded.",
            "I'm afraid the fare of three hundred and forty dollars is not refundable.",
            "Those three hundred forty dollars can't come back to your card, as the fare is non-refundable."],
        "no-decline-word": [
            "I'm sorry, but basic economy tickets are non-refundable, so I can't issue a refund.",
            "Basic economy fares are final once purchased.",
            "That fare stays as booked, and the amount remains with the ticket.",
            "A basic economy purchase is a final sale, so the fare stays as it is."],
    },
    "request": {
        "synonyms": [
            "To reset it, could you give me your employee ID?",
            "I'll need your staff number to verify you before the reset.",
            "Please share your HR identifier so I can confirm who you are.",
            "What's your personnel number? I verify accounts with it."],
        "opener": [
            "To reset your password, could you give me your employee ID?",
            "Understood. What's your employee ID?",
            "No worries. I'll still need your employee ID to go on.",
            "Got it. Could you check for your employee ID once more?"],
        "order-swapped": [
            "Could you give me your employee ID so I can verify you for the reset?",
            "So I can verify you for the reset, I need your employee ID.",
            "Your employee ID, please: it's how I verify you before a reset.",
            "Verifying you takes your employee ID. Could you share it?"],
        "shortened": [
            "To reset your password I first need to verify you. Could you give me your employee ID?",
            "Your employee ID, please.",
            "I need the employee ID.",
            "Employee ID?"],
        "padded": [
            "To reset your password, could you give me your employee ID?",
            "Thanks for your patience today! Could you share your employee ID?",
            "I'm happy to help with this. Please send me your employee ID when you can.",
            "I appreciate you bearing with me. I'll need your employee ID to continue."],
        "number-in-words": [
            "To reset it, could you give me your 6-digit employee ID?",
            "I'll need the six-digit employee ID to verify you.",
            "Please share the six digit ID on your employee badge.",
            "Could you find your employee ID? It has six digits."],
        "no-decline-word": [
            "To reset your password, could you give me your employee ID?",
            "The reset goes through once you send the employee ID.",
            "Verification runs on the employee ID, so send it over and we'll continue.",
            "Once you give me the employee ID, the reset is quick."],
    },
    "answer": {
        "synonyms": [
            "Mobile deposits above $5,000 are held for 5 business days before the funds are available.",
            "Checks over $5,000 deposited through the app stay on hold for 5 business days.",
            "Large app deposits are frozen for 5 working days until the money clears.",
            "That amount, deposited by phone, is kept back 5 business days before you can spend it."],
        "opener": [
            "Mobile deposits above $5,000 are held for 5 business days before the funds are available.",
            "I understand it's urgent. Mobile deposits above $5,000 are held for 5 business days.",
            "That's a fair question. Deposits over $5,000 made by phone are held 5 business days.",
            "I know rent can't wait. Still, mobile deposits over $5,000 are held for 5 business days."],
        "order-swapped": [
            "Mobile deposits above $5,000 are held for 5 business days before the funds are available.",
            "The funds become available after 5 business days, as mobile deposits above $5,000 are held.",
            "For 5 business days the money stays on hold, since the deposit was above $5,000.",
            "Because it was over $5,000 and made by mobile, the deposit is held for 5 business days."],
        "shortened": [
            "Mobile deposits above $5,000 are held for 5 business days before the funds are available; yours was "
            "deposited yesterday.",
            "It's held for 5 business days.",
            "The hold is 5 business days.",
            "5 business days."],
        "padded": [
            "Mobile deposits above $5,000 are held for 5 business days before the funds are available.",
            "I truly appreciate your patience. Deposits over $5,000 by mobile are held for 5 business days.",
            "Thank you for banking with us, it means a lot. Mobile deposits above $5,000 stay on hold 5 business "
            "days.",
            "I'm here to help however I can. The 5 business day hold applies to mobile deposits over $5,000."],
        "number-in-words": [
            "Mobile deposits above $5,000 are held for 5 business days before the funds are available.",
            "Mobile deposits above five thousand dollars are held for five business days.",
            "Checks over five thousand dollars deposited by mobile are held for five business days.",
            "The hold on mobile deposits over five thousand dollars is five business days."],
        "no-decline-word": [
            "Mobile deposits above $5,000 are held for 5 business days before the funds are available.",
            "The funds stay on hold for 5 business days after a mobile deposit over $5,000.",
            "Deposits over $5,000 by phone clear after 5 business days.",
            "Your money becomes available once the 5 business day hold ends."],
    },
}

REWORDINGS["offer"] = {
    "synonyms": [
        "I can set up a payment plan so you pay the bill in 3 monthly instalments.",
        "Spreading the amount over 3 months could make it easier. Shall I arrange that?",
        "Splitting the bill into three parts each month keeps your account in good standing. Would you like me to "
        "do it?",
        "Would you like me to go ahead with dividing the balance into 3 monthly payments?"],
    "opener": [
        "I can set up a payment plan so you pay the bill in 3 monthly instalments.",
        "I understand. I can set up a 3-month payment plan for the bill.",
        "No problem. The payment plan remains open: I can set up 3 monthly instalments.",
        "I'm here to help. I can still set up the payment plan over 3 months."],
    "order-swapped": [
        "I can set up a payment plan so you pay the bill in 3 monthly instalments.",
        "Paying the bill in 3 monthly instalments is possible: I can set up that plan for you.",
        "Over 3 months, in instalments, is how I can set up the payment plan.",
        "The plan I can set up splits the bill into 3 monthly instalments."],
    "shortened": [
        "I can set up a payment plan so you pay the bill in 3 monthly instalments, added to your regular bill.",
        "I can set up the 3-month plan.",
        "Shall I set up the payment plan?",
        "I can start the plan now."],
    "padded": [
        "I can set up a payment plan so you pay the bill in 3 monthly instalments.",
        "Thank you for telling me. I really appreciate your honesty. I can set up the 3-month payment plan.",
        "I completely understand, and I'm here for you. I can set up a payment plan of 3 monthly instalments.",
        "Thanks for bearing with me today. I can set up that payment plan over 3 months."],
    "number-in-words": [
        "I can set up a payment plan so you pay the bill in 3 monthly instalments.",
        "I can set up a payment plan of three monthly instalments.",
        "I can arrange the plan so the bill is paid in three instalments, one each month.",
        "I can set up the three-instalment payment plan for this bill."],
    "no-decline-word": [
        "I can set up a payment plan so you pay the bill in 3 monthly instalments.",
        "I can set up the payment plan over 3 months for you.",
        "The best way forward is the instalment plan: I can set up 3 monthly payments.",
        "I can put the 3-month instalment plan in place today."],
}
REWORDINGS["apology"] = {
    "synonyms": [
        "I'm very sorry for the double charge and the trouble it has caused.",
        "I apologise for the inconvenience of being billed twice.",
        "My sincere apologies for the duplicate payment on your order.",
        "Please accept my regrets for the extra charge."],
    "opener": [
        "I'm very sorry for the double charge on your order.",
        "I completely understand. I'm sorry about the double charge on your order.",
        "You're right to be annoyed. I apologise for the double charge on your order.",
        "I hear you. I'm so sorry about the double charge on your order."],
    "order-swapped": [
        "I'm very sorry for the double charge on your order.",
        "The double charge on your order is frustrating, and I'm sorry for it.",
        "For the double charge on your order, please accept my apologies.",
        "Being charged twice on your order is never acceptable; I apologise."],
    "shortened": [
        "I'm very sorry for the double charge on your order and the trouble it has caused you this week.",
        "I'm sorry about the double charge.",
        "My apologies.",
        "Sorry again."],
    "padded": [
        "I'm very sorry for the double charge on your order.",
        "I truly value you as a customer. I'm sorry for the double charge on your order.",
        "Thank you for your patience today. I apologise again for the double charge on your order.",
        "I'm here to help in any way I can. I'm sorry you were charged twice for the order."],
    "number-in-words": [
        "I'm very sorry you were charged £118 twice.",
        "I apologise that one hundred eighteen pounds was taken twice.",
        "I'm sorry for the second charge of one hundred eighteen pounds.",
        "My apologies that the hundred and eighteen pounds came out twice."],
    "no-decline-word": [
        "I'm very sorry for the double charge on your order.",
        "I regret that you were charged twice for the order.",
        "It's unfortunate that the order was charged twice, and I apologise.",
        "I feel terrible that your order was billed twice. My apologies."],
}

REWORDINGS["stall"] = {
    "synonyms": [
        "Let me look into that transfer for you. One moment.",
        "I'm checking on it now, bear with me.",
        "Still reviewing the details, this should take a second.",
        "Hang tight while I dig into the records."],
    "opener": [
        "One moment while I look into the transfer.",
        "Thanks for waiting. One moment while I look into the transfer.",
        "I appreciate your patience. I'm still looking into the transfer.",
        "Sorry for the wait. Let me check the transfer once more."],
    "order-swapped": [
        "I'm looking into the transfer now; one moment.",
        "One moment, I'm looking into the transfer.",
        "Please bear with me while I look into the transfer.",
        "The transfer is what I'm looking into, one moment please."],
    "shortened": [
        "Let me look into the transfer you sent on Monday and see where it is. One moment.",
        "One moment.",
        "Still checking.",
        "Just a sec."],
    "padded": [
        "One moment while I look into the transfer.",
        "Thank you so much for your patience. One moment while I look into the transfer.",
        "I really appreciate you bearing with me. I'm still looking into the transfer.",
        "You're a valued customer. Let me keep looking into the transfer."],
    "number-in-words": [
        "One moment while I look into the 1,200 EUR transfer.",
        "I'm looking into the twelve hundred euro transfer, one moment.",
        "Still checking the transfer of one thousand two hundred euros.",
        "One more moment on the twelve hundred euro transfer."],
    "no-decline-word": [
        "One moment while I look into the transfer.",
        "Going through the transfer records now.",
        "Reviewing the transfer details.",
        "Working on the transfer records."],
}
REWORDINGS["status"] = {
    "synonyms": [
        "Your refund for order 4471 is being processed.",
        "The reimbursement for order 4471 is still in progress.",
        "Your money back for order 4471 is currently under way.",
        "The return of funds for order 4471 is still pending."],
    "opener": [
        "Your refund for order 4471 is being processed.",
        "Thanks for asking. Your refund for order 4471 is still being processed.",
        "I understand. The refund for order 4471 is being processed.",
        "I hear you. Your refund for order 4471 is still processing."],
    "order-swapped": [
        "Your refund for order 4471 is being processed.",
        "Being processed: that's the status of your refund for order 4471.",
        "For order 4471, the refund is in processing.",
        "Processing is where the refund for order 4471 stands."],
    "shortened": [
        "Your refund for order 4471 is being processed by our payments team right now.",
        "It's being processed.",
        "Still processing.",
        "Processing."],
    "padded": [
        "Your refund for order 4471 is being processed.",
        "I appreciate your patience. Your refund for order 4471 is being processed.",
        "Thanks for shopping with us, it means a lot. The refund for order 4471 is still being processed.",
        "I'm here to help however I can. Your refund for order 4471 is in processing."],
    "number-in-words": [
        "Your refund of $54 for order 4471 is being processed.",
        "The fifty-four dollar refund for order 4471 is still being processed.",
        "Your refund of fifty four dollars for order 4471 is in processing.",
        "The refund for order 4471, fifty-four dollars, is still processing."],
    "no-decline-word": [
        "Your refund for order 4471 is being processed.",
        "The payments team has your refund for order 4471.",
        "Your refund for order 4471 sits with the payments team.",
        "The payments team is handling the refund for order 4471."],
}

# The twins: the first two replies of the same rewording, then the conversation progresses.
MOVES_ON = {
    "refusal": (["Is there really nothing?", "Yes, please transfer me.", "Thanks."],
                ["What I can do is transfer you to customer relations, who review exceptions for long-standing "
                 "members. Shall I connect you?",
                 "Done: case CR-2281 is open with customer relations, and they'll email you within 48 hours.",
                 "You're welcome. Have a good trip."]),
    "request": (["Found it on my contract: 448210.", "Yes, send it to my work email.", "Got it, thanks."],
                ["Thanks, 448210 matches your record. Shall I send the reset link to your work email?",
                 "The reset link is on its way to your work email and is valid for 30 minutes.",
                 "Glad I could help."]),
    "answer": (["Can I get any of it today?", "Yes please, release that part.", "Great."],
               ["Yes: the first $225 of a mobile deposit is available the next business day, so $225 is usable now.",
                "Done, $225 is now in your available balance; the remaining $5,975 follows after the hold.",
                "You're welcome."]),
    "offer": (["No. Is there anything else? My income is 900 a month now.", "Yes please.", "Thanks."],
              ["With an income under 2,100 EUR a month you qualify for our hardship fund. Shall I refer you?",
               "Done: referral HF-2207 is filed, and the fund will contact you within 5 working days.",
               "You're welcome."]),
    "apology": (["Refund PAY-91a7 please.", "Thanks.", "Bye."],
                ["I've refunded PAY-91a7 for £118.00; it will reach your card in 3-5 working days.",
                 "Your order GL-7730214 keeps both tickets. Anything else?",
                 "Take care."]),
    "stall": (["And?", "Yes, resend it.", "Thanks."],
              ["I found it: the transfer was returned on Tuesday because the IBAN had a typo. Shall I resend it?",
               "Done: resent with reference TR-5512; it should arrive by Thursday.",
               "You're welcome."]),
    "status": (["Ok, when exactly?", "Great, thanks.", "Bye."],
               ["It was issued today: $54 back to your Visa ending 1234.",
                "It should show on your statement within 3-5 business days.",
                "Take care."]),
}

# The other side asking the same question again instead (a repeated answer to a repeated question)
ASKED_AGAIN = {
    "refusal": ["Can I get a refund?", "Can you refund it?", "Will you refund me?", "Refund?"],
    "request": ["Why do you need it?", "What is that for?", "Why?", "Is there another way?"],
    "answer": ["When will the money be available?", "So when can I use it?", "When exactly will it clear?", "When?"],
    "offer": ["Is there no other help?", "Any other option?", "Nothing else?", "What else can you do?"],
    "apology": ["Are you refunding it?", "Will you refund it?", "When is the refund?", "Refund?"],
    "stall": ["Any update?", "Any news?", "Update?", "Anything yet?"],
    "status": ["When will I get it?", "When will the refund arrive?", "When exactly?", "When will it come?"],
}
TURNS = {"pressed": PRESS, "asked-again": ASKED_AGAIN}


def _twin(kind: str, rewording: str) -> tuple[list[str], list[str]]:
    turns, progress = MOVES_ON[kind]
    return REWORDINGS[kind][rewording][:2] + progress, PRESS[kind][:1] + turns


# Missed: an id asked for under four names ("employee ID", "staff number", "HR identifier", "personnel
# number") shares too few words to be told by words alone from a different missing piece asked each time;
# an offer shortened to "I can start the plan now" shares one word with the offers before it, as "I can
# cancel the order" does with "I can check the order"; an offer said again around new verbs ("I can put
# the 3-month instalment plan in place today") reads as a new way forward (half its words new), and one
# in synonyms shares too few words, when the turns between ask rather than say no; a chain that asks for
# the same id (`_replies._same_act`) and then says nothing new is a loop at five replies (the same ask
# alone is one at three: four such replies pass where three fail); at four, two healthy runs of the
# labelled tau-bench design half (asking for a user id or a reservation) fail.
MISSED = {("request", "synonyms", "pressed"): "an id under four names",
          ("request", "synonyms", "asked-again"): "an id under four names",
          ("offer", "shortened", "pressed"): "an offer cut to two words",
          ("offer", "shortened", "asked-again"): "an offer cut to two words",
          ("offer", "synonyms", "asked-again"): "an offer in synonyms, asked about again",
          ("offer", "no-decline-word", "asked-again"): "an offer said again around new verbs",
          ("request", "number-in-words", "asked-again"): "the same ask, then nothing new: five replies needed",
          ("request", "no-decline-word", "asked-again"): "the same ask, then nothing new: five replies needed"}
REWORDED = [pytest.param(kind, rewording, turns, id=f"{kind}-{rewording}-{turns}",
                         marks=[pytest.mark.xfail(strict=True, reason=MISSED[kind, rewording, turns])]
                         if (kind, rewording, turns) in MISSED else [])
            for turns in TURNS for kind in REWORDINGS for rewording in REWORDINGS[kind]]
TWINS = [pytest.param(kind, rewording, id=f"{kind}-{rewording}")
         for kind in REWORDINGS for rewording in REWORDINGS[kind]]


def count_caught() -> dict[str, tuple[int, int]]:
    """(loops caught, loops) by the other side's turns, and (twins failed, twins), at the default settings."""
    counts = {}
    for name, turns in TURNS.items():
        caught = [not detect_loops(chat(OPENING[kind], replies, turns[kind])).success
                  for kind in REWORDINGS for replies in REWORDINGS[kind].values()]
        counts[name] = (sum(caught), len(caught))
    failed = [not detect_loops(chat(OPENING[kind], *_twin(kind, rewording))).success
              for kind in REWORDINGS for rewording in REWORDINGS[kind]]
    counts["twins failed"] = (sum(failed), len(failed))
    return counts


@pytest.mark.parametrize(("kind", "rewording", "turns"), REWORDED)
def test_a_reworded_repeat_is_still_a_loop(kind, rewording, turns):
    """Four replies saying the same thing reworded, to turns that press or ask the same again and
    bring nothing: a loop, the agent's."""
    report = detect_loops(chat(OPENING[kind], REWORDINGS[kind][rewording], TURNS[turns][kind]))
    assert not report.success, report.reason
    (finding,) = report.findings
    assert finding.pattern == "repeated_reply" and finding.count >= 3  # (three alike may be found first)


@pytest.mark.parametrize(("kind", "rewording"), TWINS)
def test_the_same_rewording_in_a_conversation_that_moves_on_passes(kind, rewording):
    """Twice reworded, then a transfer, the missing piece given and used, or another question
    answered: a conversation that moves on."""
    report = detect_loops(chat(OPENING[kind], *_twin(kind, rewording)))
    assert report.success, report.reason


if __name__ == "__main__":  # (the brittleness figure: python -m tests.detectors.test_reworded_repeats)
    print(count_caught())


# Conversations that move on, at the default settings (the brief's twins, written for the rules above:
# declines, asks and answers reworded, the other side pressing or not).
HEALTHY = [
    pytest.param("Can I get a refund on my basic economy ticket?", [
        "I'm sorry, basic economy tickets can't be refunded.",
        "Unfortunately there's no reimbursement on this fare either way.",
        "What I can do is transfer you to customer relations, who review exceptions. Shall I?",
        "Done: case CR-2281 is open, and they'll email you within 48 hours."],
        ["Seriously? Just refund it.", "Can't you make an exception?", "Yes, transfer me.", "Thanks."],
        id="a-refusal-repeated-once-then-a-transfer"),
    pytest.param("I have a few questions about my flight.", [
        "Sure, go ahead.",
        "I'm sorry, animals aren't permitted in the cabin on this route.",
        "Unfortunately that row is full, so I can't move you there.",
        "I'm afraid lounge entry isn't included with an economy fare.",
        "No, the airport shuttle doesn't run before 6 am."],
        ["Can I bring my dog?", "Can I have a window seat in row 12?", "Can I use the lounge?",
         "Is there a shuttle at 5 am?", "Ok, thanks."],
        id="an-agent-declining-different-requests-each-for-its-own-reason"),
    pytest.param("I have a few questions about my flight.", [
        "Sure, go ahead.",
        "I'm sorry, animals aren't permitted in the cabin.",
        "Unfortunately that isn't possible on a full flight.",
        "I'm afraid economy fares don't include that.",
        "No, it doesn't run that early."],
        ["Can I bring my dog?", "Could I get a window seat?", "Can I use the lounge?",
         "Is there a shuttle to the hotel?", "Ok, thanks."],
        id="different-requests-each-declined-in-words-none-of-them-said"),
    pytest.param("I want to bring my pets on the flight.", [
        "Sorry, pets can't travel in the cabin on this route.",
        "Even a tiny cat isn't permitted aboard.",
        "A quiet parrot isn't accepted either.",
        "A sleeping hamster still can't fly with you.",
        "Have a good trip."],
        ["My cat is tiny!", "My parrot is quiet!", "My hamster sleeps all day!", "Fine!"],
        id="each-no-takes-up-what-the-other-side-just-said"),
    pytest.param("I'd like to pay with my American Express card.", [
        "Sorry, we don't accept American Express.",
        "Isn't PayPal an option for you?",
        "Wouldn't a bank transfer work instead?",
        "Couldn't someone else pay with a Visa?",
        "Great, I've sent the transfer details."],
        ["Please, it's the only one I have!", "No, I don't use it. Come on!", "No! Please!", "Fine, a transfer."],
        id="a-no-that-asks-about-a-different-way-each-time"),
    pytest.param("Can I visit the tower today?", [
        "Sorry, the tower isn't open to visitors today.",
        "Unfortunately that can't change. The rooftop garden next door has a similar view and welcomes walk-ins.",
        "I'm afraid not. The harbour cruise leaves from the pier every afternoon and passes right by.",
        "No, I'm sorry. The museum shop sells a virtual tour on a tablet as well.",
        "Enjoy your visit."],
        ["Please!", "Come on!", "Please!", "Ok."],
        id="each-no-with-something-new-besides"),
    pytest.param("What can't I bring to the festival?", [
        "Glass bottles are not permitted on the grounds.",
        "Pets aren't allowed, except for assistance dogs.",
        "No professional cameras with detachable lenses.",
        "Umbrellas larger than 1 metre can't come in either.",
        "That's the full list."],
        ["Anything else?", "What else isn't allowed?", "Anything else?", "Is that all?", "Thanks!"],
        id="a-list-of-rules-told-in-parts-to-anything-else"),
    pytest.param("How do I update my router?", [
        "Open the app and tap Update. The light stays amber while it downloads.",
        "The router restarts by itself; the light remains blue during the install.",
        "Once it's back, the final step is to reconnect your devices.",
        "Your settings stay as they were, so nothing else is needed."],
        ["ok", "Why blue?", "ok, next", "Great!"], id="a-guide-whose-steps-say-what-stays"),
    pytest.param("There's a charge on my card I don't recognise.", [
        "Reviewing your statement: the extra charge is the annual card fee.",
        "Going through the fee terms: it is waived when you spend enough in a year.",
        "Working on the waiver: done, the fee has been reversed.",
        "Glad that's sorted."],
        ["What's that?", "Can it be waived?", "Please waive it.", "Thanks!"],
        id="each-review-tells-what-it-found"),
    pytest.param("I need to reset my password.", [
        "Could you give me your employee ID?",
        "I'll need the employee ID to verify you. It's on your payslip.",
        "Thanks, 448210 matches your record. The reset link is on its way to your work email.",
        "Glad to help."],
        ["I don't have it with me.", "Found it: 448210.", "Got it, thanks!"],
        id="an-id-asked-twice-given-moves-on"),
    pytest.param("My internet is down.", [
        "Could you tell me your account number?",
        "Thanks. What's the postcode at the installation address?",
        "And which router model do you have? It's printed on the back.",
        "Is the power light on the router green, amber or off?"],
        ["It's AC-33910.", "SW1A 1AA.", "A Hub 4, I think.", "Amber."],
        id="a-different-missing-piece-asked-each-time"),
    pytest.param("Is the deposit available?", [
        "Mobile deposits above $5,000 are held for 5 business days.",
        "It's held for five business days, so it will be available on Monday.",
        "Yes, a branch deposit of a check is usually available the next business day.",
        "The branch on King Street is open until 5 pm today."],
        ["Why?", "Can I deposit at a branch instead?", "Where is the nearest branch?", "Thanks!"],
        id="the-same-answer-twice-then-other-questions-each-answered"),
]


@pytest.mark.parametrize("opening, replies, turns", HEALTHY)
def test_conversations_that_move_on_pass(opening, replies, turns):
    report = detect_loops(chat(opening, replies, turns))
    assert report.success, report.reason


# Replies that do nothing but say no, reworded in words they do not share, to a side that presses:
# saying no again is a loop at four replies (as a refusal restated is), three still a conversation
# working out what can be done.
DECLINES = ["I'm sorry, but basic economy tickets are non-refundable, so I can't issue a refund.",
            "Unfortunately this fare type carries no reimbursement; the purchase price can't be paid back.",
            "I understand. Still, a basic economy booking isn't eligible to have the money returned.",
            "I'm afraid reimbursement isn't available on that kind of fare.",
            "Sorry, this purchase cannot be returned for cash."]
PRESSED_TURNS = ["That's ridiculous, just refund it.", "I've flown with you for ten years. Make an exception.",
                 "So I just lose the money? Seriously?", "Can't you do anything at all? Please.", "Unbelievable."]
GOING_ALONG = ["ok", "I see", "ok", "right", "ok"]


@pytest.mark.parametrize(("times", "turns", "loop"), [
    pytest.param(3, PRESSED_TURNS, False, id="three-declines-to-a-pressing-side"),
    pytest.param(4, PRESSED_TURNS, True, id="four-declines-to-a-pressing-side"),
    pytest.param(5, PRESSED_TURNS, True, id="five-declines-to-a-pressing-side"),
    pytest.param(5, GOING_ALONG, False, id="five-declines-to-a-side-going-along"),
])
def test_saying_no_again_in_other_words_to_a_side_that_presses(times, turns, loop):
    report = detect_loops(chat(OPENING["refusal"], DECLINES[:times], turns))
    assert report.success is (not loop), report.reason
    if loop:
        (finding,) = report.findings
        assert finding.count == times and "saying no again, in other words, to a side that pressed" in finding.message
        assert finding.message.startswith("The agent said the same thing")


def test_a_greeting_before_three_declines_is_no_fourth():
    """A reply that says no to nothing (a greeting) and three declines after it: the declines alone
    are three, no loop; the greeting links to none."""
    messages = chat(OPENING["refusal"], ["Thanks for reaching out about your trip to Denver."] + DECLINES[:3],
                    ["Please, just do it!"] + PRESSED_TURNS)
    assert detect_loops(messages).success


@pytest.mark.parametrize(("sentence", "waits"), [
    pytest.param("Hold on, let me pull that up.", True, id="hold-on-asked-of-a-person"),
    pytest.param("The hold on mobile deposits lasts five business days.", False, id="the-hold-on-a-deposit"),
    pytest.param("There's a hold on your card until Monday.", False, id="a-hold-on-a-card"),
    pytest.param("Reviewing the transfer details.", True, id="a-sentence-of-what-the-agent-is-at"),
    pytest.param("I'm still going through the records.", True, id="still-going-through"),
    pytest.param("The bank finished reviewing the claim.", False, id="a-review-finished"),
    pytest.param("Reviewing your statement: the charge is the annual fee.", False, id="a-review-and-what-it-found"),
])
def test_what_asks_to_wait(sentence, waits):
    """"Hold on" asks to wait when asked of a person; a sentence saying only what the agent is at
    ("Reviewing the details.") asks to wait as "one moment" does."""
    assert ("wait" in stances(sentence).kinds) is waits

