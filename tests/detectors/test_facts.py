"""The facts a text tells, read alike by both conversation detectors."""

from __future__ import annotations

import pytest

from loopmetric.detectors._facts import facts


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
