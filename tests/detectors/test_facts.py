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
    pytest.param("I could not reach the server (attempt 3), at 10:32.", set(), id="an-attempt-counter-and-a-clock"),
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
