"""The facts a text tells, read alike by both conversation detectors."""

from __future__ import annotations

import pytest

from loopmetric.detectors._facts import fact_parts, facts
from loopmetric.detectors._news import changes_told
from loopmetric.readers import read_chat_messages


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("My booking is ZX91Q.", {"ZX91Q"}, id="an-id-its-full-stop-dropped"),
    pytest.param("Write to ana@example.com, or call 555-0199", {"ana@example.com", "555-0199"},
                 id="an-e-mail-address-and-a-number"),
    pytest.param("The fare is $412.50 for flight HAT045 on 2024-05-14.", {"412.50", "HAT045", "2024-05-14"},
                 id="an-amount-a-flight-and-a-date"),
    pytest.param("No facts in these words at all", set(), id="twin-words-alone"),
    pytest.param("I could not reach the server (attempt 3), at 10:32:07.", set(),
                 id="an-attempt-counter-and-a-clock-read-to-the-second"),
    pytest.param("The next free slot is at 10:30 on Tuesday.", {"10:30"}, id="a-time-of-day-told-to-the-minute"),
    pytest.param("Logged 2024-05-14 10:30 and 2024-05-14T11:45", set(), id="twin-the-time-of-a-date-is-a-timestamp"),
    pytest.param("Uptime 1:10:30 after the restart.", set(), id="twin-a-duration-in-hours-minutes-and-seconds"),
    pytest.param("The technician is running about 45 minutes late.", {"45 minutes"}, id="a-span-in-minutes"),
    pytest.param("I have waited 3 hrs, then 1 hour more, after 2.5h on hold and 45min in line.",
                 {"3 hrs", "1 hour", "2.5h", "45min"}, id="a-span-in-hours-or-minutes-written-short-or-long"),
    pytest.param("The check took 45 s, then 12.5s more.", set(), id="twin-a-span-in-seconds-is-a-runs-clock"),
    pytest.param("The job took 40 seconds, then 12 secs.", set(), id="twin-a-span-in-seconds-written-long-is-a-clock"),
    pytest.param("We waited 3 Hrs, then 2 HOURS more.", {"3 Hrs", "2 HOURS"}, id="a-span-in-capitals"),
    pytest.param("Ticket T45 mins queue.", {"T45"}, id="twin-digits-ending-an-id-are-no-span"),
    pytest.param("Room 45 minus 3 hotels, version 2.5hx", {"45", "3", "2.5hx"},
                 id="twin-a-number-before-other-words-is-no-span"),
    pytest.param("Request id: a1b2c3d4e5 failed for flight HAT045", {"HAT045"}, id="an-id-named-as-a-request-id"),
    pytest.param("The MMSC URL is http://mms.example.net/mms/wap.", {"http://mms.example.net/mms/wap"},
                 id="a-link-its-full-stop-dropped"),
    pytest.param('Please run check_apn_settings() and read me "internet".', {"check_apn_settings"},
                 id="a-name-written-as-code"),
    pytest.param("A well-known, up-to-date fix: see the settings.", set(), id="twin-hyphenated-words-and-a-colon"),
    pytest.param("", set(), id="no-text"),
])
def test_the_facts_a_text_tells(text, expected):
    assert facts(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("Your 24-month contract", {"24"}, id="a-number-joined-to-a-word-is-the-number"),
    pytest.param("It ends after 24 months.", {"24"}, id="the-same-number-standing-alone"),
    pytest.param("Reviews take 1–2 business days", {"1", "2"}, id="a-range-with-a-long-dash"),
    pytest.param("Reviews take 1-2 business days", {"1", "2"}, id="the-same-range-with-a-hyphen"),
    pytest.param("Flight HAT045 on 2024-05-14", {"HAT045", "2024", "05", "14"}, id="a-date-is-its-year-month-and-day"),
    pytest.param("Incident INC-4410 is open", {"4410"}, id="an-id-after-a-dash-is-its-number"),
    pytest.param("Write to ana@example.com or see http://ex.com/a-1 or run user_id_2()",
                 {"ana@example.com", "http://ex.com/a-1", "user_id_2"}, id="addresses-links-and-code-names-whole"),
    pytest.param("No facts in these words at all", set(), id="twin-words-alone"),
])
def test_the_parts_of_the_facts_a_text_tells(text, expected):
    """A fact is read by its parts that hold a digit: told again in another form, it is no new fact."""
    assert fact_parts(text) == expected


@pytest.mark.parametrize(("exchange", "expected"), [
    pytest.param([("Please turn off Wi-Fi Calling.", "I turned off Wi-Fi Calling."),
                  ("Please restart your phone.", "I restarted my phone."),
                  ("Please switch mobile data on.", "Mobile data is now enabled.")], {1, 2, 3},
                 id="each-turn-says-the-change-its-reply-asked-for"),
    pytest.param([("Please restart your phone.", "I restarted my phone."),
                  ("Please restart your phone.", "I already restarted it!"),
                  ("Please restart your phone.", "I restarted the phone again.")], {1},
                 id="the-same-change-said-again-is-none"),
    pytest.param([("Please try again.", "Still broken."), ("Please look again.", "I looked everywhere.")], set(),
                 id="twin-turns-that-say-no-change"),
    pytest.param([("Please check the settings.", "Still broken."),
                  ("Please reset the settings.", "Okay, I reset the settings.")], {2},
                 id="a-change-after-a-turn-that-says-none"),
    pytest.param([("Insurance cannot be added after booking.", "I was sure I added it when I booked.")], set(),
                 id="a-change-the-reply-said-no-to-is-none"),
    pytest.param([("I can't turn off Wi-Fi Calling from here.", "I turned off Wi-Fi Calling.")], set(),
                 id="a-change-the-reply-said-it-cannot-make-is-none"),
    pytest.param([("I can’t turn off Wi-Fi Calling from here.", "I turned off Wi-Fi Calling.")], set(),
                 id="a-change-the-reply-said-it-cannot-make-with-a-curly-apostrophe-is-none"),
    pytest.param([("Please restart your phone.", "I updated my address.")], set(),
                 id="a-change-no-reply-proposed-is-none"),
    pytest.param([("Thank you.", "I restarted my phone."),
                  ("Please turn off Wi-Fi Calling.", "I turned off Wi-Fi Calling.")], {2},
                 id="a-change-asked-for-after-a-change-told-to-a-reply-that-proposed-nothing"),
    pytest.param([("Please turn off Wi-Fi Calling. Then tell me what you see.", "I turned off Wi-Fi Calling.")], {1},
                 id="a-change-asked-for-in-the-replys-first-sentence"),
    pytest.param([("Please turn off Wi-Fi Calling and reset the settings.",
                   "I turned off Wi-Fi Calling, reset the settings."),
                  ("Please reset the settings.", "I reset the settings again.")], {1},
                 id="two-changes-in-one-turn-each-read-as-its-own-words"),
])
def test_the_turns_that_say_the_change_their_reply_asked_for(exchange, expected):
    """`changes_told`, by turn (1: the first turn after the opening, which is the task, no step)."""
    messages = [{"role": "user", "content": "My phone cannot send picture messages."}]
    for reply, turn in exchange:
        messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": turn}]
    trace = read_chat_messages(messages)
    inputs = [step.step for step in trace.steps if step.kind == "input"]
    assert len(inputs) == len(exchange) and changes_told(trace) == {inputs[n - 1] for n in expected}


def test_a_reply_that_says_a_change_is_not_a_turn_that_says_one():
    """Only the other side's turns are read: the agent saying "I updated it" is its own claim."""
    trace = read_chat_messages([{"role": "user", "content": "Fix my address."},
                                {"role": "assistant", "content": "Please wait: I updated your address."}])
    assert changes_told(trace) == frozenset()


def _slots_offered(times: list[str], wording: str) -> list[dict[str, str]]:
    """A customer turning down each appointment slot the agent offers."""
    answers = ["That does not work for me, I am at work then.", "No, that is too early, sorry.",
               "Hmm no, I have the school run then.", "Nope, still no good.", "No, I cannot do that one either."]
    messages = [{"role": "system", "content": "You book dental appointments."},
                {"role": "user", "content": "I need a cleaning appointment next week."}]
    for time, answer in zip(times, answers):
        messages += [{"role": "assistant", "content": wording.format(time)}, {"role": "user", "content": answer}]
    return messages


_OFFER = "I can offer you a cleaning appointment on Tuesday at {}. Would that suit you?"


_STATUS = "As of {}, your refund is still being processed. Please check back later."


@pytest.mark.parametrize(("times", "wording", "loop"), [
    pytest.param(["09:00", "10:30", "14:15", "16:45", "18:00"], _OFFER, False,
                 id="another-slot-each-turn-told-to-the-minute"),
    pytest.param(["9 am", "10.30 am", "2.15 pm", "4.45 pm", "6 pm"], _OFFER, False,
                 id="another-slot-each-turn-told-in-hours"),
    pytest.param(["09:00"] * 5, _OFFER, True, id="twin-the-same-slot-each-turn"),
    pytest.param(["09:00", "10:30", "09:00", "10:30", "09:00"], _OFFER, True, id="twin-two-slots-offered-by-turns"),
    pytest.param(["10:32", "10:41", "10:55", "11:03", "11:20"], _STATUS, True,
                 id="twin-the-same-status-as-of-the-time-it-was-read"),
])
def test_an_agent_offering_another_time_each_turn_moves_on(times, wording, loop):
    """A time of day is what the reply tells, however it is written: the same offer at a new time is a new
    offer; the same time offered again, or two times offered by turns, says nothing new, nor does the same
    status said as of the time it was read."""
    from loopmetric import detect_loops

    report = detect_loops(_slots_offered(times, wording))
    assert report.success is not loop, report.reason
